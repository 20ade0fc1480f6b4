// Which Target a command compiles for: --arch, else TILEJIT_ARCH, else the
// GPU's, else sm_90a.
#pragma once

#include <string>

#include "codegen/target.h"

namespace tj::rt {
class Context;
}

namespace tj::cli {

codegen::Target choose_target(const std::string& arch_flag);

// The target of the context's GPU, or RuntimeError(NoDriver) naming the GPU and its arch
// when tilejit cannot run kernels on it.
codegen::Target device_target(const rt::Context& ctx);

}  // namespace tj::cli

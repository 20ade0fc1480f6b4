// Which Target a command compiles for: --arch, else TILEJIT_ARCH, else the
// GPU's, else sm_90a.
#pragma once

#include <string>

#include "codegen/target.h"

namespace tj::cli {

codegen::Target choose_target(const std::string& arch_flag);

}  // namespace tj::cli

// Which Target a command compiles for: --arch, else TILEJIT_ARCH, else the
// GPU's, else sm_90a. Which GPU a command runs on: --device, else TILEJIT_DEVICE, else 0.
#pragma once

#include <optional>
#include <string>

#include "api/device.h"
#include "codegen/target.h"

namespace tj::cli {

codegen::Target choose_target(const std::string& arch_flag);

// The target of the context's GPU, or RuntimeError(NoDriver) naming the GPU and its arch
// when tilejit cannot run kernels on it.
codegen::Target device_target(const rt::Context& ctx);

// The number --device gives: digits only, at most 2^31 - 1; else RuntimeError(Usage)
// naming the flag.
int parse_device_flag(const std::string& text);

// The GPU --device names (nullopt: TILEJIT_DEVICE, else 0), its context made current.
// A number past the machine's devices is RuntimeError(Usage) naming the flag and the
// devices there are. Needs the driver.
Device open_device(std::optional<int> device_flag);

}  // namespace tj::cli

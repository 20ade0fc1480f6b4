// Exit codes of the tilejit CLI (design.md): one place, used by main and tests.
#pragma once

namespace tj::cli {
enum ExitCode : int {
  kOk = 0,
  kMismatch = 1,   // the result differs from the reference
  kBadInput = 2,   // bad spec, flag, file or DSL use
  kNoGpu = 3,      // no GPU or driver
  kCompile = 4,    // NVRTC failed
  kDevice = 5,     // launch or device error
};
}  // namespace tj::cli

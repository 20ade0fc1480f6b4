// The device prelude, embedded in the binary at build time.
#pragma once

#include <string_view>

namespace tj::codegen {

// The include name generated code uses; NVRTC receives the prelude under it.
inline constexpr const char* kPreludeName = "tilejit/prelude.cuh";

// The prelude's text, as built into this binary.
std::string_view prelude_source();

}  // namespace tj::codegen

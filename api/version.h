// The library's version, for users who check what they linked against.
#pragma once

namespace tj {

// "MAJOR.MINOR.PATCH" of the tilejit this library was built from.
const char* version();

}  // namespace tj

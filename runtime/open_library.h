// Opening a library that tilejit never links (cuBLAS, cuBLASLt): dlopen() by name, trying
// each of a list in turn, and reporting every name tried when none will do.
#pragma once

#include <string>
#include <vector>

namespace tj::rt {

// Only $`env` when it is set and not empty; else each of `sonames`, then each of them
// under /usr/local/cuda/lib64/ (the toolkit's folder, for when it is not on the loader's path).
std::vector<std::string> library_names(const char* env, const std::vector<std::string>& sonames);

struct OpenedLibrary {
  void* handle = nullptr;  // null when none of the names would do
  std::string name;        // the one that opened
  std::string tried;       // when none did: each name and why, "dlopen(x) failed: ...; y lacks f, g"
                           // ("no library names to try" for an empty list)
};

// The first of `names` that dlopen()s and exports every one of `symbols`; a library that
// lacks some is closed again and named with what it lacks. The caller never closes the
// one returned: function pointers into it live as long as the process.
OpenedLibrary open_first_library(const std::vector<std::string>& names, const std::vector<const char*>& symbols);

}  // namespace tj::rt

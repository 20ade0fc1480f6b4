// Where the tests read the repository's data files (specs, goldens, the prelude's
// sources): $TILEJIT_SOURCE_DIR when set, so that a staged test binary runs from a copy
// of the tree on another machine; else the source tree it was built from.
#pragma once

#include <cstdlib>
#include <string>

namespace tj::test {

inline std::string source_dir() {
  const char* dir = std::getenv("TILEJIT_SOURCE_DIR");
  return dir && *dir ? std::string(dir) : std::string(TILEJIT_SOURCE_DIR);
}

}  // namespace tj::test

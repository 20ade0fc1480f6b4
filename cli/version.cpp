#include "cli/version.h"

// Both come from cli/CMakeLists.txt, for this file only (a new commit recompiles just it).
#ifndef TILEJIT_VERSION
#error "TILEJIT_VERSION is defined by cli/CMakeLists.txt"
#endif
#ifndef TILEJIT_COMMIT
#define TILEJIT_COMMIT ""
#endif

namespace tj::cli {

std::string version_text() {
  const std::string commit = TILEJIT_COMMIT;
  return commit.empty() ? std::string(TILEJIT_VERSION) : std::string(TILEJIT_VERSION) + " (commit " + commit + ")";
}

}  // namespace tj::cli

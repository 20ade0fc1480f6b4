// tilejit's version, with the git commit the build was configured at when it was known.
#pragma once

#include <string>

namespace tj::cli {

// "0.1.0 (commit 49b4b91)", or "0.1.0" when the build had no git checkout.
std::string version_text();

}  // namespace tj::cli

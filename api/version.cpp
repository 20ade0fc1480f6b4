#include "api/version.h"

namespace tj {

const char* version() { return TILEJIT_VERSION; }

}  // namespace tj

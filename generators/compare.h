// Counting mismatches between results and a host reference, keeping the first few for
// the report: the host API's MismatchLog (api/check.h), which users' own checks use too.
#pragma once

#include "api/check.h"
#include "generators/sample.h"

namespace tj::samples {

using tj::MismatchLog;

}  // namespace tj::samples

#include "tests/kernels/test_kernels.h"

#include "tests/kernels/fault_injection.h"
#include "tests/kernels/race_demo.h"

namespace tj::samples {

void register_test_kernels(Registrar& r) {
  r.add(std::make_unique<FaultInjection>());  // faults and hangs on purpose
  r.add(std::make_unique<RaceDemo>());        // races let through with allow_race, and their fixes
}

}  // namespace tj::samples

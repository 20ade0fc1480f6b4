// Test-only kernels: faults, hangs and races on purpose, never built-in samples. The
// test binaries register them (tests/main.cpp, tests/gpu/main.cpp); the CLI loads them
// as a plugin, libtilejit_test_kernels.so (`tilejit --plugin ... run tests/gpu/specs/...`).
#pragma once

#include "generators/registry.h"

namespace tj::samples {

// Adds fault_injection, then race_demo.
void register_test_kernels(Registrar& r);

}  // namespace tj::samples

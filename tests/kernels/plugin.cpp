// The test-only kernels as a plugin, for the CLI: tests/cli/cases.txt and the GPU scripts
// load it with --plugin (the test binaries link the kernels instead).
#include <tilejit/plugin.h>

#include "tests/kernels/test_kernels.h"

TILEJIT_PLUGIN("test-only kernels", tj::samples::register_test_kernels)

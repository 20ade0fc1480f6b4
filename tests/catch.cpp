// Catch2's implementation (version 2 is one header: one translation unit defines it),
// compiled once for both test binaries. Their mains (tests/main.cpp, tests/gpu/main.cpp)
// set up and call run_catch_session: Catch::Session is declared only where the
// implementation is. Not built with the tests' precompiled header, which would include
// catch.hpp before the macro below is defined.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "tests/catch_session.h"

int tj::test::run_catch_session(int argc, char** argv) {
  // Catch2 returns min(255, failed assertions): exactly 77 failures would read as CTest's
  // skip code (SKIP_RETURN_CODE 77 of gpu:all). Any failure is exit code 1.
  return Catch::Session().run(argc, argv) == 0 ? 0 : 1;
}

// Runs the Catch2 session (command line, then the selected cases); tests/catch.cpp.
#pragma once

namespace tj::test {

// 0 when every selected case passed, 1 otherwise: never Catch2's failure count, which
// could alias the GPU binary's skip code (77).
int run_catch_session(int argc, char** argv);

}  // namespace tj::test

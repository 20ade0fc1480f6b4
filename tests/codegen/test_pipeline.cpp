// The Pipeline construct: full/empty barrier pairs per stage, the producer's
// acquire skipping the first round, and phases left to the barriers' waits.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;

TEST_CASE("a pipeline declares full and empty barriers and hands slots over", "[dsl][pipeline]") {
  KernelBuilder k("piped");
  k.threads(32);
  auto buf = k.shared<float>("buf", 3 * 16);
  Pipeline pipe(k, "pipe", 3, 32);
  CHECK(pipe.stages() == 3);
  for_(0, 10, [&](i32 it) {
    pipe.acquire(it);
    buf[pipe.slot(it) * 16] = 1.0f;
    if_(thread_idx_x() == 0, [&] { arrive(pipe.full(it)); });
    pipe.wait_full(it);
    pipe.release(it);
  });
  ir::Kernel kern = k.build();
  const std::string text = ir::to_string(kern);
  CHECK(text.find("  shared pipe_full: mbarrier[3] arrivals 1") != std::string::npos);
  CHECK(text.find("  shared pipe_empty: mbarrier[3] arrivals 32") != std::string::npos);
  CHECK(text.find("    if (i >= 3) {") != std::string::npos);
  CHECK(text.find("      wait(pipe_empty[(i % 3)])") != std::string::npos);
  CHECK(text.find("    wait(pipe_full[(i % 3)])") != std::string::npos);
  CHECK(text.find("    arrive(pipe_empty[(i % 3)])") != std::string::npos);

  codegen::Lowered l = codegen::lower(kern, codegen::Target::sm90a());
  CHECK(l.cuda.find("unsigned tj_phase_pipe_full = 0u;") != std::string::npos);
  CHECK(l.cuda.find("unsigned tj_phase_pipe_empty = 0u;") != std::string::npos);
  CHECK(l.cuda.find("tj::mbar_init(&pipe_empty[2], 32u);") != std::string::npos);
  CHECK(l.cuda.find("tj::mbar_wait(&pipe_empty[(i % 3)], (tj_phase_pipe_empty >> (i % 3)) & 1u);") != std::string::npos);
}

TEST_CASE("a pipeline needs 1 to 32 stages", "[dsl][pipeline][errors]") {
  KernelBuilder k("bad_pipe");
  // The call on a line of its own: inside a macro that spans lines, GCC and clang give
  // std::source_location different lines.
  const unsigned line = __LINE__ + 1;
  auto no_stages = [&] { Pipeline(k, "pipe", 0, 1); };
  CHECK_THROWS_WITH(no_stages(),
                    "test_pipeline.cpp:" + std::to_string(line) + ": error: pipeline 'pipe' has 0 stages\n  fix: use 1 to 32 stages");
  CHECK_THROWS_WITH(Pipeline(k, "deep", 33, 1), Catch::Contains("pipeline 'deep' has 33 stages"));
}

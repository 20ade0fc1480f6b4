// The test-only fault_injection kernel (tests/kernels): the fault is chosen at launch, so
// every fault compiles the same kernel, which the verifier accepts; the hang guard bounds
// its wait.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "dsl/ir/printer.h"
#include "generators/sample.h"
#include "samples/builtin.h"

using namespace tj;

TEST_CASE("fault_injection skips its barrier's only arrival when told at launch", "[samples][fault_injection]") {
  const samples::Sample* s = samples::find_sample("fault_injection");
  REQUIRE(s != nullptr);
  // Registered by the test binary after the built-in samples (tests/main.cpp), with the
  // other test-only kernel (race_demo) last.
  CHECK(samples::registry().origin_of("fault_injection") == "tests/kernels");
  CHECK(samples::all_samples()[samples::all_samples().size() - 2] == s);
  CHECK(samples::all_samples().back() == samples::find_sample("race_demo"));
  samples::Config c = samples::default_config(*s);
  c.cluster = {1, 1, 1};
  std::string ir = ir::to_string(s->build(c));
  CHECK(ir.find("if ((%tid.x == 0) && (skip_arrival == 0)) {") != std::string::npos);
  for (int64_t fault : {0, 1, 2}) {
    c.params["fault"] = fault;
    CHECK(ir::to_string(s->build(c)) == ir);  // the fault travels in the arguments
  }
  codegen::LowerOptions guarded;
  guarded.debug_hangs = true;
  CHECK(codegen::lower(s->build(c), codegen::Target::sm90a(), guarded).cuda.find(
            "tj::mbar_wait_guarded(&gate[0], (tj_phase_gate >> 0) & 1u, \"gate\", 0, 2000000000ull);") != std::string::npos);
}

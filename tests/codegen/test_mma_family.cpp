// The MMA family seam: the Target picks the family, the family owns the accumulator's
// home and budget, and a target without a family refuses tile MMAs and accumulators
// with the user's line instead of failing in emission.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "codegen/mma/family.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;

TEST_CASE("mma family: sm_90a lowers tile MMAs with wgmma, sm_100a has none yet", "[codegen][mma]") {
  const codegen::mma::Family* hopper = codegen::mma::family_for(Target::sm90a());
  REQUIRE(hopper != nullptr);
  CHECK(hopper->name() == "wgmma");
  CHECK(hopper->accumulator_home() == codegen::mma::AccumulatorHome::Registers);
  // m x n f32 over the warpgroup's 128 threads.
  CHECK(hopper->accumulator_registers(ir::AccumulatorDecl{"acc", 64, 256, {}}) == 128);
  CHECK(hopper->accumulator_registers(ir::AccumulatorDecl{"acc", 128, 128, {}}) == 128);
  CHECK(hopper->accumulator_registers(ir::AccumulatorDecl{"acc", 64, 8, {}}) == 4);
  const codegen::mma::Family* blackwell = codegen::mma::family_for(Target::sm100a());
  REQUIRE(blackwell != nullptr);
  CHECK(blackwell->name() == "tcgen05");
  CHECK(blackwell->accumulator_home() == codegen::mma::AccumulatorHome::TensorMemory);
  CHECK(blackwell->accumulator_registers(ir::AccumulatorDecl{"acc", 128, 256, {}}) == 0);
  CHECK(&codegen::mma::family_of(Target::sm100a()) == blackwell);
}

TEST_CASE("mma family: an accumulator no MMA uses still needs the target's family", "[codegen][mma]") {
  KernelBuilder k("lonely_acc");
  k.threads(128);
  const unsigned line = __LINE__ + 1;
  k.accumulator("acc", 64, 64);
  ir::Kernel kern = k.build();
  // sm_90a: declared and emitted as registers.
  codegen::Lowered l = codegen::lower(kern, Target::sm90a());
  CHECK(l.cuda.find("  float acc[32] = {};\n") != std::string::npos);
  // sm_100a: a warpgroup's 64 rows are not a tcgen05 accumulator; refused with the
  // declaration's line, not an internal error in emission.
  try {
    codegen::lower(kern, Target::sm100a());
    FAIL("sm_100a accepted an accumulator it cannot lower");
  } catch (const UserError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].str() ==
          "test_mma_family.cpp:" + std::to_string(line) +
              ": error: accumulator 'acc' has 64 rows; a tcgen05 accumulator holds 128 per CTA, one per tensor-memory lane (a "
              "pair's mma_pair makes 256 rows from two CTAs of 128)\n"
              "  fix: declare it with k.accumulator(\"acc\", 128, 64)");
  }
}

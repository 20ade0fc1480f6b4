// An mma with accumulate true adds to what its accumulator holds: that must be this
// unit's (verify_accumulators).
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// How a persistent consumer's unit starts its accumulator.
enum class Start { Never, FirstFlag, Fill, FillOnOneBranch };

// A persistent consumer over a static schedule: per unit, kblocks MMAs into acc, then the
// store. The k-blocks' stages are loaded by one thread with no pipeline (the check does not
// look at them; the race check runs after it).
ir::Kernel persistent(Start start, Marks& marks) {
  KernelBuilder k("persistent");
  k.threads(128);
  SharedTile a = k.shared_tile<bf16>("a", 64, 64);
  SharedTile b = k.shared_tile<bf16>("b", 128, 64);
  SharedTile d = k.shared_tile<float>("d", 64, 128);
  Accumulator acc = k.accumulator("acc", 64, 128);
  auto tiles = k.param<int32_t>("tiles");
  auto kblocks = k.param<int32_t>("kblocks");
  auto flag = k.param<int32_t>("flag");
  k.role("math", 1, 0, [&](i32) {
    MARK("loop"); for_each_tile(static_persistent(8), tiles, i32(1), [&](i32, i32) {
      if (start == Start::Fill) fill(acc, f32(0.0f));
      if (start == Start::FillOnOneBranch) if_(flag > 0, [&] { fill(acc, f32(0.0f)); });
      for_(0, kblocks, [&](i32 kb) {
        MARK("mma"); mma(acc, stage(a, 0), stage(b, 0), start == Start::FirstFlag ? kb > 0 : boolean(true));
        mma_wait(0);
      });
      store_accumulator(stage(d, 0), acc, f32(1.0f));
    });
  });
  return k.build();
}

std::string expected_start(const Marks& marks) {
  return expand("test_verify_accumulators.cpp:{mma}: error: the mma at test_verify_accumulators.cpp:{mma} adds to accumulator "
                "'acc' (accumulate true), which holds no value yet: no mma, fill, copy or map wrote it before (and in each "
                "later unit of the loop at test_verify_accumulators.cpp:{loop} it holds the previous unit's result)\n"
                "  fix: pass accumulate = false to the first mma of each unit (a k-block index > 0, say), or clear 'acc' "
                "first (fill(acc, 0.0f))",
                marks);
}

}  // namespace

TEST_CASE("an mma that adds to an accumulator nothing set in this unit is refused", "[codegen][verify][accumulators]") {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(persistent(Start::Never, marks));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == expected_start(marks));
}

TEST_CASE("an accumulator the unit clears first, or whose first mma sets it, passes", "[codegen][verify][accumulators]") {
  Marks marks;
  CHECK(lower_errors(persistent(Start::FirstFlag, marks)).empty());
  CHECK(lower_errors(persistent(Start::Fill, marks)).empty());
  // A write on one path counts: what the check cannot decide it lets through.
  CHECK(lower_errors(persistent(Start::FillOnOneBranch, marks)).empty());
}

TEST_CASE("an accumulator set in the first unit only is refused in the next", "[codegen][verify][accumulators]") {
  KernelBuilder k("first_unit_only");
  k.threads(128);
  SharedTile a = k.shared_tile<bf16>("a", 64, 64);
  SharedTile b = k.shared_tile<bf16>("b", 128, 64);
  SharedTile out = k.shared_tile<float>("out", 64, 128);
  Accumulator acc = k.accumulator("acc", 64, 128);
  auto tiles = k.param<int32_t>("tiles");
  unsigned loop = 0, line = 0;
  k.role("math", 1, 0, [&](i32) {
    fill(acc, f32(0.0f));
    loop = __LINE__ + 1;
    for_each_tile(static_persistent(8), tiles, i32(1), [&](i32, i32) {
      line = __LINE__ + 1;
      mma(acc, stage(a, 0), stage(b, 0), boolean(true));
      mma_wait(0);
      store_accumulator(stage(out, 0), acc, f32(1.0f));
    });
  });
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == line);
  CHECK(d[0].message == "the mma at test_verify_accumulators.cpp:" + std::to_string(line) +
                            " adds to accumulator 'acc' (accumulate true), which still holds the previous unit's result: the "
                            "loop over units at test_verify_accumulators.cpp:" + std::to_string(loop) +
                            " starts each unit with it, and nothing sets it between the unit's start and this mma");
  CHECK(d[0].fix == "pass accumulate = false to the first mma of each unit (a k-block index > 0, say), or clear 'acc' first "
                    "(fill(acc, 0.0f)) inside the loop at line " + std::to_string(loop));
}

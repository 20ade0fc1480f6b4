// The race check's corpus for producers that fill several buffers, each behind its
// own 'empty' barrier: a buffer loaded once per unit (attention's Q) beside a ring of
// stages loaded per block (K). An arrive gives back only the buffers whose copies
// the producer makes right after waiting on that barrier: the ring's release does not
// give back the once-per-unit buffer, which its own barrier still guards.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// A producer thread and a consumer warpgroup over `units` units of `blocks` blocks: per
// unit, Q (64 x 64 bf16) into one of `q_stages` buffers behind q_empty, then per block
// stage b % 2 of K behind k_empty; the consumer multiplies Q by each stage of K.
// Racy: the consumer gives Q back before the unit's MMAs that read it.
ir::Kernel once_per_unit_beside_a_ring(bool racy, Marks& marks, unsigned q_stages) {
  KernelBuilder k("once_per_unit");
  k.threads(256);
  SharedTile q = k.shared_tile(ir::Scalar::BF16, "q", 64, 64, q_stages);
  SharedTile kt = k.shared_tile(ir::Scalar::BF16, "kt", 64, 64, 2);
  TileMap qmap = k.tile_map("Q", q, 64), kmap = k.tile_map("K", kt, 64);
  Accumulator acc = k.accumulator("acc", 64, 64);
  auto q_full = k.mbarriers("q_full", q_stages, 1), q_empty = k.mbarriers("q_empty", q_stages, 1);
  auto k_full = k.mbarriers("k_full", 2, 1), k_empty = k.mbarriers("k_empty", 2, 4);
  auto units = k.param<int32_t>("units"), blocks = k.param<int32_t>("blocks");
  const int32_t qs = int32_t(q_stages);
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, units, [&](i32 u) {
        if_(u >= qs, [&] { wait_local(q_empty[u % qs]); });
        arrive_expect_tx(q_full[u % qs], u32(tile_load_bytes(qmap)));
        MARK("load"); tma_load_tile(stage(q, u % qs), qmap, i32(0), u * 64, q_full[u % qs]);
        for_(0, blocks, [&](i32 b) {
          const i32 n = u * blocks + b;
          if_(n >= 2, [&] { wait_local(k_empty[n % 2]); });
          arrive_expect_tx(k_full[n % 2], u32(tile_load_bytes(kmap)));
          tma_load_tile(stage(kt, n % 2), kmap, i32(0), b * 64, k_full[n % 2]);
        });
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    for_(0, units, [&](i32 u) {
      wait_local(q_full[u % qs]);
      MARK("release"); if (racy) if_(thread_idx_x() % 128 == 0, [&] { arrive_relaxed(q_empty[u % qs]); });
      for_(0, blocks, [&](i32 b) {
        const i32 n = u * blocks + b;
        wait_local(k_full[n % 2]);
        MARK("mma"); mma(acc, stage(q, u % qs), stage(kt, n % 2), b > 0);
        mma_wait(0);
        // The ring's stage goes back here, while Q is still read by the next block's MMA.
        if_(lane_id() == 0, [&] { arrive_relaxed(k_empty[n % 2]); });
      });
      if (!racy) if_(thread_idx_x() % 128 == 0, [&] { arrive_relaxed(q_empty[u % qs]); });
    });
  });
  return k.build();
}

void refused(const Builder& build, const char* expected) { tj::test::refused(build, expected, "test_race_corpus_gates.cpp"); }

const char* kQReleasedEarly =
    "@{mma}: error: the mma at @{mma} reads shared buffer 'q' after the arrive at @{release} gave it back to its producer: "
    "the TMA load at @{load} may already be refilling it\n  fix: move the arrive at line {release} after line {mma}: a "
    "stage goes back to its producer after its last read";

}  // namespace

TEST_CASE("racy: a once-per-unit buffer given back before the unit's reads of it (one buffer)",
          "[codegen][verify][races][corpus]") {
  refused([](bool racy, Marks& m) { return once_per_unit_beside_a_ring(racy, m, 1); }, kQReleasedEarly);
}
TEST_CASE("corrected: a ring's release beside a once-per-unit buffer gives back only the ring (one buffer)",
          "[codegen][verify][races][corpus]") {
  lowers([](bool racy, Marks& m) { return once_per_unit_beside_a_ring(racy, m, 1); });
}
TEST_CASE("racy: a once-per-unit buffer given back before the unit's reads of it (two buffers)",
          "[codegen][verify][races][corpus]") {
  refused([](bool racy, Marks& m) { return once_per_unit_beside_a_ring(racy, m, 2); }, kQReleasedEarly);
}
TEST_CASE("corrected: a ring's release beside a once-per-unit buffer gives back only the ring (two buffers)",
          "[codegen][verify][races][corpus]") {
  lowers([](bool racy, Marks& m) { return once_per_unit_beside_a_ring(racy, m, 2); });
}

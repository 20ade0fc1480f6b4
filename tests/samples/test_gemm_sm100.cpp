// The sm_100a GEMM (samples/gemm_sm100): nothing here ran on a Blackwell GPU. What is
// checked without one: NVRTC compiles it to an sm_100a cubin (ptxas accepted every
// tcgen05 instruction), the PTX holds the pair's instructions and none of the other CTA
// group, the host's model of the pair split (who loads what, the bytes each barrier
// counts, who issues and whom the commits reach) matches what the generator emits, the
// transaction and race checks verify the kernel, and sm_90a refuses it by name.
#include <catch2/catch.hpp>

#include <string>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "codegen/mma/tcgen05_desc.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "runtime/error.h"
#include "samples/gemm_sm100.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/source_dir.h"

using namespace tj;
using codegen::Target;

namespace {

samples::Config spec_config(unsigned cluster_y, int64_t bn) {
  cli::Spec spec = cli::load_spec(tj::test::source_dir() + "/samples/specs/gemm_sm100.json");
  samples::Config c = spec.config;
  c.cluster = {1, cluster_y, 1};
  c.params["bn"] = bn;
  return c;
}

struct Built {
  codegen::Lowered lowered;
  rt::CompileResult compiled;
};

Built build(const samples::Config& c) {
  const samples::GemmSm100 sample;
  samples::check_sample_config(sample, c);
  Built b{codegen::lower(sample.build(c), Target::sm100a()), {}};
  b.compiled = rt::compile(samples::compile_request(b.lowered, Target::sm100a()), nullptr);
  return b;
}

std::string check_text(const codegen::Lowered& l, const std::string& prefix) {
  for (const codegen::race::RaceCheck& r : l.races)
    if (to_string(r).rfind(prefix, 0) == 0) return to_string(r);
  for (const codegen::TransactionCheck& t : l.transactions)
    if (to_string(t).rfind(prefix, 0) == 0) return to_string(t);
  return "no check starting '" + prefix + "'";
}

}  // namespace

TEST_CASE("gemm_sm100: the CTA pair's kernel compiles to an sm_100a cubin with the pair's instructions",
          "[samples][gemm_sm100][tcgen05][sm100a][nvrtc]") {
  const Built b = build(spec_config(2, 256));
  INFO(b.compiled.log);
  REQUIRE_FALSE(b.compiled.cubin.empty());
  const std::string& ptx = b.compiled.ptx;
  // Tensor memory: one allocation of 512 columns for the two accumulator buffers, relinquished, freed.
  CHECK(test::count(ptx, "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32") == 1);
  CHECK(test::count(ptx, "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned") == 1);
  CHECK(test::count(ptx, "tcgen05.dealloc.cta_group::2.sync.aligned.b32") == 1);
  // One k-block: four K steps of 16, each one MMA for the pair's 256 x 256 tile.
  CHECK(test::count(ptx, "tcgen05.mma.cta_group::2.kind::f16") == 4);
  // The stage's and the accumulator's commits, multicast to both CTAs of the pair.
  CHECK(test::count(ptx, "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64") == 2);
  // A and B: each CTA's share, completing on the leader's barrier.
  CHECK(test::count(ptx, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2") == 2);
  // The epilogue: 256 columns read 16 at a time, a row per thread.
  CHECK(test::count(ptx, "tcgen05.ld.sync.aligned.32x32b.x16.b32") == 16);
  CHECK(test::count(ptx, "tcgen05.wait::ld.sync.aligned") >= 1);
  CHECK(test::count(ptx, "tcgen05.fence::after_thread_sync") >= 2);
  CHECK(test::count(ptx, "tcgen05.fence::before_thread_sync") >= 2);
  // The dynamic schedule as cluster launch control, for the whole cluster.
  CHECK(test::count(ptx, "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128") == 1);
  CHECK(test::count(ptx, "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128") >= 1);
  // One CTA group in the kernel; no Hopper instruction.
  CHECK(test::count(ptx, "cta_group::1") == 0);
  CHECK(test::count(ptx, "wgmma") == 0);
}

TEST_CASE("gemm_sm100: a cluster of one runs the same kernel with cta_group::1", "[samples][gemm_sm100][tcgen05][sm100a][nvrtc]") {
  const Built b = build(spec_config(1, 128));
  INFO(b.compiled.log);
  REQUIRE_FALSE(b.compiled.cubin.empty());
  const std::string& ptx = b.compiled.ptx;
  CHECK(test::count(ptx, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32") == 1);
  CHECK(test::count(ptx, "tcgen05.mma.cta_group::1.kind::f16") == 4);
  CHECK(test::count(ptx, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64") == 2);
  CHECK(test::count(ptx, "tcgen05.ld.sync.aligned.32x32b.x16.b32") == 8);
  CHECK(test::count(ptx, "cta_group::2") == 0);
  CHECK(test::count(ptx, "multicast::cluster") == 0);
}

TEST_CASE("gemm_sm100: the host's model of the pair split is what the generator emits", "[samples][gemm_sm100][tcgen05][sm100a]") {
  for (int64_t bn : {128, 256}) {
    CAPTURE(bn);
    const samples::Config c = spec_config(2, bn);
    const samples::GemmShape s = samples::gemm_sm100_shape(c);
    const samples::GemmSm100Tiling t = samples::gemm_sm100_tiling(c);
    const samples::PairSplit leader = samples::gemm_sm100_pair_split(s, t, 0), peer = samples::gemm_sm100_pair_split(s, t, 1);
    // The model: each CTA 128 rows of A (the pair's two halves) and half of B's columns,
    // the leader's barrier counting both CTAs' bytes, the leader alone issuing, its commits
    // reaching both CTAs.
    CHECK(leader.a_row0 == 0);
    CHECK(peer.a_row0 == 128);
    CHECK(leader.b_row0 == 0);
    CHECK(peer.b_row0 == unsigned(bn / 2));
    CHECK(leader.b_rows == unsigned(bn / 2));
    CHECK(leader.bytes_per_stage == (128 + bn / 2) * 64 * 2);
    CHECK(leader.leader_expect_tx == 2 * leader.bytes_per_stage);
    CHECK(leader.issues_mma);
    CHECK_FALSE(peer.issues_mma);
    CHECK(leader.stage_commit_mask == 3u);
    CHECK(leader.acc_commit_mask == 3u);
    CHECK(leader.empty_arrivals == 1u);
    CHECK(leader.b_load_rows == leader.b_rows);
    CHECK(peer.b_mask == 2u);

    const codegen::Lowered l = codegen::lower(samples::GemmSm100().build(c), Target::sm100a());
    const std::string& cuda = l.cuda;
    // The leader's expect_tx announces both CTAs' bytes, and the transaction check, which
    // counts the pair loads' bytes in the leader, agrees with it.
    CHECK(test::contains(cuda, "tj::mbar_arrive_expect_tx(&full[(it % 4)], " + std::to_string(leader.leader_expect_tx) + "u);"));
    CHECK(check_text(l, "barrier 'full'").find(": verified") != std::string::npos);
    // The peer's B rows start b_rows further (the leader's at 0); both load into their own
    // stage and complete on the leader's barrier (tma_load_2d_pair).
    CHECK(test::contains(cuda, "(((tj::cluster_ctarank() % 2) == 0) ? 0 : " + std::to_string(peer.b_row0) + ")"));
    CHECK(test::count(cuda, "tj::tma_load_2d_pair(&a[") == 1);
    CHECK(test::count(cuda, "tj::tma_load_2d_pair(&b[") == 1);
    // The instruction covers the pair: M 256, N bn, and its descriptor is the one emitted.
    codegen::mma::Tcgen05Shape shape;
    shape.m = 256, shape.n = unsigned(bn), shape.cta_group = 2;
    CHECK(test::count(cuda, ", " + std::to_string(codegen::mma::tcgen05_instr_desc(shape)) + "u, ") == 4);
    // Commits reach the pair (mask 3 at the leader's rank): the stage's 'empty' in each
    // CTA gets one arrival per phase, the leader's 'acc_empty' one from each epilogue.
    CHECK(test::count(cuda, "tj::tcgen05_commit_multicast<2>(") == 2);
    CHECK(test::contains(cuda, "(unsigned short)((3u << ((unsigned)(tj::cluster_ctarank() & (-2)))))"));
    CHECK(check_text(l, "arrivals on barrier 'empty'").find("verified (1 per phase)") != std::string::npos);
    CHECK(check_text(l, "arrivals on barrier 'acc_full'").find("verified (1 per phase)") != std::string::npos);
    CHECK(check_text(l, "arrivals on barrier 'acc_empty' in the loop").find("verified (2 per phase)") != std::string::npos);
    // The race check walked the kernel and found it clean (commits release the stages,
    // the leader's waits cover its pair loads).
    CHECK(check_text(l, "async proxy").find(": verified") != std::string::npos);
    // Two accumulator buffers of bn columns: the tile's buffer (tile % 2) at bn columns each.
    CHECK(test::contains(cuda, "tj::tmem_alloc<2>(&tj_tmem[0], " + std::to_string(2 * bn) + "u);"));
    CHECK(test::contains(cuda, "const tj::u32 tj_d = tj_tmem[0] + 0u + (tj::u32)((tile % 2)) * " + std::to_string(bn) + "u;"));
  }
}

TEST_CASE("gemm_sm100: two pairs share B by multicast, as the host's model says", "[samples][gemm_sm100][tcgen05][sm100a][nvrtc]") {
  const samples::Config c = spec_config(4, 256);
  const samples::GemmShape s = samples::gemm_sm100_shape(c);
  const samples::GemmSm100Tiling t = samples::gemm_sm100_tiling(c);
  REQUIRE(t.pairs == 2);
  std::vector<samples::PairSplit> r;
  for (unsigned rank = 0; rank < 4; ++rank) r.push_back(samples::gemm_sm100_pair_split(s, t, rank));
  // Each half of B (128 rows) lands in the same CTA of both pairs, loaded in two parts of
  // 64 rows by those two CTAs; a leader still counts its pair's bytes; a stage is free
  // again once both pairs' MMAs read it (a commit from each leader, to every CTA).
  for (unsigned rank = 0; rank < 4; ++rank) {
    CAPTURE(rank);
    CHECK(r[rank].a_row0 == 128 * rank);
    CHECK(r[rank].b_row0 == 128 * (rank % 2));
    CHECK(r[rank].b_load_row0 == 64 * (rank / 2));
    CHECK(r[rank].b_load_rows == 64);
    CHECK(r[rank].b_mask == (rank % 2 ? 0xAu : 0x5u));
    CHECK(r[rank].issues_mma == (rank % 2 == 0));
    CHECK(r[rank].stage_commit_mask == 0xFu);
    CHECK(r[rank].acc_commit_mask == (rank < 2 ? 0x3u : 0xCu));
    CHECK(r[rank].empty_arrivals == 2u);
  }
  CHECK(r[0].leader_expect_tx == 2 * (128 + 128) * 64 * 2);
  const Built b = build(c);
  INFO(b.compiled.log);
  REQUIRE_FALSE(b.compiled.cubin.empty());
  const std::string& cuda = b.lowered.cuda;
  CHECK(test::contains(cuda, "tj::mbar_arrive_expect_tx(&full[(it % 4)], " + std::to_string(r[0].leader_expect_tx) + "u);"));
  CHECK(test::contains(cuda, "((tj::cluster_ctarank() / 2) * " + std::to_string(r[0].b_load_rows) + ")"));
  CHECK(test::contains(cuda, "(5u << ((unsigned)(tj::cluster_ctarank() % 2)))"));
  CHECK(test::contains(cuda, "tj::tcgen05_commit_multicast<2>(&empty[((it0 + i3) % 4)], (unsigned short)(15u));"));
  CHECK(check_text(b.lowered, "barrier 'full'").find(": verified") != std::string::npos);
  CHECK(check_text(b.lowered, "arrivals on barrier 'empty'").find("verified (2 per phase)") != std::string::npos);
  CHECK(check_text(b.lowered, "async proxy").find(": verified") != std::string::npos);
  CHECK(test::count(b.compiled.ptx,
                    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.cta_group::2") == 1);
  CHECK(test::count(b.compiled.ptx, "tcgen05.mma.cta_group::2.kind::f16") == 4);
}

TEST_CASE("gemm_sm100: one accumulator buffer, the epilogue before the next tile's MMAs", "[samples][gemm_sm100][tcgen05]") {
  samples::Config c = spec_config(2, 256);
  c.params["accumulators"] = 1;
  const codegen::Lowered l = codegen::lower(samples::GemmSm100().build(c), Target::sm100a());
  CHECK(test::contains(l.cuda, "tj::tmem_alloc<2>(&tj_tmem[0], 256u);"));
  CHECK(test::contains(l.cuda, "const tj::u32 tj_d = tj_tmem[0] + 0u;"));
  CHECK(check_text(l, "arrivals on barrier 'acc_full'").find("verified (1 per phase)") != std::string::npos);
}

// The epilogue's two chunk buffers alternate within a tile; where a tile has an odd number
// of chunks (bn 64 of 16-bit D: one), its first chunk reuses the buffer of the previous
// tile's last store, so it waits for every store to have read its source. Every width and
// output type the config check takes must pass the race check.
TEST_CASE("gemm_sm100: every width and output type it accepts passes the race check", "[samples][gemm_sm100][tcgen05]") {
  unsigned accepted = 0, one_chunk_accepted = 0;
  for (unsigned cluster_y : {1u, 2u})
    for (int64_t bn : {64, 128, 256})
      for (int64_t out : {0, 1, 2}) {
        samples::Config c = spec_config(cluster_y, bn);
        c.params["out"] = out;
        INFO("cluster 1x" << cluster_y << " bn " << bn << " out " << out);
        if (!samples::GemmSm100().check_config(c).empty()) continue;
        codegen::Lowered l;
        REQUIRE_NOTHROW(l = codegen::lower(samples::GemmSm100().build(c), Target::sm100a()));
        const bool one_chunk = bn == 64 && out != 2;
        CHECK(test::contains(l.cuda, "tj::bulk_wait_read<0>();\n") == one_chunk);
        CHECK(test::contains(l.cuda, "tj::bulk_wait_read<1>();") != one_chunk);
        ++accepted, one_chunk_accepted += one_chunk;
      }
  CHECK(accepted >= 6);
  CHECK(one_chunk_accepted >= 1);  // the case the alternation alone got wrong
}

TEST_CASE("gemm_sm100: sm_90a refuses it, naming the target it is written for", "[samples][gemm_sm100][tcgen05]") {
  const samples::GemmSm100 sample;
  try {
    samples::compile_sample(sample, spec_config(2, 256), Target::sm90a(), nullptr);
    FAIL("sm_90a compiled gemm_sm100");
  } catch (const rt::RuntimeError& e) {
    CHECK(std::string(e.what()) == "kernel 'gemm_sm100' is written for sm_100a, not sm_90a: compile it with --arch sm_100a");
  }
  // The kernel itself, lowered for sm_90a anyway: the pair's ops say what Hopper has instead.
  try {
    codegen::lower(sample.build(spec_config(2, 256)), Target::sm90a());
    FAIL("sm_90a lowered gemm_sm100");
  } catch (const UserError& e) {
    const std::string text = e.what();
    CHECK(text.find("mma_pair is tcgen05's CTA-pair MMA (tcgen05.mma.cta_group::2, sm_100a); wgmma has no pair form") !=
          std::string::npos);
    CHECK(text.find("tma_load_pair is tcgen05") != std::string::npos);
  }
}

TEST_CASE("gemm_sm100: configs it cannot run are refused by field", "[samples][gemm_sm100]") {
  const samples::GemmSm100 sample;
  samples::Config c = spec_config(2, 96);
  c.cluster = {2, 2, 1};
  std::vector<samples::ConfigProblem> p = sample.check_config(c);
  REQUIRE(p.size() == 2);
  CHECK(p[0].field == "cluster");
  CHECK(p[0].message == "gemm_sm100 runs in a cluster of [1, 1] (one CTA, cta_group::1), [1, 2] (a CTA pair along M, "
                        "cta_group::2) or [1, 4] (two pairs sharing B by multicast); the spec gives [2, 2, 1]");
  CHECK(p[1].field == "params.bn");
  CHECK(p[1].message == "bn 96: one tcgen05.mma makes 64, 128 or 256 columns here");
  c = spec_config(2, 256);
  c.params["stages"] = 8;
  p = sample.check_config(c);
  REQUIRE(p.size() == 1);
  CHECK(p[0].field == "params.stages");
  CHECK(p[0].message == "8 stages take 288 KiB of shared memory with the epilogue's buffers; an SM has 227 KiB");
}

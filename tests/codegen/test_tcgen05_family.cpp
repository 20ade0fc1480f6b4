// The tcgen05 MMA family (sm_100a): mma and store_accumulator on an accumulator in
// tensor memory, in a small kernel, and each check's exact text: the accumulator's
// shape, the tensor-memory budget, one CTA group per kernel, pairs, and the race check's
// view of commits (a stage goes back through a commit; an accumulator is read after a
// wait on a commit's barrier). Compiled to an sm_100a cubin; nothing ran on Blackwell.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using namespace tj::dsl;
using codegen::Target;

namespace {

std::string at(unsigned line) { return "test_tcgen05_family.cpp:" + std::to_string(line); }

struct Tcgen05Kernel {
  unsigned acc_n = 128, accumulators = 1, cluster = 1;
  bool pair = false;            // mma_pair with multicast commits
  bool plain_release = false;   // give the stage back with arrive instead of a commit
  bool read_early = false;      // store_accumulator without waiting for the commit
  bool mixed_commit = false;    // commit with CtaGroup::One beside mma_pair
  unsigned acc_line = 0, load_line = 0, mma_line = 0, release_line = 0, store_line = 0, commit_line = 0, last_acc_line = 0;

  ir::Kernel build() {
    KernelBuilder k("tc");
    k.threads(128);
    if (cluster > 1) k.cluster(cluster);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 128, 64, 2);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", pair ? acc_n / 2 : acc_n, 64, 2);
    SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 128, 64, 1);
    TileMap amap = k.tile_map("A", a, 128), bmap = k.tile_map("B", b, pair ? acc_n / 2 : acc_n);
    auto full = k.mbarriers("full", 2, 1), empty = k.mbarriers("empty", 2, 1), done = k.mbarriers("done", 1, 1);
    acc_line = __LINE__ + 1;
    Accumulator acc = k.accumulator("acc", 128, acc_n);
    for (unsigned i = 1; i < accumulators; ++i) {
      last_acc_line = __LINE__ + 1;
      k.accumulator("extra" + std::to_string(i), 128, acc_n);
    }
    k.role("all", 1, 0, [&](i32) {
      if_(thread_idx_x() == 0, [&] {  // the loads
        for_(0, 4, [&](i32 j) {
          i32 st = j % 2;
          if_(j >= 2, [&] { wait_local(empty[st]); });
          arrive_expect_tx(full[st], u32(tile_load_bytes(amap) + tile_load_bytes(bmap)));
          load_line = __LINE__ + 1;
          tma_load_tile(stage(a, st), amap, 0, j * 64, full[st]);
          tma_load_tile(stage(b, st), bmap, 0, j * 64, full[st]);
        });
      });
      if_(thread_idx_x() == 32, [&] {  // the MMAs
        for_(0, 4, [&](i32 j) {
          i32 st = j % 2;
          wait_local(full[st]);
          mma_line = __LINE__ + 1;
          if (pair) mma_pair(acc, stage(a, st), stage(b, st), j > 0); else mma(acc, stage(a, st), stage(b, st), j > 0);
          release_line = __LINE__ + 1;
          if (plain_release) arrive(empty[st]);
          else if (pair) mma_commit_multicast(empty[st], CtaGroup::Two, u32(3u) << cast<uint32_t>(pair_leader_rank()));
          else mma_commit(empty[st], CtaGroup::One);
        });
        commit_line = __LINE__ + 1;
        if (mixed_commit) mma_commit(done[0], CtaGroup::One);
        else if (pair) mma_commit_multicast(done[0], CtaGroup::Two, u32(3u) << cast<uint32_t>(pair_leader_rank()));
        else mma_commit(done[0], CtaGroup::One);
      });
      if (!read_early) wait(done[0]);
      store_line = __LINE__ + 1;
      store_accumulator(stage(d, 0), acc, Columns{0, 64}, [&](const Elem& e) { return e.value; });
    });
    return k.build();
  }
};

std::vector<std::string> errors(Tcgen05Kernel& t) {
  std::vector<std::string> out;
  try {
    codegen::lower(t.build(), Target::sm100a());
  } catch (const UserError& e) {
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.str());
  }
  return out;
}

}  // namespace

TEST_CASE("tcgen05 family: one CTA's mma, commit and epilogue in the PTX of an sm_100a cubin", "[codegen][tcgen05][sm100a][nvrtc]") {
  Tcgen05Kernel t;
  codegen::Lowered l = codegen::lower(t.build(), Target::sm100a());
  // Tensor memory for the accumulator: 128 columns, allocated at entry and freed at exit.
  CHECK(test::contains(l.cuda, "tj::tmem_alloc<1>(&tj_tmem[0], 128u);"));
  CHECK(test::contains(l.cuda, "tj::tmem_dealloc<1>(tj_tmem[0], 128u);"));
  CHECK(test::count(l.cuda, "tj::tcgen05_mma_f16<1>(tj_d, ") == 4);
  rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm100a()), nullptr);
  INFO(r.log);
  REQUIRE_FALSE(r.cubin.empty());
  // Four K steps per k-block (NVRTC may unroll the loop over k-blocks).
  CHECK(test::count(r.ptx, "tcgen05.mma.cta_group::1.kind::f16") % 4 == 0);
  CHECK(test::count(r.ptx, "tcgen05.mma.cta_group::1.kind::f16") >= 4);
  CHECK(test::count(r.ptx, "tcgen05.ld.sync.aligned.32x32b.x16.b32") == 4);
  CHECK(test::count(r.ptx, "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64") >= 2);
}

TEST_CASE("tcgen05 family: the accumulator's shape and the tensor-memory budget", "[codegen][tcgen05][verifier]") {
  SECTION("more columns than one MMA writes") {
    Tcgen05Kernel t;
    t.acc_n = 272;
    const auto e = errors(t);
    REQUIRE(!e.empty());
    CHECK(e.back() == at(t.acc_line) + ": error: accumulator 'acc' has 272 columns; one tcgen05.mma writes 16 to 256 columns, a multiple of 16\n"
                                       "  fix: split it into accumulators of at most 256 columns (they share the 512 columns of tensor memory)");
  }
  SECTION("more tensor memory than a CTA has") {
    Tcgen05Kernel t;
    t.acc_n = 256;
    t.accumulators = 3;
    const auto e = errors(t);
    REQUIRE(e.size() == 1);
    CHECK(e[0] == at(t.last_acc_line) + ": error: the accumulators take 768 columns of tensor memory together: a CTA has 512\n"
                                        "  fix: use fewer or narrower accumulators (at most 512 columns in all)");
  }
  SECTION("two accumulators fit: one allocation of 256 columns, the second at column 128") {
    Tcgen05Kernel t;
    t.accumulators = 2;
    codegen::Lowered l = codegen::lower(t.build(), Target::sm100a());
    CHECK(test::contains(l.cuda, "tj::tmem_alloc<1>(&tj_tmem[0], 256u);"));
    CHECK(test::contains(l.cuda, "columns 128..255 of the allocation at tj_tmem[0]"));
  }
}

TEST_CASE("tcgen05 family: one CTA group per kernel, pairs only in clusters of pairs", "[codegen][tcgen05][verifier]") {
  SECTION("mma_pair beside a cta_group::1 commit") {
    Tcgen05Kernel t;
    t.pair = true, t.cluster = 2, t.mixed_commit = true;
    const auto e = errors(t);
    REQUIRE(e.size() == 1);
    CHECK(e[0].find(at(t.commit_line) + ": error: the mma_commit at " + at(t.commit_line) + " uses cta_group::1, but the ") == 0);
    CHECK(e[0].find(" uses cta_group::2: a kernel works with one CTA group\n  fix: use CtaGroup::Two for every tcgen05 op") !=
          std::string::npos);
  }
  SECTION("mma_pair in a cluster of one") {
    Tcgen05Kernel t;
    t.pair = true;
    const auto e = errors(t);
    REQUIRE(!e.empty());
    bool found = false;
    for (const std::string& s : e)
      found |= s.find("error: cta_group::2 works on the CTA pairs of a cluster, and this kernel's cluster (1x1x1, 1 CTA) has none") !=
               std::string::npos;
    CHECK(found);
  }
}

TEST_CASE("tcgen05 family: the race check takes a commit as the stage's release and the accumulator's completion",
          "[codegen][tcgen05][races]") {
  SECTION("the stage given back by a plain arrive while the MMA may still read it") {
    Tcgen05Kernel t;
    t.plain_release = true;
    const auto e = errors(t);
    REQUIRE(!e.empty());
    CHECK(e[0] == at(t.release_line) + ": error: the arrive at " + at(t.release_line) +
                      " gives shared buffer 'a' back to its producer while the mma at " + at(t.mma_line) +
                      " may still be reading it: the TMA load at " + at(t.load_line) + " may refill it mid-read\n"
                      "  fix: give the stage back with mma_commit(empty[...], group) after the mma: it arrives once the MMAs have completed");
  }
  SECTION("the accumulator read without waiting for the commit") {
    Tcgen05Kernel t;
    t.read_early = true;
    const auto e = errors(t);
    REQUIRE(!e.empty());
    CHECK(e[0] == at(t.store_line) + ": error: the store_accumulator at " + at(t.store_line) +
                      " reads accumulator 'acc' while the mma at " + at(t.mma_line) + " may still be writing it\n"
                      "  fix: wait on the barrier of an mma_commit issued after line " + std::to_string(t.mma_line) +
                      " (it completes once the MMA has) before line " + std::to_string(t.store_line));
  }
  SECTION("commits and waits as written: verified") {
    Tcgen05Kernel t;
    codegen::Lowered l = codegen::lower(t.build(), Target::sm100a());
    bool verified = false;
    for (const codegen::race::RaceCheck& r : l.races) verified |= to_string(r).rfind("async proxy: verified", 0) == 0;
    CHECK(verified);
  }
}

TEST_CASE("tcgen05 family: an accumulator with stages, one buffer per MMA and store", "[codegen][tcgen05][verifier]") {
  auto build = [](unsigned stages, int32_t buffer, bool use_stage) {
    KernelBuilder k("staged");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 128, 64, 1);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", 128, 64, 1);
    SharedTile d = k.shared_tile(ir::Scalar::BF16, "d", 128, 64, 1);
    auto done = k.mbarriers("done", 1, 1);
    Accumulator acc = k.accumulator("acc", 128, 128, stages);
    k.role("all", 1, 0, [&](i32) {
      const Accumulator use = use_stage ? stage(acc, i32(buffer)) : acc;
      if_(thread_idx_x() == 0, [&] {
        mma(use, stage(a, 0), stage(b, 0), boolean(false));
        mma_commit(done[0], CtaGroup::One);
      });
      wait(done[0]);
      store_accumulator(stage(d, 0), use, Columns{0, 64}, [&](const Elem& e) { return e.value; });
    });
    return k.build();
  };
  SECTION("two buffers: 256 columns, buffer 1 at column 128") {
    codegen::Lowered l = codegen::lower(build(2, 1, true), Target::sm100a());
    CHECK(test::contains(l.cuda, "tj::tmem_alloc<1>(&tj_tmem[0], 256u);"));
    CHECK(test::contains(l.cuda, "const tj::u32 tj_d = tj_tmem[0] + 0u + (tj::u32)(1) * 128u;"));
    CHECK(test::contains(l.cuda, "2 buffers of 128x128 f32 in tensor memory, columns 0..255"));
  }
  SECTION("a buffer past the stages") {
    try {
      codegen::lower(build(2, 2, true), Target::sm100a());
      FAIL("accepted stage 2 of 2");
    } catch (const UserError& e) {
      REQUIRE(e.diagnostics().size() == 2);
      CHECK(e.diagnostics()[0].str().find("error: stage 2 of accumulator 'acc', which has 2\n  fix: use a stage from 0 to 1") !=
            std::string::npos);
    }
  }
  SECTION("wgmma keeps one buffer in registers") {
    try {
      codegen::lower(build(2, 0, true), Target::sm90a());
      FAIL("sm_90a accepted a staged accumulator");
    } catch (const UserError& e) {
      bool found = false;
      for (const Diagnostic& d : e.diagnostics())
        found |= d.str().find("error: accumulator 'acc' has 2 stages; wgmma keeps an accumulator in registers, one buffer\n"
                              "  fix: declare one accumulator per buffer (k.accumulator(name, m, n)), or compile for sm_100a "
                              "(tensor memory)") != std::string::npos;
      CHECK(found);
    }
  }
  SECTION("stage of an accumulator with one buffer") {
    CHECK_THROWS_WITH(build(1, 0, true), Catch::Contains("stage of accumulator 'acc', which has one buffer"));
  }
}

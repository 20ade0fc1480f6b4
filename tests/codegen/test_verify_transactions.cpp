// verify_transactions: the bytes each barrier phase announces against the bytes its
// copies deliver, per CTA rank (unicast, multicast, peers' copies, loops, branches),
// and the multicast mask helpers it evaluates.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_verify_transactions.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;
using tj::codegen::Target;

// ---- transaction bytes --------------------------------------------------------------------------

TEST_CASE("expect_tx must announce the box's bytes, naming both numbers and the rank", "[codegen][verify][transactions]") {
  unsigned l_expect = 0, l_load = 0;
  KernelBuilder k("tx_short");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(4096)); l_expect = __LINE__;
    tma_load(tile[0], t, {0, 0}, full[0]); l_load = __LINE__;
  });
  wait(full[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, 4096, l_expect, 8192, l_load), kGuardFix));

  // Wrong in one rank only: rank 1 of a cluster of 2 announces half the box.
  KernelBuilder k2("tx_short_rank1");
  k2.cluster(2);
  TensorMap t2 = k2.tensor_map<float>("t", {32, 64});
  auto tile2 = k2.shared<float>("tile", 2048);
  auto full2 = k2.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], select(cluster_ctarank() == 1, u32(4096), u32(kBox))); l_expect = __LINE__;
    tma_load(tile2[0], t2, {0, 0}, full2[0]); l_load = __LINE__;
  });
  wait(full2[0]);
  std::vector<Diagnostic> d2 = lower_errors(k2.build());
  REQUIRE(d2.size() == 1);
  CHECK(d2[0].str() == diag(l_expect, tx_message(1, 4096, l_expect, 8192, l_load), kGuardFix));

  // Too much announced: the other fix.
  KernelBuilder k3("tx_long");
  TensorMap t3 = k3.tensor_map<float>("t", {32, 64});
  auto tile3 = k3.shared<float>("tile", 2048);
  auto full3 = k3.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full3[0], u32(16384)); l_expect = __LINE__;
    tma_load(tile3[0], t3, {0, 0}, full3[0]); l_load = __LINE__;
  });
  wait(full3[0]);
  std::vector<Diagnostic> d3 = lower_errors(k3.build());
  REQUIRE(d3.size() == 1);
  CHECK(d3[0].str() == diag(l_expect, tx_message(0, 16384, l_expect, 8192, l_load), kMissingFix));

  // Corrected: the box's 8192 bytes.
  KernelBuilder ok("tx_exact");
  TensorMap t4 = ok.tensor_map<float>("t", {32, 64});
  auto tile4 = ok.shared<float>("tile", 2048);
  auto full4 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full4[0], u32(static_cast<uint32_t>(t4.box_bytes())));
    tma_load(tile4[0], t4, {0, 0}, full4[0]);
  });
  wait(full4[0]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("a TMA load issued by every thread is counted once per thread", "[codegen][verify][transactions]") {
  unsigned l_expect = 0;
  KernelBuilder k("tx_every_thread");
  k.threads(128);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] { arrive_expect_tx(full[0], u32(kBox)); l_expect = __LINE__; });
  tma_load(tile[0], t, {0, 0}, full[0]); const unsigned l_load = __LINE__;
  wait(full[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, 8192, l_expect, 128 * 8192, l_load), kGuardFix));
  CHECK(contains(d[0].fix, "guard it with if_(thread_idx_x() == 0, ...)"));

  // The fix says how many times the copy was issued: the CTA's thread count, all dimensions.
  unsigned l_expect2 = 0;
  KernelBuilder k2("tx_every_thread_2d");
  k2.threads(32, 2);
  TensorMap t2 = k2.tensor_map<float>("t", {32, 64});
  auto tile2 = k2.shared<float>("tile", 2048);
  auto full2 = k2.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0 && thread_idx_y() == 0, [&] { arrive_expect_tx(full2[0], u32(kBox)); l_expect2 = __LINE__; });
  tma_load(tile2[0], t2, {0, 0}, full2[0]); const unsigned l_load2 = __LINE__;
  wait(full2[0]);
  std::vector<Diagnostic> d2 = lower_errors(k2.build());
  REQUIRE(d2.size() == 1);
  CHECK(d2[0].message == tx_message(0, 8192, l_expect2, 64 * 8192, l_load2));
  CHECK(d2[0].fix ==
        "announce box bytes x copies x multicast senders into this CTA; a copy issued by every thread is issued 64 "
        "times: guard it with if_(thread_idx_x() == 0, ...)");

  // Corrected: one thread issues it.
  KernelBuilder ok("tx_one_thread");
  ok.threads(128);
  TensorMap t3 = ok.tensor_map<float>("t", {32, 64});
  auto tile3 = ok.shared<float>("tile", 2048);
  auto full3 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full3[0], u32(kBox));
    tma_load(tile3[0], t3, {0, 0}, full3[0]);
  });
  wait(full3[0]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("multicast from rank 0 lands in every CTA of the mask", "[codegen][verify][transactions][multicast]") {
  // Every CTA announces the box; rank 0 alone loads it for all four.
  auto build = [](bool expect_everywhere, unsigned* l_expect, unsigned* l_load) {
    KernelBuilder k(expect_everywhere ? "mc_all" : "mc_rank0");
    k.cluster(4);
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    i32 tid = thread_idx_x(), rank = cluster_ctarank();
    boolean announces = expect_everywhere ? tid == 0 : tid == 0 && rank == 0;
    if_(announces, [&] { arrive_expect_tx(full[0], u32(kBox)); *l_expect = __LINE__; });
    if_(tid == 0 && rank == 0, [&] { tma_load_multicast(tile[0], t, {0, 0}, full[0], mask_all()); *l_load = __LINE__; });
    wait(full[0]);
    return k.build();
  };
  unsigned l_expect = 0, l_load = 0;
  codegen::Lowered l = codegen::lower(build(true, &l_expect, &l_load), Target::sm90a());
  CHECK(contains(l.cuda, "tj::tma_load_2d_multicast(&tile[0], &t, 0, 0, &full[0], ((1u << ((unsigned)tj::cluster_nctarank())) - 1u));"));

  std::vector<Diagnostic> d = lower_errors(build(false, &l_expect, &l_load));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(1, 0, l_expect, 8192, l_load), kGuardFix));
}

TEST_CASE("every CTA multicasting to all: each receives cluster-size boxes", "[codegen][verify][transactions][multicast]") {
  auto build = [](uint32_t announce, unsigned* l_expect, unsigned* l_load) {
    KernelBuilder k("mc_fan_in");
    k.cluster(4);
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 4 * 2048);
    auto full = k.mbarriers("full", 1, 1);
    i32 rank = cluster_ctarank();
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(announce)); *l_expect = __LINE__;
      tma_load_multicast(tile[rank * 2048], t, {0, rank * 64}, full[0], mask_all()); *l_load = __LINE__;
    });
    wait(full[0]);
    return k.build();
  };
  unsigned l_expect = 0, l_load = 0;
  CHECK(lower_errors(build(4 * kBox, &l_expect, &l_load)).empty());
  std::vector<Diagnostic> d = lower_errors(build(kBox, &l_expect, &l_load));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, 8192, l_expect, 4 * 8192, l_load), kGuardFix));
}

TEST_CASE("expect_tx on a peer's barrier counts for the peer", "[codegen][verify][transactions][dsmem]") {
  // Rank 0 announces rank 1's box on rank 1's barrier; rank 1 loads it.
  auto build = [](int announced_rank, unsigned* l_expect, unsigned* l_load) {
    KernelBuilder k("tx_remote_expect");
    k.cluster(2);
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    i32 tid = thread_idx_x(), rank = cluster_ctarank();
    if_(tid == 0 && rank == 0, [&] { arrive_expect_tx(map_shared_rank(full, announced_rank)[0], u32(kBox)); *l_expect = __LINE__; });
    if_(tid == 0 && rank == 1, [&] { tma_load(tile[0], t, {0, 0}, full[0]); *l_load = __LINE__; });
    if_(rank == 1, [&] { wait(full[0]); });
    return k.build();
  };
  unsigned l_expect = 0, l_load = 0;
  codegen::Lowered l = codegen::lower(build(1, &l_expect, &l_load), Target::sm90a());
  CHECK(contains(l.cuda, "tj::mbar_arrive_expect_tx(tj::map_shared_rank(full, 1), 0, 8192u);"));
  // Announced on rank 0's own barrier instead: rank 0 expects bytes that never come (and rank 1
  // gets bytes it did not announce; the first rank that differs is reported).
  std::vector<Diagnostic> d = lower_errors(build(0, &l_expect, &l_load));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, 8192, l_expect, 0, l_load), kMissingFix));
}

TEST_CASE("bulk_copy_to_peer and st_async bytes count for the receiving CTA", "[codegen][verify][transactions][dsmem]") {
  // Rank 0 sends 256 bytes with a bulk copy and 128 x 4 bytes with st_async to rank 1.
  auto build = [](int announcing_rank, uint32_t announce, unsigned* l_expect, unsigned* l_copy) {
    KernelBuilder k("tx_peer_copies");
    k.cluster(2);
    auto src = k.shared<uint32_t>("src", 64);
    auto dst = k.shared<uint32_t>("dst", 64 + 128);
    auto full = k.mbarriers("full", 1, 1);
    i32 tid = thread_idx_x(), rank = cluster_ctarank();
    if_(tid == 0 && rank == announcing_rank, [&] { arrive_expect_tx(full[0], u32(announce)); *l_expect = __LINE__; });
    if_(rank == 0, [&] {
      if_(tid == 0, [&] {
        bulk_copy_to_peer(map_shared_rank(dst, 1)[0], src[0], 256, map_shared_rank(full, 1)[0]); *l_copy = __LINE__;
      });
      st_async(map_shared_rank(dst, 1)[64 + tid], cast<uint32_t>(tid), map_shared_rank(full, 1)[0]);
    });
    if_(rank == 1, [&] { wait(full[0]); });
    return k.build();
  };
  unsigned l_expect = 0, l_copy = 0;
  CHECK(lower_errors(build(1, 256 + 512, &l_expect, &l_copy)).empty());

  // Forgetting that st_async runs in all 128 threads: rank 1 announces 256 + 4.
  std::vector<Diagnostic> d = lower_errors(build(1, 260, &l_expect, &l_copy));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(1, 260, l_expect, 768, l_copy), kGuardFix));

  // Announced by the sender on its own barrier: nothing lands in rank 0.
  std::vector<Diagnostic> d0 = lower_errors(build(0, 768, &l_expect, &l_copy));
  REQUIRE(d0.size() == 1);
  CHECK(d0[0].str() == diag(l_expect, tx_message(0, 768, l_expect, 0, l_copy), kMissingFix));
}

TEST_CASE("a loop body is its own phase", "[codegen][verify][transactions]") {
  KernelBuilder k("tx_loop");
  auto iters = k.param<int32_t>("iters");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  for_(0, iters, [&](i32 it) {
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBox));
      tma_load(tile[0], t, {0, it * 64}, full[0]);
    });
    wait(full[0]);
    sync_threads();
  });
  CHECK(lower_errors(k.build()).empty());

  // The copy moved out of the loop: the loop announces a box that never comes, and the
  // kernel body receives one it never announced. Both regions are reported, outer first.
  unsigned l_expect = 0;
  KernelBuilder bad("tx_loop_split");
  auto iters2 = bad.param<int32_t>("iters");
  TensorMap t2 = bad.tensor_map<float>("t", {32, 64});
  auto tile2 = bad.shared<float>("tile", 2048);
  auto full2 = bad.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] { tma_load(tile2[0], t2, {0, 0}, full2[0]); }); const unsigned l_load = __LINE__;
  for_(0, iters2, [&](i32) {
    if_(thread_idx_x() == 0, [&] { arrive_expect_tx(full2[0], u32(kBox)); l_expect = __LINE__; });
    wait(full2[0]);
  });
  std::vector<Diagnostic> d = lower_errors(bad.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == diag(l_load, tx_message(0, 0, 0, 8192, l_load), kGuardFix));
  CHECK(d[1].str() == diag(l_expect, tx_message(0, 8192, l_expect, 0, 0), kMissingFix));
}

// verify_transactions.cpp groups events by the barrier array's name only
// (barrier_name() drops the index): bytes announced on full[0] and a box that
// completes on full[1] add up as if they met on one barrier, and the kernel
// lowers although full[0]'s phase waits for 8192 bytes that never arrive
// (and full[1] gets bytes it never announced: a hang or a fault on the GPU).
TEST_CASE("expect_tx on one barrier of an array does not cover a copy completing on another",
          "[codegen][verify][transactions]") {
  KernelBuilder k("tx_elements");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 2, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBox));
    tma_load(tile[0], t, {0, 0}, full[1]);
  });
  wait(full[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].message.rfind("transaction bytes of barrier 'full", 0) == 0);
}

TEST_CASE("an else_ branch runs where its condition is false", "[codegen][verify][transactions]") {
  unsigned l_expect = 0, l_load = 0;
  KernelBuilder k("tx_else");
  k.threads(128);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  // The load runs in thread 0, the announcement in the other 127 threads.
  if_(thread_idx_x() == 0, [&] { tma_load(tile[0], t, {0, 0}, full[0]); l_load = __LINE__; }).else_([&] {
    arrive_expect_tx(full[0], u32(kBox)); l_expect = __LINE__;
  });
  wait(full[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, 127 * 8192, l_expect, 8192, l_load), kMissingFix));

  // Corrected: announce in the else_ of `thread_idx_x() != 0`, i.e. in thread 0.
  KernelBuilder ok("tx_else_ok");
  ok.threads(128);
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto tile2 = ok.shared<float>("tile", 2048);
  auto full2 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() != 0, [&] {}).else_([&] {
    arrive_expect_tx(full2[0], u32(kBox));
    tma_load(tile2[0], t2, {0, 0}, full2[0]);
  });
  wait(full2[0]);
  CHECK(lower_errors(ok.build()).empty());
}

// ---- multicast mask helpers --------------------------------------------------------------

namespace {
// The value of a mask in CTA `rank` of cluster `c`, as the verifier evaluates it.
uint32_t mask_in(const u32& m, const ir::Dim3& c, unsigned rank) {
  std::optional<int64_t> v = codegen::eval_int(m.expr(), codegen::EvalEnv{c, ir::Dim3{32, 1, 1}, rank, std::nullopt});
  REQUIRE(v.has_value());
  return static_cast<uint32_t>(*v);
}
// The ranks of cluster `c` whose coordinates satisfy `keep(x, y, z)`, as a mask.
template <class F>
uint32_t ranks_where(const ir::Dim3& c, F keep) {
  uint32_t m = 0;
  for (unsigned r = 0; r < c.count(); ++r)
    if (keep(r % c.x, r / c.x % c.y, r / (c.x * c.y))) m |= 1u << r;
  return m;
}
}  // namespace

TEST_CASE("mask_all, mask_rank, mask_row and mask_col name the right CTAs in 1-D and 2-D clusters",
          "[codegen][verify][multicast][masks]") {
  for (ir::Dim3 c : {ir::Dim3{4, 1, 1}, ir::Dim3{4, 2, 1}, ir::Dim3{2, 4, 1}, ir::Dim3{16, 1, 1}}) {
    KernelBuilder k("masks");
    k.cluster(c.x, c.y, c.z);
    u32 all = mask_all(), self = mask_rank(cluster_ctarank()), row = mask_row(), col = mask_col();
    for (unsigned r = 0; r < c.count(); ++r) {
      INFO("cluster " << c.str() << ", rank " << r);
      const unsigned x = r % c.x, y = r / c.x % c.y;
      CHECK(mask_in(all, c, r) == (c.count() == 32 ? ~0u : (1u << c.count()) - 1));
      CHECK(mask_in(self, c, r) == 1u << r);
      CHECK(mask_in(row, c, r) == ranks_where(c, [&](unsigned, unsigned yy, unsigned) { return yy == y; }));
      CHECK(mask_in(col, c, r) == ranks_where(c, [&](unsigned xx, unsigned, unsigned) { return xx == x; }));
    }
  }
}

// async.cpp mask_row() shifts the row pattern by cluster_ctaid_y() * width and
// mask_col() repeats the pattern only over the first z-layer (y * c.x): both
// ignore cluster_ctaid_z. In a 2x2x2 cluster, rank 5 (x 1, y 0, z 1) gets
// mask_row() == 0b11 (ranks 0 and 1) and mask_col() == 0b1010 (ranks 1 and 3),
// neither of which contains rank 5 itself; a multicast with them lands in the
// wrong layer. Fix: add cluster_ctaid_z() * (c.x * c.y) to both shifts.
TEST_CASE("mask_row and mask_col stay in the calling CTA's z-layer of a 3-D cluster",
          "[codegen][verify][multicast][masks]") {
  const ir::Dim3 c{2, 2, 2};
  KernelBuilder k("masks_3d");
  k.cluster(c.x, c.y, c.z);
  u32 row = mask_row(), col = mask_col();
  for (unsigned r = 0; r < c.count(); ++r) {
    INFO("rank " << r);
    const unsigned x = r % c.x, y = r / c.x % c.y, z = r / (c.x * c.y);
    CHECK(mask_in(row, c, r) == ranks_where(c, [&](unsigned, unsigned yy, unsigned zz) { return yy == y && zz == z; }));
    CHECK(mask_in(col, c, r) == ranks_where(c, [&](unsigned xx, unsigned, unsigned zz) { return xx == x && zz == z; }));
  }
}

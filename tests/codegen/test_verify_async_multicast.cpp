// verify_async on multicast masks: each rule as a negative test with its exact
// diagnostic, rank-dependent masks, and targets without multicast.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_verify_async_multicast.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;
using tj::codegen::Target;

// ---- multicast ---------------------------------------------------------------------------

TEST_CASE("a multicast mask is never empty", "[codegen][verify][async][multicast]") {
  KernelBuilder k("mask_empty");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  tma_load_multicast(tile[0], t, {0, 0}, full[0], u32(0)); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "multicast mask is empty in CTA rank 0: the box would go nowhere",
                           "include at least one CTA, e.g. mask_all() or mask_rank(cluster_ctarank())"));

  // Corrected: both CTAs, as a literal or as mask_all().
  CHECK(lower_errors(multicast_to_all("mask_both", 2, [] { return u32(0b11); })).empty());
  CHECK(lower_errors(multicast_to_all("mask_all2", 2, [] { return mask_all(); })).empty());
}

TEST_CASE("a multicast mask names only CTAs of the cluster", "[codegen][verify][async][multicast]") {
  KernelBuilder k("mask_outside");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  tma_load_multicast(tile[0], t, {0, 0}, full[0], u32(0b100)); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "multicast mask 0x4 in CTA rank 0 names CTAs outside the cluster of 2 (valid bits 0x3)",
                           "mask with mask_all() or keep bits below 2"));

  // A mask one past the last rank, only wrong in the last CTA of a 2x2 cluster.
  KernelBuilder k4("mask_next");
  k4.cluster(2, 2);
  TensorMap t4 = k4.tensor_map<float>("t", {32, 64});
  auto tile4 = k4.shared<float>("tile", 2048);
  auto full4 = k4.mbarriers("full", 1, 1);
  tma_load_multicast(tile4[0], t4, {0, 0}, full4[0], mask_rank(cluster_ctarank() + 1)); const unsigned l4 = __LINE__;
  std::vector<Diagnostic> d4 = lower_errors(k4.build());
  REQUIRE(d4.size() == 1);
  CHECK(d4[0].str() == diag(l4, "multicast mask 0x10 in CTA rank 3 names CTAs outside the cluster of 4 (valid bits 0xf)",
                            "mask with mask_all() or keep bits below 4"));

  // Corrected: every bit inside the cluster; the largest cluster's full mask is 0xffff.
  CHECK(lower_errors(multicast_to_all("mask_inside", 4, [] { return u32(0xf); })).empty());
  KernelBuilder big("mask_16");
  big.cluster(16).allow_non_portable_cluster();
  TensorMap t16 = big.tensor_map<float>("t", {32, 64});
  auto tile16 = big.shared<float>("tile", 2048);
  auto full16 = big.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full16[0], u32(kBox));
    if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile16[0], t16, {0, 0}, full16[0], u32(0xffff)); });
  });
  wait(full16[0]);
  CHECK(lower_errors(big.build()).empty());
}

TEST_CASE("a rank-dependent multicast mask is checked in every CTA, naming the rank", "[codegen][verify][async][multicast]") {
  KernelBuilder k("mask_per_rank");
  k.cluster(4);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  // The even ranks keep their own bit; rank 1 is the first whose mask is empty.
  tma_load_multicast(tile[0], t, {0, 0}, full[0], mask_rank(cluster_ctarank()) & u32(0b0101)); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "multicast mask is empty in CTA rank 1: the box would go nowhere",
                           "include at least one CTA, e.g. mask_all() or mask_rank(cluster_ctarank())"));

  // Corrected: masks that are non-empty in every rank, and a run-time mask (not provable), lower.
  KernelBuilder ok("mask_per_rank_ok");
  ok.cluster(4);
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto tile2 = ok.shared<float>("tile", 3 * 2048);
  auto full2 = ok.mbarriers("full", 2, 1);
  auto other = ok.mbarriers("other", 1, 1);
  auto runtime_mask = ok.param<uint32_t>("runtime_mask");
  i32 rank = cluster_ctarank();
  if_(thread_idx_x() == 0, [&] {
    // Each CTA loads its own box; the even ranks also send one to their odd neighbour (rank | 1).
    arrive_expect_tx(full2[0], u32(kBox));
    tma_load_multicast(tile2[0], t2, {0, 0}, full2[0], mask_rank(rank));
    arrive_expect_tx(full2[1], select(rank % 2 == 1, u32(kBox), u32(0)));
    if_(rank % 2 == 0, [&] { tma_load_multicast(tile2[2048], t2, {0, 0}, full2[1], mask_rank(rank | 1)); });
    arrive_expect_tx(other[0], u32(kBox));
    tma_load_multicast(tile2[4096], t2, {0, 0}, other[0], runtime_mask);
  });
  wait(full2[0]);
  wait(full2[1]);
  wait(other[0]);
  CHECK(lower_errors(ok.build()).empty());
}

// verify_async.cpp check_mask() evaluates the mask in every rank of the cluster
// and ignores the if_ guards around the load: a rank that never issues the
// multicast is still required to have a non-empty mask. Here each rank sends
// its box to the ranks above it; the last rank has nobody above it and does
// not issue (rank < 3), yet "multicast mask is empty in CTA rank 3" is
// reported and the valid kernel does not lower. verify_transactions handles
// the same guards correctly (threads_running): only the mask check is wrong.
TEST_CASE("a multicast mask that is empty only where the load is not issued is not an error",
          "[codegen][verify][async][multicast]") {
  KernelBuilder k("mask_guarded");
  k.cluster(4);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 4 * 2048);
  auto full = k.mbarriers("full", 1, 1);
  i32 rank = cluster_ctarank();
  u32 above = mask_all() & ~((u32(2u) << cast<uint32_t>(rank)) - 1u);  // the ranks above this one
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBox) * cast<uint32_t>(rank));  // rank r receives from ranks 0..r-1
    if_(rank < 3, [&] { tma_load_multicast(tile[rank * 2048], t, {0, 0}, full[0], above); });
  });
  wait(full[0]);
  ir::Kernel kern = k.build();
  // The byte accounting, which does look at the guards, agrees that every rank gets what it announces.
  CHECK(codegen::verify_transactions(kern, Target::sm90a()).empty());
  std::vector<Diagnostic> d = lower_errors(kern);
  INFO((d.empty() ? std::string("lowered") : d[0].str()));
  CHECK(d.empty());
}

TEST_CASE("multicast on a target without it names the kernel and the arch", "[codegen][verify][async][multicast][target]") {
  Target no_mc = Target::sm90a();
  no_mc.arch = "sm_90";
  no_mc.features &= ~static_cast<unsigned>(codegen::Feature::TmaMulticast);
  REQUIRE_FALSE(no_mc.has(codegen::Feature::TmaMulticast));
  REQUIRE(no_mc.has(codegen::Feature::Clusters));

  KernelBuilder k("mc"); const unsigned line = __LINE__;
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBox));
    if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile[0], t, {0, 0}, full[0], mask_all()); });
  });
  wait(full[0]);
  ir::Kernel kern = k.build();
  std::vector<Diagnostic> d = lower_errors(kern, no_mc);
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "kernel 'mc' uses TMA multicast, which sm_90 lacks", "compile for sm_90a or sm_100a"));
  // Clearing the bit on sm_90a itself: the message names whatever arch the Target has.
  Target cleared = Target::sm90a();
  cleared.features &= ~static_cast<unsigned>(codegen::Feature::TmaMulticast);
  std::vector<Diagnostic> dc = lower_errors(kern, cleared);
  REQUIRE(dc.size() == 1);
  CHECK(dc[0].message == "kernel 'mc' uses TMA multicast, which sm_90a lacks");

  // The same kernel lowers for both real targets, and a unicast load lowers on the one without multicast.
  CHECK(lower_errors(kern, Target::sm90a()).empty());
  CHECK(lower_errors(kern, Target::sm100a()).empty());
  KernelBuilder uni("unicast");
  uni.cluster(2);
  TensorMap t2 = uni.tensor_map<float>("t", {32, 64});
  auto tile2 = uni.shared<float>("tile", 2048);
  auto full2 = uni.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(kBox));
    tma_load(tile2[0], t2, {0, 0}, full2[0]);
  });
  wait(full2[0]);
  CHECK(lower_errors(uni.build(), no_mc).empty());
}

TEST_CASE("two ranks' multicast boxes never land on the same bytes of a CTA both reach", "[codegen][verify][async][multicast]") {
  // Each rank multicasts a 16-row box to both CTAs, but both into slice 0 (the rank is
  // missing from the destination and the coordinate): rows 16..31 of buf get nothing.
  auto build = [](bool per_rank, unsigned& line) {
    KernelBuilder k(per_rank ? "slices" : "same_slice");
    k.cluster(2);
    TensorMap t = k.tensor_map<float>("t", {32, 16});
    auto buf = k.shared<float>("buf", 1024);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(2 * 32 * 16 * 4));
      const i32 r = per_rank ? i32(cluster_ctarank()) : i32(0);
      tma_load_multicast(buf[r * 512], t, {0, r * 16}, full[0], mask_all()); line = __LINE__;
    });
    wait(full[0]);
    return k.build();
  };
  unsigned line = 0;
  std::vector<Diagnostic> d = lower_errors(build(false, line));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line,
                           "multicast boxes of CTA ranks 0 and 1 (2048 bytes each) both land on bytes 0..2047 of 'buf' in CTA "
                           "rank 0: one overwrites the other, and the bytes meant for another slice get none",
                           "give each rank its own slice: a destination and a coordinate that depend on cluster_ctarank(), e.g. "
                           "buf[cluster_ctarank() * 512]; if both carry the same data, issue the load from one rank"));
  // Corrected: each rank's box into its own half.
  CHECK(lower_errors(build(true, line)).empty());
  // Masks that share no CTA may use the same bytes: each CTA gets one box there.
  KernelBuilder k("own_cta");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 16});
  auto buf = k.shared<float>("buf", 1024);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(32 * 16 * 4));
    tma_load_multicast(buf[0], t, {0, i32(cluster_ctarank()) * 16}, full[0], mask_rank(cluster_ctarank()));
  });
  wait(full[0]);
  CHECK(lower_errors(k.build()).empty());
}

// verify_async on mbarriers, DSMEM bulk copies and st.async: each rule as a negative
// test with its exact diagnostic and the corrected kernel.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_verify_async_barriers.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;
using tj::codegen::Target;

// ---- mbarriers -------------------------------------------------------------------------

TEST_CASE("wait() only on this CTA's own barriers", "[codegen][verify][async][mbarrier]") {
  KernelBuilder k("wait_peer");
  k.cluster(2);
  auto full = k.mbarriers("full", 1, 1);
  arrive(full[0]);
  wait(map_shared_rank(full, 1)[0]); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "wait() on 'full' of a peer CTA: a thread can only wait on its own CTA's barriers",
                           "wait on the local barrier; have the peer arrive on yours with map_shared_rank"));

  // Corrected: the peer arrives on ours, we wait on ours.
  KernelBuilder ok("wait_peer_ok");
  ok.cluster(2);
  auto full2 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] { arrive(map_shared_rank(full2, (cluster_ctarank() + 1) % cluster_nctarank())[0]); });
  wait(full2[0]);
  std::string cuda = lowered_cuda(ok.build());
  CHECK(contains(cuda, "tj::mbar_arrive(tj::map_shared_rank(full, ((tj::cluster_ctarank() + 1) % tj::cluster_nctarank())), 0);"));
  CHECK(contains(cuda, "tj::mbar_wait(&full[0], (tj_phase_full >> 0) & 1u);"));
}

TEST_CASE("barriers are never read or written as data", "[codegen][verify][async][mbarrier]") {
  const std::string read_fix = "use arrive()/wait() on barriers; tensor maps are only passed to tma_load/tma_store";
  KernelBuilder k("bar_data");
  auto bars = k.mbarriers("bars", 2, 1);
  var(bars[0], "copy"); const unsigned l_read = __LINE__;
  bars[1] = bars[0]; const unsigned l_copy = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 3);
  CHECK(d[0].str() == diag(l_read, "buffer 'bars' holds mbarrier objects, which cannot be read as values", read_fix));
  // The copy is a store of a load: the store is reported, then the load inside it.
  CHECK(d[1].str() == diag(l_copy, "buffer 'bars' holds mbarrier objects, which cannot be written as values",
                           "barriers are initialized for you at kernel start"));
  CHECK(d[2].str() == diag(l_copy, "buffer 'bars' holds mbarrier objects, which cannot be read as values", read_fix));

  KernelBuilder ok("bar_data_ok");
  auto bars2 = ok.mbarriers("bars", 2, 128);
  arrive(bars2[0]);
  wait(bars2[0]);
  arrive(bars2[1]);
  wait(bars2[1]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("an mbarrier array holds at most 32 barriers", "[codegen][verify][async][mbarrier]") {
  KernelBuilder k("bar_33");
  auto bars = k.mbarriers("bars", 33, 1); const unsigned line = __LINE__;
  arrive(bars[0]);
  wait(bars[0]);
  arrive(bars[32]);
  wait(bars[32]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);  // once for the array, however many uses
  CHECK(d[0].str() == diag(line, "mbarrier array 'bars' has 33 barriers; tilejit tracks the phases of at most 32 per array",
                           "split it into several arrays of at most 32"));

  KernelBuilder ok("bar_32");
  auto bars2 = ok.mbarriers("bars", 32, 128);  // every thread arrives
  arrive(bars2[31]);
  wait(bars2[31]);
  std::string cuda = lowered_cuda(ok.build());
  CHECK(contains(cuda, "tj::mbar_init(&bars[31], 128u);"));
  CHECK(contains(cuda, "tj_phase_bars ^= 1u << 31;"));
}

// ---- DSMEM bulk copies and st.async ----------------------------------------------------------

TEST_CASE("bulk_copy_to_peer: size, memory spaces and the barrier", "[codegen][verify][async][bulk]") {
  KernelBuilder k("bulk_bad");
  k.cluster(2);
  auto src = k.shared<uint32_t>("src", 64);
  auto dst = k.shared<uint32_t>("dst", 64);
  auto full = k.mbarriers("full", 1, 1);
  i32 peer = (cluster_ctarank() + 1) % cluster_nctarank();
  auto pdst = map_shared_rank(dst, peer);
  auto pbar = map_shared_rank(full, peer);
  bulk_copy_to_peer(pdst[0], src[0], 0, pbar[0]); const unsigned l_zero = __LINE__;
  bulk_copy_to_peer(pdst[0], src[0], 24, pbar[0]); const unsigned l_24 = __LINE__;
  bulk_copy_to_peer(dst[0], src[0], 64, pbar[0]); const unsigned l_local = __LINE__;
  bulk_copy_to_peer(pdst[0], map_shared_rank(src, peer)[0], 64, pbar[0]); const unsigned l_from = __LINE__;
  bulk_copy_to_peer(pdst[0], src[0], 64, full[0]); const unsigned l_bar = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 5);
  CHECK(d[0].str() == diag(l_zero, "bulk_copy_to_peer moves 0 bytes; bulk copies move a non-zero multiple of 16",
                           "round the size up to a multiple of 16 bytes"));
  CHECK(d[1].str() == diag(l_24, "bulk_copy_to_peer moves 24 bytes; bulk copies move a non-zero multiple of 16",
                           "round the size up to a multiple of 16 bytes"));
  CHECK(d[2].str() == diag(l_local, "bulk_copy_to_peer into 'dst', which is not a peer's shared memory",
                           "map the destination with map_shared_rank(buffer, rank)"));
  CHECK(d[3].str() == diag(l_from, "bulk_copy_to_peer from 'src' of a peer CTA, which is not this CTA's shared memory",
                           "copy from a shared buffer"));
  CHECK(d[4].str() == diag(l_bar, "bulk_copy_to_peer completes on 'full', which is not mapped to the peer",
                           "pass map_shared_rank(barrier, rank)[i], the barrier in the CTA that receives the bytes"));

  KernelBuilder ok("bulk_ok");
  ok.cluster(2);
  auto src2 = ok.shared<uint32_t>("src", 64);
  auto dst2 = ok.shared<uint32_t>("dst", 64);
  auto full2 = ok.mbarriers("full", 1, 1);
  i32 peer2 = (cluster_ctarank() + 1) % cluster_nctarank();
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(256));
    bulk_copy_to_peer(map_shared_rank(dst2, peer2)[0], src2[0], 256, map_shared_rank(full2, peer2)[0]);
  });
  wait(full2[0]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("bulk_copy_to_peer and st_async: the barrier in another CTA than the bytes", "[codegen][verify][async][bulk]") {
  // own: the barrier mapped to this CTA's rank while the bytes go to the peer.
  auto build = [](bool own, bool st, unsigned& line) {
    KernelBuilder k("wrong_cta_barrier");
    k.cluster(2);
    auto src = k.shared<uint32_t>("src", 64);
    auto dst = k.shared<uint32_t>("dst", 64);
    auto got = k.mbarriers("got", 1, 1);
    i32 peer = cluster_ctarank() ^ 1;
    if_(thread_idx_x() == 0, [&] { arrive_expect_tx(got[0], u32(st ? 4 : 256)); });
    cluster_sync();
    if_(thread_idx_x() == 0, [&] {
      auto bar = map_shared_rank(got, own ? cluster_ctarank() : peer);
      line = __LINE__ + 1;
      if (st) st_async(map_shared_rank(dst, peer)[0], u32(7), bar[0]);
      else bulk_copy_to_peer(map_shared_rank(dst, peer)[0], src[0], 256, bar[0]);
    });
    wait(got[0]);
    return k.build();
  };
  for (bool st : {false, true}) {
    unsigned line = 0;
    std::vector<Diagnostic> d = lower_errors(build(true, st, line));
    REQUIRE(!d.empty());
    const std::string op = st ? "st_async" : "bulk_copy_to_peer";
    CHECK(d[0].str() == diag(line + (st ? 0 : 1), op + " in CTA rank 0 writes 'dst' of CTA rank 1 but completes on 'got' of CTA rank "
                                                       "0: the bytes must signal a barrier in the CTA they land in (PTX leaves any "
                                                       "other undefined), so rank 1's wait never sees them",
                             "map the barrier to the destination's CTA: map_shared_rank(got, <the rank given to dst>)"));
    CHECK(lower_errors(build(false, st, line)).empty());
  }
}

TEST_CASE("st_async writes a peer's memory and signals the peer's barrier", "[codegen][verify][async][bulk]") {
  const std::string msg = "st_async writes a peer's shared memory and signals its barrier; both must come from map_shared_rank";
  const std::string fix = "map the destination and the barrier with map_shared_rank(..., rank)";
  KernelBuilder k("st_async_bad");
  k.cluster(2);
  auto dst = k.shared<uint32_t>("dst", 128);
  auto fdst = k.shared<float>("fdst", 128);
  auto full = k.mbarriers("full", 1, 1);
  auto pbar = map_shared_rank(full, 1);
  st_async(dst[0], u32(1), pbar[0]); const unsigned l_local = __LINE__;
  st_async(map_shared_rank(fdst, 1)[0], f32(1.0f), full[0]); const unsigned l_bar = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == diag(l_local, msg, fix));
  CHECK(d[1].str() == diag(l_bar, msg, fix));

  KernelBuilder ok("st_async_ok");
  ok.cluster(2);
  auto dst2 = ok.shared<uint32_t>("dst", 128);
  auto full2 = ok.mbarriers("full", 1, 1);
  i32 peer = (cluster_ctarank() + 1) % cluster_nctarank();
  if_(thread_idx_x() == 0, [&] { arrive_expect_tx(full2[0], u32(128 * 4)); });
  st_async(map_shared_rank(dst2, peer)[thread_idx_x()], cast<uint32_t>(thread_idx_x()), map_shared_rank(full2, peer)[0]);
  wait(full2[0]);
  CHECK(lower_errors(ok.build()).empty());
}

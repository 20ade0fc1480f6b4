// tma_load_pair (.cta_group::2, sm_100a, for a CTA pair's 2-CTA MMA): the box lands in the
// issuing CTA and completes on the barrier of the pair leader, the even CTA. What it
// lowers to and the PTX NVRTC makes of it in an sm_100a cubin (compiled here; nothing ran
// on a Blackwell GPU), the transaction accounting (the leader announces both CTAs'
// bytes), and each refusal with its exact text: sm_90a, a cluster without whole pairs.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_verify_async_pair.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

#include "generators/runner.h"
#include "runtime/compiler.h"

namespace {

unsigned l_expect = 0, l_load = 0;

// Every CTA of a cluster of `n` loads one box with a pair load (multicast to its partner
// when `multicast`); the even CTA announces `leader_bytes`, the odd one `odd_bytes`.
ir::Kernel pair_kernel(unsigned n, uint32_t leader_bytes, uint32_t odd_bytes, bool multicast = false) {
  KernelBuilder k("pair_load");
  if (n > 1) k.cluster(n);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], select(is_pair_leader(), u32(leader_bytes), u32(odd_bytes))); l_expect = __LINE__;
    if (multicast) {
      // Each CTA's box into its partner: both still complete on the pair's leader.
      tma_load_pair_multicast(tile[0], t, {0, cluster_ctarank() * 32}, full[0], mask_rank(pair_peer_rank())); l_load = __LINE__;
    } else {
      tma_load_pair(tile[0], t, {0, cluster_ctarank() * 32}, full[0]); l_load = __LINE__;
    }
  });
  wait(full[0]);
  cluster_sync();
  return k.build();
}

std::string full_check(const ir::Kernel& k) {
  const codegen::TransactionReport r = codegen::account_transactions(k);
  REQUIRE(r.errors.empty());
  for (const codegen::TransactionCheck& c : r.checks)
    if (c.barrier == "full[0]") return codegen::to_string(c);
  return "no check of full[0]";
}

}  // namespace

TEST_CASE("tma_load_pair on sm_100a: the .cta_group::2 load completing on the leader's barrier, in the PTX of a cubin",
          "[codegen][tcgen05][sm100a][nvrtc][tma]") {
  for (bool multicast : {false, true}) {
    CAPTURE(multicast);
    const ir::Kernel k = pair_kernel(2, 2 * kBox, 0, multicast);
    codegen::Lowered l = codegen::lower(k, Target::sm100a());
    CHECK(contains(l.cuda, multicast ? "tj::tma_load_2d_pair_multicast(&tile[0], &t, 0, (tj::cluster_ctarank() * 32), &full[0], "
                                     : "tj::tma_load_2d_pair(&tile[0], &t, 0, (tj::cluster_ctarank() * 32), &full[0]);"));
    rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm100a()), nullptr);
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    CHECK(count(r.ptx, multicast ? "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                                   ".multicast::cluster.cta_group::2"
                                 : "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                                   ".cta_group::2") == 1);
    // The barrier operand is the leader's: mapa to rank & ~1.
    CHECK(count(r.ptx, "mapa.shared::cluster.u32") == 1);
    CHECK(contains(l.cuda, "((tj::cluster_ctarank() % 2) == 0)"));  // is_pair_leader()
    if (multicast) CHECK(contains(l.cuda, "(tj::cluster_ctarank() ^ 1)"));  // pair_peer_rank()
    CHECK(contains(r.ptx, "and.b32"));
  }
}

TEST_CASE("tma_load_pair: the leader announces both CTAs' bytes, the odd CTA none", "[codegen][verify][transactions][tcgen05]") {
  CHECK(full_check(pair_kernel(2, 2 * kBox, 0)) == "barrier 'full[0]' in the kernel body: verified");
  CHECK(full_check(pair_kernel(4, 2 * kBox, 0)) == "barrier 'full[0]' in the kernel body: verified");
  // Multicast to the partner: the same accounting.
  CHECK(full_check(pair_kernel(2, 2 * kBox, 0, true)) == "barrier 'full[0]' in the kernel body: verified");

  // Each CTA announcing its own box (as tma_load would need): the leader is short by the
  // odd CTA's box, the odd CTA gets nothing it announced.
  const ir::Kernel own = pair_kernel(2, kBox, kBox);
  std::vector<Diagnostic> d = lower_errors(own, Target::sm100a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_expect, tx_message(0, kBox, l_expect, 2 * kBox, l_load),
                           "tma_load_pair's boxes complete on the even CTA of each pair: the leader announces the bytes of "
                           "both CTAs (if_(cluster_ctarank() % 2 == 0, ...)) and the odd CTA none"));
}

TEST_CASE("pair helpers: the leader's and the partner's rank as the checks evaluate them", "[codegen][verify][tcgen05]") {
  // In a cluster of 4 (two pairs), rank r's box goes to pair_leader_rank() with a plain
  // multicast load: ranks 0 and 1 into rank 0, 2 and 3 into rank 2, each on its own barrier.
  KernelBuilder k("pair_ranks");
  k.cluster(4);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 4096);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], select(is_pair_leader(), u32(2 * kBox), u32(0)));
    tma_load_multicast(tile[(cluster_ctarank() % 2) * 2048], t, {0, cluster_ctarank() * 32}, full[0], mask_rank(pair_leader_rank()));
  });
  wait(full[0]);
  cluster_sync();
  CHECK(full_check(k.build()) == "barrier 'full[0]' in the kernel body: verified");
}

TEST_CASE("tma_load_pair: refused on sm_90a and in clusters without whole pairs", "[codegen][verify][tcgen05]") {
  std::vector<Diagnostic> d = lower_errors(pair_kernel(2, 2 * kBox, 0), Target::sm90a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(l_load,
                           "tma_load_pair is tcgen05 (cp.async.bulk.tensor .cta_group::2, for a CTA pair's 2-CTA MMA), "
                           "which sm_90a lacks",
                           "on sm_90a each CTA loads its own part with tma_load (or shares it with tma_load_multicast) and "
                           "completes it on its own barrier; or compile for sm_100a"));
  for (unsigned n : {1u, 3u}) {
    CAPTURE(n);
    std::vector<Diagnostic> odd = lower_errors(pair_kernel(n, 2 * kBox, 0), Target::sm100a());
    for (const Diagnostic& e : odd) UNSCOPED_INFO(e.str());
    REQUIRE_FALSE(odd.empty());
    CHECK(odd[0].str() == diag(l_load,
                               "tma_load_pair completes on the barrier of the even CTA of a pair (ranks 2k, 2k + 1), but the "
                               "cluster has " + std::to_string(n) + (n == 1 ? " CTA" : " CTAs") + ": its last CTA has no partner",
                               "launch clusters of an even number of CTAs (k.cluster(2, ...)), or use tma_load"));
  }
}

TEST_CASE("tma_load_pair: a read of its destination after a local wait is reported (the odd CTA's box completes in the leader)",
          "[codegen][races][tcgen05]") {
  KernelBuilder k("pair_read");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], select(is_pair_leader(), u32(2 * kBox), u32(0)));
    tma_load_pair(tile[0], t, {0, cluster_ctarank() * 32}, full[0]);
  });
  wait(full[0]);
  out[thread_idx_x()] = tile[thread_idx_x()];
  cluster_sync();
  std::vector<Diagnostic> d = lower_errors(k.build(), Target::sm100a());
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE_FALSE(d.empty());
  CHECK(contains(d[0].message, "full of the pair leader (tma_load_pair)"));
}

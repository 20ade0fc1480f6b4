// verify_async and verify_transactions: every rule as a negative test with its
// exact diagnostic (message, fix and the user's line), and the corrected kernel
// lowering; plus the DSL's own errors for mbarriers and aligned dynamic buffers.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tx_text.h"

#include <functional>
#include <optional>

#include "codegen/eval.h"
#include "codegen/lower.h"
#include "codegen/passes/verify_transactions.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

constexpr const char* kFile = "test_async_verifier.cpp";


std::string at(unsigned line) { return std::string(kFile) + ":" + std::to_string(line); }

// "test_async_verifier.cpp:<line>: error: <message>\n  fix: <fix>", as Diagnostic::str() writes it.
std::string diag(unsigned line, const std::string& message, const std::string& fix) {
  return at(line) + ": error: " + message + "\n  fix: " + fix;
}

// The one diagnostic a DSL call throws, as Diagnostic::str(); "no error" otherwise.
template <class F>
std::string dsl_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    return e.diagnostics()[0].str();
  }
  return "no error";
}

// The generated code of a kernel that must lower, for checks on what it contains.
std::string lowered_cuda(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  return codegen::lower(k, t).cuda;
}


// "transaction bytes of barrier 'full' do not match in CTA rank R: ..." as verify_transactions writes it.
std::string tx_message(unsigned rank, uint64_t announced, unsigned expect_line, uint64_t delivered, unsigned copy_line,
                       const std::string& barrier = "full[0]") {
  return tx_text(kFile, rank, announced, expect_line, delivered, copy_line, barrier);
}

// A cluster of `n` where every CTA announces one box and rank 0 multicasts it with `mask`
// (which must name every CTA for the bytes to match): the corrected form of the mask tests.
ir::Kernel multicast_to_all(const char* name, unsigned n, const std::function<u32()>& mask) {
  KernelBuilder k(name);
  k.cluster(n);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBox));
    if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile[0], t, {0, 0}, full[0], mask()); });
  });
  wait(full[0]);
  return k.build();
}

}  // namespace

// ---- tensor maps ---------------------------------------------------------------

TEST_CASE("a tensor map has 1 to 5 dimensions", "[codegen][verify][async][tma]") {
  KernelBuilder k("tmap_rank");
  k.tensor_map<float>("none", {}); const unsigned l0 = __LINE__;
  k.tensor_map<float>("six", {4, 2, 2, 2, 2, 2}); const unsigned l6 = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == diag(l0, "tensor map 'none' has rank 0; TMA takes 1 to 5 dimensions", "give 1 to 5 box dimensions"));
  CHECK(d[1].str() == diag(l6, "tensor map 'six' has rank 6; TMA takes 1 to 5 dimensions", "give 1 to 5 box dimensions"));

  // Rank 1 and rank 5 maps lower and load through the wrapper of their rank.
  KernelBuilder ok("tmap_rank_ok");
  TensorMap t1 = ok.tensor_map<float>("t1", {64});
  TensorMap t5 = ok.tensor_map<float>("t5", {4, 2, 2, 2, 2});
  auto tile = ok.shared<float>("tile", 64);
  auto full = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(256 + 256));
    tma_load(tile[0], t1, {0}, full[0]);
    tma_load(tile[0], t5, {0, 0, 0, 0, 0}, full[0]);
  });
  wait(full[0]);
  std::string cuda = lowered_cuda(ok.build());
  CHECK(contains(cuda, "tj::tma_load_1d(&tile[0], &t1, 0, &full[0]);"));
  CHECK(contains(cuda, "tj::tma_load_5d(&tile[0], &t5, 0, 0, 0, 0, 0, &full[0]);"));
}

TEST_CASE("a tensor map box has 1 to 256 elements per dimension", "[codegen][verify][async][tma]") {
  const std::string fix = "split the tile into several boxes of at most 256";
  KernelBuilder k("tmap_box");
  k.tensor_map<float>("empty", {0, 8}); const unsigned l0 = __LINE__;
  k.tensor_map<float>("tall", {16, 257}); const unsigned l257 = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() ==
        diag(l0, "tensor map 'empty' box dimension 0 is 0; TMA boxes have 1 to 256 elements per dimension", fix));
  CHECK(d[1].str() ==
        diag(l257, "tensor map 'tall' box dimension 1 is 257; TMA boxes have 1 to 256 elements per dimension", fix));

  KernelBuilder ok("tmap_box_ok");
  ok.tensor_map<float>("one", {4, 1});
  ok.tensor_map<float>("tall", {16, 256});
  ok.tensor_map<uint8_t>("wide", {256, 256, 1});
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("a tensor map's inner box is a multiple of 16 bytes", "[codegen][verify][async][tma]") {
  KernelBuilder k("tmap_inner");
  k.tensor_map<float>("f", {6, 4}); const unsigned lf = __LINE__;
  k.tensor_map<bf16>("h", {12}); const unsigned lh = __LINE__;
  k.tensor_map<uint8_t>("b", {40, 2}); const unsigned lb = __LINE__;
  k.tensor_map<uint64_t>("q", {3}); const unsigned lq = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 4);
  CHECK(d[0].str() == diag(lf, "tensor map 'f' inner box is 24 bytes (6 x f32); TMA needs a multiple of 16 bytes",
                           "make box[0] a multiple of 4 elements"));
  CHECK(d[1].str() == diag(lh, "tensor map 'h' inner box is 24 bytes (12 x bf16); TMA needs a multiple of 16 bytes",
                           "make box[0] a multiple of 8 elements"));
  CHECK(d[2].str() == diag(lb, "tensor map 'b' inner box is 40 bytes (40 x u8); TMA needs a multiple of 16 bytes",
                           "make box[0] a multiple of 16 elements"));
  CHECK(d[3].str() == diag(lq, "tensor map 'q' inner box is 24 bytes (3 x u64); TMA needs a multiple of 16 bytes",
                           "make box[0] a multiple of 2 elements"));

  KernelBuilder ok("tmap_inner_ok");
  ok.tensor_map<float>("f", {8, 4});
  ok.tensor_map<bf16>("h", {8});
  ok.tensor_map<uint8_t>("b", {48, 2});
  ok.tensor_map<uint64_t>("q", {2});
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("a swizzled tensor map's inner box fits the swizzle span", "[codegen][verify][async][tma]") {
  KernelBuilder k("tmap_swizzle");
  k.tensor_map<bf16>("h", {128, 8}, ir::Swizzle::B128); const unsigned l128 = __LINE__;
  k.tensor_map<float>("f", {16, 8}, ir::Swizzle::B32); const unsigned l32 = __LINE__;
  k.tensor_map<uint8_t>("b", {80, 8}, ir::Swizzle::B64); const unsigned l64 = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 3);
  CHECK(d[0].str() == diag(l128, "tensor map 'h' inner box is 256 bytes, wider than its 128B swizzle span",
                           "use box[0] <= 64 elements, or a wider swizzle"));
  CHECK(d[1].str() == diag(l32, "tensor map 'f' inner box is 64 bytes, wider than its 32B swizzle span",
                           "use box[0] <= 8 elements, or a wider swizzle"));
  CHECK(d[2].str() == diag(l64, "tensor map 'b' inner box is 80 bytes, wider than its 64B swizzle span",
                           "use box[0] <= 64 elements, or a wider swizzle"));

  // Exactly the span fits; without a swizzle there is no span limit.
  KernelBuilder ok("tmap_swizzle_ok");
  ok.tensor_map<bf16>("h", {64, 8}, ir::Swizzle::B128);
  ok.tensor_map<float>("f", {8, 8}, ir::Swizzle::B32);
  ok.tensor_map<uint8_t>("b", {64, 8}, ir::Swizzle::B64);
  ok.tensor_map<float>("n", {256, 2}, ir::Swizzle::None);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("a tensor map of bool or of opaque objects is refused", "[codegen][verify][async][tma]") {
  const std::string fix = "use u8, bf16, i32, u32, f32, i64 or u64 elements";
  KernelBuilder k("tmap_dtype");
  k.tensor_map<bool>("flags", {16}); const unsigned lb = __LINE__;
  k.tensor_map<mbarrier_t>("bars", {2}); const unsigned lm = __LINE__;
  k.tensor_map<tensor_map_t>("maps", {1}); const unsigned lt = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 3);  // one each: the element type is reported before any box rule
  CHECK(d[0].str() == diag(lb, "tensor map 'flags' has element type bool, which TMA cannot copy", fix));
  CHECK(d[1].str() == diag(lm, "tensor map 'bars' has element type mbarrier, which TMA cannot copy", fix));
  CHECK(d[2].str() == diag(lt, "tensor map 'maps' has element type tensor_map, which TMA cannot copy", fix));

  KernelBuilder ok("tmap_dtype_ok");
  ok.tensor_map<uint8_t>("a", {16});
  ok.tensor_map<bf16>("b", {8});
  ok.tensor_map<int32_t>("c", {4});
  ok.tensor_map<uint32_t>("d", {4});
  ok.tensor_map<float>("e", {4});
  ok.tensor_map<int64_t>("f", {2});
  ok.tensor_map<uint64_t>("g", {2});
  CHECK(lower_errors(ok.build()).empty());
}

// ---- TMA loads and stores ------------------------------------------------------------

TEST_CASE("a TMA copy gives one coordinate per tensor-map dimension", "[codegen][verify][async][tma]") {
  const std::string fix = "give one coordinate per dimension, innermost first";
  KernelBuilder k("coords");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  tma_load(tile[0], t, {0}, full[0]); const unsigned l_load = __LINE__;
  tma_store(t, {0, 0, 0}, tile[0]); const unsigned l_store = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == diag(l_load, "tensor map 't' has rank 2 but 1 coordinates were given", fix));
  CHECK(d[1].str() == diag(l_store, "tensor map 't' has rank 2 but 3 coordinates were given", fix));

  KernelBuilder ok("coords_ok");
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto tile2 = ok.shared<float>("tile", 2048);
  auto full2 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(kBox));
    tma_load(tile2[0], t2, {0, 64}, full2[0]);
  });
  wait(full2[0]);
  fence_proxy_async();
  if_(thread_idx_x() == 0, [&] {
    tma_store(t2, {32, 0}, tile2[0]);
    bulk_commit();
    bulk_wait(0);
  });
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("tma_load lands in this CTA's shared memory only", "[codegen][verify][async][tma]") {
  const std::string fix = "load into a shared buffer; multicast reaches the peers";
  KernelBuilder k("load_dst");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto g = k.param<float*>("g");
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  tma_load(g[0], t, {0, 0}, full[0]); const unsigned l_global = __LINE__;
  tma_load(map_shared_rank(tile, 1)[0], t, {0, 0}, full[0]); const unsigned l_peer = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() ==
        diag(l_global, "tma_load into 'g' (global f32*): TMA loads land in this CTA's shared memory", fix));
  CHECK(d[1].str() == diag(l_peer,
                           "tma_load into 'tile' of a peer CTA (shared::cluster f32*): TMA loads land in this CTA's "
                           "shared memory",
                           fix));

  // Corrected: into our own tile (the dynamic window works as well as a static buffer).
  KernelBuilder ok("load_dst_ok");
  ok.cluster(2);
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto tile2 = ok.dynamic_shared<float>("tile", 2048);
  auto full2 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(kBox));
    tma_load(tile2[0], t2, {0, 0}, full2[0]);
  });
  wait(full2[0]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("tma_load completes on this CTA's barrier, never a mapped one", "[codegen][verify][async][tma]") {
  KernelBuilder k("load_bar");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  tma_load(tile[0], t, {0, 0}, map_shared_rank(full, 1)[0]); const unsigned line = __LINE__;
  tma_load_multicast(tile[0], t, {0, 0}, map_shared_rank(full, 0)[0], mask_all()); const unsigned l_mc = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  const std::string fix =
      "pass a barrier of this CTA; with multicast each receiving CTA's barrier at the same offset is signalled";
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == diag(line, "tma_load completes on 'full' of a peer CTA, which is not this CTA's barrier", fix));
  CHECK(d[1].str() == diag(l_mc, "tma_load completes on 'full' of a peer CTA, which is not this CTA's barrier", fix));

  // Corrected: our own barrier, for the unicast load and for the multicast.
  KernelBuilder ok("load_bar_ok");
  ok.cluster(2);
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto tile2 = ok.shared<float>("tile", 2 * 2048);
  auto full2 = ok.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(2 * kBox));
    tma_load(tile2[0], t2, {0, 0}, full2[0]);
    if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile2[2048], t2, {0, 64}, full2[0], mask_all()); });
  });
  wait(full2[0]);
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("a TMA box must fit its shared buffer from a constant index on", "[codegen][verify][async][tma]") {
  KernelBuilder k("box_fit");
  TensorMap t = k.tensor_map<float>("t", {32, 64});  // 8192 bytes
  auto small = k.shared<float>("small", 1024);       // 4096 bytes
  auto tile = k.dynamic_shared<float>("tile", 2048);  // 8192 bytes
  auto full = k.mbarriers("full", 1, 1);
  tma_load(small[0], t, {0, 0}, full[0]); const unsigned l_small = __LINE__;
  tma_load(tile[4], t, {0, 0}, full[0]); const unsigned l_offset = __LINE__;
  tma_store(t, {0, 0}, tile[2047]); const unsigned l_store = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 3);
  CHECK(d[0].str() == diag(l_small, "tma_load moves a 8192-byte box at byte 0 of 'small', which has 4096 bytes",
                           "make the buffer at least 8192 bytes"));
  CHECK(d[1].str() == diag(l_offset, "tma_load moves a 8192-byte box at byte 16 of 'tile', which has 8192 bytes",
                           "make the buffer at least 8208 bytes"));
  CHECK(d[2].str() == diag(l_store, "tma_store moves a 8192-byte box at byte 8188 of 'tile', which has 8192 bytes",
                           "make the buffer at least 16380 bytes"));

  // Exactly fitting boxes, and a run-time index (not checked), lower.
  KernelBuilder ok("box_fit_ok");
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto two = ok.dynamic_shared<float>("two", 4096);
  auto full2 = ok.mbarriers("full", 1, 1);
  auto which = ok.param<int32_t>("which");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full2[0], u32(2 * kBox));
    tma_load(two[0], t2, {0, 0}, full2[0]);
    tma_load(two[2048], t2, {0, 64}, full2[0]);
  });
  wait(full2[0]);
  if_(thread_idx_x() == 0, [&] { tma_store(t2, {0, 0}, two[which * 100000]); });
  CHECK(lower_errors(ok.build()).empty());
}

TEST_CASE("tma_store reads this CTA's shared memory only", "[codegen][verify][async][tma]") {
  const std::string fix = "stage the tile in a shared buffer first";
  KernelBuilder k("store_src");
  k.cluster(2);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto g = k.param<float*>("g");
  auto tile = k.shared<float>("tile", 2048);
  tma_store(t, {0, 0}, g[0]); const unsigned l_global = __LINE__;
  tma_store(t, {0, 0}, map_shared_rank(tile, 1)[0]); const unsigned l_peer = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() ==
        diag(l_global, "tma_store from 'g' (global f32*): TMA stores read this CTA's shared memory", fix));
  CHECK(d[1].str() == diag(l_peer,
                           "tma_store from 'tile' of a peer CTA (shared::cluster f32*): TMA stores read this CTA's "
                           "shared memory",
                           fix));

  KernelBuilder ok("store_src_ok");
  TensorMap t2 = ok.tensor_map<float>("t", {32, 64});
  auto g2 = ok.param<float*>("g");
  auto tile2 = ok.shared<float>("tile", 2048);
  for_(thread_idx_x(), 2048, block_dim_x(), [&](i32 i) { tile2[i] = g2[i]; });
  fence_proxy_async();
  sync_threads();
  if_(thread_idx_x() == 0, [&] {
    tma_store(t2, {0, 0}, tile2[0]);
    bulk_commit();
    bulk_wait(0);
  });
  CHECK(lower_errors(ok.build()).empty());
}

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

// ---- DSL errors ------------------------------------------------------------------------------

TEST_CASE("mbarriers need 1 to 2^20 - 1 arrivals per phase", "[dsl][errors][mbarrier]") {
  KernelBuilder k("arrivals");
  unsigned line = 0;
  std::string got;
  got = dsl_error_of([&] { line = __LINE__; k.mbarriers("none", 1, 0); });
  CHECK(got ==
        diag(line, "mbarrier 'none' expects 0 arrivals per phase; its phases could never complete",
             "give the number of threads (or CTAs) that arrive each phase, at least 1"));
  got = dsl_error_of([&] { line = __LINE__; k.mbarriers("many", 1, 1u << 20); });
  CHECK(got ==
        diag(line, "mbarrier 'many' expects 1048576 arrivals per phase; an mbarrier counts at most 2^20 - 1",
             "arrive once per warp or per CTA instead of once per thread"));
  // The refused names were not claimed; the limits themselves are accepted.
  CHECK(dsl_error_of([&] { k.mbarriers("none", 1, 1); }) == "no error");
  CHECK(dsl_error_of([&] { k.mbarriers("many", 1, (1u << 20) - 1); }) == "no error");
  ir::Kernel kern = k.build();
  REQUIRE(kern.shared.size() == 2);
  CHECK(kern.shared[1].arrivals == (1u << 20) - 1);
  CHECK(kern.shared[1].elem == ir::Scalar::MBarrier);
  CHECK_FALSE(kern.shared[1].dynamic);
}

TEST_CASE("dynamic_shared alignment is a power of two from 16 to 1024", "[dsl][errors][smem]") {
  const std::string fix = "use a power of two from 16 to 1024";
  KernelBuilder k("aligns");
  unsigned line = 0;
  std::string got;
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a8", 4, 8); });
  CHECK(got == diag(line, "shared buffer 'a8' asks for alignment 8", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a3000", 4, 3000); });
  CHECK(got == diag(line, "shared buffer 'a3000' asks for alignment 3000", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a48", 4, 48); });
  CHECK(got == diag(line, "shared buffer 'a48' asks for alignment 48", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a2048", 4, 2048); });
  CHECK(got == diag(line, "shared buffer 'a2048' asks for alignment 2048", fix));
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("a16", 4, 16); }) == "no error");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("a1024", 4, 1024); }) == "no error");
}

// builder.h dynamic_shared() calls add_shared() before set_align() checks the
// alignment: a refused declaration still adds the buffer (and claims its name)
// to the kernel, unlike mbarriers(), which checks before adding. Declaring it
// again with a valid alignment then fails with "declared twice".
TEST_CASE("a refused dynamic_shared alignment leaves no buffer behind", "[dsl][errors][smem]") {
  KernelBuilder k("align_retry");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("tile", 4, 8); }) != "no error");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("tile", 4, 16); }) == "no error");
  ir::Kernel kern = k.build();
  CHECK(kern.shared.size() == 1);
}

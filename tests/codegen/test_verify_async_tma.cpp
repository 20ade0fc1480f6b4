// verify_async on tensor maps and TMA loads and stores: each rule as a negative test
// with its exact diagnostic (message, fix, the user's line) and the corrected kernel.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_verify_async_tma.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;
using tj::codegen::Target;

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
  // Refused at the call (the verifier says the same of IR built otherwise).
  unsigned l_load = 0, l_store = 0;
  std::string got = dsl_error_of([&] { l_load = __LINE__; tma_load(tile[0], t, {0}, full[0]); });
  CHECK(got == diag(l_load, "tensor map 't' has rank 2 but 1 coordinates were given", fix));
  got = dsl_error_of([&] { l_store = __LINE__; tma_store(t, {0, 0, 0}, tile[0]); });
  CHECK(got == diag(l_store, "tensor map 't' has rank 2 but 3 coordinates were given", fix));

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
  if_(thread_idx_x() == 0, [&] {
    tma_store(t2, {0, 0}, two[which * 100000]);
    bulk_commit();
    bulk_wait_read(0);
  });
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

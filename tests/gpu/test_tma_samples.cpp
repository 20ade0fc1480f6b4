// TMA on the GPU: multicast masks, swizzles, element types, 2D/3D boxes and
// tensor edges (tma_multicast), and the pipelined copy (tma_copy), each checked
// byte for byte against the host's image of what TMA should deliver.
#include "tests/gpu/gpu_fixture.h"

using tj::gpu_test::run;

TEST_CASE("multicast reaches exactly the CTAs in the mask [gpu]", "[gpu][tma]") {
  const unsigned cluster = GENERATE(2u, 4u, 8u);
  const int64_t mask = GENERATE(0, 1, 2);  // all, only the last rank, even ranks
  CAPTURE(cluster, mask);
  auto r = run("tma_multicast", cluster, 5, 128, {{"mask", mask}}, cluster * 10 + mask);
  REQUIRE(r.verified);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

TEST_CASE("every swizzle mode for every element type [gpu]", "[gpu][tma]") {
  const int64_t elem = GENERATE(1, 2, 4);
  const int64_t swizzle = GENERATE(0, 32, 64, 128);
  // With a swizzle the inner box row is exactly the span; without, 64 bytes.
  const int64_t box_cols = (swizzle ? swizzle : 64) / elem;
  CAPTURE(elem, swizzle, box_cols);
  auto r = run("tma_multicast", 4, 3, 128,
               {{"elem_bytes", elem}, {"swizzle", swizzle}, {"box_cols", box_cols}, {"box_rows", 32}, {"cols", 512}, {"rows", 96}},
               elem * 1000 + swizzle);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

TEST_CASE("3-D boxes [gpu]", "[gpu][tma]") {
  const int64_t elem = GENERATE(1, 2, 4);
  const int64_t swizzle = GENERATE(0, 128);
  const int64_t box_cols = (swizzle ? swizzle : 32) / elem;
  CAPTURE(elem, swizzle);
  auto r = run("tma_multicast", 2, 7, 128,
               {{"rank", 3}, {"elem_bytes", elem}, {"swizzle", swizzle}, {"box_cols", box_cols}, {"box_rows", 8},
                {"box_depth", 4}, {"cols", 256}, {"rows", 24}, {"depth", 8}},
               elem + swizzle);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

TEST_CASE("boxes hanging over the tensor's edges are zero-filled [gpu]", "[gpu][tma]") {
  SECTION("bf16, cols and rows not multiples of the box, 128B swizzle") {
    auto r = run("tma_multicast", 4, 9, 128,
                 {{"elem_bytes", 2}, {"cols", 200}, {"rows", 70}, {"box_cols", 64}, {"box_rows", 32}, {"swizzle", 128}}, 5);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
  SECTION("f32, no swizzle, 3-D with a short depth") {
    auto r = run("tma_multicast", 2, 6, 128,
                 {{"rank", 3}, {"elem_bytes", 4}, {"cols", 36}, {"rows", 5}, {"depth", 3}, {"box_cols", 16}, {"box_rows", 4},
                  {"box_depth", 2}, {"swizzle", 0}},
                 6);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
  SECTION("u8, tensor smaller than one box") {
    auto r = run("tma_multicast", 8, 2, 128,
                 {{"elem_bytes", 1}, {"cols", 48}, {"rows", 3}, {"box_cols", 128}, {"box_rows", 16}, {"swizzle", 128}}, 7);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
}

TEST_CASE("pipelined TMA copy [gpu]", "[gpu][tma]") {
  const int64_t stages = GENERATE(2, 3, 4);
  const int64_t ws = GENERATE(0, 1);  // one thread, or a producer and a consumer warp through a Pipeline
  const unsigned threads = ws ? 64 : 32;
  CAPTURE(stages, ws);
  SECTION("tiles cover the matrix exactly") {
    auto r = run("tma_copy", 1, 132, threads,
                 {{"cols", 2048}, {"rows", 1024}, {"box_cols", 64}, {"box_rows", 32}, {"stages", stages}, {"warp_specialized", ws}},
                 stages);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
  SECTION("ragged edges, fewer CTAs than tiles") {
    auto r = run("tma_copy", 1, 7, threads,
                 {{"cols", 1000}, {"rows", 333}, {"box_cols", 128}, {"box_rows", 16}, {"stages", stages}, {"warp_specialized", ws}},
                 stages + 10);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
}

TEST_CASE("the unicast reference delivers the same copies [gpu]", "[gpu][tma]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u);
  auto r = run("tma_multicast", cluster, 9, 128, {{"multicast", 0}}, cluster);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

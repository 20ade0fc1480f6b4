// dsmem_ring and cluster_reduce on the GPU, checked against host references,
// over cluster sizes 1..16 (16 is non-portable) and several grid sizes.
#include "tests/gpu/gpu_fixture.h"

using tj::gpu_test::run;

TEST_CASE("dsmem_ring delivers every neighbour's block [gpu]", "[gpu][dsmem]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u, 8u, 16u);
  const unsigned clusters = GENERATE(1u, 3u, 7u);
  const int64_t vector = GENERATE(1, 4);
  CAPTURE(cluster, clusters, vector);
  auto r = run("dsmem_ring", cluster, clusters, 256, {{"elems", 4096}, {"rounds", 3}, {"vector", vector}},
               cluster * 1000 + clusters);
  REQUIRE(r.verified);
  INFO(r.check.detail);
  CHECK(r.check.ok);
  CHECK(r.max_active_clusters > 0);
}

TEST_CASE("dsmem_ring with odd sizes and a full-size buffer [gpu]", "[gpu][dsmem]") {
  SECTION("elems not a multiple of the threads") {
    auto r = run("dsmem_ring", 4, 5, 96, {{"elems", 1001}}, 7);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
  SECTION("227 KiB of dynamic shared memory per CTA, cluster 16") {
    auto r = run("dsmem_ring", 16, 2, 1024, {{"elems", 58112}, {"vector", 4}}, 8);
    INFO(r.check.detail);
    CHECK(r.check.ok);
    CHECK(r.max_active_clusters >= 1);
  }
}

TEST_CASE("global_ring (the reference exchange) is correct too [gpu]", "[gpu][dsmem]") {
  const unsigned cluster = GENERATE(2u, 8u);
  auto r = run("global_ring", cluster, 4, 256, {{"elems", 4096}, {"rounds", 2}, {"vector", 4}}, 11);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

TEST_CASE("cluster_reduce sums every cluster's slices in rank 0 [gpu]", "[gpu][dsmem]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u, 8u, 16u);
  const unsigned clusters = GENERATE(1u, 5u, 33u);
  CAPTURE(cluster, clusters);
  auto r = run("cluster_reduce", cluster, clusters, 256, {{"elems", 8192}}, cluster * 100 + clusters);
  REQUIRE(r.verified);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

TEST_CASE("cluster_reduce with other block sizes and slice lengths [gpu]", "[gpu][dsmem]") {
  const unsigned threads = GENERATE(32u, 128u, 1024u);
  const int64_t elems = GENERATE(int64_t(1), int64_t(777), int64_t(1) << 16);
  CAPTURE(threads, elems);
  auto r = run("cluster_reduce", 4, 3, threads, {{"elems", elems}}, threads + elems);
  INFO(r.check.detail);
  CHECK(r.check.ok);
}

// Up to 2^24 inputs per cluster the sums are exact (tolerance 0, the cases above); past
// it, uniform inputs within the worst-case f32 bound (samples/cluster_reduce.h).
TEST_CASE("cluster_reduce's check: exact, and past 2^24 inputs per cluster the f32 bound [gpu]", "[gpu][dsmem]") {
  auto exact = run("cluster_reduce", 4, 33, 256, {{"elems", 65536}}, 7);
  INFO(exact.check.detail);
  CHECK(exact.check.ok);
  CHECK(exact.check.detail.find("exactly (inputs k 2^-6, |k| <= 64") != std::string::npos);
  auto bounded = run("cluster_reduce", 16, 1, 256, {{"elems", int64_t(1) << 21}}, 8);
  INFO(bounded.check.detail);
  CHECK(bounded.check.ok);
  CHECK(bounded.check.detail.find("x sum|x| (f32 rounding, worst case)") != std::string::npos);
}

TEST_CASE("timing reports positive, ordered figures [gpu]", "[gpu]") {
  auto r = run("dsmem_ring", 2, 66, 256, {{"elems", 8192}, {"rounds", 4}, {"vector", 4}}, 3, 10);
  CHECK(r.check.ok);
  CHECK(r.timing.iters == 10);
  CHECK(r.timing.min_ms > 0);
  CHECK(r.timing.min_ms <= r.timing.median_ms);
  CHECK(r.timing.median_ms <= r.timing.max_ms);
  CHECK(r.gbytes_per_s() > 0);
}

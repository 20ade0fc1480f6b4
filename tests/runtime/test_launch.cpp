// Launch configuration checks and argument packing: CPU only.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>

#include "runtime/error.h"
#include "runtime/launch.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

namespace {

LaunchConfig config(Dim3 grid_clusters, Dim3 cluster, Dim3 block) {
  LaunchConfig c;
  c.grid_clusters = grid_clusters;
  c.cluster = cluster;
  c.block = block;
  return c;
}

std::string launch_error(const LaunchConfig& c) {
  try {
    validate(c, "ring");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Launch);
    return e.what();
  }
  return "";
}

struct alignas(128) Map128 { // shaped like CUtensorMap (alignas(128) in CUDA 13)
  uint64_t words[16];
};

} // namespace

TEST_CASE("the grid in blocks is clusters times cluster size per dimension", "[runtime][launch]") {
  LaunchConfig c = config({3, 2, 1}, {4, 1, 2}, {128, 1, 1});
  Dim3 g = grid_in_blocks(c);
  CHECK(g.x == 12);
  CHECK(g.y == 2);
  CHECK(g.z == 2);
  CHECK(c.cluster.count() == 8);
  CHECK(Dim3{}.count() == 1);
}

TEST_CASE("validate accepts clusters up to 16 CTAs", "[runtime][launch]") {
  CHECK_NOTHROW(validate(config({1, 1, 1}, {1, 1, 1}, {1, 1, 1}), "k"));
  CHECK_NOTHROW(validate(config({7, 1, 1}, {16, 1, 1}, {128, 1, 1}), "k"));
  CHECK_NOTHROW(validate(config({7, 1, 1}, {4, 2, 2}, {1024, 1, 1}), "k"));
}

TEST_CASE("validate rejects zero dimensions with a sentence", "[runtime][launch]") {
  CHECK(launch_error(config({0, 1, 1}, {2, 1, 1}, {128, 1, 1})) ==
        "kernel 'ring': grid_clusters is 0x1x1; every launch dimension must be at least 1");
  CHECK(contains(launch_error(config({1, 1, 1}, {2, 0, 1}, {128, 1, 1})), "cluster is 2x0x1"));
  CHECK(contains(launch_error(config({1, 1, 1}, {2, 1, 1}, {128, 1, 0})), "block is 128x1x0"));
}

TEST_CASE("validate rejects clusters over 16 CTAs", "[runtime][launch]") {
  std::string msg = launch_error(config({1, 1, 1}, {17, 1, 1}, {128, 1, 1}));
  CHECK(msg == "kernel 'ring': a cluster of 17 CTAs (17x1x1) exceeds the hardware limit of 16 "
               "CTAs per cluster (8 is the portable size); use a smaller cluster");
  CHECK(contains(launch_error(config({1, 1, 1}, {4, 4, 2}, {128, 1, 1})), "a cluster of 32 CTAs"));
  // x*y*z overflowing 32 bits must not wrap into an accepted size.
  CHECK(contains(launch_error(config({1, 1, 1}, {65536, 65536, 1}, {1, 1, 1})), "exceeds"));
}

TEST_CASE("validate rejects oversized blocks and grids", "[runtime][launch]") {
  CHECK(contains(launch_error(config({1, 1, 1}, {1, 1, 1}, {1025, 1, 1})), "1024 threads"));
  CHECK(contains(launch_error(config({1, 1, 1}, {1, 1, 1}, {1, 1, 65})), "1024 threads"));
  CHECK(contains(launch_error(config({1, 40000, 1}, {1, 2, 1}, {32, 1, 1})), "65535"));
  CHECK(contains(launch_error(config({0x40000000u, 1, 1}, {2, 1, 1}, {32, 1, 1})), "2^31-1"));
}

TEST_CASE("ArgPack keeps aligned copies at stable addresses", "[runtime][launch]") {
  ArgPack args;
  char c = 'x';
  int i = -7;
  double d = 2.5;
  Map128 map{};
  for (int k = 0; k < 16; ++k) map.words[k] = 1000 + k;
  std::array<float, 3> v = {1.f, 2.f, 3.f};
  args.push(c).push(i).push(d).push(map).push(v);

  REQUIRE(args.size() == 5);
  void** p = args.data();
  CHECK(*static_cast<char*>(p[0]) == 'x');
  CHECK(*static_cast<int*>(p[1]) == -7);
  CHECK(*static_cast<double*>(p[2]) == 2.5);
  CHECK(static_cast<Map128*>(p[3])->words[15] == 1015);
  CHECK(static_cast<float*>(p[4])[2] == 3.f);
  CHECK(args.bytes_of(0) == 1);
  CHECK(args.bytes_of(3) == 128);
  CHECK(args.bytes_of(4) == 12);
  for (size_t k = 0; k < args.size(); ++k) CHECK(reinterpret_cast<uintptr_t>(p[k]) % 16 == 0);
  CHECK(reinterpret_cast<uintptr_t>(p[3]) % 128 == 0);

  // Copies, not references: changing the originals changes nothing.
  i = 99;
  CHECK(*static_cast<int*>(args.data()[1]) == -7);

  // Values keep their addresses as more are pushed (the pointer array may move).
  void* first = p[0];
  void* mapped = p[3];
  for (int k = 0; k < 200; ++k) args.push(k);
  CHECK(args.data()[0] == first);
  CHECK(args.data()[3] == mapped);
  CHECK(*static_cast<int*>(args.data()[5 + 123]) == 123);

  ArgPack moved = std::move(args);
  CHECK(moved.data()[3] == mapped);
}

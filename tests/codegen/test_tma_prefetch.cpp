// tma_prefetch: a TMA box into L2 only. The DSL call, its IR text and CUDA, the PTX NVRTC
// makes of it for sm_90a and sm_100a, its errors, and the GEMM producer's use of it.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_tma_prefetch.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"
#include "tests/codegen/gemm_test_support.h"

#include "dsl/ir/printer.h"

namespace {

// A rank-2 map: thread 0 prefetches the box at (64, row) into L2, then loads the box at
// (0, row) into shared memory.
ir::Kernel prefetching_kernel() {
  KernelBuilder k("prefetching");
  TensorMap t = k.tensor_map<float>("t", {16, 8});
  auto tile = k.shared<float>("tile", 128);
  auto full = k.mbarriers("full", 1, 1);
  i32 row = k.param<int32_t>("row");
  if_(thread_idx_x() == 0, [&] {
    tma_prefetch(t, {i32(64), row});
    arrive_expect_tx(full[0], u32(512));
    tma_load(tile[0], t, {i32(0), row}, full[0]);
  });
  wait(full[0]);
  return k.build();
}

}  // namespace

TEST_CASE("tma_prefetch: its IR text and CUDA", "[codegen][tma][prefetch]") {
  const ir::Kernel k = prefetching_kernel();
  CHECK(contains(ir::to_string(k), "tma_prefetch(t{64, row})"));
  const std::string cuda = lowered_cuda(k);
  const size_t prefetch = cuda.find("tj::tma_prefetch_2d(&t, 64, row);");
  REQUIRE(prefetch != std::string::npos);
  CHECK(cuda.find("tj::tma_load_2d(", prefetch) != std::string::npos);  // program order kept
}

TEST_CASE("tma_prefetch: cp.async.bulk.prefetch.tensor in the PTX for sm_90a and sm_100a", "[codegen][tma][prefetch][nvrtc]") {
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    INFO(t.arch);
    codegen::Lowered l = codegen::lower(prefetching_kernel(), t);
    rt::CompileResult r = rt::compile(samples::compile_request(l, t), nullptr);
    REQUIRE(r.cubin.compare(0, 4, "\x7f" "ELF") == 0);
    const size_t p = r.ptx.find("cp.async.bulk.prefetch.tensor.2d.L2.global.tile");
    REQUIRE(p != std::string::npos);
    CHECK(r.ptx.find("cp.async.bulk.tensor.2d", p) != std::string::npos);
    CHECK(test::occurrences(r.ptx, "cp.async.bulk.prefetch.tensor") == 1);
  }
}

TEST_CASE("tma_prefetch: one coordinate per dimension of the map", "[codegen][tma][prefetch][errors]") {
  KernelBuilder k("prefetch_rank");
  TensorMap t = k.tensor_map<float>("t", {16, 8});
  unsigned line = 0;
  const std::string e = dsl_error_of([&] {
    line = __LINE__ + 1;
    tma_prefetch(t, {i32(0)});
  });
  CHECK(e == diag(line, "tensor map 't' has rank 2 but 1 coordinates were given",
                  "give one coordinate per dimension, innermost first"));
}

TEST_CASE("tma_prefetch_tile: one box per panel at the load's coordinates", "[codegen][tma][prefetch]") {
  KernelBuilder k("prefetch_tile");
  // 64 bf16 columns in panels of 32 (64-byte swizzle): two boxes of 16 rows per part.
  SharedTile a = k.shared_tile<bf16>("a", 32, 64, 1, ir::Major::K, ir::Swizzle::B64);
  TileMap am = k.tile_map("am", a, 16);
  i32 row0 = k.param<int32_t>("row0");
  if_(thread_idx_x() == 0, [&] { tma_prefetch_tile(am, row0, i32(128), i32(1)); });
  const std::string cuda = lowered_cuda(k.build());
  CHECK(test::occurrences(cuda, "tj::tma_prefetch_2d(&am, ") == 2);
  CHECK(contains(cuda, "tj::tma_prefetch_2d(&am, (128 + 0), (row0 + (1 * 16)));"));
  CHECK(contains(cuda, "tj::tma_prefetch_2d(&am, (128 + 32), (row0 + (1 * 16)));"));
}

TEST_CASE("gemm prefetch: the producer prefetches ahead before it waits for a free stage", "[codegen][gemm][prefetch]") {
  const std::string plain = codegen::lower(test::gemm_sample().build(test::gemm_config({})), Target::sm90a()).cuda;
  CHECK(plain.find("tma_prefetch") == std::string::npos);

  const std::string cuda = codegen::lower(test::gemm_sample().build(test::gemm_config({{"prefetch", 3}}, {1, 2, 1})),
                                          Target::sm90a())
                               .cuda;
  // The unit's first k-blocks once (k-blocks 1 and 2), then k-block i + 3 with each load.
  const size_t burst = cuda.find("for (int i0 = 1; i0 < tj::min_((((k + 64) - 1) / 64), 3); i0 += 1) {");
  const size_t ahead = cuda.find("tj::tma_prefetch_2d(&A, (((i + 3) * 64) + 0), ");
  REQUIRE(burst != std::string::npos);
  REQUIRE(ahead != std::string::npos);
  CHECK(burst < ahead);
  CHECK(cuda.find("tj::tma_prefetch_2d(&A, ((i0 * 64) + 0), ", burst) < ahead);
  const size_t wait = cuda.find("tj::mbar_wait_cta(&empty[", ahead);
  const size_t load = cuda.find("tj::tma_load_2d", ahead);
  REQUIRE(wait != std::string::npos);
  REQUIRE(load != std::string::npos);
  CHECK(wait < load);
  CHECK(cuda.rfind("tj::mbar_wait_cta(&empty[", burst) == std::string::npos);  // none before the first prefetch
  CHECK(test::occurrences(cuda, "tj::tma_prefetch_2d(&B, ") >= 2);
}

TEST_CASE("gemm prefetch: refused without a producer warpgroup", "[codegen][gemm][prefetch][errors]") {
  const std::vector<std::string> p =
      test::gemm_problems(test::gemm_config({{"prefetch", 2}, {"warp_specialized", 0}, {"consumers", 1}, {"bn", 128}}));
  REQUIRE(p.size() == 1);
  CHECK(p[0] == "params.prefetch: prefetch 2 is issued by the producer warpgroup; warp_specialized 0 has none (use prefetch 0)");
  CHECK(test::gemm_problems(test::gemm_config({{"prefetch", 2}})).empty());
}

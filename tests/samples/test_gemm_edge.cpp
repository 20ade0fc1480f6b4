// The GEMM's edge tiles moved back to end at m and n (gemm_kernel.cpp, row_origin): where
// the kernel applies it and the origin it computes. No GPU needed (the GPU runs it in
// tests/gpu/test_gemm.cpp, "[edge]").
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
std::string cuda_of(std::map<std::string, int64_t> params, double beta = 0.0, ir::Dim3 cluster = {2, 1, 1}) {
  params.insert({{"m", 900}, {"n", 1400}, {"k", 2048}, {"bn", 96}});
  samples::Config c = test::gemm_config(params, cluster);
  c.reals["beta"] = beta;
  REQUIRE(test::gemm_sample().check_config(c).empty());
  return samples::compile_sample(test::gemm_sample(), c, codegen::Target::sm90a(), nullptr).cuda();
}
// The row origin of A's loads and D's stores, as the kernel computes it from m at run time.
const std::string kRowOrigin = "((m >= 128) && (((m % 128) * 2) < 128)) ? tj::min_((tile_m * 128), (m - 128)) : (tile_m * 128)";
// Columns: rounded up to 8 elements (a TMA store's innermost coordinate stays 16-byte aligned
// where n is not).
const std::string kColOrigin = "((n >= 96) && (((n % 96) * 2) < 96)) ? tj::min_((tile_n * 96), ((((n - 96) + 7) / 8) * 8)) : (tile_n * 96)";
}  // namespace

TEST_CASE("gemm edge tiles: moved where less than half a tile remains, with beta 0, no residual and not stream-K",
          "[samples][gemm][edge]") {
  const std::string moved = cuda_of({});
  CHECK(moved.find(kRowOrigin) != std::string::npos);
  CHECK(moved.find(kColOrigin) != std::string::npos);
  // The fused epilogue's vectors follow the moved columns.
  const std::string fused = cuda_of({{"bias", 1}, {"act", 2}});
  CHECK(fused.find(kColOrigin) != std::string::npos);
  // Not where C or R is read from D's place, under stream-K, or with edge 0: the tiles
  // start at tile * bm and their boxes run past the edge.
  for (const auto& [what, cuda] : {std::pair{"beta", cuda_of({}, 0.5)}, {"residual", cuda_of({{"bias", 1}, {"residual", 1}})},
                                   {"stream-K", cuda_of({{"schedule", 2}})}, {"edge 0", cuda_of({{"edge", 0}})}}) {
    INFO(what);
    CHECK(cuda.find("tj::min_((tile_m * 128), (m - 128))") == std::string::npos);
    CHECK(cuda.find("tj::min_((tile_n * 96), ((((n - 96) + 7) / 8) * 8))") == std::string::npos);
  }
}

// Multicast slices of an operand tile: each CTA of a cluster row (column) loads bm / x (bn / y)
// rows and multicasts them. A K-major slice starts 128-byte aligned in any row of a 128-byte
// swizzled tile (28 of B's 112 rows in clusters of 4), not only on the 8-row swizzle atom; an
// N-major B (nn) still slices in 8-row steps. What the spec accepts and refuses, and the
// accepted kernels' boxes and PTX. No GPU needed (tests/gpu/test_gemm.cpp, "[slices]", runs them).
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "generators/runner.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

namespace {
const samples::Sample& gemm() { return test::gemm_sample(); }
samples::Config sliced(std::map<std::string, int64_t> params, ir::Dim3 cluster) {
  params.insert({{"m", 4342}, {"n", 328}, {"k", 9472}, {"multicast", 1}});
  return test::gemm_config(params, cluster);
}
// The box of tensor map `name` in the kernel c builds: {elements per row, rows}.
std::vector<unsigned> box_of(const samples::Config& c, const std::string& name) {
  const ir::Kernel k = gemm().build(c);
  for (const ir::TensorMapDecl& m : k.tensor_maps)
    if (m.name == name) return m.box;
  FAIL("no tensor map " << name);
  return {};
}
}  // namespace

TEST_CASE("gemm multicast slices: any row count of 128-byte K rows, refused by name where a slice is no whole row or nn's 8",
          "[samples][gemm][multicast][slices]") {
  // 112 rows of B over 4 CTAs: 28 each; 208 over 4: 52; 80 over 4 in 2x4: 20; bk 32 (64-byte rows): 28, even.
  for (auto [params, cluster, rows] : std::vector<std::tuple<std::map<std::string, int64_t>, ir::Dim3, unsigned>>{
           {{{"bn", 112}}, {1, 4, 1}, 28},
           {{{"bn", 208}}, {1, 4, 1}, 52},
           {{{"bn", 80}}, {2, 4, 1}, 20},
           {{{"bn", 112}, {"bk", 32}}, {1, 4, 1}, 28},
       }) {
    const samples::Config c = sliced(params, cluster);
    INFO("bn " << params.at("bn") << " cluster " << cluster.str());
    CHECK(gemm().check_config(c).empty());
    const std::vector<unsigned> box = box_of(c, "B");
    REQUIRE(box.size() == 2);
    CHECK(box[1] == rows);
  }
  // 80 rows over 3 CTAs.
  std::vector<samples::ConfigProblem> p = gemm().check_config(sliced({{"bn", 80}}, {1, 3, 1}));
  REQUIRE(!p.empty());
  CHECK(p[0].field == "cluster");
  CHECK(p[0].message == "each of the 3 CTAs of a cluster column loads 80 / 3 rows of B: that must be a whole number");
  // nn: B's tile is bk rows of N; 32 over 8 CTAs is 4, not the multiple of 8 its N-major slices take.
  p = gemm().check_config(sliced({{"layout", 1}, {"bk", 32}, {"bn", 128}}, {1, 8, 1}));
  REQUIRE(!p.empty());
  CHECK(p[0].field == "cluster");
  CHECK(p[0].message == "each of the 8 CTAs of a cluster column loads 32 / 8 rows of B: that must be a multiple of 8");
}

TEST_CASE("gemm multicast slices of 28 rows compile to multicast TMA loads without spills", "[samples][gemm][multicast][slices][ptx]") {
  const samples::Config c = sliced({{"bn", 112}}, {1, 4, 1});
  REQUIRE(gemm().check_config(c).empty());
  const samples::Compiled compiled = samples::compile_sample(gemm(), c, codegen::Target::sm90a(), nullptr);
  CHECK(compiled.ptx().find(".multicast::cluster") != std::string::npos);
  test::compile_without_spills(codegen::lower(gemm().build(c), codegen::Target::sm90a()), "bn 112 in 1x4");
}

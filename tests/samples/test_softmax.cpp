// The softmax sample without a GPU: how a config becomes a plan (vector width, warps per
// row, rows per CTA, the grid), its config rules (exact messages at the spec's fields),
// the error bound it is checked with, and what NVRTC makes of it for sm_90a: 16-byte
// loads and stores, shfl.sync.bfly reductions, ex2.approx, CTA barriers only when a row
// spans warps, and no spills. The numbers: tests/gpu/test_softmax.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "samples/softmax.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"
#include "tests/samples/sample_test_support.h"

using namespace tj;

namespace {

samples::Config softmax_config(const std::map<std::string, int64_t>& params, unsigned threads = 128) {
  return test::sample_config("softmax", params, threads);
}

std::vector<std::pair<std::string, std::string>> problems(const samples::Config& c) { return test::config_problems("softmax", c); }

}  // namespace

TEST_CASE("softmax: the plan of a config", "[samples][softmax]") {
  // The spec's: 4096 f32 in 16-byte vectors, 4 warps per row (8 vectors each), one row per CTA.
  samples::SoftmaxPlan p = samples::softmax_plan(softmax_config({}));
  CHECK(p.vec == 4);
  CHECK(p.warps_per_row == 4);
  CHECK(p.rows_per_cta() == 1);
  CHECK(p.vectors_per_thread() == 8);
  CHECK_FALSE(p.ragged());
  CHECK(p.ctas() == 8192);
  CHECK(p.bytes() == 2.0 * 8192 * 4096 * 4);
  // Short rows: one warp each, four rows per CTA of 128 threads; the grid rounds up.
  p = samples::softmax_plan(softmax_config({{"rows", 7}, {"cols", 1000}}));
  CHECK(p.vec == 4);
  CHECK(p.warps_per_row == 1);
  CHECK(p.rows_per_cta() == 4);
  CHECK(p.vectors_per_thread() == 8);  // 250 vectors over 32 lanes: the last one of 6 lanes
  CHECK(p.ragged());
  CHECK(p.ctas() == 2);
  // Odd columns: scalar accesses; 4097 over the CTA's 4 warps (the most it has).
  p = samples::softmax_plan(softmax_config({{"cols", 4097}}));
  CHECK(p.vec == 1);
  CHECK(p.warps_per_row == 4);
  CHECK(p.vectors_per_thread() == 33);
  // bf16: 8 per 16 bytes, 4 per 8, 2 per 4, else 1.
  CHECK(samples::softmax_plan(softmax_config({{"dtype", 1}, {"cols", 4096}})).vec == 8);
  CHECK(samples::softmax_plan(softmax_config({{"dtype", 1}, {"cols", 4100}})).vec == 4);
  CHECK(samples::softmax_plan(softmax_config({{"dtype", 1}, {"cols", 78}})).vec == 2);
  CHECK(samples::softmax_plan(softmax_config({{"dtype", 1}, {"cols", 77}})).vec == 1);
  CHECK(samples::softmax_plan(softmax_config({{"cols", 1002}})).vec == 2);
  // 1024 threads leave 32 values per thread: bf16 16384 needs 16 warps per row (4 vectors
  // of 8 each), not the 8 that 8 vectors per thread would take.
  p = samples::softmax_plan(softmax_config({{"dtype", 1}, {"cols", 16384}}, 1024));
  CHECK(p.warps_per_row == 16);
  CHECK(p.values_per_thread() == 32);
  CHECK(p.max_values_per_thread() == 32);
  CHECK(samples::softmax_plan(softmax_config({}, 512)).max_values_per_thread() == 96);
  // An explicit warps_per_row is kept.
  p = samples::softmax_plan(softmax_config({{"warps_per_row", 2}}, 256));
  CHECK(p.warps_per_row == 2);
  CHECK(p.rows_per_cta() == 4);
  // The grid follows the problem, whatever the spec's.
  const samples::Sample* s = samples::find_sample("softmax");
  CHECK(s->problem_grid(softmax_config({{"rows", 16384}, {"cols", 1024}})) == ir::Dim3{4096, 1, 1});
  CHECK(s->problem_grid(softmax_config({})) == ir::Dim3{8192, 1, 1});
}

TEST_CASE("softmax: check_config refuses at the spec's fields", "[samples][softmax][config]") {
  using P = std::vector<std::pair<std::string, std::string>>;
  CHECK(problems(softmax_config({})).empty());
  CHECK(problems(softmax_config({{"cols", 49152}}, 512)).empty());
  CHECK(problems(softmax_config({}, 100)) == P{{"threads", "softmax needs whole warps: threads a multiple of 32, got 100"}});
  CHECK(problems(softmax_config({{"warps_per_row", 3}}, 384)) ==
        P{{"params.warps_per_row", "warps_per_row = 3 must be a power of two that divides the CTA's 12 warps (threads 384)"}});
  CHECK(problems(softmax_config({{"warps_per_row", 8}})) ==
        P{{"params.warps_per_row", "warps_per_row = 8 must be a power of two that divides the CTA's 4 warps (threads 128)"}});
  CHECK(problems(softmax_config({{"cols", 16384}, {"warps_per_row", 1}})) ==
        P{{"params.cols", "a row of 16384 f32 over 1 warps is 512 values per thread; with 128 threads at most 128 fit in "
                          "registers: raise warps_per_row (up to 4)"}});
  CHECK(problems(softmax_config({{"cols", 65536}, {"dtype", 1}}, 512)) ==
        P{{"params.cols", "a row of 65536 bf16 over 16 warps is 128 values per thread; with 512 threads at most 96 fit in "
                          "registers: a CTA holds rows of at most 32768 columns with 256 threads, 49152 with 512, 32768 with 1024"}});
  CHECK(problems(softmax_config({{"rows", 65536}, {"cols", 32768}}, 1024)) ==
        P{{"params.rows", "rows x cols = 2147483648 elements; the kernel's indices are 32-bit: at most 2147483647"}});
  samples::Config clustered = softmax_config({});
  clustered.cluster = {2, 1, 1};
  CHECK(problems(clustered) == P{{"cluster", "softmax runs without clusters: use cluster 1"}});
}

TEST_CASE("softmax: the error bound of an element", "[samples][softmax]") {
  const samples::SoftmaxPlan p = samples::softmax_plan(softmax_config({}));  // 32 values, 4 warps: h = 5 + 5 + 2
  const double u = std::ldexp(1.0, -24), gamma = 12 * u / (1 - 12 * u);
  // The row's maximum itself, m = 0, no spread: ex2.approx twice, the sum, rcp and the product.
  CHECK(samples::softmax_relative_bound(p, 0, 0, 0) == Approx(2 * std::ldexp(1.0, -22) + gamma + 2 * u).epsilon(1e-12));
  // |x - m| = 10, spread 16, |m| = 20: the argument's roundings grow with both.
  const double d10 = std::ldexp(1.0, -22) + u * (2 * 10 + 20) * (1 + std::ldexp(1.0, -20));
  const double d16 = std::ldexp(1.0, -22) + u * (2 * 16 + 20) * (1 + std::ldexp(1.0, -20));
  CHECK(samples::softmax_relative_bound(p, -30, -20, 16) == Approx(d10 + d16 + gamma + 2 * u).epsilon(1e-12));
  // bf16 output adds its rounding; the bound stays far below what a wrong element shows.
  const samples::SoftmaxPlan b = samples::softmax_plan(softmax_config({{"dtype", 1}}));
  CHECK(samples::softmax_relative_bound(b, 0, 0, 0) > std::ldexp(1.0, -8));
  CHECK(samples::softmax_relative_bound(b, 0, 0, 0) < std::ldexp(1.0, -8) + 1e-5);
  CHECK(samples::softmax_relative_bound(p, 0, 24, 16) < 1e-5);
}

TEST_CASE("softmax: sm_90a PTX has vector loads, shuffle reductions, ex2.approx, and no spills",
          "[samples][softmax][ptx]") {
  const samples::Sample* s = samples::find_sample("softmax");
  REQUIRE(s);
  struct Case {
    std::map<std::string, int64_t> params;
    unsigned threads;
    const char* load;   // the access the plan's vector width gives
    const char* store;
    unsigned accesses;  // loads (and stores) per thread
  };
  const std::vector<Case> cases = {
      {{}, 128, "ld.global.v4.f32", "st.global.v4.f32", 8},                                     // the spec's: 4 warps a row
      {{{"cols", 1000}}, 128, "ld.global.v4.f32", "st.global.v4.f32", 8},                       // a warp a row, ragged
      {{{"cols", 16384}}, 512, "ld.global.v4.f32", "st.global.v4.f32", 8},                      // 16 warps a row
      {{{"cols", 4096}, {"warps_per_row", 1}}, 128, "ld.global.v4.f32", "st.global.v4.f32", 32},  // 128 values a thread
      {{{"cols", 4097}}, 128, "ld.global.f32", "st.global.f32", 33},                            // scalar, ragged
      {{{"cols", 4096}, {"dtype", 1}}, 128, "ld.global.v4.u32", "st.global.v4.u32", 8},         // bf16, 8 per vector, 2 warps
      {{{"cols", 4100}, {"dtype", 1}}, 128, "ld.global.v2.f32", "st.global.v2.u32", 9},         // bf16, 4 per vector
      {{{"cols", 16384}, {"dtype", 1}}, 1024, "ld.global.v4.u32", "st.global.v4.u32", 4},       // bf16, 16 warps a row
  };
  for (const Case& c : cases) {
    samples::Config cfg = softmax_config(c.params, c.threads);
    const samples::SoftmaxPlan p = samples::softmax_plan(cfg);
    INFO("cols " << p.cols << " dtype " << cfg.param("dtype") << " threads " << c.threads << " warps_per_row " << p.warps_per_row);
    REQUIRE(problems(cfg).empty());
    codegen::Lowered l = codegen::lower(s->build(cfg), codegen::Target::sm90a());
    const std::string ptx = test::compile_without_spills(l, "softmax").ptx;
    CHECK(test::count(ptx, std::string(c.load) + " ") == c.accesses);
    CHECK(test::count(ptx, std::string(c.store) + " ") == c.accesses);
    CHECK(test::count(ptx, "ex2.approx.ftz.f32") == p.values_per_thread());
    CHECK(test::count(ptx, "rcp.rn.f32") == 1);
    // Max and sum: 5 butterfly steps each in the warp, log2 W more across the row's warps,
    // which meet in shared memory behind one CTA barrier each.
    unsigned log2w = 0;
    for (unsigned w = 1; w < p.warps_per_row; w *= 2) ++log2w;
    CHECK(test::count(ptx, "shfl.sync.bfly.b32") == 2 * (5 + log2w));
    CHECK(test::count(ptx, "bar.sync") == (p.warps_per_row > 1 ? 2u : 0u));
  }
}

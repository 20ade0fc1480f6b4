// The attention sample without a GPU: its config rules (exact messages at the spec's
// fields), the grid it launches, and what NVRTC makes of it for sm_90a: both products
// on wgmma (S = Q K^T from shared memory, O += P V with P from registers), 3-D TMA loads
// and stores, the .approx exp2 / log2 / rcp, and no spills. The numbers:
// tests/gpu/test_attention.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <string>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "dsl/ir/printer.h"
#include "samples/attention.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"
#include "tests/samples/sample_test_support.h"

using namespace tj;

namespace {

samples::Config attention_config(const std::map<std::string, int64_t>& params) { return test::sample_config("attention", params); }

std::vector<std::pair<std::string, std::string>> problems(const samples::Config& c) { return test::config_problems("attention", c); }

}  // namespace

TEST_CASE("attention: sm_90a PTX has wgmma with register A, 3-D TMA and ex2.approx, and no config spills",
          "[samples][attention][ptx]") {
  const samples::Sample* s = samples::find_sample("attention");
  REQUIRE(s);
  const std::vector<std::map<std::string, int64_t>> cases = {
      {},                                                          // the spec's: d 128, block_n 128, 2 consumers
      {{"causal", 1}},
      {{"head_dim", 64}},
      {{"head_dim", 64}, {"causal", 1}, {"consumers", 1}, {"block_n", 64}, {"stages", 4}},
      {{"consumers", 1}, {"block_n", 64}, {"stages", 4}},
      {{"schedule", 1}},                                           // persistent, static
      {{"schedule", 2}, {"causal", 1}},                            // persistent, dynamic (an atomic claim)
      {{"head_dim", 256}},                                         // d 256: block_n 64 by default, O over Q's rows
      {{"head_dim", 256}, {"causal", 1}},
      {{"head_dim", 256}, {"schedule", 1}},
      {{"head_dim", 256}, {"schedule", 2}, {"causal", 1}},
      {{"head_dim", 256}, {"consumers", 1}},
      {{"head_dim", 96}},                                          // d between panels: the tiles hold 128
      {{"head_dim", 40}, {"causal", 1}},                           // ... 64
      {{"head_dim", 192}},                                         // three panels
      {{"head_dim", 136}, {"causal", 1}},                          // ... 192
  };
  for (const auto& params : cases) {
    samples::Config cfg = attention_config(params);
    const unsigned d = unsigned(samples::attention_shape(cfg).panel_dim()), bn = samples::attention_tiling(cfg).block_n;
    INFO("head_dim " << d << " block_n " << bn << " causal " << cfg.param("causal") << " consumers " << cfg.param("consumers"));
    REQUIRE(problems(cfg).empty());
    codegen::Lowered l = codegen::lower(s->build(cfg), codegen::Target::sm90a());
    const std::string ptx = test::compile_without_spills(l, "attention").ptx;
    // S = Q K^T: m64 x block_n over K = d; O += P V: m64 x d over K = block_n.
    const std::string s_mma = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(bn) + "k16.f32.bf16.bf16";
    const std::string pv_mma = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(d) + "k16.f32.bf16.bf16";
    CHECK(test::count(ptx, s_mma) >= d / 16);
    CHECK(test::count(ptx, pv_mma) >= bn / 16);
    // P V's A is registers: four 32-bit registers of bf16 pairs in braces, then B's descriptor.
    const std::regex register_a("wgmma\\.mma_async\\.sync\\.aligned\\.m64n" + std::to_string(d) +
                                "k16\\.f32\\.bf16\\.bf16[^;]*\\},\\s*\\{%r[0-9]+, %r[0-9]+, %r[0-9]+, %r[0-9]+\\},\\s*%rd");
    CHECK(std::regex_search(ptx, register_a));
    CHECK(test::count(ptx, "cp.async.bulk.tensor.3d.shared::cluster.global") >= 1);  // Q, K, V through (d, seq, head) maps
    CHECK(test::count(ptx, "cp.async.bulk.tensor.3d.global.shared::cta") >= 1);     // O, clipped within its head
    CHECK(test::count(ptx, "ex2.approx.ftz.f32") >= bn / 2);
    CHECK(test::count(ptx, "lg2.approx.ftz.f32") >= 1);
    CHECK(test::count(ptx, "setmaxnreg") >= 2);
  }
}

TEST_CASE("attention: check_config refuses at the spec's fields", "[samples][attention][config]") {
  using P = std::vector<std::pair<std::string, std::string>>;
  CHECK(problems(attention_config({})).empty());
  CHECK(problems(attention_config({{"head_dim", 100}})) ==
        P{{"params.head_dim", "head_dim = 100: rows of Q, K, V and O must be a multiple of 16 bytes for TMA: use a multiple of 8 "
                              "(the kernel holds d in 64, 128, 192 or 256 columns)"}});
  for (int64_t d : {8, 40, 96, 136, 192, 248}) {
    INFO("head_dim " << d);
    CHECK(problems(attention_config({{"head_dim", d}})).empty());
  }
  CHECK(problems(attention_config({{"block_n", 96}, {"head_dim", 64}})) == P{{"params.block_n", "block_n = 96 must be a multiple of 64"}});
  CHECK(problems(attention_config({{"block_n", 256}})) ==
        P{{"params.block_n",
           "a consumer warpgroup holds S (64 x 256), O (64 x 128), P in bf16 and its row fragments: 264 registers per thread "
           "plus about 40 more; a consumer of 2 has 240: use a smaller block_n"},
          {"params.stages",
           "2 stages of K and V (256 x 128 each) plus Q, which also holds the output (128 rows), and the logsumexp rows need "
           "312320 bytes of shared memory; a CTA has 232448: use fewer stages or a smaller block_n"}});
  CHECK(problems(attention_config({{"stages", 3}})) ==
        P{{"params.stages",
           "3 stages of K and V (128 x 128 each) plus Q, which also holds the output (128 rows), and the logsumexp rows need "
           "246784 bytes of shared memory; a CTA has 232448: use fewer stages or a smaller block_n"}});
  // d 256: the default block_n (64) fits; 128 keys per stage fit neither the registers nor 2 stages.
  CHECK(problems(attention_config({{"head_dim", 256}})).empty());
  CHECK(problems(attention_config({{"head_dim", 256}, {"block_n", 128}})) ==
        P{{"params.block_n",
           "a consumer warpgroup holds S (64 x 128), O (64 x 256), P in bf16 and its row fragments: 232 registers per thread "
           "plus about 40 more; a consumer of 2 has 240: use a smaller block_n"},
          {"params.stages",
           "2 stages of K and V (128 x 256 each) plus Q, which also holds the output (128 rows), and the logsumexp rows need "
           "345088 bytes of shared memory; a CTA has 232448: use fewer stages or a smaller block_n"}});
  CHECK(problems(attention_config({{"head_dim", 256}, {"stages", 3}})) ==
        P{{"params.stages",
           "3 stages of K and V (64 x 256 each) plus Q, which also holds the output (128 rows), and the logsumexp rows need "
           "279552 bytes of shared memory; a CTA has 232448: use fewer stages or a smaller block_n"}});
  CHECK(problems(attention_config({{"batch", 300}, {"heads", 256}})) ==
        P{{"params.heads", "batch x heads = 76800: one grid row per (batch, head) allows at most 65535"}});
  samples::Config clustered = attention_config({});
  clustered.cluster = {2, 1, 1};
  CHECK(problems(clustered) == P{{"cluster", "attention runs without clusters: use cluster 1"}});
}

TEST_CASE("attention: block_n by head dim, shared memory and registers per consumer", "[samples][attention][config]") {
  // The spec's block_n 0: 128 at d 64 and 128, 64 at d 256; a block_n given is kept.
  CHECK(samples::attention_tiling(attention_config({})).block_n == 128);
  CHECK(samples::attention_tiling(attention_config({{"head_dim", 64}})).block_n == 128);
  CHECK(samples::attention_tiling(attention_config({{"head_dim", 256}})).block_n == 64);
  CHECK(samples::attention_tiling(attention_config({{"head_dim", 256}, {"block_n", 128}})).block_n == 128);
  CHECK(samples::attention_tiling(attention_config({{"head_dim", 128}, {"block_n", 64}})).block_n == 64);
  auto figures = [](const std::map<std::string, int64_t>& params) {
    const samples::Config c = attention_config(params);
    const samples::AttentionShape s = samples::attention_shape(c);
    const samples::AttentionTiling t = samples::attention_tiling(c);
    return std::make_pair(samples::attention_smem_bytes(s, t), samples::attention_fragment_registers(s, t));
  };
  // Q (which the output reuses), 2 stages of K and V, 128 x 32 f32 logsumexp rows, 1 KiB of alignment and barriers.
  CHECK(figures({{"head_dim", 64}, {"schedule", 0}}) == std::make_pair(uint64_t(16384 + 65536 + 16384 + 1024), 64u + 32 + 32 + 8));
  CHECK(figures({{"schedule", 0}}) == std::make_pair(uint64_t(32768 + 131072 + 16384 + 1024), 64u + 64 + 32 + 8));
  CHECK(figures({{"head_dim", 256}}) == std::make_pair(uint64_t(65536 + 131072 + 16384 + 1024), 32u + 128 + 16 + 8));
  CHECK(figures({{"head_dim", 256}, {"consumers", 1}}) ==
        std::make_pair(uint64_t(32768 + 131072 + 8192 + 1024), 32u + 128 + 16 + 8));
  // A persistent schedule takes a second Q buffer where it fits (d 64 and 128), not at d 256.
  CHECK(samples::attention_tiling(attention_config({{"schedule", 0}})).q_stages == 1);
  // auto (the spec's default): static, or dynamic when causal, with two Q buffers at d 64 and 128; the grid at d 256.
  const auto tiling = [](const std::map<std::string, int64_t>& params) {
    return samples::attention_tiling(attention_config(params));
  };
  CHECK(tiling({}).schedule == samples::AttentionSchedule::Static);
  CHECK(tiling({}).q_stages == 2);
  CHECK(tiling({{"causal", 1}, {"head_dim", 64}}).schedule == samples::AttentionSchedule::Dynamic);
  CHECK(tiling({{"head_dim", 256}, {"causal", 1}}).schedule == samples::AttentionSchedule::Grid);
  CHECK(tiling({{"head_dim", 256}}).q_stages == 1);
  // ... and at d 128 only up to 32 key blocks per unit (64 when causal); at d 64 on every length.
  CHECK(tiling({{"seq_k", 4097}}).schedule == samples::AttentionSchedule::Grid);
  CHECK(tiling({{"seq_k", 8192}, {"causal", 1}}).schedule == samples::AttentionSchedule::Dynamic);
  CHECK(tiling({{"seq_k", 8193}, {"causal", 1}}).schedule == samples::AttentionSchedule::Grid);
  CHECK(tiling({{"seq_k", 16384}, {"head_dim", 64}}).schedule == samples::AttentionSchedule::Static);
  CHECK(tiling({{"seq_k", 4097}}).q_stages == 1);
  CHECK(samples::attention_tiling(attention_config({{"schedule", 2}})).q_stages == 2);
  CHECK(samples::attention_tiling(attention_config({{"schedule", 1}, {"head_dim", 64}})).q_stages == 2);
  CHECK(samples::attention_tiling(attention_config({{"schedule", 2}, {"head_dim", 256}})).q_stages == 1);
  CHECK(figures({{"schedule", 2}}) == std::make_pair(uint64_t(2 * 32768 + 131072 + 16384 + 1024), 64u + 64 + 32 + 8));
  CHECK(figures({{"schedule", 2}, {"head_dim", 256}}) == figures({{"head_dim", 256}}));
  CHECK(samples::attention_consumer_registers(2) == 240);
  CHECK(samples::attention_consumer_registers(1) == 240);
}

TEST_CASE("attention: one CTA per (query block, batch x head), whatever the spec's grid", "[samples][attention]") {
  const samples::Sample* s = samples::find_sample("attention");
  REQUIRE(s);
  CHECK(s->problem_grid(attention_config({{"batch", 2}, {"heads", 3}, {"seq_q", 200}})) == ir::Dim3{2, 6, 1});
  CHECK(s->problem_grid(attention_config({{"seq_q", 4096}, {"consumers", 1}})) == ir::Dim3{64, 64, 1});
  const samples::AttentionShape causal = samples::attention_shape(attention_config({{"causal", 1}}));
  CHECK(causal.flops() == 4.0 * 4 * 16 * 4096.0 * 4096 * 128 / 2);
}

TEST_CASE("attention: persistent schedules walk the units with as many CTAs as fit", "[samples][attention][schedule]") {
  const samples::Sample* s = samples::find_sample("attention");
  REQUIRE(s);
  // The grid schedule keeps one CTA per unit; static and dynamic take a persistent grid.
  CHECK_FALSE(s->persistent_grid(attention_config({{"schedule", 0}}), 132).has_value());
  CHECK_FALSE(s->persistent_grid(attention_config({{"head_dim", 256}}), 132).has_value());  // auto at d 256: the grid
  CHECK(s->persistent_grid(attention_config({}), 132) == ir::Dim3{132, 1, 1});             // auto at d 128: static
  CHECK(s->persistent_grid(attention_config({{"schedule", 1}}), 132) == ir::Dim3{132, 1, 1});
  CHECK(s->persistent_grid(attention_config({{"schedule", 2}, {"batch", 1}, {"heads", 3}, {"seq_q", 200}}), 132) ==
        ir::Dim3{6, 1, 1});  // 2 query blocks x 3 heads: no more CTAs than units
  CHECK(s->persistent_grid(attention_config({{"schedule", 2}}), 0) == ir::Dim3{1, 1, 1});
  // Every check verifies the persistent kernels: the K/V ring's arrivals, the claim's barriers.
  for (int64_t schedule : {1, 2})
    for (int64_t causal : {0, 1}) {
      INFO("schedule " << schedule << " causal " << causal);
      codegen::Lowered l = codegen::lower(s->build(attention_config({{"schedule", schedule}, {"causal", causal}})),
                                          codegen::Target::sm90a());
      for (const codegen::race::RaceCheck& r : l.races) {
        INFO(to_string(r));
        CHECK(r.outcome == codegen::race::RaceCheck::Verified);
      }
      const bool claims = std::any_of(l.races.begin(), l.races.end(), [](const codegen::race::RaceCheck& r) {
        return r.subject.find("tj_dyn_full") != std::string::npos;
      });
      CHECK(claims == (schedule == 2));
    }
}

TEST_CASE("attention: the spec's inputs choose the host's data, not the kernel", "[samples][attention]") {
  const samples::Sample* s = samples::find_sample("attention");
  REQUIRE(s);
  const cli::Spec rising = cli::parse_spec(R"({"kernel": "attention", "params": {"inputs": "rising"}})", "a.json", {s});
  CHECK(rising.config.param("inputs") == 1);
  CHECK(cli::parse_spec(R"({"kernel": "attention"})", "a.json", {s}).config.param("inputs") == 0);
  try {
    cli::parse_spec(R"({"kernel": "attention", "params": {"inputs": "spiky"}})", "a.json", {s});
    FAIL("a wrong choice was accepted");
  } catch (const cli::SpecError& e) {
    CHECK(std::string(e.what()) == "a.json: $.params.inputs: unknown choice 'spiky'; expected one of uniform, rising");
  }
  CHECK(ir::to_string(s->build(attention_config({{"inputs", 1}}))) == ir::to_string(s->build(attention_config({}))));
}

// The attention sample on the GPU against softmax attention in double (the instance's
// check: O and the logsumexp at every row of three heads, or a sample of rows of long
// heads, within a bound from P's and O's bf16 roundings): lengths that are and are not
// multiples of the blocks, causal and not, d 64, 128, 192 and 256 and d between them (8 to 248),
// one and two consumers.
// Every head dim writes O through its consumer's rows of the Q tile.
#include "tests/gpu/gpu_fixture.h"

#include "samples/builtin.h"

namespace {

struct AttentionCase {
  int64_t batch, heads, seq_q, seq_k, head_dim;
  bool causal;
  std::map<std::string, int64_t> params = {};
};

std::string describe(const AttentionCase& a) {
  std::string p;
  for (auto& [k, v] : a.params) p += " " + k + "=" + std::to_string(v);
  return std::to_string(a.batch) + "x" + std::to_string(a.heads) + " sq " + std::to_string(a.seq_q) + " sk " +
         std::to_string(a.seq_k) + " d " + std::to_string(a.head_dim) + (a.causal ? " causal" : "") + p;
}

tj::samples::RunReport run_attention(const AttentionCase& a, uint64_t seed) {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("attention");
  REQUIRE(s != nullptr);
  samples::Config c = samples::default_config(*s);
  c.cluster = {1, 1, 1};
  c.grid_clusters = {1, 1, 1};  // the sample sizes its grid from the problem
  c.params["batch"] = a.batch, c.params["heads"] = a.heads;
  c.params["seq_q"] = a.seq_q, c.params["seq_k"] = a.seq_k;
  c.params["head_dim"] = a.head_dim, c.params["causal"] = a.causal ? 1 : 0;
  for (auto& [key, v] : a.params) c.params[key] = v;
  samples::Compiled compiled = samples::compile_sample(*s, c, gpu_test::target(), nullptr);
  samples::RunOptions opts;
  opts.iters = 0;
  opts.seed = seed;
  return samples::run_sample(*s, c, compiled, gpu_test::device(), opts);
}

void check(const AttentionCase& a, uint64_t seed) {
  DYNAMIC_SECTION(describe(a)) {
    auto r = run_attention(a, seed);
    REQUIRE(r.verified);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
}

}  // namespace

TEST_CASE("attention: lengths, causal masks and head dims against softmax in double [gpu]", "[gpu][attention]") {
  const std::vector<AttentionCase> cases = {
      {1, 1, 128, 128, 64, false},
      {1, 1, 128, 128, 128, false},
      {2, 3, 200, 300, 128, false},                  // ragged: blocks past seq_q and seq_k inside a head
      {2, 3, 300, 200, 64, false},
      {1, 2, 1, 1, 64, false},                       // one query, one key
      {2, 2, 1000, 1000, 128, true},                 // causal, ragged
      {2, 2, 1000, 1000, 64, true},
      {1, 2, 333, 517, 128, true},                   // causal with seq_q != seq_k (top-left aligned)
      {1, 2, 517, 333, 64, true},
      {2, 4, 1024, 1024, 128, false, {{"consumers", 1}}},
      {2, 4, 777, 1031, 64, true, {{"consumers", 1}, {"block_n", 64}, {"stages", 4}}},
      {1, 4, 1000, 1000, 128, false, {{"block_n", 64}, {"stages", 3}}},
      {1, 4, 2048, 2048, 64, true, {{"stages", 4}}},
      // d 256: block_n 64 by default, 2 stages (all that fit beside Q)
      {1, 1, 128, 128, 256, false},
      {2, 3, 200, 300, 256, false},                  // ragged
      {2, 3, 200, 300, 256, true},
      {2, 3, 300, 200, 256, false},
      {1, 2, 1, 1, 256, false},
      {2, 2, 1000, 1000, 256, true},
      {1, 2, 333, 517, 256, true},
      {1, 2, 517, 333, 256, true},
      {2, 4, 1024, 1024, 256, false, {{"consumers", 1}}},
      {2, 4, 777, 1031, 256, true, {{"consumers", 1}}},
      // d between the panels: the tiles hold 64, 128 or 256 columns, TMA's zeros past d
      {2, 3, 200, 300, 96, false},
      {2, 2, 1000, 1000, 96, true},
      {1, 2, 333, 517, 40, true},
      {2, 3, 300, 200, 8, false},
      {2, 3, 200, 300, 136, false},                  // three panels, the third 8 columns of d
      {2, 3, 300, 200, 192, false},                  // three whole panels
      {2, 4, 777, 1031, 192, true, {{"consumers", 1}}},
      {1, 2, 1000, 1000, 160, true},
      {1, 2, 517, 333, 192, true},
      {1, 2, 1000, 1000, 248, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 500 + i);
}

// Persistent CTAs walking the units with a static or dynamic schedule (schedule 1, 2):
// the K/V stages and their phases carried from one unit into the next, Q reloaded per
// unit, causal units of different lengths (dynamic: longest first), ragged lengths,
// more units than CTAs (the 132 SMs of an H200 each take several) and fewer.
TEST_CASE("attention: persistent schedules, static and dynamic, against softmax in double [gpu]", "[gpu][attention][schedule]") {
  const std::vector<AttentionCase> cases = {
      {2, 3, 200, 300, 128, false, {{"schedule", 1}}},
      {2, 3, 200, 300, 128, false, {{"schedule", 2}}},
      {4, 16, 1000, 1000, 128, true, {{"schedule", 1}}},                   // 8 x 64 units, causal
      {4, 16, 1000, 1000, 128, true, {{"schedule", 2}}},
      {2, 8, 2048, 2048, 64, true, {{"schedule", 2}, {"stages", 4}}},
      {1, 2, 517, 333, 64, true, {{"schedule", 2}}},                      // seq_q != seq_k
      {2, 16, 1024, 1024, 128, false, {{"schedule", 2}, {"consumers", 1}}},  // no turns
      {3, 16, 777, 1031, 64, false, {{"schedule", 1}, {"block_n", 64}, {"stages", 3}}},
      // d 256 (block_n 64, 2 stages): the next unit's Q lands where the last unit's O was stored from
      {2, 3, 200, 300, 256, false, {{"schedule", 1}}},
      {2, 3, 200, 300, 256, true, {{"schedule", 2}}},
      {4, 16, 1000, 1000, 256, true, {{"schedule", 1}}},
      {4, 16, 1000, 1000, 256, true, {{"schedule", 2}}},
      {2, 8, 1024, 1024, 256, false, {{"schedule", 1}}},
      {1, 2, 517, 333, 256, true, {{"schedule", 2}}},
      {2, 16, 1024, 1024, 256, false, {{"schedule", 2}, {"consumers", 1}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 700 + i);
}

// Rising keys (`inputs rising`): each query's largest score grows block after block, by
// many powers of 2 over a head, so O and l are rescaled by large factors again and again;
// with uniform inputs the running max barely moves after the first block.
TEST_CASE("attention: rising keys, O rescaled as the running max grows, against softmax in double [gpu]", "[gpu][attention]") {
  const std::vector<AttentionCase> cases = {
      {2, 3, 1000, 1000, 128, false, {{"inputs", 1}}},
      {2, 3, 1000, 1000, 128, true, {{"inputs", 1}}},
      {2, 3, 777, 1031, 64, false, {{"inputs", 1}}},
      {2, 2, 1000, 1000, 64, true, {{"inputs", 1}}},
      {1, 2, 517, 333, 256, true, {{"inputs", 1}}},
      {2, 3, 200, 300, 96, false, {{"inputs", 1}, {"consumers", 1}}},
      {2, 8, 2048, 2048, 128, false, {{"inputs", 1}, {"schedule", 1}}},
      {2, 8, 2048, 2048, 64, true, {{"inputs", 1}, {"schedule", 2}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 800 + i);
}

TEST_CASE("attention: the spec's shape (4 x 16 heads x 4096, d 128) [gpu]", "[gpu][attention]") {
  check({4, 16, 4096, 4096, 128, false}, 600);
  check({4, 16, 4096, 4096, 128, true}, 601);
}

TEST_CASE("attention: d 256 at the spec's shape (4 x 16 heads x 4096) [gpu]", "[gpu][attention]") {
  check({4, 16, 4096, 4096, 256, false}, 610);
  check({4, 16, 4096, 4096, 256, true}, 611);
}

// Random problems with the spec's defaults for the rest (schedule auto, block_n and stages
// chosen by the sample): batch and heads, query and key lengths from 1 to 2048 (ragged
// against every block), any head dim that is a multiple of 8, causal or not.
// TILEJIT_FUZZ_CASES sets how many (default 12), TILEJIT_FUZZ_SEED the first seed (default 1).
TEST_CASE("attention: random problems against softmax in double [gpu]", "[gpu][attention][fuzz]") {
  tj::gpu_test::FuzzDraws draws(12, 0xa77e);
  const uint64_t count = draws.count, seed = draws.seed;
  auto pick = [&](uint64_t n) { return draws.pick(n); };
  auto length = [&] { return pick(3) == 0 ? 64 * (1 + pick(32)) : 1 + pick(2048); };
  for (uint64_t i = 0; i < count; ++i) {
    const int64_t seq_q = length(), seq_k = pick(3) == 0 ? seq_q : length();
    check({1 + pick(3), 1 + pick(4), seq_q, seq_k, 8 * (1 + pick(32)), pick(2) == 0}, seed * 1000 + i);
  }
}

// Random configs of every sample, as users' specs would set them: what a sample's config
// check accepts must build, pass the verifier and the static race and transaction checks,
// and lower for every target its default config lowers for. A refusal after the config
// check is the sample's bug (the user did nothing wrong), and the message would point into
// the sample's code instead of the spec. (Found that way: gemm_sm100 with bn 64 of 16-bit
// D reused its one epilogue chunk buffer before the previous tile's store had read it.)
// The first accepted config of each sample and target also goes through NVRTC and ptxas.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <sstream>

#include "codegen/lower.h"
#include "codegen/passes/verify_launch.h"
#include "dsl/diagnostic.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"

using namespace tj;
using tj::codegen::Target;
using tj::samples::Config;

namespace {

// A value of `p`: its bounds, a small or round number inside them, or any up to 2^16.
int64_t draw(const samples::ParamSpec& p, std::mt19937_64& rng) {
  auto pick = [&](uint64_t n) { return rng() % n; };
  if (!p.choices.empty()) return p.min + int64_t(pick(uint64_t(p.max - p.min + 1)));
  static const int64_t kRound[] = {1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 192, 256, 1000, 4096};
  switch (pick(4)) {
    case 0: return pick(2) == 0 ? p.min : p.max;
    case 1: {
      const int64_t v = kRound[pick(std::size(kRound))];
      return v >= p.min && v <= p.max ? v : p.min;
    }
    default: return p.min + int64_t(pick(uint64_t(std::min<int64_t>(p.max, p.min + 65536) - p.min + 1)));
  }
}

std::string describe(const Config& c) {
  std::ostringstream out;
  out << "cluster " << c.cluster.str() << " threads " << c.threads;
  for (const auto& [k, v] : c.params) out << " " << k << "=" << v;
  for (const auto& [k, v] : c.reals) out << " " << k << "=" << v;
  return out.str();
}

// Lowers c's kernel for `target` as compile_sample does, short of NVRTC; empty, or why not.
std::string lower_error(const samples::Sample& s, const Config& c, const Target& target, codegen::Lowered* out = nullptr) {
  try {
    ir::Kernel k = s.build(c);
    if (std::vector<Diagnostic> diags = codegen::verify_launch(k, c.grid_ctas()); !diags.empty()) throw UserError(std::move(diags));
    codegen::Lowered l = codegen::lower(k, target);
    if (out != nullptr) *out = std::move(l);
    return {};
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("samples: random configs they accept lower on every target their defaults lower for", "[samples][random]") {
  const ir::Dim3 clusters[] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {4, 1, 1}, {1, 4, 1},
                               {8, 1, 1}, {1, 1, 2}, {2, 1, 2}, {1, 1, 4}, {16, 1, 1}};
  const unsigned threads[] = {32, 64, 128, 256, 384, 512, 1024};
  constexpr int kDraws = 150;
  for (const samples::Sample* s : samples::all_samples()) {
    if (s->name() == "race_demo") continue;  // a test kernel, racy on request
    // About four parameters drawn per config: many more, and the GEMM's rarely agree.
    const uint64_t odds = std::max<uint64_t>(3, s->params().size() / 4);
    for (const Target& target : {Target::sm90a(), Target::sm100a()}) {
      const Config defaults = samples::default_config(*s);
      const std::vector<std::string> archs = s->targets();
      if (!archs.empty() && std::find(archs.begin(), archs.end(), target.arch) == archs.end()) continue;
      // Every sample written for sm_90a lowers there with its defaults; sm_100a refuses the
      // wgmma-shaped ones (gemm, attention) by design, and those are left out for it.
      const std::string default_error = s->check_config(defaults).empty() ? lower_error(*s, defaults, target) : "config refused";
      INFO(s->name() << "'s defaults for " << target.arch);
      if (target.arch == "sm_90a") REQUIRE(default_error == "");
      if (!default_error.empty()) continue;
      std::mt19937_64 rng(std::hash<std::string>{}(s->name() + target.arch));
      unsigned accepted = 0;
      for (int i = 0; i < kDraws; ++i) {
        Config c = defaults;
        for (const samples::ParamSpec& p : s->params())
          if (rng() % odds == 0) c.params[p.name] = draw(p, rng);
        for (const samples::RealParamSpec& p : s->real_params())
          if (rng() % 5 == 0) c.reals[p.name] = std::vector<double>{0.0, 1.0, -0.5, 2.5}[rng() % 4];
        if (rng() % 3 == 0) c.cluster = clusters[rng() % std::size(clusters)];
        c.non_portable = c.cluster.count() > 8;
        if (rng() % 4 == 0) c.threads = threads[rng() % std::size(threads)];
        c.grid_clusters = {1, 1, 1};
        if (!s->check_config(c).empty()) continue;
        ++accepted;
        INFO(s->name() << " for " << target.arch << ": " << describe(c));
        codegen::Lowered lowered;
        const std::string error = lower_error(*s, c, target, &lowered);
        CHECK(error == "");
        // The first accepted config also through NVRTC: ptxas takes what was emitted.
        if (accepted == 1 && error.empty()) {
          const rt::CompileResult r = rt::compile(samples::compile_request(lowered, target), nullptr);
          CHECK_FALSE(r.cubin.empty());
        }
      }
      INFO(s->name() << " for " << target.arch);
      CHECK(accepted >= 10);  // the draws reach past the config check, or the test checks little
    }
  }
}

// The default path: random problems (any m, n, k; types, layout, alpha and beta or a fused
// epilogue; a cluster named or not) made concrete for random devices (SM counts from 8 to
// 170, clusters that fit at once a little under SMs / CTAs, or unknown), as `tilejit run`
// does on the GPU and `compile --sms` here: what for_device decides must pass the config
// check and lower.
TEST_CASE("gemm: the default path's choices for random problems and devices lower", "[samples][random][gemm]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  std::mt19937_64 rng(20261204);
  auto pick = [&](uint64_t n) { return int64_t(rng() % n); };
  auto dim = [&](int64_t cap) -> int64_t {
    switch (pick(4)) {
      case 0: return 1 + pick(96);
      case 1: return 64 * (1 + pick(cap / 64));
      default: return 1 + pick(cap);
    }
  };
  const int sms[] = {8, 20, 66, 78, 114, 132, 144, 148, 170};
  unsigned decided = 0;
  for (int i = 0; i < 120; ++i) {
    Config c = samples::default_config(*s);
    c.params["m"] = dim(9000), c.params["n"] = dim(9000), c.params["k"] = pick(4) == 0 ? 8192 + pick(12000) : dim(6000);
    c.params["layout"] = pick(2), c.params["dtype"] = pick(2), c.params["out"] = pick(3);
    if (pick(2) == 0) {
      c.reals["beta"] = pick(2) == 0 ? 0.0 : 0.5;
    } else {
      c.params["bias"] = pick(2), c.params["col_scale"] = pick(2), c.params["act"] = pick(4), c.params["residual"] = pick(2);
    }
    if (pick(4) == 0) {
      c.cluster = std::vector<ir::Dim3>{{1, 1, 1}, {2, 1, 1}, {1, 2, 1}}[size_t(pick(3))];
      c.named.insert("cluster");
    }
    const int count = sms[pick(std::size(sms))];
    const int slack = int(pick(3));
    const samples::Sample::DeviceFacts device =
        pick(3) == 0 ? samples::Sample::DeviceFacts(count)
                     : samples::Sample::DeviceFacts(count, [count, slack](unsigned ctas) { return std::max(1, int(count / ctas) - slack); });
    INFO(describe(c) << " on " << count << " SMs");
    REQUIRE(s->check_config(c).empty());
    const std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, device);
    REQUIRE(d.has_value());
    INFO(d->line);
    CHECK(s->check_config(d->config).empty());
    CHECK(lower_error(*s, d->config, Target::sm90a()) == "");
    ++decided;
  }
  CHECK(decided == 120);
}

// The race check on every sample: each spec the project ships (samples/specs,
// tests/gpu/specs, tests/sanitizer) and a sweep of GEMM configurations (clusters
// 1x1, 2x1, 1x2, 2x2, multicast on and off, warp-specialized and one warpgroup, both
// layouts) must lower with no race found: a false positive on a correct sample is a
// bug. What the check could not decide is printed, and the GEMM's check time is
// measured here (the largest sample).
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "codegen/passes/lower_schedules.h"
#include "codegen/passes/verify_races.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "samples/builtin.h"

using namespace tj;

namespace {

const std::vector<std::string> kSpecDirs = {"samples/specs", "tests/gpu/specs", "tests/sanitizer"};

// Lowers; a UserError (a race among others) fails with its text.
codegen::Lowered lower_ok(const samples::Sample& s, const samples::Config& c, const std::string& what) {
  INFO(what);
  samples::check_sample_config(s, c);
  try {
    // sm_90a, or the one target a sample is written for (gemm_sm100: sm_100a).
    const codegen::Target t = s.targets().empty() ? codegen::Target::sm90a() : *codegen::Target::parse(s.targets().front());
    return codegen::lower(s.build(c), t);
  } catch (const UserError& e) {
    FAIL_CHECK(what << " refused:\n" << e.what());
  }
  return {};
}

void no_error_lines(const codegen::Lowered& l, const std::string& what) {
  INFO(what);
  for (const codegen::race::RaceCheck& c : l.races) {
    // A correct sample needs no allow_race (race_demo shows races on purpose).
    if (what.find("race_demo") == std::string::npos) CHECK(c.outcome != codegen::race::RaceCheck::Allowed);
    if (c.outcome == codegen::race::RaceCheck::NotChecked) std::cout << what << ": race check  " << to_string(c) << "\n";
  }
}

samples::Config gemm_config(unsigned cx, unsigned cy, bool multicast, bool ws, bool nn) {
  const samples::Sample* s = samples::find_sample("gemm");
  samples::Config c = samples::default_config(*s);
  c.cluster = {cx, cy, 1};
  c.params["multicast"] = multicast;
  c.params["warp_specialized"] = ws;
  c.params["layout"] = nn;
  c.params["m"] = 520, c.params["n"] = 264, c.params["k"] = 192;
  if (!ws) c.params["consumers"] = 1, c.params["bm"] = 64;
  c.threads = ws ? 128 * (1 + unsigned(c.params["consumers"])) : 128;
  return c;
}

}  // namespace

TEST_CASE("every sample spec passes the race check", "[samples][races]") {
  size_t specs = 0;
  for (const std::string& dir : kSpecDirs)
    for (const auto& entry : std::filesystem::directory_iterator(tj::test::source_dir() + "/" + dir)) {
      if (entry.path().extension() != ".json") continue;
      cli::Spec spec = cli::load_spec(entry.path().string());
      no_error_lines(lower_ok(*spec.sample, spec.config, entry.path().string()), entry.path().filename().string());
      ++specs;
    }
  CHECK(specs >= 18);
}

TEST_CASE("every sample's default configuration passes the race check", "[samples][races]") {
  for (const samples::Sample* s : samples::all_samples()) {
    samples::Config c = samples::default_config(*s);
    if (!s->check_config(c).empty()) continue;
    no_error_lines(lower_ok(*s, c, s->name()), s->name());
  }
}

TEST_CASE("the GEMM passes the race check in every cluster shape, with and without multicast", "[samples][races][gemm]") {
  for (unsigned cx : {1u, 2u})
    for (unsigned cy : {1u, 2u})
      for (bool multicast : {true, false})
        for (bool ws : {true, false})
          for (bool nn : {false, true}) {
            const std::string what = "gemm cluster " + std::to_string(cx) + "x" + std::to_string(cy) +
                                     (multicast ? " multicast" : " unicast") + (ws ? " warp-specialized" : " one warpgroup") +
                                     (nn ? " nn" : " tn");
            samples::Config c = gemm_config(cx, cy, multicast, ws, nn);
            if (!samples::find_sample("gemm")->check_config(c).empty()) continue;
            codegen::Lowered l = lower_ok(*samples::find_sample("gemm"), c, what);
            no_error_lines(l, what);
            // The arrivals of both pipeline barriers are verified, not merely not refused.
            INFO(what);
            CHECK(std::count_if(l.races.begin(), l.races.end(), [](const codegen::race::RaceCheck& r) {
                    return r.outcome == codegen::race::RaceCheck::Verified && r.subject.rfind("arrivals on barrier 'full'", 0) == 0;
                  }) >= 1);
            // Multicast refills are handed back by every CTA they land in.
            CHECK(std::count_if(l.races.begin(), l.races.end(), [](const codegen::race::RaceCheck& r) {
                    return r.outcome == codegen::race::RaceCheck::Verified && r.subject == "async proxy";
                  }) == 1);
          }
}

// One warpgroup refills a stage as soon as its own MMAs have read it: a multicast refill
// would land in a peer still reading it. Refused on; auto leaves multicast off.
TEST_CASE("the GEMM of one warpgroup refuses multicast in a cluster", "[samples][races][gemm]") {
  const samples::Sample* gemm = samples::find_sample("gemm");
  samples::Config on = gemm_config(1, 2, true, false, false);
  const std::vector<samples::ConfigProblem> problems = gemm->check_config(on);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].field == "params.multicast");
  CHECK(problems[0].message ==
        "one warpgroup (warp_specialized 0) refills a stage as soon as its own MMAs have read it, but a multicast load refills "
        "it in the other CTAs of the cluster too, which may still be reading it: use multicast off (or auto), or "
        "warp_specialized 1");
  samples::Config automatic = on;
  automatic.params["multicast"] = 2;  // auto
  REQUIRE(gemm->check_config(automatic).empty());
  codegen::Lowered l = lower_ok(*gemm, automatic, "one warpgroup, multicast auto");
  CHECK(l.cuda.find("multicast") == std::string::npos);
}

// Ping-pong: each stage is released by the one consumer whose tile it holds (u % 2 == wg),
// which the arrival count cannot follow before run time: said as not checked, never a
// race; the loads' transaction bytes and the shared-memory accesses are verified.
TEST_CASE("the ping-pong GEMM passes the race check in every cluster shape", "[samples][races][gemm][pingpong]") {
  for (unsigned cx : {1u, 2u})
    for (unsigned cy : {1u, 2u})
      for (bool nn : {false, true}) {
        const std::string what = "gemm pingpong cluster " + std::to_string(cx) + "x" + std::to_string(cy) + (nn ? " nn" : " tn");
        samples::Config c = gemm_config(cx, cy, true, true, nn);
        c.params["pingpong"] = 1, c.params["bn"] = 128;
        REQUIRE(samples::find_sample("gemm")->check_config(c).empty());
        codegen::Lowered l = lower_ok(*samples::find_sample("gemm"), c, what);
        no_error_lines(l, what);
        INFO(what);
        auto has = [&](codegen::race::RaceCheck::Outcome o, const std::string& prefix) {
          return std::any_of(l.races.begin(), l.races.end(), [&](const codegen::race::RaceCheck& r) {
            return r.outcome == o && r.subject.rfind(prefix, 0) == 0;
          });
        };
        CHECK(has(codegen::race::RaceCheck::Verified, "arrivals on barrier 'full'"));
        CHECK(has(codegen::race::RaceCheck::Verified, "async proxy"));
        CHECK(has(codegen::race::RaceCheck::NotChecked, "arrivals on barrier 'empty'"));
      }
}

TEST_CASE("the race check's time on the GEMM (the largest sample) is printed", "[samples][races][gemm][timing]") {
  samples::Config c = gemm_config(2, 2, true, true, true);
  ir::Kernel k = codegen::lower_schedules(samples::find_sample("gemm")->build(c), codegen::Target::sm90a());
  codegen::RaceReport best;
  best.seconds = 1e9;
  for (int i = 0; i < 5; ++i) {
    codegen::RaceReport r = codegen::check_races(k);
    CHECK(r.errors.empty());
    if (r.seconds < best.seconds) best = r;
  }
  std::cout << "race check on the GEMM (cluster 2x2, multicast, warp-specialized, nn): " << best.seconds * 1e3
            << " ms (best of 5: cluster epochs " << best.epochs_seconds * 1e3 << ", async proxy " << best.async_seconds * 1e3
            << ", arrivals " << best.arrivals_seconds * 1e3 << "), " << best.checks.size() << " lines\n";
  for (const codegen::race::RaceCheck& l : best.checks) std::cout << "  " << to_string(l) << "\n";
  CHECK(best.seconds < 1.0);
}

TEST_CASE("race_demo: the racy kernels lower through allow_race (shown in the CUDA), the corrected ones need none",
          "[samples][races]") {
  const samples::Sample* s = samples::find_sample("race_demo");
  REQUIRE(s != nullptr);
  for (int64_t kernel : {0, 1})
    for (int64_t racy : {1, 0}) {
      samples::Config c = samples::default_config(*s);
      c.cluster = {kernel == 0 ? 4u : 1u, 1, 1};
      c.params["kernel"] = kernel;
      c.params["racy"] = racy;
      INFO("kernel " << kernel << " racy " << racy);
      codegen::Lowered l = lower_ok(*s, c, "race_demo");
      const size_t allowed = std::count_if(l.races.begin(), l.races.end(), [](const codegen::race::RaceCheck& r) {
        return r.outcome == codegen::race::RaceCheck::Allowed;
      });
      CHECK((allowed > 0) == (racy == 1));
      CHECK((l.cuda.find("// allow_race(\"race_demo: ") != std::string::npos) == (racy == 1));
    }
}

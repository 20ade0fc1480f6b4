// race_demo on the GPU: the races the race check refuses, let through with
// allow_race, and their corrected versions. A race need not show on every run, so
// the racy kernels report how many runs (and elements) came out wrong instead of
// failing the suite; the corrected kernels must be exactly right on every run.
#include <iostream>

#include "samples/builtin.h"
#include "tests/gpu/gpu_fixture.h"

namespace {

constexpr int kRuns = 20;

struct Tally {
  int wrong_runs = 0;
  std::string last_detail;
};

// Compiles once, runs `kRuns` times with different data.
Tally run_many(const std::string& kernel, bool racy, unsigned cluster) {
  const tj::samples::Sample* s = tj::samples::find_sample("race_demo");
  REQUIRE(s != nullptr);
  tj::samples::Config c = tj::samples::default_config(*s);
  c.cluster = {cluster, 1, 1};
  c.grid_clusters = {128 / cluster, 1, 1};
  c.threads = 256;
  c.params["kernel"] = kernel == "tma" ? 1 : 0;
  c.params["racy"] = racy;
  tj::samples::Compiled compiled = tj::samples::compile_sample(*s, c, tj::gpu_test::target(), nullptr);
  Tally t;
  for (int i = 0; i < kRuns; ++i) {
    tj::samples::RunOptions opts;
    opts.iters = 0;
    opts.seed = uint64_t(i + 1);
    tj::samples::RunReport r = tj::samples::run_sample(*s, c, compiled, tj::gpu_test::device(), opts);
    REQUIRE(r.verified);
    if (!r.check.ok) ++t.wrong_runs, t.last_detail = r.check.detail;
  }
  return t;
}

void report(const std::string& what, const Tally& t) {
  std::cout << "race_demo " << what << ": " << t.wrong_runs << " of " << kRuns << " runs gave wrong results"
            << (t.last_detail.empty() ? "" : " (last: " + t.last_detail.substr(0, 160) + ")") << "\n";
}

}  // namespace

TEST_CASE("race_demo: DSMEM counters zeroed while peers add, racy and corrected [gpu]", "[gpu][races]") {
  Tally racy = run_many("dsmem", true, 4);
  report("dsmem racy (allow_race)", racy);
  Tally fixed = run_many("dsmem", false, 4);
  report("dsmem corrected (cluster_sync)", fixed);
  CHECK(fixed.wrong_runs == 0);
}

TEST_CASE("race_demo: a TMA box read before its wait, racy and corrected [gpu]", "[gpu][races]") {
  Tally racy = run_many("tma", true, 1);
  report("tma racy (allow_race)", racy);
  Tally fixed = run_many("tma", false, 1);
  report("tma corrected (wait first)", fixed);
  CHECK(fixed.wrong_runs == 0);
}

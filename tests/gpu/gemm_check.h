// Running a GemmCase on the test's GPU and checking it against cuBLAS (the instance's check:
// cuBLAS on the same device inputs, an f32 reference and a per-element bound).
#pragma once

#include <optional>

#include "samples/builtin.h"
#include "samples/gemm_host.h"
#include "tests/gpu/gemm_case.h"
#include "tests/gpu/gpu_fixture.h"

namespace tj::gpu_test {

// g's config (made concrete for this device first where g asks, checking what it decided),
// compiled, run once with inputs from `seed` and checked.
inline samples::RunReport run_gemm(const GemmCase& g, uint64_t seed) {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = config_of(g);
  if (g.on_device) {
    std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, samples::device_facts(device()));
    REQUIRE(d.has_value());
    INFO(d->line);
    for (auto& [key, v] : g.decided) CHECK(d->config.param(key) == v);
    if (!g.decided_cluster.empty()) CHECK(d->config.cluster.str() == g.decided_cluster);
    c = d->config;
  }
  samples::Compiled compiled = samples::compile_sample(*s, c, target(), nullptr);
  samples::RunOptions opts;
  opts.iters = 0;
  opts.seed = seed;
  return samples::run_sample(*s, c, compiled, device(), opts);
}

// Each case is its own section: a failure (or a refused config) does not hide the others.
inline void check(const GemmCase& g, uint64_t seed) {
  DYNAMIC_SECTION(describe(g)) {
    const samples::RunReport r = run_gemm(g, seed);
    REQUIRE(r.verified);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
}

}  // namespace tj::gpu_test

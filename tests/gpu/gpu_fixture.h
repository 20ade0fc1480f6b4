// Shared set-up for GPU tests: one device (its primary context), compile through a private cache.
#pragma once

#include <cstdlib>
#include <random>

#include <catch2/catch.hpp>

#include "api/device.h"
#include "generators/runner.h"
#include "runtime/device.h"
#include "samples/builtin.h"

namespace tj::gpu_test {

inline const Device& device() {
  static const Device d = Device::get();
  return d;
}

inline const rt::Context& context() { return device().context(); }

inline codegen::Target target() { return *codegen::Target::parse(context().arch()); }

// Random draws for the [fuzz] test cases: how many problems (TILEJIT_FUZZ_CASES, else
// `fallback`), the seed (TILEJIT_FUZZ_SEED, else 1; each test salts it with its own
// constant so that the samples draw different streams from one seed) and pick(n) in [0, n).
struct FuzzDraws {
  uint64_t count, seed;
  std::mt19937_64 rng;
  FuzzDraws(uint64_t fallback, uint64_t salt)
      : count(env("TILEJIT_FUZZ_CASES", fallback)), seed(env("TILEJIT_FUZZ_SEED", 1)), rng(seed ^ salt) {}
  int64_t pick(uint64_t n) { return int64_t(rng() % n); }

 private:
  static uint64_t env(const char* name, uint64_t fallback) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
  }
};

// Compiles and runs `name` with the given shape; returns the report.
inline samples::RunReport run(const std::string& name, unsigned cluster, unsigned clusters, unsigned threads,
                              std::map<std::string, int64_t> params, uint64_t seed, int iters = 0) {
  const samples::Sample* s = samples::find_sample(name);
  REQUIRE(s != nullptr);
  samples::Config c = samples::default_config(*s);
  c.cluster = {cluster, 1, 1};
  c.grid_clusters = {clusters, 1, 1};
  c.threads = threads;
  c.non_portable = cluster > 8;
  for (auto& [k, v] : params) c.params[k] = v;
  samples::Compiled compiled = samples::compile_sample(*s, c, target(), nullptr);
  samples::RunOptions opts;
  opts.iters = iters;
  opts.seed = seed;
  return samples::run_sample(*s, c, compiled, device(), opts);
}

}  // namespace tj::gpu_test

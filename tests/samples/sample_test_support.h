// Helpers for the CPU tests of one sample: a config of it, and its config rules' answer.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "generators/sample.h"
#include "samples/builtin.h"

namespace tj::test {

// The sample's default config with no clusters (cluster 1, one cluster: samples whose grid
// follows the problem size it themselves), `threads`, and `params` set.
inline samples::Config sample_config(const std::string& name, const std::map<std::string, int64_t>& params,
                                     unsigned threads = 128) {
  const samples::Sample* s = samples::find_sample(name);
  REQUIRE(s);
  samples::Config c = samples::default_config(*s);
  c.cluster = {1, 1, 1};
  c.grid_clusters = {1, 1, 1};
  c.threads = threads;
  for (auto& [key, v] : params) c.params[key] = v;
  return c;
}

// The sample's check_config of `c`, as (spec field, message) pairs.
inline std::vector<std::pair<std::string, std::string>> config_problems(const std::string& name, const samples::Config& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const samples::ConfigProblem& p : samples::find_sample(name)->check_config(c)) out.emplace_back(p.field, p.message);
  return out;
}

}  // namespace tj::test

// Helpers for the codegen tests of the GEMM sample: a config of it, the check that ptxas
// spills nothing when it compiles a lowered kernel for sm_90a, and what to ask of a lowering.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "codegen/lower.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"

namespace tj::test {

// How often `needle` stands in `text`, not overlapping.
inline size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
  return n;
}

// Whether the race check verified a check whose subject starts with `prefix`.
inline bool race_verified(const codegen::Lowered& l, const std::string& prefix) {
  return std::any_of(l.races.begin(), l.races.end(), [&](const codegen::race::RaceCheck& r) {
    return r.outcome == codegen::race::RaceCheck::Verified && r.subject.rfind(prefix, 0) == 0;
  });
}

// The GEMM sample itself.
inline const samples::Sample& gemm_sample() {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  return *s;
}

// The GEMM sample's default config with `params` set and the given cluster.
inline samples::Config gemm_config(const std::map<std::string, int64_t>& params, ir::Dim3 cluster = {1, 1, 1}) {
  samples::Config c = samples::default_config(gemm_sample());
  c.cluster = cluster;
  c.grid_clusters = {1, 1, 1};
  for (auto& [key, v] : params) c.params[key] = v;
  return c;
}

// An H200's facts for the default path: 132 SMs; 66 clusters of 2, 30 of 4 and 14 of 8 at once.
inline samples::Sample::DeviceFacts h200_facts() {
  return samples::Sample::DeviceFacts(132, [](unsigned ctas) { return ctas == 2 ? 66 : ctas == 4 ? 30 : 14; });
}

// What the GEMM's check_config says of `c`, each as "field: message".
inline std::vector<std::string> gemm_problems(const samples::Config& c) {
  std::vector<std::string> out;
  for (const samples::ConfigProblem& p : gemm_sample().check_config(c)) out.push_back(p.field + ": " + p.message);
  return out;
}

// What the default path decides for m x n x k on h200_facts() from a spec of `cluster`, `extra`
// named in it as a user would (the cluster too where `named_cluster`); the decided config must
// pass the GEMM's checks.
inline samples::Sample::DeviceChoice decide_h200(int64_t m, int64_t n, int64_t k, const std::map<std::string, int64_t>& extra = {},
                                                 ir::Dim3 cluster = {2, 1, 1}, bool named_cluster = false) {
  std::map<std::string, int64_t> params = {{"m", m}, {"n", n}, {"k", k}};
  params.insert(extra.begin(), extra.end());
  samples::Config c = gemm_config(params, cluster);
  for (const auto& [name, value] : extra) c.named.insert("params." + name);
  if (named_cluster) c.named.insert("cluster");
  std::optional<samples::Sample::DeviceChoice> d = gemm_sample().for_device(c, h200_facts());
  REQUIRE(d.has_value());
  CHECK(gemm_problems(d->config).empty());
  return *d;
}

// Compiles `l` for sm_90a with ptxas reporting each function; checks that every report
// shows no local-memory spills and no stack frame. Returns the result (its PTX) for further checks.
inline rt::CompileResult compile_without_spills(const codegen::Lowered& l, const std::string& what) {
  rt::CompileRequest req = samples::compile_request(l, codegen::Target::sm90a());
  req.options.push_back("--ptxas-options=--verbose");
  rt::CompileResult r = rt::compile(req, nullptr);
  INFO(what << "\n" << r.log);
  auto count = [&](const std::string& needle) { return occurrences(r.log, needle); };
  REQUIRE(count(" bytes spill stores, ") >= 1);
  CHECK(count(" bytes spill stores, ") == count(" 0 bytes spill stores, 0 bytes spill loads"));
  // No local memory at all: a stack frame is registers' worth of data in memory too.
  REQUIRE(count(" bytes stack frame, ") >= 1);
  CHECK(count(" bytes stack frame, ") == count(" 0 bytes stack frame, "));
  return r;
}

}  // namespace tj::test

// Helpers for the codegen tests of the GEMM sample: a config of it, the check that ptxas
// spills nothing when it compiles a lowered kernel for sm_90a, and what to ask of a lowering.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
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

// What the GEMM's check_config says of `c`, each as "field: message".
inline std::vector<std::string> gemm_problems(const samples::Config& c) {
  std::vector<std::string> out;
  for (const samples::ConfigProblem& p : gemm_sample().check_config(c)) out.push_back(p.field + ": " + p.message);
  return out;
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

// Helpers for the codegen tests of the GEMM sample: a config of it, and the check
// that ptxas spills nothing when it compiles a lowered kernel for sm_90a.
#pragma once

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "codegen/lower.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"

namespace tj::test {

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
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t p = r.log.find(needle); p != std::string::npos; p = r.log.find(needle, p + needle.size())) ++n;
    return n;
  };
  REQUIRE(count(" bytes spill stores, ") >= 1);
  CHECK(count(" bytes spill stores, ") == count(" 0 bytes spill stores, 0 bytes spill loads"));
  // No local memory at all: a stack frame is registers' worth of data in memory too.
  REQUIRE(count(" bytes stack frame, ") >= 1);
  CHECK(count(" bytes stack frame, ") == count(" 0 bytes stack frame, "));
  return r;
}

}  // namespace tj::test

// Helpers of the verify_async / verify_transactions tests (test_verify_async_*.cpp,
// test_verify_transactions.cpp): exact diagnostics with the test file's line, and small
// kernels. The including file defines kFile, its own name, before including this (a
// test-only header: the helpers have internal linkage, one copy per test file).
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <optional>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tx_text.h"

#include "codegen/analysis/eval.h"
#include "codegen/lower.h"
#include "codegen/passes/verify_transactions.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

// Internal linkage: each including file's helpers use its own kFile.
namespace {

inline std::string at(unsigned line) { return std::string(kFile) + ":" + std::to_string(line); }

// "<kFile>:<line>: error: <message>\n  fix: <fix>", as Diagnostic::str() writes it.
inline std::string diag(unsigned line, const std::string& message, const std::string& fix) {
  return at(line) + ": error: " + message + "\n  fix: " + fix;
}

// The one diagnostic a DSL call throws, as Diagnostic::str(); "no error" otherwise.
template <class F>
inline std::string dsl_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    return e.diagnostics()[0].str();
  }
  return "no error";
}

// The generated code of a kernel that must lower, for checks on what it contains.
inline std::string lowered_cuda(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  return codegen::lower(k, t).cuda;
}


// "transaction bytes of barrier 'full' do not match in CTA rank R: ..." as verify_transactions writes it.
inline std::string tx_message(unsigned rank, uint64_t announced, unsigned expect_line, uint64_t delivered, unsigned copy_line,
                              const std::string& barrier = "full[0]") {
  return tx_text(kFile, rank, announced, expect_line, delivered, copy_line, barrier);
}

// A cluster of `n` where every CTA announces one box and rank 0 multicasts it with `mask`
// (which must name every CTA for the bytes to match): the corrected form of the mask tests.
inline ir::Kernel multicast_to_all(const char* name, unsigned n, const std::function<u32()>& mask) {
  KernelBuilder k(name);
  k.cluster(n);
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBox));
    if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile[0], t, {0, 0}, full[0], mask()); });
  });
  wait(full[0]);
  return k.build();
}

}  // namespace

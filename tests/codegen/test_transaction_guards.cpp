// Transaction accounting under conditions the verifier cannot evaluate (a parameter, a
// loop index, %ctaid): statements under the same condition are checked together, for
// each of its values; what still cannot be decided is reported with the reason.
#include <catch2/catch.hpp>

#include "codegen/passes/verify_transactions.h"
#include "dsl/dsl.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tx_text.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

constexpr const char* kFile = "test_transaction_guards.cpp";
std::string at(unsigned line) { return std::string(kFile) + ":" + std::to_string(line); }

// Every barrier's outcome, as `tilejit compile` prints it.
std::vector<std::string> checks(const ir::Kernel& k) {
  codegen::TransactionReport r = codegen::account_transactions(k);
  REQUIRE(r.errors.empty());
  std::vector<std::string> out;
  for (const codegen::TransactionCheck& c : r.checks) out.push_back(codegen::to_string(c));
  return out;
}

// tma_copy's one-thread loop: each CTA loads tiles cta, cta + grid, ... while they exist,
// announcing `announced` bytes for each 8192-byte box under the same `tile < 100`.
ir::Kernel strided_copy(uint32_t announced, unsigned* loop_line, unsigned* expect_line, unsigned* load_line) {
  KernelBuilder k("tx_strided");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto stage = k.shared<float>("stage", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    for_(0, 8, [&](i32 it) { *loop_line = __LINE__;
      i32 tile = block_idx_x() + it * grid_dim_x();
      if_(tile < 100, [&] {
        arrive_expect_tx(full[0], u32(announced)); *expect_line = __LINE__;
        tma_load(stage[0], t, {0, tile * 64}, full[0]); *load_line = __LINE__;
        wait(full[0]);
      });
    });
  });
  return k.build();
}

}  // namespace

TEST_CASE("an arrive_expect_tx and its load under one run-time guard are checked together",
          "[codegen][verify][transactions]") {
  unsigned l_loop = 0, l_expect = 0, l_load = 0;
  // Before: `tile < 100` could not be evaluated, and the barrier was skipped without a word.
  std::vector<Diagnostic> d = lower_errors(strided_copy(kBox / 2, &l_loop, &l_expect, &l_load));
  REQUIRE(d.size() == 1);
  const std::string when = "((%ctaid.x + (i * %nctaid.x)) < 100) is true";
  CHECK(d[0].str() == at(l_expect) + ": error: " + tx_text(kFile, 0, kBox / 2, l_expect, kBox, l_load, "full[0]", when) +
                          "\n  fix: " + kGuardFix);

  CHECK(checks(strided_copy(kBox, &l_loop, &l_expect, &l_load)) ==
        std::vector<std::string>{"barrier 'full[0]' in the loop at " + at(l_loop) + ": verified"});
}

TEST_CASE("one run-time condition written in two if_s is one unknown", "[codegen][verify][transactions]") {
  KernelBuilder k("tx_two_ifs");
  auto n = k.param<int32_t>("n");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0 && n > 0, [&] { arrive_expect_tx(full[0], u32(kBox)); });
  if_(thread_idx_x() == 0 && n > 0, [&] { tma_load(tile[0], t, {0, 0}, full[0]); });
  if_(n > 0, [&] { wait(full[0]); });
  CHECK(checks(k.build()) == std::vector<std::string>{"barrier 'full[0]' in the kernel body: verified"});
}

TEST_CASE("a guard on a kernel parameter is checked for both of its values", "[codegen][verify][transactions]") {
  unsigned l_expect = 0, l_load = 0;
  KernelBuilder k("tx_param_guard");
  auto n = k.param<int32_t>("n");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  // 4096 != 8192 when n > 0, and 0 != 8192 otherwise: wrong whatever n is.
  if_(thread_idx_x() == 0 && n > 0, [&] { arrive_expect_tx(full[0], u32(4096)); l_expect = __LINE__; });
  if_(thread_idx_x() == 0, [&] { tma_load(tile[0], t, {0, 0}, full[0]); l_load = __LINE__; });
  wait(full[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == at(l_expect) + ": error: " + tx_text(kFile, 0, 4096, l_expect, kBox, l_load, "full[0]", "(n > 0) is true") +
                          "\n  fix: " + kGuardFix);
}

TEST_CASE("what cannot be decided before run time is reported with the reason", "[codegen][verify][transactions]") {
  SECTION("a byte count that is a parameter") {
    unsigned line = 0;
    KernelBuilder k("tx_param_bytes");
    auto bytes = k.param<uint32_t>("bytes");
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], bytes); line = __LINE__;
      tma_load(tile[0], t, {0, 0}, full[0]);
    });
    wait(full[0]);
    CHECK(checks(k.build()) ==
          std::vector<std::string>{"barrier 'full[0]' in the kernel body: not verified: the byte count bytes of the "
                                   "arrive_expect_tx at " + at(line) + " is not known before run time"});
  }
  SECTION("a condition that may differ between threads") {
    unsigned line = 0;
    KernelBuilder k("tx_loaded_guard");
    auto flags = k.param<int32_t*>("flags");
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0, [&] {
      if_(flags[0] != 0, [&] { line = __LINE__;
        arrive_expect_tx(full[0], u32(kBox));
        tma_load(tile[0], t, {0, 0}, full[0]);
      });
    });
    CHECK(checks(k.build()) ==
          std::vector<std::string>{"barrier 'full[0]' in the kernel body: not verified: the condition (flags[0] != 0) (if_ at " +
                                   at(line) + ") cannot be evaluated before run time and may differ between the threads of a CTA"});
  }
  SECTION("the announcement and the load under different run-time conditions") {
    KernelBuilder k("tx_two_conditions");
    auto a = k.param<int32_t>("a");
    auto b = k.param<int32_t>("b");
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0 && a > 0, [&] { arrive_expect_tx(full[0], u32(kBox)); });
    if_(thread_idx_x() == 0 && b > 0, [&] { tma_load(tile[0], t, {0, 0}, full[0]); });
    CHECK(checks(k.build()) ==
          std::vector<std::string>{"barrier 'full[0]' in the kernel body: not verified: the bytes match for some values of "
                                   "(a > 0), (b > 0) and not for others (they differ when (a > 0) is false and (b > 0) is "
                                   "true), and these cannot be evaluated before run time"});
  }
  SECTION("a multicast under a condition that may differ between the CTAs of the cluster") {
    unsigned line = 0;
    KernelBuilder k("tx_cta_guard");
    k.cluster(2);
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBox));
      if_(cluster_ctarank() == 0 && block_idx_x() < 64, [&] { line = __LINE__;
        tma_load_multicast(tile[0], t, {0, 0}, full[0], mask_all());
      });
    });
    CHECK(checks(k.build()) ==
          std::vector<std::string>{"barrier 'full[0]' in the kernel body: not verified: the condition (%ctaid.x < 64) (if_ at " +
                                   at(line) + ") cannot be evaluated before run time and may differ between the CTAs of the cluster"});
  }
  SECTION("a multicast mask that is a parameter") {
    unsigned line = 0;
    KernelBuilder k("tx_param_mask");
    k.cluster(2);
    auto m = k.param<uint32_t>("m");
    TensorMap t = k.tensor_map<float>("t", {32, 64});
    auto tile = k.shared<float>("tile", 2048);
    auto full = k.mbarriers("full", 1, 1);
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBox));
      if_(cluster_ctarank() == 0, [&] { tma_load_multicast(tile[0], t, {0, 0}, full[0], m); line = __LINE__; });
    });
    CHECK(checks(k.build()) ==
          std::vector<std::string>{"barrier 'full[0]' in the kernel body: not verified: the multicast mask m of the TMA load at " +
                                   at(line) + " is not known before run time"});
  }
}

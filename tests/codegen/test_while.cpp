// The while loop (IR While, DSL while_): the loop form of a schedule whose next unit is
// data. Its text, its CUDA, what NVRTC makes of it, and the checks that walk control
// flow seeing its body like any loop's (transaction phases per iteration; races between
// iteration i and i + 1 in tests/codegen/test_races.cpp's corpus).
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_while.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

#include "dsl/ir/loops.h"
#include "dsl/ir/mutator.h"
#include "dsl/ir/printer.h"
#include "codegen/prelude.h"
#include "runtime/compiler.h"

namespace {

// Each thread counts down from n; thread 0's steps land in out.
ir::Kernel countdown() {
  KernelBuilder k("countdown");
  auto out = k.param<int32_t*>("out");
  auto n = k.param<int32_t>("n");
  auto left = var(n, "left");
  auto steps = var(i32(0), "steps");
  while_(left > 0, [&] {
    left = left - 1;
    steps = steps + 1;
  });
  out[thread_idx_x()] = steps;
  return k.build();
}

}  // namespace

TEST_CASE("while_: its IR, its loop view, and its CUDA", "[codegen][while]") {
  ir::Kernel k = countdown();
  const std::string text = ir::to_string(k);
  CHECK(text.find("  while (left > 0) {    // test_while.cpp:") != std::string::npos);
  CHECK(text.find("    left = (left - 1)") != std::string::npos);
  const ir::StmtNode* loop = nullptr;
  for (const ir::Stmt& s : k.body->as<ir::Block>()->body)
    if (s->kind == ir::StmtKind::While) loop = s.get();
  REQUIRE(loop != nullptr);
  std::optional<ir::LoopView> v = ir::as_loop(*loop);
  REQUIRE(v);
  CHECK_FALSE(v->counted());
  CHECK(v->var.empty());
  REQUIRE(v->control_exprs().size() == 1);
  CHECK(ir::to_string(v->control_exprs()[0]) == "(left > 0)");

  const std::string cuda = lowered_cuda(k);
  CHECK(cuda.find("  while ((left > 0)) {\n") != std::string::npos);
  CHECK(cuda.find("    left = (left - 1);\n") != std::string::npos);
  // NVRTC compiles it for both targets.
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    rt::CompileRequest req;
    req.kernel_name = "countdown";
    req.source = codegen::lower(k, t).cuda;
    req.headers = {{codegen::kPreludeName, std::string(codegen::prelude_source())}};
    req.arch = t.arch;
    rt::CompileResult r = rt::compile(req, nullptr);
    INFO(r.log);
    CHECK_FALSE(r.cubin.empty());
    CHECK(r.ptx.find(".entry countdown") != std::string::npos);
  }
}

TEST_CASE("while_: the mutator rebuilds it and keeps it a while loop", "[codegen][while][mutator]") {
  struct Flip : ir::Mutator {
    ir::Expr mutate_node(const ir::IntImm& n, const ir::Expr& self) override {
      return n.value == 0 ? ir::IntImm::make(n.type.scalar, 1) : self;
    }
  } m;
  ir::Kernel k = countdown();
  ir::Stmt body = m.mutate(k.body);
  const std::string text = ir::to_string(body);
  CHECK(text.find("while (left > 1) {") != std::string::npos);
}

TEST_CASE("while_: a loop body with a TMA phase per iteration is verified like a for_'s", "[codegen][while][transactions]") {
  KernelBuilder k("tx_while");
  auto iters = k.param<int32_t>("iters");
  TensorMap t = k.tensor_map<float>("t", {32, 64});
  auto tile = k.shared<float>("tile", 2048);
  auto full = k.mbarriers("full", 1, 1);
  auto it = var(i32(0), "it");
  const unsigned loop_line = __LINE__ + 1;
  while_(it < iters, [&] {
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full[0], u32(kBox));
      tma_load(tile[0], t, {0, it * 64}, full[0]);
    });
    wait(full[0]);
    sync_threads();
    it = it + 1;
  });
  codegen::Lowered l = codegen::lower(k.build(), Target::sm90a());
  std::vector<std::string> checks;
  for (const codegen::TransactionCheck& c : l.transactions) checks.push_back(codegen::to_string(c));
  CHECK(checks == std::vector<std::string>{"barrier 'full[0]' in the loop at " + at(loop_line) + ": verified"});

  // Half the box announced: refused, naming both numbers.
  KernelBuilder bad("tx_while_short");
  auto iters2 = bad.param<int32_t>("iters");
  TensorMap t2 = bad.tensor_map<float>("t", {32, 64});
  auto tile2 = bad.shared<float>("tile", 2048);
  auto full2 = bad.mbarriers("full", 1, 1);
  auto it2 = var(i32(0), "it");
  unsigned l_expect = 0, l_load = 0;
  while_(it2 < iters2, [&] {
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(full2[0], u32(kBox / 2)); l_expect = __LINE__;
      tma_load(tile2[0], t2, {0, it2 * 64}, full2[0]); l_load = __LINE__;
    });
    wait(full2[0]);
    it2 = it2 + 1;
  });
  std::vector<Diagnostic> d = lower_errors(bad.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str().find(at(l_expect)) == 0);
  CHECK(d[0].str().find(std::to_string(kBox / 2)) != std::string::npos);
  CHECK(d[0].str().find(at(l_load)) != std::string::npos);
}

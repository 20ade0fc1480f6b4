// ir::Mutator: the default rebuilds exactly the nodes above a change and shares the
// rest; an override of one kind sees that kind wherever it is nested.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "dsl/ir/mutator.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;

namespace {

// Rewrites every integer constant 7 into 8.
struct SevenToEight : ir::Mutator {
  int seen = 0;
  ir::Expr mutate_node(const ir::IntImm& n, const ir::Expr& self) override {
    if (n.value != 7) return self;
    ++seen;
    return ir::IntImm::make(n.type.scalar, 8);
  }
};

ir::Kernel sample_kernel() {
  KernelBuilder k("mut");
  k.cluster(2);
  auto out = k.param<int32_t*>("out");
  auto buf = k.shared<int32_t>("buf", 64);
  k.role("worker", 1, 0, [&](i32 wg) {
    for_(0, 4, [&](i32 i) {
      if_(i == 2, [&] { buf[i + wg] = 7; }).else_([&] { buf[i] = 1; });
    });
    sync_threads();
    out[thread_idx_x()] = buf[3] + 7;
  });
  return k.build();
}

}  // namespace

TEST_CASE("Mutator: nothing changed, the same tree back", "[dsl][ir][mutator]") {
  ir::Kernel k = sample_kernel();
  struct Identity : ir::Mutator {} m;
  CHECK(m.mutate(k.body) == k.body);  // the very same node, no copy
}

TEST_CASE("Mutator: a change deep down rebuilds its ancestors only", "[dsl][ir][mutator]") {
  ir::Kernel k = sample_kernel();
  SevenToEight m;
  ir::Stmt body = m.mutate(k.body);
  CHECK(m.seen == 2);
  REQUIRE(body != k.body);
  std::string before = ir::to_string(k.body), after = ir::to_string(body);
  CHECK(before.find("= 7") != std::string::npos);
  CHECK(after.find("= 7") == std::string::npos);
  CHECK(after.find("= 8") != std::string::npos);
  CHECK(after.find("+ 8") != std::string::npos);
  // The role keeps its fields (its warpgroup index included) through the rebuild.
  const ir::Role* r0 = k.body->as<ir::Block>()->body.back()->as<ir::Role>();
  const ir::Role* r1 = body->as<ir::Block>()->body.back()->as<ir::Role>();
  REQUIRE(r0);
  REQUIRE(r1);
  CHECK(r1 != r0);
  CHECK(r1->index_var == r0->index_var);
  CHECK_FALSE(r1->index_var.empty());
  CHECK(r1->name == "worker");
  // sync_threads() had no constant below it: shared, not copied.
  const auto& b0 = r0->body->as<ir::Block>()->body;
  const auto& b1 = r1->body->as<ir::Block>()->body;
  REQUIRE(b0.size() == b1.size());
  bool shared_sync = false;
  for (size_t i = 0; i < b0.size(); ++i)
    if (b0[i]->kind == ir::StmtKind::SyncThreads) shared_sync = b0[i] == b1[i];
  CHECK(shared_sync);
}

TEST_CASE("Role::make checks that its index variable is the body's first declaration", "[dsl][ir][mutator]") {
  ir::Stmt decl = ir::Declare::make("wg", ir::IntImm::make(ir::Scalar::I32, 0), {});
  ir::Stmt body = ir::Block::make({decl}, {});
  CHECK_NOTHROW(ir::Role::make("r", 0, 1, 0, 0, body, {}, "wg"));
  CHECK_THROWS_AS(ir::Role::make("r", 0, 1, 0, 0, body, {}, "other"), ir::InternalError);
  CHECK_THROWS_AS(ir::Role::make("r", 0, 1, 0, 0, ir::Block::make({}, {}), {}, "wg"), ir::InternalError);
  CHECK_NOTHROW(ir::Role::make("r", 0, 1, 0, 0, ir::Block::make({}, {}), {}));
}

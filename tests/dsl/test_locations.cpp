// Every DSL call records the user's source location: this file's base name and
// the line of the call (expected lines come from __LINE__).
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;

namespace {

constexpr const char* kFile = "test_locations.cpp";

const std::vector<ir::Stmt>& top(const ir::Kernel& k) { return k.body->as<ir::Block>()->body; }

}  // namespace

TEST_CASE("a store's Loc is this file and the line of the assignment", "[dsl][loc]") {
  KernelBuilder k("loc_store");
  auto out = k.param<float*>("out");
  out[0] = 1.0f; const unsigned line = __LINE__;
  ir::Kernel kern = k.build();
  REQUIRE(top(kern).size() == 1);
  const ir::Store* s = top(kern)[0]->as<ir::Store>();
  REQUIRE(s != nullptr);
  CHECK(s->loc.file == kFile);
  CHECK(s->loc.line == line);
  CHECK(s->loc.column > 0);
  CHECK(s->loc.str() == std::string(kFile) + ":" + std::to_string(line));
}

TEST_CASE("kernel, cluster, params, shared buffers and statements all carry their lines", "[dsl][loc]") {
  const unsigned l_kernel = __LINE__ + 1;
  KernelBuilder k("loc_all");
  const unsigned l_cluster = __LINE__ + 1;
  k.threads(64).cluster(2);
  const unsigned l_param = __LINE__ + 1;
  auto out = k.param<int32_t*>("out");
  const unsigned l_buf = __LINE__ + 1;
  auto buf = k.shared<int32_t>("buf", 64);
  const unsigned l_map = __LINE__ + 1;
  auto peer = map_shared_rank(buf, 1);
  const unsigned l_var = __LINE__ + 1;
  auto acc = var(i32(0), "acc");
  const unsigned l_for = __LINE__ + 1;
  for_(0, 4, [&](i32 i) {
    acc = acc + i;
  });
  const unsigned l_if = __LINE__ + 1;
  if_(acc > 2, [&] {
    peer[0] = acc;
  });
  const unsigned l_atomic = __LINE__ + 1;
  atomic_add(out[0], acc);
  const unsigned l_sync = __LINE__ + 1;
  cluster_sync();
  ir::Kernel kern = k.build();

  CHECK(kern.loc.line == l_kernel);
  CHECK(kern.loc.file == kFile);
  CHECK(kern.cluster_loc.line == l_cluster);
  CHECK(kern.params[0].loc.line == l_param);
  CHECK(kern.shared[0].loc.line == l_buf);
  CHECK(peer.expr()->loc.line == l_map);
  CHECK(acc.expr()->loc.line == l_var);

  const auto& body = top(kern);
  REQUIRE(body.size() == 5);
  CHECK(body[0]->as<ir::Declare>()->loc.line == l_var);
  const ir::For* f = body[1]->as<ir::For>();
  REQUIRE(f != nullptr);
  CHECK(f->loc.line == l_for);
  CHECK(f->body->as<ir::Block>()->body[0]->loc.line == l_for + 1);  // the assignment inside
  const ir::If* i = body[2]->as<ir::If>();
  REQUIRE(i != nullptr);
  CHECK(i->loc.line == l_if);
  CHECK(i->then_body->as<ir::Block>()->body[0]->loc.line == l_if + 1);
  CHECK(body[3]->as<ir::AtomicAdd>()->loc.line == l_atomic);
  CHECK(body[4]->as<ir::ClusterBarrier>()->loc.line == l_sync);
}

TEST_CASE("the IR text ends each statement with its origin", "[dsl][loc]") {
  KernelBuilder k("loc_text");
  auto out = k.param<int32_t*>("out");
  out[0] = 5; const unsigned l_store = __LINE__;
  sync_threads(); const unsigned l_sync = __LINE__;
  ir::Kernel kern = k.build();
  const std::string L = std::string("    // ") + kFile + ":";
  CHECK(ir::to_string(kern) ==
        "kernel loc_text(out: global i32*) block(128,1,1) cluster(1,1,1) {\n"
        "  out[0] = 5" + L + std::to_string(l_store) + "\n"
        "  sync_threads()" + L + std::to_string(l_sync) + "\n"
        "}\n");
}

TEST_CASE("a store through a Ref copied from another Ref keeps the line of the assignment", "[dsl][loc]") {
  KernelBuilder k("loc_copy");
  auto a = k.param<int32_t*>("a");
  auto b = k.param<int32_t*>("b");
  a[0] = b[1]; const unsigned line = __LINE__;
  ir::Kernel kern = k.build();
  CHECK(top(kern)[0]->loc.line == line);
  CHECK(top(kern)[0]->loc.file == kFile);
}

// Assigning one Var to another (`b = a`) takes Var::operator=(const Var&), which
// records the Assign with an empty Loc: the generated CUDA then says
// "Assign at <unknown>" for it. A known gap: [!shouldfail] makes Catch2 report it as
// "failed as expected" (CTest shows it Skipped, never Passed) and fail once it passes.
TEST_CASE("assigning a Var to a Var records the line of the assignment", "[dsl][loc][!shouldfail]") {
  KernelBuilder k("loc_var");
  auto a = var(i32(1), "a");
  auto b = var(i32(2), "b");
  b = a; const unsigned line = __LINE__;
  ir::Kernel kern = k.build();
  REQUIRE(top(kern).size() == 3);
  CHECK(top(kern)[2]->loc.file == kFile);
  CHECK(top(kern)[2]->loc.line == line);
}

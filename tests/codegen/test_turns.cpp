// Turns: the ordered named barriers of ping-pong (k.turns, wait_turn, pass_turn): what is
// emitted, where the barrier ids come from, and the misuse refused at the user's line.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/turn_kernels.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "generators/runner.h"
#include "runtime/compiler.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_turns.cpp:" + std::to_string(line); }

}  // namespace

TEST_CASE("turns: the last warpgroup hands the first turn over, and each turn is bar.sync then bar.arrive to the next",
          "[codegen][turns][nvrtc]") {
  const Target t = Target::sm90a();
  codegen::Lowered l = codegen::lower(turn_log_kernel(2, 4), t);
  const std::string& cuda = l.cuda;
  // Two warpgroups take ids 6 and 7 (ids are taken from 7 downwards; roles have 1 up).
  CHECK(contains(cuda, "if (((((int)threadIdx.x / 128) - 0) == 1)) {\n"));
  CHECK(count(cuda, "tj::named_barrier_arrive(") == 2);
  CHECK(contains(cuda, "tj::named_barrier_sync(((((int)threadIdx.x / 128) - 0) + 6), 256u);"));
  CHECK(contains(cuda, "tj::named_barrier_arrive(((((((int)threadIdx.x / 128) - 0) + 1) % 2) + 6), 256u);"));
  rt::CompileResult r = rt::compile(samples::compile_request(l, t), nullptr);
  CHECK(contains(r.ptx, "bar.arrive"));
  CHECK(contains(r.ptx, "bar.sync"));
}

TEST_CASE("turns: misuse is refused where it is written", "[codegen][turns][dsl]") {
  KernelBuilder k("turn_misuse");
  k.threads(512);
  // Each call on a line of its own: inside a macro that spans lines, GCC and clang give
  // std::source_location different lines.
  const unsigned outside = __LINE__ + 1;
  auto take = [&] { k.turns(); };
  CHECK_THROWS_WITH(take(), at(outside) + ": error: turns outside a warpgroup role\n"
                                             "  fix: call k.turns() inside the body of the role whose warpgroups take turns");
  std::optional<Turns> taken;
  k.role("solo", 1, 0, [&](i32) {
    const unsigned line = __LINE__ + 1;
    auto solo = [&] { k.turns(); };
    CHECK_THROWS_WITH(solo(), at(line) + ": error: turns in role 'solo' of 1 warpgroup\n"
                                            "  fix: turns order 2 or more warpgroups of one role");
  });
  k.role("pair", 2, 0, [&](i32) {
    for_(0, 2, [&](i32) {
      const unsigned line = __LINE__ + 1;
      auto in_loop = [&] { k.turns(); };
      CHECK_THROWS_WITH(in_loop(), at(line) + ": error: turns inside a loop or condition\n"
                                              "  fix: call k.turns() at the top of the role's body, before its loops");
    });
    taken = k.turns();
  });
  k.role("other", 1, 0, [&](i32) {
    const unsigned line = __LINE__ + 1;
    auto other = [&] { wait_turn(*taken); };
    CHECK_THROWS_WITH(other(), at(line) + ": error: wait_turn in role 'other' with turns taken in another role\n"
                                                    "  fix: wait for and pass turns in the role whose k.turns() made them");
  });
}

TEST_CASE("turns: barrier ids run out before roles and turns collide", "[codegen][turns][dsl]") {
  SECTION("8 warpgroups need 8 ids; 6 are left") {
    KernelBuilder k("turn_ids");
    k.threads(1024);
    k.role("all", 8, 0, [&](i32) {
      const unsigned line = __LINE__ + 1;
      auto all = [&] { k.turns(); };
      CHECK_THROWS_WITH(all(), at(line) + ": error: turns for the 8 warpgroups of role 'all' need 8 named barriers; ids 2..7 "
                                              "are left, 6 of them free\n"
                                              "  fix: take turns in fewer warpgroups or fewer roles");
    });
  }
  SECTION("a role declared after turns took its id") {
    KernelBuilder k("turn_roles");
    k.threads(1024);
    k.role("four", 4, 0, [&](i32) { k.turns(); });  // ids 4..7
    k.role("a", 1, 0, [&](i32) {});                  // id 2
    k.role("b", 1, 0, [&](i32) {});                  // id 3
    const unsigned line = __LINE__ + 1;
    auto role_c = [&] { k.role("c", 1, 0, [&](i32) {}); };
    CHECK_THROWS_WITH(role_c(), at(line) + ": error: role 'c' needs named barrier 4, which turns declared "
                                                                  "before it took\n"
                                                                  "  fix: declare the roles before taking turns in them (k.turns "
                                                                  "inside the role's body)");
  }
}

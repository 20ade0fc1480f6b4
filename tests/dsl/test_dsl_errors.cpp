// DSL misuse: each is a tj::UserError naming the user's line, what is wrong and
// the fix. The whole message is checked.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;

namespace {

// "test_dsl_errors.cpp:<line>: error: <message>\n  fix: <fix>"
std::string diag(unsigned line, const std::string& message, const std::string& fix) {
  return "test_dsl_errors.cpp:" + std::to_string(line) + ": error: " + message + "\n  fix: " + fix;
}

// The UserError the callable throws, as what(); "no error" otherwise.
template <class F>
std::string user_error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].str() == e.what());
    return e.what();
  }
  return "no error";
}

const char* kNameFix = "use letters, digits and '_', not starting with a digit, 'tj_' or '__'";
const char* kParamFix = "use a C identifier that is not a keyword and does not start with 'tj_' or '__'";
const char* kOutsideFix = "create a tj::dsl::KernelBuilder first; statements are recorded into the active one";

}  // namespace

TEST_CASE("kernel names must be usable C identifiers", "[dsl][errors]") {
  unsigned line = 0;
  std::string got;
  auto make = [&](const char* name) {
    return user_error_of([&] { line = __LINE__; KernelBuilder k(name); });
  };
  got = make("2fast");
  CHECK(got == diag(line, "kernel name '2fast' is not a usable C identifier", kNameFix));
  got = make("");
  CHECK(got == diag(line, "kernel name '' is not a usable C identifier", kNameFix));
  got = make("has-dash");
  CHECK(got == diag(line, "kernel name 'has-dash' is not a usable C identifier", kNameFix));
  got = make("tj_kernel");
  CHECK(got == diag(line, "kernel name 'tj_kernel' is not a usable C identifier", kNameFix));
  got = make("__k");
  CHECK(got == diag(line, "kernel name '__k' is not a usable C identifier", kNameFix));
  got = make("float");
  CHECK(got == diag(line, "kernel name 'float' is not a usable C identifier", kNameFix));
  got = make("threadIdx");
  CHECK(got == diag(line, "kernel name 'threadIdx' is not a usable C identifier", kNameFix));
  CHECK(make("_ok_9") == "no error");
}

TEST_CASE("parameter and shared buffer names must be usable", "[dsl][errors]") {
  KernelBuilder k("names");
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; k.param<int32_t>("for"); });
  CHECK(got == diag(line, "'for' is not a usable name in kernel 'names'", kParamFix));
  got = user_error_of([&] { line = __LINE__; k.param<float*>("9lives"); });
  CHECK(got == diag(line, "'9lives' is not a usable name in kernel 'names'", kParamFix));
  got = user_error_of([&] { line = __LINE__; k.shared<float>("tj_tile", 4); });
  CHECK(got == diag(line, "'tj_tile' is not a usable name in kernel 'names'", kParamFix));
  got = user_error_of([&] { line = __LINE__; k.dynamic_shared<float>("min", 4); });
  CHECK(got == diag(line, "'min' is not a usable name in kernel 'names'", kParamFix));
}

TEST_CASE("a name may be declared only once per kernel", "[dsl][errors]") {
  KernelBuilder k("dup");
  k.param<int32_t>("n");
  k.shared<float>("tile", 8);
  const char* fix = "give each parameter and shared buffer its own name";
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; k.param<int32_t*>("n"); });
  CHECK(got == diag(line, "'n' is declared twice in kernel 'dup'", fix));
  got = user_error_of([&] { line = __LINE__; k.dynamic_shared<float>("tile", 8); });
  CHECK(got == diag(line, "'tile' is declared twice in kernel 'dup'", fix));
  got = user_error_of([&] { line = __LINE__; k.shared<float>("n", 8); });
  CHECK(got == diag(line, "'n' is declared twice in kernel 'dup'", fix));
  // The kernel's own name is taken too.
  got = user_error_of([&] { line = __LINE__; k.param<int32_t>("dup"); });
  CHECK(got == diag(line, "'dup' is declared twice in kernel 'dup'", fix));
}

// C++ has more keywords than is_reserved() lists: "and", "or", "not", "try",
// "nullptr", "typename", ... are accepted as parameter names, and the
// generated `int and` then fails in NVRTC instead of as a DSL error.
TEST_CASE("every C++ keyword is refused as a name", "[dsl][errors]") {
  KernelBuilder k("keywords");
  for (const char* kw : {"and", "or", "not", "xor", "try", "catch", "throw", "nullptr", "typename", "virtual",
                         "mutable", "constexpr", "decltype", "noexcept", "friend", "protected", "explicit"}) {
    INFO(kw);
    CHECK_THROWS_AS(k.param<int32_t>(kw), UserError);
  }
}

TEST_CASE("a shared buffer needs at least one element and a storable type", "[dsl][errors]") {
  KernelBuilder k("smem");
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; k.shared<float>("empty", 0); });
  CHECK(got == diag(line, "shared buffer 'empty' has 0 elements", "give it at least one element"));
  got = user_error_of([&] { line = __LINE__; k.dynamic_shared<uint32_t>("none", 0); });
  CHECK(got == diag(line, "shared buffer 'none' has 0 elements", "give it at least one element"));
  got = user_error_of([&] { line = __LINE__; k.shared<bool>("flags", 4); });
  CHECK(got == diag(line, "shared buffer 'flags' of bool", "use u32 or i32 elements for flags"));
}

TEST_CASE("DSL statements outside a KernelBuilder are refused", "[dsl][errors]") {
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; cluster_sync(); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  got = user_error_of([&] { line = __LINE__; sync_threads(); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  got = user_error_of([&] { line = __LINE__; var(i32(1)); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  got = user_error_of([&] { line = __LINE__; for_(0, 4, [](i32) {}); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  got = user_error_of([&] { line = __LINE__; if_(boolean(true), [] {}); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  // A store through a pointer that outlived its builder.
  Ptr<float> p(ir::VarRef::make("p", ir::Type::pointer(ir::Scalar::F32, ir::Space::Global)));
  got = user_error_of([&] { line = __LINE__; p[0] = 1.0f; });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  got = user_error_of([&] { line = __LINE__; atomic_add(p[0], 1.0f); });
  CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
}

TEST_CASE("after build() the builder is no longer active", "[dsl][errors]") {
  std::optional<Ptr<int32_t>> out;
  {
    KernelBuilder k("done");
    out = k.param<int32_t*>("out");
    k.build();
    unsigned line = 0;
    std::string got = user_error_of([&] { line = __LINE__; (*out)[0] = 1; });
    CHECK(got == diag(line, "DSL statement outside a kernel", kOutsideFix));
  }
}

TEST_CASE("else_ must directly follow its if_, once", "[dsl][errors]") {
  KernelBuilder k("branches");
  auto out = k.param<int32_t*>("out");
  IfChain chain = if_(thread_idx_x() == 0, [&] { out[0] = 1; });
  chain.else_([&] { out[0] = 2; });
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; chain.else_([&] { out[0] = 3; }); });
  CHECK(got == diag(line, "else_ must follow its if_ directly", "write if_(cond, then).else_(other)"));
}

// IfChain remembers only an index into "the current block", so else_ called
// from inside another block (here a loop body) attaches to whatever if_ sits at
// that index there: the inner if_ silently gets the outer one's else branch.
TEST_CASE("else_ called from inside another block is refused", "[dsl][errors]") {
  KernelBuilder k("wrong_else");
  auto out = k.param<int32_t*>("out");
  IfChain outer = if_(thread_idx_x() == 0, [&] { out[0] = 1; });
  bool refused = false;
  for_(0, 2, [&](i32) {
    if_(thread_idx_x() == 1, [&] { out[1] = 1; });
    try {
      outer.else_([&] { out[0] = 2; });
    } catch (const UserError& e) {
      refused = std::string(e.what()).find("else_ must follow its if_ directly") != std::string::npos;
    }
  });
  CHECK(refused);
}

TEST_CASE("for_ refuses a constant step that is not positive", "[dsl][errors]") {
  KernelBuilder k("loops");
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; for_(0, 10, 0, [](i32) {}); });
  CHECK(got == diag(line, "for_ step is 0, the loop would never end", "use a positive step"));
  got = user_error_of([&] { line = __LINE__; for_(0, 10, -2, [](i32) {}); });
  CHECK(got == diag(line, "for_ step is -2, the loop would never end", "use a positive step"));
  got = user_error_of([&] { line = __LINE__; for_(i64(0), i64(10), i64(-1), [](i64) {}); });
  CHECK(got == diag(line, "for_ step is -1, the loop would never end", "use a positive step"));
  // A run-time step is the user's to get right; a constant positive one is fine.
  CHECK(user_error_of([&] { for_(0, 10, block_dim_x(), [](i32) {}); }) == "no error");
  CHECK(user_error_of([&] { for_(0, 10, 3, [](i32) {}); }) == "no error");
}

TEST_CASE("cluster_arrive takes release or relaxed, never acquire", "[dsl][errors][cluster]") {
  KernelBuilder k("arrive");
  unsigned line = 0;
  std::string got;
  got = user_error_of([&] { line = __LINE__; cluster_arrive(ir::MemoryOrder::Acquire); });
  CHECK(got == diag(line, "cluster_arrive takes release or relaxed ordering, not acquire",
             "use MemoryOrder::Release (publishes writes) or MemoryOrder::Relaxed"));
  got = user_error_of([&] { line = __LINE__; cluster_arrive(ir::MemoryOrder::Default); });
  CHECK(got == diag(line, "cluster_arrive takes release or relaxed ordering, not default",
             "use MemoryOrder::Release (publishes writes) or MemoryOrder::Relaxed"));
  // Nothing was recorded by the refused calls.
  CHECK(k.current_block().empty());
}

TEST_CASE("UserError joins several diagnostics, one per line", "[dsl][errors]") {
  UserError e({Diagnostic{ir::Loc{"a.cpp", 3, 1}, "first", "fix one"}, Diagnostic{ir::Loc{"b.cpp", 9, 2}, "second", ""},
               Diagnostic{ir::Loc{}, "third", "fix three"}});
  CHECK(std::string(e.what()) ==
        "a.cpp:3: error: first\n  fix: fix one\nb.cpp:9: error: second\n<unknown>: error: third\n  fix: fix three");
  REQUIRE(e.diagnostics().size() == 3);
  CHECK(e.diagnostics()[1].str() == "b.cpp:9: error: second");
}

// A Val is an expression, not a variable: assigning one inside a body records nothing,
// so `m = x` inside an if_ would apply unconditionally (and a loop's `acc = acc + x[j]`
// would name the loop's index after the loop).
TEST_CASE("a value made outside an if_ or loop body cannot be assigned inside it", "[dsl][errors]") {
  const std::string message =
      " body is assigned inside it: a C++ assignment to a value records no statement, so the kernel would use the new "
      "value everywhere after the body, unconditionally (or name what the body declared, outside it)";
  const std::string fix = "make it a variable, whose assignments are statements: auto x = var(f32(0.0f)); then x = ... inside the body";
  unsigned line = 0;
  {
    KernelBuilder k("rebind_if");
    auto x = k.param<float*>("x");
    f32 m = 0.0f;
    std::string got = user_error_of([&] {
      line = __LINE__; if_(thread_idx_x() < 16, [&] { m = f32(x[thread_idx_x()]); });
    });
    CHECK(got == diag(line, "a DSL value made outside this if_" + message, fix));
  }
  {
    KernelBuilder k("rebind_for");
    auto x = k.param<float*>("x");
    f32 acc = 0.0f;
    std::string got = user_error_of([&] { line = __LINE__; for_(0, 8, [&](i32 j) { acc = acc + x[j]; }); });
    CHECK(got == diag(line, "a DSL value made outside this for_" + message, fix));
  }
  {
    // Values made and reassigned in one body, and variables assigned anywhere, are fine.
    KernelBuilder k("fine");
    auto x = k.param<float*>("x");
    auto out = k.param<float*>("out");
    auto total = var(f32(0.0f), "total");
    f32 scale = 2.0f;
    scale = scale * 3.0f;
    CHECK(user_error_of([&] {
            for_(0, 8, [&](i32 j) {
              f32 v = x[j];
              v = v * scale;
              total = total + v;
            });
            if_(thread_idx_x() == 0, [&] { out[0] = total; });
          }) == "no error");
  }
}

TEST_CASE("UserError keeps each distinct diagnostic once", "[dsl][errors]") {
  const Diagnostic a{ir::Loc{"a.cpp", 3, 1}, "first", "fix one"}, b{ir::Loc{"b.cpp", 9, 2}, "second", ""};
  UserError e({a, b, a, Diagnostic{ir::Loc{"a.cpp", 3, 1}, "first", "another fix"}});
  REQUIRE(e.diagnostics().size() == 3);
  CHECK(e.diagnostics()[0].str() == a.str());
  CHECK(e.diagnostics()[1].str() == b.str());
  CHECK(e.diagnostics()[2].fix == "another fix");
}

TEST_CASE("roles walk the same tile grid with the same schedule", "[dsl][errors]") {
  KernelBuilder k("two_grids");
  k.threads(256);
  auto tiles = k.param<int32_t>("tiles");
  unsigned first = 0, second = 0;
  k.role("producer", 1, 0, [&](i32) {
    first = __LINE__ + 1;
    for_each_tile(static_persistent(8), tiles, i32(4), [&](i32, i32) {});
  });
  const std::string got = user_error_of([&] {
    k.role("consumer", 1, 0, [&](i32) {
      second = __LINE__ + 1;
      for_each_tile(static_persistent(8), tiles, i32(2), [&](i32, i32) {});
    });
  });
  CHECK(got == diag(second, "for_each_tile in role 'consumer' walks tiles x 2 with a static_persistent schedule (group 8), but the "
                            "one in role 'producer' at test_dsl_errors.cpp:" + std::to_string(first) +
                            " walks tiles x 4 with a static_persistent schedule (group 8): roles that hand units to each other "
                            "take them in different orders and numbers, and their barriers fall out of step",
                    "give both walks the same grid and schedule"));
  // The same walk in both roles, and two walks one after the other in one role, are fine.
  KernelBuilder fine("same_grid");
  fine.threads(256);
  auto n = fine.param<int32_t>("n");
  CHECK(user_error_of([&] {
          fine.role("producer", 1, 0, [&](i32) { for_each_tile(static_persistent(8), n, i32(4), [&](i32, i32) {}); });
          fine.role("consumer", 1, 0, [&](i32) {
            for_each_tile(static_persistent(8), n, i32(4), [&](i32, i32) {});
            for_each_tile(static_persistent(4), n, i32(2), [&](i32, i32) {});
          });
        }) == "no error");
}

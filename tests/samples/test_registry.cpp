// The generator registry: built-ins go through the same Registrar as plugins, and a
// registration is taken whole or not at all, with a message naming what is wrong.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <cstdlib>

#include "dsl/dsl.h"
#include "generators/plugin_loader.h"
#include "generators/registry.h"
#include "samples/builtin.h"

using namespace tj;
using samples::ParamSpec;
using samples::Registrar;
using samples::Registry;
using samples::RegistryError;

namespace {

class Stub final : public samples::Sample {
 public:
  Stub(std::string name, std::vector<ParamSpec> params = {}) : name_(std::move(name)), params_(std::move(params)) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return "stub"; }
  std::vector<ParamSpec> params() const override { return params_; }
  ir::Kernel build(const samples::Config&) const override {
    dsl::KernelBuilder k(name_);
    return k.build();
  }
  std::unique_ptr<samples::Instance> instantiate(const samples::Config&, uint64_t) const override { return nullptr; }

 private:
  std::string name_;
  std::vector<ParamSpec> params_;
};

std::string refusal(Registry& r, std::vector<std::string> names, std::vector<ParamSpec> params = {}) {
  try {
    r.register_from("plugin.so", [&](Registrar& reg) {
      for (const std::string& n : names) reg.add(std::make_unique<Stub>(n, params));
    });
  } catch (const RegistryError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("registry: the built-in samples are registered as built-in, in ladder order", "[samples][registry]") {
  const Registry& r = samples::registry();
  REQUIRE(r.all().size() >= 7);
  CHECK(r.all()[0]->name() == "dsmem_ring");
  CHECK(r.origin_of("gemm") == "built-in");
  CHECK(r.find("gemm") == samples::find_sample("gemm"));
  CHECK(r.origin_of("no_such_generator").empty());
  for (const samples::Sample* s : r.all()) {
    INFO(s->name());
    CHECK(samples::generator_problem(*s).empty());  // the built-ins pass the checks plugins face
  }
}

TEST_CASE("registry: generators are added in order with their origin", "[samples][registry]") {
  Registry r;
  CHECK(refusal(r, {"one", "two"}).empty());
  REQUIRE(r.all().size() == 2);
  CHECK(r.all()[1]->name() == "two");
  CHECK(r.origin_of("one") == "plugin.so");
}

TEST_CASE("registry: a duplicate name refuses the whole registration", "[samples][registry]") {
  Registry r;
  REQUIRE(refusal(r, {"ring"}).empty());
  CHECK(refusal(r, {"fresh", "ring"}) == "generator 'ring' is already registered (by plugin.so)");
  CHECK(r.find("fresh") == nullptr);  // nothing of the refused batch stays
  CHECK(refusal(r, {"twin", "twin"}) == "generator 'twin' is registered twice");
  CHECK(r.all().size() == 1);
}

TEST_CASE("registry: bad names and parameters are refused with the reason", "[samples][registry]") {
  Registry r;
  CHECK(refusal(r, {""}) ==
        "generator name '' is not an identifier of 1 to 64 letters, digits and '_' (not starting with a digit)");
  CHECK(refusal(r, {"my kernel"}).find("generator name 'my kernel' is not an identifier") == 0);
  CHECK(refusal(r, {"k"}, {{"n", 5, 10, 1, "n"}}) == "generator 'k': parameter 'n': its range [10, 1] is empty");
  CHECK(refusal(r, {"k"}, {{"n", 0, 1, 10, "n"}}) == "generator 'k': parameter 'n': the default 0 is outside its range [1, 10]");
  CHECK(refusal(r, {"k"}, {{"n", 1, 1, 10, "n"}, {"n", 1, 1, 10, "n"}}) == "generator 'k': parameter 'n' is declared twice");
  CHECK(refusal(r, {"k"}, {{"layout", 0, 0, 2, "l", {"tn", "nn"}}}) ==
        "generator 'k': parameter 'layout': 2 named choices need the range [0, 1]");
  CHECK(r.all().empty());
}

TEST_CASE("registry: an exception from the registration function adds nothing", "[samples][registry]") {
  Registry r;
  CHECK_THROWS_WITH(r.register_from("p.so",
                                    [](Registrar& reg) {
                                      reg.add(std::make_unique<Stub>("early"));
                                      throw std::runtime_error("boom");
                                    }),
                    "boom");
  CHECK(r.all().empty());
}

TEST_CASE("plugins: TILEJIT_PLUGINS (':'-separated) come before --plugin, empty items skipped", "[samples][plugins]") {
  const char* saved = std::getenv("TILEJIT_PLUGINS");
  const std::string before = saved ? saved : "";
  setenv("TILEJIT_PLUGINS", ":a.so::/x/b.so:", 1);
  CHECK(samples::plugin_paths({"c.so"}) == std::vector<std::string>{"a.so", "/x/b.so", "c.so"});
  unsetenv("TILEJIT_PLUGINS");
  CHECK(samples::plugin_paths({}).empty());
  if (saved) setenv("TILEJIT_PLUGINS", before.c_str(), 1);
}

TEST_CASE("plugins: a path that is not a loadable library is refused naming it", "[samples][plugins]") {
  Registry r;
  CHECK_THROWS_WITH(samples::load_plugin(r, "/nonexistent/libx.so"),
                    "plugin /nonexistent/libx.so: cannot read the file: No such file or directory");
  CHECK_THROWS_WITH(samples::load_plugin(r, ""), "plugin '': the path is empty; give the shared library's file name");
  CHECK_THROWS_WITH(samples::load_plugin(r, tj::test::source_dir() + "/samples/specs/dsmem_ring.json"),
                    Catch::StartsWith("plugin " + tj::test::source_dir() +
                                      "/samples/specs/dsmem_ring.json: cannot be loaded as a shared library: "));
}

// Spec parameters beyond plain integers: named choices and real numbers, read through
// parse_spec with a sample shaped like the GEMM's, and shown by `tilejit list`.
#include <catch2/catch.hpp>

#include <sstream>

#include "cli/commands.h"
#include "cli/spec.h"
#include "tests/samples/fake_gemm_sample.h"

using tj::cli::parse_spec;
using tj::cli::Spec;
using tj::samples::test::FakeGemm;

namespace {

const FakeGemm kGemm;

Spec parse(const std::string& params) {
  return parse_spec(R"({"kernel": "gemm", "params": {)" + params + "}}", "g.json", {&kGemm});
}

std::string error_of(const std::string& params) {
  try {
    parse(params);
  } catch (const tj::cli::SpecError& e) {
    return e.what();
  }
  return "parsed";
}

}  // namespace

TEST_CASE("real parameters take any JSON number in their interval", "[samples][spec]") {
  Spec d = parse("");
  CHECK(d.config.real("alpha") == 1.0);
  CHECK(d.config.real("beta") == 0.0);
  CHECK(d.config.reals.size() == 2);
  Spec s = parse(R"("alpha": 0.5, "beta": -2)");
  CHECK(s.config.real("alpha") == 0.5);
  CHECK(s.config.real("beta") == -2.0);
  CHECK(parse(R"("alpha": 1e-3)").config.real("alpha") == 1e-3);
  CHECK(parse(R"("alpha": 1000)").config.real("alpha") == 1000.0);
  CHECK(parse(R"("alpha": -1000.0)").config.real("alpha") == -1000.0);
  // Reals do not leak into the integer parameters, nor the other way round.
  CHECK(s.config.params.count("alpha") == 0);
  CHECK(s.config.reals.count("bm") == 0);
}

TEST_CASE("a wrong real parameter names its path", "[samples][spec][errors]") {
  CHECK(error_of(R"("alpha": "one")") == "g.json: $.params.alpha: expected a number, got a string");
  CHECK(error_of(R"("beta": true)") == "g.json: $.params.beta: expected a number, got a boolean");
  CHECK(error_of(R"("beta": null)") == "g.json: $.params.beta: expected a number, got null");
  CHECK(error_of(R"("alpha": [1])") == "g.json: $.params.alpha: expected a number, got an array");
  CHECK(error_of(R"("alpha": 1e30)") == "g.json: $.params.alpha: 1e+30 is out of range [-1000, 1000]");
  CHECK(error_of(R"("alpha": -1000.5)") == "g.json: $.params.alpha: -1000.5 is out of range [-1000, 1000]");
  CHECK(error_of(R"("alpha": 1e400)") == "g.json: $.params.alpha: inf is out of range [-1000, 1000]");
}

TEST_CASE("a parameter with choices takes a choice's name or its number", "[samples][spec]") {
  CHECK(parse("").config.param("layout") == 0);
  CHECK(parse(R"("layout": "tn")").config.param("layout") == 0);
  CHECK(parse(R"("layout": "nn")").config.param("layout") == 1);
  CHECK(parse(R"("layout": 1)").config.param("layout") == 1);
  // Integer parameters without choices are unchanged.
  CHECK(parse(R"("bm": 192)").config.param("bm") == 192);
}

TEST_CASE("a wrong choice lists the choices at its path", "[samples][spec][errors]") {
  CHECK(error_of(R"("layout": "tx")") == "g.json: $.params.layout: unknown choice 'tx'; expected one of tn, nn");
  CHECK(error_of(R"("layout": "TN")") == "g.json: $.params.layout: unknown choice 'TN'; expected one of tn, nn");
  CHECK(error_of(R"("layout": "")") == "g.json: $.params.layout: unknown choice ''; expected one of tn, nn");
  CHECK(error_of(R"("layout": 2)") == "g.json: $.params.layout: 2 is out of range [0, 1]");
  CHECK(error_of(R"("layout": 0.5)") == "g.json: $.params.layout: expected an integer, got 0.500000");
  CHECK(error_of(R"("layout": false)") == "g.json: $.params.layout: expected one of tn, nn (or its number), got a boolean");
  CHECK(error_of(R"("layout": ["tn"])") == "g.json: $.params.layout: expected one of tn, nn (or its number), got an array");
  // A name is not a number for a parameter without choices.
  CHECK(error_of(R"("bm": "tn")") == "g.json: $.params.bm: expected an integer, got a string");
}

TEST_CASE("unknown parameters list the integer and the real ones", "[samples][spec][errors]") {
  CHECK(error_of(R"("gamma": 1)") == "g.json: $.params.gamma: unknown parameter of gemm; it takes: m, n, k, layout, bm, alpha, beta");
  // The sample's own rules still run after the parameters are read.
  CHECK(error_of(R"("bm": 100)") == "g.json: $.params.bm: must be a multiple of 64");
}

TEST_CASE("the kernel is looked up among the samples given", "[samples][spec][errors]") {
  CHECK(parse_spec(R"({"kernel": "gemm"})", "g.json", {&kGemm}).sample == &kGemm);
  CHECK_THROWS_WITH(parse_spec(R"({"kernel": "dsmem_ring"})", "g.json", {&kGemm}),
                    "g.json: $.kernel: unknown kernel 'dsmem_ring'; known: gemm");
}

TEST_CASE("tilejit list shows choices and real parameters", "[samples][spec]") {
  std::ostringstream out;
  tj::cli::print_samples(out, {&kGemm});
  CHECK(out.str() ==
        "gemm\n"
        "    parameters shaped like the GEMM sample's\n"
        "    params.m (default 4096, 1..1048576): rows of A and D\n"
        "    params.n (default 4096, 1..1048576): columns of B and D\n"
        "    params.k (default 4096, 1..1048576): the reduced dimension\n"
        "    params.layout (default tn, one of tn = 0, nn = 1): how B is stored\n"
        "    params.bm (default 128, 64..256): tile rows\n"
        "    params.alpha (default 1, a number in -1000..1000): scales A*B\n"
        "    params.beta (default 0, a number in -1000..1000): scales C\n");
}

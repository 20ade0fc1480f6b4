// A test double shaped like the GEMM sample's parameters (the real one is not in every
// build): integer params with and without named choices, and real ones. Only its
// parameters and config rule are used; building or running it is an internal error.
#pragma once

#include "dsl/ir/ir.h"
#include "generators/sample.h"

namespace tj::samples::test {

class FakeGemm final : public Sample {
 public:
  std::string name() const override { return "gemm"; }
  std::string summary() const override { return "parameters shaped like the GEMM sample's"; }
  std::vector<ParamSpec> params() const override {
    return {{"m", 4096, 1, 1 << 20, "rows of A and D"},
            {"n", 4096, 1, 1 << 20, "columns of B and D"},
            {"k", 4096, 1, 1 << 20, "the reduced dimension"},
            {"layout", 0, 0, 1, "how B is stored", {"tn", "nn"}},
            {"bm", 128, 64, 256, "tile rows"}};
  }
  std::vector<RealParamSpec> real_params() const override {
    return {{"alpha", 1.0, -1000, 1000, "scales A*B"}, {"beta", 0.0, -1000, 1000, "scales C"}};
  }
  std::vector<ConfigProblem> check_config(const Config& c) const override {
    if (c.param("bm") % 64 != 0) return {{"params.bm", "must be a multiple of 64"}};
    return {};
  }
  ir::Kernel build(const Config&) const override { ir::internal_error("FakeGemm is not built in tests"); }
  std::unique_ptr<Instance> instantiate(const Config&, uint64_t) const override {
    ir::internal_error("FakeGemm is not run in tests");
  }
};

}  // namespace tj::samples::test

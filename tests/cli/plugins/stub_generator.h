// A generator for the broken test plugins: a trivial kernel under any name and
// parameters. The plugins around it are what is wrong.
#pragma once

#include <tilejit/plugin.h>

namespace tj_test {

class StubGenerator final : public tj::plugin::Generator {
 public:
  StubGenerator(std::string name, std::vector<tj::plugin::ParamSpec> params) : name_(std::move(name)), params_(std::move(params)) {}
  std::string name() const override { return name_; }
  std::string summary() const override { return "a test plugin's stand-in"; }
  std::vector<tj::plugin::ParamSpec> params() const override { return params_; }
  tj::ir::Kernel build(const tj::plugin::Config& c) const override {
    tj::dsl::KernelBuilder k(name_);
    k.threads(c.threads);
    auto out = k.param<uint32_t*>("out");
    out[tj::dsl::thread_idx_x()] = 1u;
    return k.build();
  }
  std::unique_ptr<tj::plugin::Instance> instantiate(const tj::plugin::Config&, uint64_t) const override { return nullptr; }

 private:
  std::string name_;
  std::vector<tj::plugin::ParamSpec> params_;
};

}  // namespace tj_test

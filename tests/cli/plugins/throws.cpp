// A plugin whose registration throws after adding one generator (none may stay registered).
#include <stdexcept>

#include "stub_generator.h"

namespace {
void register_generators(tj::plugin::Registrar& r) {
  r.add(std::make_unique<tj_test::StubGenerator>("half_registered", std::vector<tj::plugin::ParamSpec>{}));
  throw std::runtime_error("the kernel table is missing");
}
}  // namespace

TILEJIT_PLUGIN("throws", register_generators)

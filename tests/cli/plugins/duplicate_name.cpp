// A plugin whose generator takes a built-in sample's name.
#include "stub_generator.h"

namespace {
void register_generators(tj::plugin::Registrar& r) {
  r.add(std::make_unique<tj_test::StubGenerator>("dsmem_ring", std::vector<tj::plugin::ParamSpec>{}));
}
}  // namespace

TILEJIT_PLUGIN("duplicate", register_generators)

// A plugin whose parameter's default lies outside its range.
#include "stub_generator.h"

namespace {
void register_generators(tj::plugin::Registrar& r) {
  r.add(std::make_unique<tj_test::StubGenerator>(
      "bad_default", std::vector<tj::plugin::ParamSpec>{{"elems", 0, 1, 100, "elements"}}));
}
}  // namespace

TILEJIT_PLUGIN("bad param", register_generators)

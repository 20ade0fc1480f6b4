// A plugin that calls a function tilejit does not have (built against another tilejit):
// loading it fails on the undefined symbol.
#include "stub_generator.h"

namespace tj::samples {
void a_function_this_tilejit_does_not_export(Registrar& r);
}

namespace {
void register_generators(tj::plugin::Registrar& r) { tj::samples::a_function_this_tilejit_does_not_export(r); }
}  // namespace

TILEJIT_PLUGIN("undefined symbol", register_generators)

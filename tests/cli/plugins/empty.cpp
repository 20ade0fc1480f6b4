// A plugin that registers nothing.
#include <tilejit/plugin.h>

namespace {
void register_nothing(tj::plugin::Registrar&) {}
}  // namespace

TILEJIT_PLUGIN("empty", register_nothing)

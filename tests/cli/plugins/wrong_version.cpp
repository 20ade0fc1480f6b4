// A plugin built for a future plugin API (version 999).
#include <tilejit/plugin.h>

namespace {
void register_nothing(tj::plugin::Registrar&) {}
}  // namespace

extern "C" __attribute__((visibility("default"))) const tilejit_plugin_info* tilejit_plugin_entry(void) {
  static const tilejit_plugin_info info = {999u, sizeof(tilejit_plugin_info), "from the future", register_nothing};
  return &info;
}

// What a plugin library and tilejit's loader (plugin_loader.cpp) agree on: the entry
// point's name and type, the info it returns and the API version. Plugins include it
// through <tilejit/plugin.h>, which adds the names they write (tj::plugin::Generator,
// TILEJIT_PLUGIN).
#pragma once

#include <cstdint>

#include "generators/registry.h"

// Raised whenever the plugin interface (<tilejit/plugin.h>, this file, generators/sample.h,
// generators/registry.h) changes in a way that an already built plugin would not survive.
// 2: Sample::for_device takes a DeviceFacts (was the SM count).
// 3: Sample::device_tuning_candidates (a new virtual: the vtable moved).
#define TILEJIT_PLUGIN_API_VERSION 3u

extern "C" {

// What the entry point returns. api_version comes first in every version of this
// struct: tilejit reads it before anything else and refuses a plugin built for another.
struct tilejit_plugin_info {
  uint32_t api_version;  // TILEJIT_PLUGIN_API_VERSION the plugin was compiled with
  uint32_t info_size;    // sizeof(tilejit_plugin_info) in that version
  const char* name;      // for people: "example cluster kernels"
  void (*register_generators)(tj::samples::Registrar& registrar);  // = tj::plugin::Registrar
};

// The one symbol tilejit looks up in a plugin.
#define TILEJIT_PLUGIN_ENTRY_NAME "tilejit_plugin_entry"
typedef const tilejit_plugin_info* (*tilejit_plugin_entry_fn)(void);

}  // extern "C"

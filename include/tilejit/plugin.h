// <tilejit/plugin.h>: kernel generators in a shared library that `tilejit --plugin
// libmykernels.so list|compile|run SPEC` loads.
//
// A generator is a tj::plugin::Generator (= tj::samples::Sample, the interface the
// built-in samples implement): a name, parameters with ranges and docs, the kernel
// built with the DSL, the host setup (device buffers and arguments) and the reference
// check. A plugin registers its generators through the same Registrar the built-ins
// use, from one registration function named in TILEJIT_PLUGIN:
//
//   void register_mine(tj::plugin::Registrar& r) { r.add(std::make_unique<MyKernel>()); }
//   TILEJIT_PLUGIN("my kernels", register_mine)
//
// Linking: build the plugin as a shared library (CMake: add_library(x MODULE ...)) that
// links NO tilejit library. Its references to tilejit (the DSL, DeviceBuffer, ...)
// resolve, when tilejit loads it, to the tilejit executable's own copies: the executable
// exports the whole of its dsl, codegen, runtime, generators and samples libraries
// (ENABLE_EXPORTS and --whole-archive in cli/CMakeLists.txt). So a plugin shares the
// executable's registry, driver and CUDA context, and it must be compiled against the
// headers of the tilejit that loads it; the API version (generators/plugin_abi.h, with
// the entry point's struct) catches a mismatch of this interface, and an undefined
// symbol is reported when the library is loaded.
#pragma once

#include <memory>

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "generators/plugin_abi.h"
#include "generators/registry.h"
#include "generators/sample.h"
#include "runtime/buffer.h"

namespace tj::plugin {

using Generator = samples::Sample;
using Instance = samples::Instance;
using Registrar = samples::Registrar;
using Config = samples::Config;
using ParamSpec = samples::ParamSpec;
using RealParamSpec = samples::RealParamSpec;
using ConfigProblem = samples::ConfigProblem;
using Check = samples::Check;
using MismatchLog = samples::MismatchLog;

}  // namespace tj::plugin

// Defines the plugin's entry point: `name` (a string) and its registration function.
#define TILEJIT_PLUGIN(name, register_fn)                                                          \
  extern "C" __attribute__((visibility("default"))) const tilejit_plugin_info* tilejit_plugin_entry(void) { \
    static const tilejit_plugin_info info = {TILEJIT_PLUGIN_API_VERSION, sizeof(tilejit_plugin_info), name, \
                                             register_fn};                                         \
    return &info;                                                                                  \
  }

// tilejit, all a user needs: the DSL a kernel is written in (tj::dsl), and the host API
// that compiles it (tj::compile: PTX and CUDA on any machine), loads it (tj::jit) and
// launches it with checked arguments, device tensors and tensor maps, timing and
// comparison with a host reference.
//
//   #include <tilejit/tilejit.h>
//   tj::ir::Kernel kernel = my_kernel();      // tj::dsl::KernelBuilder ... build()
//   auto f = tj::jit(kernel);                 // compile (disk-cached) for this GPU, load
//   f.launch(clusters, out, n);               // grid counted in clusters
//   f.synchronize();
#pragma once

#include "api/args.h"
#include "api/check.h"
#include "api/compile.h"
#include "api/device.h"
#include "api/jit.h"
#include "api/version.h"
#include "api/tensor.h"
#include "dsl/dsl.h"
#include "runtime/error.h"

namespace tj {

// What the host API throws: rt::RuntimeError (kind(): NoDriver, Compile, Launch, Device,
// Usage, Io) and, for mistakes in the DSL, UserError (each diagnostic with its source line).
using rt::ErrorKind;
using rt::RuntimeError;

}  // namespace tj

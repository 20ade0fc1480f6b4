// A GPU and its primary context, shared by the tensors and kernels made on it.
#pragma once

#include <memory>
#include <string>

#include "runtime/device.h"

namespace tj {

class Device {
 public:
  // Device `ordinal` (-1: TILEJIT_DEVICE, else 0), made current on this thread. Its primary
  // context is retained once per process and kept while any Device, Tensor or JitKernel
  // on it lives. Throws rt::RuntimeError(NoDriver) without a driver or GPU.
  static Device get(int ordinal = -1);

  const rt::DeviceInfo& info() const { return ctx_->info(); }
  int ordinal() const { return ctx_->info().ordinal; }
  std::string arch() const { return ctx_->arch(); }  // "sm_90a" on an H200
  const rt::Context& context() const { return *ctx_; }
  // Makes the context current on the calling thread (each thread starts with none).
  void make_current() const { ctx_->make_current(); }

 private:
  explicit Device(std::shared_ptr<const rt::Context> ctx) : ctx_(std::move(ctx)) {}
  std::shared_ptr<const rt::Context> ctx_;
};

// Whether kernels can be launched here: a CUDA driver and a default device tilejit
// generates code for (sm_90a or sm_100a). On false, `why` (if given) says what is missing.
bool gpu_available(std::string* why = nullptr);

}  // namespace tj

#include "runtime/module.h"

#include <utility>

#include "runtime/device.h"
#include "runtime/driver.h"

namespace tj::rt {

Module Module::load(const Context& ctx, const std::string& cubin, const std::string& kernel_name) {
  if (cubin.empty())
    throw RuntimeError(ErrorKind::Usage,
                       "kernel '" + kernel_name +
                           "': no cubin to load; compile for an sm_ arch (e.g. sm_90a), not compute_");
  const Driver& d = driver();
  ctx.make_current();
  Module m;
  m.kernel_name_ = kernel_name;
  m.device_ = ctx.info();
  if (CUresult r = d.cuModuleLoadData(&m.module_, cubin.data()); r != CUDA_SUCCESS) {
    std::string hint;
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE)
      hint = "The cubin was built for another architecture than this " + m.device_.name + " (" +
             ctx.arch() + "); compile for " + ctx.arch() + " (unset TILEJIT_ARCH)";
    throw driver_error(r, "cuModuleLoadData", kernel_name, hint);
  }
  if (CUresult r = d.cuModuleGetFunction(&m.function_, m.module_, kernel_name.c_str());
      r != CUDA_SUCCESS) {
    std::string hint;
    if (r == CUDA_ERROR_NOT_FOUND)
      hint = "The cubin has no kernel of that symbol name; declare it extern \"C\" __global__ "
             "or pass its mangled name";
    throw driver_error(r, "cuModuleGetFunction", kernel_name, hint); // ~Module unloads
  }
  return m;
}

Module::~Module() {
  if (module_) driver().cuModuleUnload(module_); // cannot throw here
}

Module::Module(Module&& other) noexcept
    : module_(std::exchange(other.module_, nullptr)),
      function_(std::exchange(other.function_, nullptr)),
      kernel_name_(std::move(other.kernel_name_)), device_(std::move(other.device_)),
      param_sizes_(std::move(other.param_sizes_)), param_count_(other.param_count_) {}

Module& Module::operator=(Module&& other) noexcept {
  if (this != &other) {
    Module old(std::move(*this));
    module_ = std::exchange(other.module_, nullptr);
    function_ = std::exchange(other.function_, nullptr);
    kernel_name_ = std::move(other.kernel_name_);
    device_ = std::move(other.device_);
    param_sizes_ = std::move(other.param_sizes_);
    param_count_ = other.param_count_;
  }
  return *this;
}

int Module::attribute(CUfunction_attribute attr, const char* what) const {
  int value = 0;
  CUresult r = driver().cuFuncGetAttribute(&value, attr, function_);
  if (r != CUDA_SUCCESS) throw driver_error(r, what, kernel_name_);
  return value;
}

int Module::num_regs() const {
  return attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(NUM_REGS)");
}

int Module::static_smem() const {
  return attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
}

int Module::max_threads_per_block() const {
  return attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                   "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
}

Module Module::load(const Context& ctx, const std::string& cubin, const std::string& kernel_name, size_t param_count) {
  Module m = load(ctx, cubin, kernel_name);
  m.param_count_ = param_count;
  return m;
}

const std::vector<size_t>& Module::param_sizes() const {
  if (!param_sizes_) {
    std::vector<size_t> sizes;
    const size_t limit = param_count_ ? *param_count_ : 4096;  // a bound in case a driver never says "past the end"
    for (size_t i = 0; i < limit; ++i) {
      size_t offset = 0, size = 0;
      CUresult r = driver().cuFuncGetParamInfo(function_, i, &offset, &size);
      if (r == CUDA_ERROR_INVALID_VALUE && !param_count_) break;  // past the last parameter
      check(r, "cuFuncGetParamInfo", kernel_name_);
      sizes.push_back(size);
    }
    param_sizes_ = std::move(sizes);
  }
  return *param_sizes_;
}

} // namespace tj::rt

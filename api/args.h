// Kernel arguments checked against the kernel's declared parameters: the count, then
// each argument's kind and type against its parameter, by position, with errors that
// name the parameter. What a wrong argument would otherwise be: a crash or garbage.
#pragma once

#include <cuda.h>

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/tensor.h"
#include "dsl/ir/kernel.h"
#include "runtime/buffer.h"
#include "runtime/launch.h"

namespace tj {

// A device pointer to T that the caller owns (no size is known, so nothing is bounds-checked).
template <class T>
struct DevicePtr {
  CUdeviceptr address = 0;
};
template <class T>
DevicePtr<T> device_ptr(CUdeviceptr address) {
  return {address};
}

// One kernel argument. Scalars: an integer fits any integer parameter whose range holds
// its value; a float or double fits an f32 parameter; a bool a bool parameter. Pointer
// parameters take a Tensor or TensorView (its element type must be the pointee's), a
// DevicePtr<T> (likewise) or an rt::DeviceBuffer (untyped: its element type is not
// checked). Tensor-map parameters take a Tensor or TensorView (the map is made from the
// kernel's declared view and checked against it) or an encoded CUtensorMap (its contents
// cannot be checked). Any parameter takes an encoded value (Arg::encoded: the bytes an
// rt::ArgPack holds), whose size alone can be checked.
class Arg {
 public:
  enum class Kind { Int, Float, Bool, Tensor, Pointer, TensorMap, Encoded };

  template <std::integral T>
  Arg(T value) {  // NOLINT: implicit, so that launch(grid, out, 3) reads naturally
    if constexpr (std::same_as<T, bool>) {
      kind_ = Kind::Bool;
      int_ = value;
    } else {
      kind_ = Kind::Int;
      host_ = std::is_signed_v<T> ? (sizeof(T) > 4 ? "i64" : "i32") : (sizeof(T) > 4 ? "u64" : "u32");
      negative_ = std::is_signed_v<T> && value < 0;
      int_ = static_cast<uint64_t>(static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(value));
    }
  }
  template <std::floating_point T>
  Arg(T value) : kind_(Kind::Float), host_(sizeof(T) == 4 ? "float" : "double"), float_(static_cast<double>(value)) {}
  Arg(const Tensor& tensor) : Arg(tensor.view()) {}
  Arg(const TensorView& view) : kind_(Kind::Tensor), view_(view) {}
  Arg(const rt::DeviceBuffer& buffer) : kind_(Kind::Pointer), address_(buffer.ptr()), buffer_bytes_(buffer.bytes()) {}
  template <class T>
  Arg(DevicePtr<T> p) : kind_(Kind::Pointer), address_(p.address), pointee_(dtype_of<T>()) {}
  Arg(const CUtensorMap& map) : kind_(Kind::TensorMap), map_(map) {}
  // The parameter's value as the kernel receives it, `bytes` bytes at `data` (copied).
  static Arg encoded(const void* data, size_t bytes);

  Kind kind() const { return kind_; }
  // What was passed, for messages: "i32 3", "double 2.5", "tensor f32[64, 128]", ...
  std::string str() const;
  // The name given with tj::arg(); empty when positional only.
  const std::string& name() const { return name_; }

  // Appends the value for parameter `index` of `kernel` to `pack`, or throws
  // rt::RuntimeError(Usage) naming the kernel, the parameter and what is wrong.
  void bind(const ir::Kernel& kernel, size_t index, rt::ArgPack& pack) const;

 private:
  friend Arg arg(std::string name, Arg value);
  explicit Arg(std::vector<unsigned char> encoded) : kind_(Kind::Encoded), encoded_(std::move(encoded)) {}
  Kind kind_;
  std::string host_;  // the C++ type of a scalar
  bool negative_ = false;
  uint64_t int_ = 0;  // two's complement when negative_
  double float_ = 0;
  TensorView view_;
  CUdeviceptr address_ = 0;
  std::optional<uint64_t> buffer_bytes_;
  std::optional<DType> pointee_;
  CUtensorMap map_{};
  std::vector<unsigned char> encoded_;
  std::string name_;
};

// The values of `pack` as encoded arguments, in order: arguments made by code that packs
// its own (a sample's Instance), checked like any others when bound.
std::vector<Arg> encoded_args(const rt::ArgPack& pack);

// An argument that must be bound to the parameter called `name` (checked: a swapped
// pair of arguments is then an error instead of a silent mix-up).
Arg arg(std::string name, Arg value);

// The parameters a caller passes, as "out: u32*, n: i32, src: tensor_map" (for messages
// and docs). Workspace parameters (ir::Workspace) are not among them: the runtime binds them.
std::string signature(const ir::Kernel& kernel);
// How many arguments a launch takes: the parameters but the workspaces.
size_t argument_count(const ir::Kernel& kernel);

// `args` checked against `kernel`'s parameters, as the launch's parameter array (a
// workspace parameter holds a null pointer until JitKernel binds it at launch).
// Throws rt::RuntimeError(Usage): "kernel 'k' takes 3 arguments (out: u32*, ...) but 2
// were given", "kernel 'k' parameter 1 'n' (i32): got a double (2.5); pass an integer", ...
// Needs no GPU, except to encode tensor maps.
rt::ArgPack bind_args(const ir::Kernel& kernel, const std::vector<Arg>& args);

}  // namespace tj

// Tensors in device memory that the user owns, and the TMA tensor maps a kernel's
// declared views (KernelBuilder::tensor_map / tile_map) read them through.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/device.h"
#include "dsl/ir/kernel.h"
#include "dsl/values.h"
#include "runtime/buffer.h"
#include "runtime/tensor_map.h"

namespace tj {

// Element types: the IR's scalars (f32, bf16, i32, ...).
using DType = ir::Scalar;
using ir::scalar_bytes;
using ir::scalar_name;

// The DType of a host or DSL element type: dtype_of<float>() is f32, dtype_of<dsl::bf16>() bf16.
template <class T>
constexpr DType dtype_of() {
  return dsl::scalar_of<std::remove_cv_t<T>>::value;
}

// A row-major tensor in device memory, owned by someone else (a Tensor, or the caller's
// own allocation): address, element type and shape, outermost dimension first; packed, or
// with rows `pitch` elements apart (a matrix with padded rows, or a block of a wider one).
struct TensorView {
  CUdeviceptr address = 0;
  DType dtype = DType::F32;
  std::vector<uint64_t> shape;  // {rows, cols}: row-major, outermost first
  // Elements from the start of one row (innermost dimension) to the next, at least its
  // extent; the outer dimensions pack on it. 0: the extent (packed).
  uint64_t pitch = 0;

  unsigned rank() const { return static_cast<unsigned>(shape.size()); }
  uint64_t elements() const;                                    // the shape's, padding not counted
  uint64_t bytes() const { return elements() * scalar_bytes(dtype); }  // packed; a pitched view spans more
  std::string str() const;  // "f32[64, 128]"
};

// The tensor map a kernel's TMA view `decl` reads `view` through: the view's dims
// (innermost first, i.e. the shape reversed), the declaration's box and swizzle. Throws
// rt::RuntimeError(Usage) naming the view when the element type or rank differ from the
// declaration's, or TMA cannot address the tensor (row bytes not a multiple of 16, ...).
// Needs no GPU.
rt::TensorMapDesc tensor_map_desc(const TensorView& view, const ir::TensorMapDecl& decl);
// tensor_map_desc(), encoded by the driver (cuTensorMapEncodeTiled).
CUtensorMap encode_tensor_map(const TensorView& view, const ir::TensorMapDecl& decl);

// The driver's names for element types and swizzles. dtype: RuntimeError(Usage) for
// types TMA cannot move (bool, u32x4, ...).
CUtensorMapDataType tensor_map_dtype(DType dtype);
CUtensorMapSwizzle tensor_map_swizzle(ir::Swizzle swizzle);

// A tensor in device memory that the user owns: allocated on a device when made,
// freed with the object. Pass it to a kernel's pointer parameter (its element type is
// checked against the pointee) or to a tensor-map parameter (the map is made from the
// kernel's declared view and checked against it).
class Tensor {
 public:
  // An uninitialised tensor of `shape` (outermost first) on `device`.
  Tensor(std::vector<uint64_t> shape, DType dtype, const Device& device = Device::get());
  template <class T>
  static Tensor empty(std::vector<uint64_t> shape, const Device& device = Device::get()) {
    return Tensor(std::move(shape), dtype_of<T>(), device);
  }
  // A tensor of `shape` holding `values` (as many as the shape has elements).
  template <class T>
  static Tensor from_host(std::vector<uint64_t> shape, const std::vector<T>& values, const Device& device = Device::get()) {
    Tensor t(std::move(shape), dtype_of<T>(), device);
    t.upload(values);
    return t;
  }

  // Copies `values` into the tensor: exactly elements() of them, of its element type
  // (or, for types with no host arithmetic such as bf16, any type of the same size).
  template <class T>
  void upload(const std::vector<T>& values) {
    check_host_type(host_dtype<T>(), sizeof(T), values.size(), "upload");
    upload_bytes(values.data(), values.size() * sizeof(T));
  }
  // The tensor's elements, as T (the same rule as upload).
  template <class T>
  std::vector<T> download() const {
    check_host_type(host_dtype<T>(), sizeof(T), elements(), "download");
    std::vector<T> out(elements());
    download_bytes(out.data(), out.size() * sizeof(T));
    return out;
  }
  // Sets every byte (0xFF: NaN in f32, bf16 and f16), e.g. to see unwritten elements.
  void fill_bytes(uint8_t value);

  const TensorView& view() const { return view_; }
  CUdeviceptr data() const { return view_.address; }
  DType dtype() const { return view_.dtype; }
  const std::vector<uint64_t>& shape() const { return view_.shape; }
  unsigned rank() const { return view_.rank(); }
  uint64_t elements() const { return view_.elements(); }
  uint64_t bytes() const { return view_.bytes(); }
  const Device& device() const { return device_; }

  // The tensor map the kernel's view `decl` reads this tensor through (see tensor_map_desc).
  CUtensorMap tensor_map(const ir::TensorMapDecl& decl) const { return encode_tensor_map(view_, decl); }

 private:
  template <class T>
  static int host_dtype() {
    if constexpr (requires { dsl::scalar_of<std::remove_cv_t<T>>::value; })
      return static_cast<int>(dtype_of<T>());
    else
      return -1;  // no DType of its own: only the size is checked
  }
  void check_host_type(int host_dtype, size_t host_bytes, size_t count, const char* what) const;
  void upload_bytes(const void* data, size_t bytes);
  void download_bytes(void* data, size_t bytes) const;

  Device device_;
  rt::DeviceBuffer buffer_;
  TensorView view_;
};

}  // namespace tj

#include "api/tensor.h"

#include "runtime/error.h"

namespace tj {

namespace {

rt::RuntimeError usage(const std::string& msg) { return rt::RuntimeError(rt::ErrorKind::Usage, msg); }

std::string box_text(const std::vector<unsigned>& box) {
  std::string s = "{";
  for (size_t i = 0; i < box.size(); ++i) s += (i ? ", " : "") + std::to_string(box[i]);
  return s + "}";
}

}  // namespace

uint64_t TensorView::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string TensorView::str() const {
  std::string s = std::string(scalar_name(dtype)) + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]" + (pitch ? " (rows " + std::to_string(pitch) + " apart)" : "");
}

CUtensorMapDataType tensor_map_dtype(DType t) {
  switch (t) {
    case DType::U8: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case DType::I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case DType::U32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case DType::I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case DType::U64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case DType::F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case DType::F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case DType::BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    default: break;
  }
  throw usage("TMA cannot move " + std::string(scalar_name(t)) + " elements; tensor maps hold u8, i32, u32, i64, u64, f32, f16 or bf16");
}

CUtensorMapSwizzle tensor_map_swizzle(ir::Swizzle s) {
  switch (s) {
    case ir::Swizzle::B32: return CU_TENSOR_MAP_SWIZZLE_32B;
    case ir::Swizzle::B64: return CU_TENSOR_MAP_SWIZZLE_64B;
    case ir::Swizzle::B128: return CU_TENSOR_MAP_SWIZZLE_128B;
    case ir::Swizzle::None: break;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

rt::TensorMapDesc tensor_map_desc(const TensorView& view, const ir::TensorMapDecl& decl) {
  const std::string what = "tensor map '" + decl.name + "' (declared at " + decl.loc.str() + ": " +
                           std::string(scalar_name(decl.dtype)) + ", " + std::to_string(decl.rank) + "-D, box " +
                           box_text(decl.box) + " innermost first)";
  if (view.dtype != decl.dtype)
    throw usage(what + " reads " + std::string(scalar_name(decl.dtype)) + " elements but the tensor is " + view.str());
  if (view.rank() != decl.rank)
    throw usage(what + " is " + std::to_string(decl.rank) + "-D but the tensor " + view.str() + " has " +
                std::to_string(view.rank()) + " dimension(s)");
  std::vector<uint64_t> dims(view.shape.rbegin(), view.shape.rend());  // innermost first, as TMA counts
  rt::TensorMapDesc d =
      rt::TensorMapDesc::packed(tensor_map_dtype(decl.dtype), view.address, dims, decl.box, tensor_map_swizzle(decl.swizzle));
  if (view.pitch != 0) {
    if (view.pitch < dims[0])
      throw usage(what + ": the tensor " + view.str() + " has rows " + std::to_string(view.pitch) +
                  " elements apart, fewer than a row's " + std::to_string(dims[0]));
    // Dimension 1 steps a pitch; each outer one the whole of the one inside it.
    for (unsigned i = 1; i < d.rank && i < 5; ++i)
      d.strides[i] = i == 1 ? view.pitch * scalar_bytes(view.dtype) : d.strides[i - 1] * dims[i - 1];
  }
  std::vector<std::string> problems = rt::tensor_map_problems(d, decl.name);
  if (!problems.empty()) {
    std::string msg = what + " cannot read the tensor " + view.str() + " (TMA counts dimensions innermost first): ";
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    throw usage(msg);
  }
  return d;
}

CUtensorMap encode_tensor_map(const TensorView& view, const ir::TensorMapDecl& decl) {
  return rt::encode_tensor_map(tensor_map_desc(view, decl), decl.name);
}

Tensor::Tensor(std::vector<uint64_t> shape, DType dtype, const Device& device) : device_(device) {
  view_.dtype = dtype;
  view_.shape = std::move(shape);
  if (view_.shape.empty()) throw usage("a tensor needs at least one dimension");
  for (uint64_t d : view_.shape)
    if (d == 0) throw usage("tensor " + view_.str() + " has an empty dimension; every dimension must be at least 1");
  device_.make_current();
  buffer_ = rt::DeviceBuffer(view_.bytes());
  view_.address = buffer_.ptr();
}

void Tensor::check_host_type(int host_dtype, size_t host_bytes, size_t count, const char* what) const {
  if (host_dtype >= 0 && static_cast<DType>(host_dtype) != dtype())
    throw usage("cannot " + std::string(what) + " " + std::string(scalar_name(static_cast<DType>(host_dtype))) +
                " values for the tensor " + view_.str() + "; use its element type");
  if (host_dtype < 0 && host_bytes != scalar_bytes(dtype()))
    throw usage("cannot " + std::string(what) + " " + std::to_string(host_bytes) + "-byte values for the tensor " + view_.str() +
                ", whose elements are " + std::to_string(scalar_bytes(dtype())) + " bytes");
  if (count != elements())
    throw usage(std::string(what) + " of " + std::to_string(count) + " values for the tensor " + view_.str() + " of " +
                std::to_string(elements()) + " elements");
}

void Tensor::upload_bytes(const void* data, size_t bytes) {
  device_.make_current();
  buffer_.upload(data, bytes);
}

void Tensor::download_bytes(void* data, size_t bytes) const {
  device_.make_current();
  buffer_.download(data, bytes);
}

void Tensor::fill_bytes(uint8_t value) {
  device_.make_current();
  buffer_.fill_u8(value);
}

}  // namespace tj

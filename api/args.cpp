#include "api/args.h"

#include <sstream>

#include "runtime/error.h"

namespace tj {

namespace {

std::string param_type(const ir::Type& t) {
  if (t.is_pointer()) return std::string(ir::scalar_name(t.scalar)) + "*";
  return std::string(ir::scalar_name(t.scalar));
}

// The [min, max] of an integer parameter type, as 128-bit values.
bool integer_range(ir::Scalar s, __int128& lo, __int128& hi) {
  switch (s) {
    case ir::Scalar::I32: lo = INT32_MIN, hi = INT32_MAX; return true;
    case ir::Scalar::U32: lo = 0, hi = UINT32_MAX; return true;
    case ir::Scalar::I64: lo = INT64_MIN, hi = INT64_MAX; return true;
    case ir::Scalar::U64: lo = 0, hi = UINT64_MAX; return true;
    case ir::Scalar::U8: lo = 0, hi = UINT8_MAX; return true;
    default: return false;
  }
}

template <class T>
void push_int(rt::ArgPack& pack, __int128 v) {
  pack.push(static_cast<T>(v));
}

}  // namespace

std::string Arg::str() const {
  std::ostringstream s;
  switch (kind_) {
    case Kind::Int:
      s << host_ << " ";
      if (negative_) s << static_cast<int64_t>(int_);
      else s << int_;
      break;
    case Kind::Float: s << "a " << host_ << " (" << float_ << ")"; break;
    case Kind::Bool: s << "bool " << (int_ ? "true" : "false"); break;
    case Kind::Tensor: s << "tensor " << view_.str(); break;
    case Kind::Pointer:
      if (pointee_) s << "device pointer to " << scalar_name(*pointee_);
      else s << "device buffer (" << buffer_bytes_.value_or(0) << " bytes)";
      break;
    case Kind::TensorMap: s << "an encoded CUtensorMap"; break;
    case Kind::Encoded: s << "an encoded value of " << encoded_.size() << " bytes"; break;
  }
  return s.str();
}

Arg Arg::encoded(const void* data, size_t bytes) {
  const auto* first = static_cast<const unsigned char*>(data);
  return Arg(std::vector<unsigned char>(first, first + bytes));
}

std::vector<Arg> encoded_args(const rt::ArgPack& pack) {
  std::vector<Arg> args;
  for (size_t i = 0; i < pack.size(); ++i) args.push_back(Arg::encoded(pack.value(i), pack.bytes_of(i)));
  return args;
}

Arg arg(std::string name, Arg value) {
  value.name_ = std::move(name);
  return value;
}

std::string signature(const ir::Kernel& kernel) {
  std::string s;
  for (const ir::Param& p : kernel.params)
    if (!p.workspace) s += (s.empty() ? "" : ", ") + p.name + ": " + param_type(p.type);
  return s;
}

size_t argument_count(const ir::Kernel& kernel) {
  size_t n = 0;
  for (const ir::Param& p : kernel.params) n += !p.workspace;
  return n;
}

void Arg::bind(const ir::Kernel& kernel, size_t index, rt::ArgPack& pack) const {
  const ir::Param& p = kernel.params.at(index);
  const std::string where = "kernel '" + kernel.name + "' parameter " + std::to_string(index) + " '" + p.name + "' (" +
                            param_type(p.type) + ", declared at " + p.loc.str() + ")";
  auto fail = [&](const std::string& why) { throw rt::RuntimeError(rt::ErrorKind::Usage, where + ": " + why); };
  if (!name_.empty() && name_ != p.name) fail("the argument is named '" + name_ + "'; arguments go in the kernel's order: " + signature(kernel));
  const std::string got = "got " + str();

  if (kind_ == Kind::Encoded) {
    // Every size is a power of two (a pointer, a scalar, a 128-byte tensor map): aligned
    // to its size, each value is aligned as the kernel's parameter is.
    const size_t bytes = p.type.is_pointer() ? sizeof(CUdeviceptr) : ir::scalar_bytes(p.type.scalar);
    if (encoded_.size() != bytes) fail(got + "; the parameter is " + std::to_string(bytes) + " bytes");
    pack.push_bytes(encoded_.data(), bytes, bytes);
    return;
  }
  if (p.type.is_pointer()) {
    if (kind_ == Kind::Tensor) {
      if (view_.dtype != p.type.scalar) fail(got + "; its elements are not " + std::string(scalar_name(p.type.scalar)));
      pack.push(view_.address);
      return;
    }
    if (kind_ != Kind::Pointer) fail(got + "; pass a Tensor, a TensorView, a DevicePtr or an rt::DeviceBuffer");
    if (pointee_ && *pointee_ != p.type.scalar) fail(got + "; the kernel reads " + std::string(scalar_name(p.type.scalar)));
    pack.push(address_);
    return;
  }
  if (p.type.scalar == ir::Scalar::TensorMap) {
    if (kind_ == Kind::TensorMap) {
      pack.push(map_);
      return;
    }
    if (kind_ != Kind::Tensor) fail(got + "; pass the Tensor (or TensorView) the map reads, or an encoded CUtensorMap");
    const ir::TensorMapDecl* decl = kernel.find_tensor_map(p.name);
    if (!decl) fail("the kernel declares no tensor map of this name (an internal error)");
    pack.push(encode_tensor_map(view_, *decl));
    return;
  }
  const ir::Scalar s = p.type.scalar;
  __int128 lo = 0, hi = 0;
  if (integer_range(s, lo, hi)) {
    if (kind_ != Kind::Int) fail(got + "; pass an integer");
    const __int128 v = negative_ ? __int128(static_cast<int64_t>(int_)) : __int128(int_);
    if (v < lo || v > hi) fail(got + ", which " + std::string(scalar_name(s)) + " cannot hold");
    switch (s) {
      case ir::Scalar::I32: push_int<int32_t>(pack, v); break;
      case ir::Scalar::U32: push_int<uint32_t>(pack, v); break;
      case ir::Scalar::I64: push_int<int64_t>(pack, v); break;
      case ir::Scalar::U64: push_int<uint64_t>(pack, v); break;
      default: push_int<uint8_t>(pack, v); break;
    }
    return;
  }
  if (s == ir::Scalar::F32) {
    if (kind_ != Kind::Float) fail(got + "; pass a float");
    pack.push(static_cast<float>(float_));
    return;
  }
  if (s == ir::Scalar::Bool) {
    if (kind_ != Kind::Bool) fail(got + "; pass a bool");
    pack.push(static_cast<bool>(int_));
    return;
  }
  fail("the host API cannot pass " + std::string(scalar_name(s)) + " parameters; declare it as f32, an integer or a pointer");
}

rt::ArgPack bind_args(const ir::Kernel& kernel, const std::vector<Arg>& args) {
  const size_t count = argument_count(kernel);
  if (args.size() != count)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "kernel '" + kernel.name + "' takes " + std::to_string(count) +
                                                     " argument(s) (" + signature(kernel) + ") but " +
                                                     std::to_string(args.size()) + " were given");
  rt::ArgPack pack;
  size_t next = 0;
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (kernel.params[i].workspace) pack.push(CUdeviceptr(0));  // bound at launch (api/workspace.h)
    else args[next++].bind(kernel, i, pack);
  }
  return pack;
}

}  // namespace tj

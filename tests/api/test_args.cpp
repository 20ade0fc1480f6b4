// Arguments checked against the kernel's parameters (tj::bind_args), with no GPU: the
// count, each kind and type, integer ranges, names; and the bytes that reach the launch.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/api/api_kernels.h"

namespace {

// The `message` bind_args throws for `args` on the ring kernel (out: u32*, salt: u32).
std::string bind_error(const tj::ir::Kernel& k, const std::vector<tj::Arg>& args) {
  try {
    tj::bind_args(k, args);
  } catch (const tj::RuntimeError& e) {
    CHECK(e.kind() == tj::ErrorKind::Usage);
    return e.what();
  }
  return "no error";
}

template <class T>
T value_of(tj::rt::ArgPack& pack, size_t i) {
  REQUIRE(pack.bytes_of(i) == sizeof(T));
  T v;
  std::memcpy(&v, pack.data()[i], sizeof(T));
  return v;
}

const tj::ir::Kernel& ring() {
  static const tj::ir::Kernel k = tj::api_test::ring(2, 64);
  return k;
}
const tj::ir::Kernel& tma() {
  static const tj::ir::Kernel k = tj::api_test::tma_scale();
  return k;
}

}  // namespace

TEST_CASE("bind_args packs checked arguments in parameter order", "[api][args]") {
  tj::rt::ArgPack pack = tj::bind_args(ring(), {tj::device_ptr<uint32_t>(0x7000), 7});
  REQUIRE(pack.size() == 2);
  CHECK(value_of<CUdeviceptr>(pack, 0) == 0x7000);
  CHECK(value_of<uint32_t>(pack, 1) == 7u);
  // A tensor view whose elements are the pointee's, and an untyped buffer.
  tj::TensorView view{0x9000, tj::DType::U32, {2, 64}};
  tj::rt::ArgPack from_view = tj::bind_args(ring(), {view, 1u});
  CHECK(value_of<CUdeviceptr>(from_view, 0) == 0x9000);
  tj::rt::DeviceBuffer none;  // allocates nothing: ptr() is 0
  CHECK(tj::bind_args(ring(), {none, uint64_t(4000000000)}).size() == 2);
}

TEST_CASE("bind_args: a wrong count lists the parameters", "[api][args]") {
  CHECK(bind_error(ring(), {tj::device_ptr<uint32_t>(0)}) ==
        "kernel 'api_ring' takes 2 argument(s) (out: u32*, salt: u32) but 1 were given");
  CHECK(bind_error(ring(), {tj::device_ptr<uint32_t>(0), 1, 2}) ==
        "kernel 'api_ring' takes 2 argument(s) (out: u32*, salt: u32) but 3 were given");
}

TEST_CASE("bind_args: a wrong type names the parameter and what was passed", "[api][args]") {
  const std::string out = "kernel 'api_ring' parameter 0 'out' (u32*, declared at api_kernels.h:14): ";
  const std::string salt = "kernel 'api_ring' parameter 1 'salt' (u32, declared at api_kernels.h:15): ";
  const tj::Arg ptr = tj::device_ptr<uint32_t>(0);
  CHECK(bind_error(ring(), {ptr, 7.5}) == salt + "got a double (7.5); pass an integer");
  CHECK(bind_error(ring(), {ptr, 2.0f}) == salt + "got a float (2); pass an integer");
  CHECK(bind_error(ring(), {ptr, true}) == salt + "got bool true; pass an integer");
  CHECK(bind_error(ring(), {ptr, ptr}) == salt + "got device pointer to u32; pass an integer");
  CHECK(bind_error(ring(), {5, 1}) == out + "got i32 5; pass a Tensor, a TensorView, a DevicePtr or an rt::DeviceBuffer");
  CHECK(bind_error(ring(), {tj::device_ptr<float>(0), 1}) == out + "got device pointer to f32; the kernel reads u32");
  CHECK(bind_error(ring(), {tj::TensorView{0, tj::DType::F32, {2, 64}}, 1}) ==
        out + "got tensor f32[2, 64]; its elements are not u32");
  CHECK(bind_error(ring(), {CUtensorMap{}, 1}) ==
        out + "got an encoded CUtensorMap; pass a Tensor, a TensorView, a DevicePtr or an rt::DeviceBuffer");
}

TEST_CASE("bind_args: integers convert when the parameter can hold the value", "[api][args]") {
  const tj::Arg ptr = tj::device_ptr<uint32_t>(0);
  const std::string salt = "kernel 'api_ring' parameter 1 'salt' (u32, declared at api_kernels.h:15): ";
  CHECK(bind_error(ring(), {ptr, -1}) == salt + "got i32 -1, which u32 cannot hold");
  CHECK(bind_error(ring(), {ptr, int64_t(1) << 32}) == salt + "got i64 4294967296, which u32 cannot hold");
  tj::rt::ArgPack pack = tj::bind_args(ring(), {ptr, int64_t(UINT32_MAX)});
  CHECK(value_of<uint32_t>(pack, 1) == UINT32_MAX);
  // Scalars of the TMA kernel: cols i32, scale f32 (a double converts, as in C++).
  tj::rt::ArgPack t = tj::bind_args(tma(), {CUtensorMap{}, tj::device_ptr<float>(0), 64u, 0.5});
  CHECK(value_of<int32_t>(t, 2) == 64);
  CHECK(value_of<float>(t, 3) == 0.5f);
  CHECK(bind_error(tma(), {CUtensorMap{}, tj::device_ptr<float>(0), 64, 2}) ==
        "kernel 'api_tma_scale' parameter 3 'scale' (f32, declared at api_kernels.h:37): got i32 2; pass a float");
}

TEST_CASE("bind_args: a named argument must be its parameter's", "[api][args]") {
  const tj::Arg ptr = tj::device_ptr<uint32_t>(0);
  CHECK(tj::bind_args(ring(), {tj::arg("out", ptr), tj::arg("salt", 3)}).size() == 2);
  CHECK(bind_error(ring(), {tj::arg("salt", 3), tj::arg("out", ptr)}) ==
        "kernel 'api_ring' parameter 0 'out' (u32*, declared at api_kernels.h:14): the argument is named 'salt'; "
        "arguments go in the kernel's order: out: u32*, salt: u32");
}

TEST_CASE("bind_args: a tensor-map parameter takes a tensor or an encoded map", "[api][args]") {
  const std::string src = "kernel 'api_tma_scale' parameter 0 'src' (tensor_map, declared at api_kernels.h:34): ";
  tj::rt::ArgPack pack = tj::bind_args(tma(), {CUtensorMap{}, tj::device_ptr<float>(0), 64, 1.0f});
  CHECK(pack.bytes_of(0) == sizeof(CUtensorMap));
  CHECK(bind_error(tma(), {tj::device_ptr<float>(0), tj::device_ptr<float>(0), 64, 1.0f}) ==
        src + "got device pointer to f32; pass the Tensor (or TensorView) the map reads, or an encoded CUtensorMap");
  // A tensor of the wrong element type is refused before any driver call.
  CHECK(bind_error(tma(), {tj::TensorView{0x10000, tj::DType::BF16, {64, 64}}, tj::device_ptr<float>(0), 64, 1.0f}) ==
        "tensor map 'src' (declared at api_kernels.h:34: f32, 2-D, box {32, 8} innermost first) reads f32 elements "
        "but the tensor is bf16[64, 64]");
}

// What a sample's Instance hands over (an rt::ArgPack it packed itself) binds through the
// same checks: the count against the signature, each value's size against its parameter.
TEST_CASE("bind_args: encoded values keep their bytes, their count and sizes checked", "[api][args]") {
  tj::rt::ArgPack packed;
  CUtensorMap map{};
  map.opaque[0] = 0x1234;
  packed.push(map).push(CUdeviceptr(0x8000)).push(int32_t(-7)).push(1.5f);
  tj::rt::ArgPack pack = tj::bind_args(tma(), tj::encoded_args(packed));
  REQUIRE(pack.size() == 4);
  CHECK(value_of<CUtensorMap>(pack, 0).opaque[0] == 0x1234);
  CHECK(reinterpret_cast<uintptr_t>(pack.data()[0]) % alignof(CUtensorMap) == 0);
  CHECK(value_of<CUdeviceptr>(pack, 1) == 0x8000);
  CHECK(value_of<int32_t>(pack, 2) == -7);
  CHECK(value_of<float>(pack, 3) == 1.5f);

  tj::rt::ArgPack short_pack;
  short_pack.push(map).push(CUdeviceptr(0));
  CHECK(bind_error(tma(), tj::encoded_args(short_pack)) ==
        "kernel 'api_tma_scale' takes 4 argument(s) (src: tensor_map, out: f32*, cols: i32, scale: f32) but 2 were given");
  // An int64 where the kernel takes an i32: the size tells.
  tj::rt::ArgPack wide;
  wide.push(CUdeviceptr(0)).push(int64_t(7));
  CHECK(bind_error(ring(), tj::encoded_args(wide)) ==
        "kernel 'api_ring' parameter 1 'salt' (u32, declared at api_kernels.h:15): got an encoded value of 8 bytes; "
        "the parameter is 4 bytes");
  const int32_t four = 4;
  CHECK(bind_error(ring(), {tj::Arg::encoded(&four, sizeof four), 1u}) ==
        "kernel 'api_ring' parameter 0 'out' (u32*, declared at api_kernels.h:14): got an encoded value of 4 bytes; "
        "the parameter is 8 bytes");
}

TEST_CASE("signature lists the parameters", "[api][args]") {
  CHECK(tj::signature(tma()) == "src: tensor_map, out: f32*, cols: i32, scale: f32");
}

// Tensor maps from a tensor and a kernel's declared TMA view, checked with no GPU.
#include <catch2/catch.hpp>

#include "tests/api/api_kernels.h"

namespace {

tj::ir::TensorMapDecl decl(tj::DType dtype, std::vector<unsigned> box, tj::ir::Swizzle swizzle = tj::ir::Swizzle::None) {
  return tj::ir::TensorMapDecl{"A", dtype, unsigned(box.size()), box, swizzle, tj::ir::Loc{"k.cpp", 12, 3}};
}

std::string desc_error(const tj::TensorView& v, const tj::ir::TensorMapDecl& d) {
  try {
    tj::tensor_map_desc(v, d);
  } catch (const tj::RuntimeError& e) {
    CHECK(e.kind() == tj::ErrorKind::Usage);
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("tensor_map_desc: the view's dims innermost first, the declaration's box and swizzle", "[api][tensor]") {
  tj::TensorView v{0x10000, tj::DType::BF16, {256, 512}};  // 256 rows of 512
  tj::rt::TensorMapDesc d = tj::tensor_map_desc(v, decl(tj::DType::BF16, {64, 128}, tj::ir::Swizzle::B128));
  CHECK(d.rank == 2);
  CHECK(d.address == 0x10000);
  CHECK(d.dtype == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  CHECK(d.dims[0] == 512);
  CHECK(d.dims[1] == 256);
  CHECK(d.strides[1] == 1024);  // bytes per row
  CHECK(d.box[0] == 64);
  CHECK(d.box[1] == 128);
  CHECK(d.swizzle == CU_TENSOR_MAP_SWIZZLE_128B);
  // 3-D, f32.
  tj::rt::TensorMapDesc d3 = tj::tensor_map_desc({0x20000, tj::DType::F32, {3, 16, 32}}, decl(tj::DType::F32, {32, 4, 1}));
  CHECK(d3.rank == 3);
  CHECK(d3.dims[2] == 3);
  CHECK(d3.strides[2] == 16 * 32 * 4);
}

TEST_CASE("tensor_map_desc: rows a pitch apart (padded rows, a block of a wider matrix)", "[api][tensor]") {
  // 100 rows of 1001 bf16 whose starts are 1008 elements (2016 bytes) apart: TMA reads the
  // 1001 and never the padding.
  tj::rt::TensorMapDesc d = tj::tensor_map_desc({0x10000, tj::DType::BF16, {100, 1001}, 1008}, decl(tj::DType::BF16, {64, 128}));
  CHECK(d.dims[0] == 1001);
  CHECK(d.dims[1] == 100);
  CHECK(d.strides[1] == 2016);
  // 3-D: the outer dimension steps whole pitched planes.
  tj::rt::TensorMapDesc d3 = tj::tensor_map_desc({0x20000, tj::DType::F32, {3, 16, 30}, 32}, decl(tj::DType::F32, {32, 4, 1}));
  CHECK(d3.strides[1] == 32 * 4);
  CHECK(d3.strides[2] == 16 * 32 * 4);
  CHECK(tj::TensorView{0x10000, tj::DType::BF16, {100, 1001}, 1008}.str() == "bf16[100, 1001] (rows 1008 apart)");
  // A pitch shorter than a row, and one TMA cannot step (2002 bytes), are refused by name.
  const std::string a = "tensor map 'A' (declared at k.cpp:12: bf16, 2-D, box {64, 128} innermost first)";
  CHECK(desc_error({0x10000, tj::DType::BF16, {100, 1001}, 1000}, decl(tj::DType::BF16, {64, 128})) ==
        a + ": the tensor bf16[100, 1001] (rows 1000 apart) has rows 1000 elements apart, fewer than a row's 1001");
  const std::string odd = desc_error({0x10000, tj::DType::BF16, {100, 1001}, 1001}, decl(tj::DType::BF16, {64, 128}));
  CHECK(odd.find("stride of dimension 1 is 2002 bytes") != std::string::npos);
}

TEST_CASE("tensor_map_desc: a tensor the view cannot read is refused naming both", "[api][tensor]") {
  const std::string a = "tensor map 'A' (declared at k.cpp:12: f32, 2-D, box {32, 8} innermost first) ";
  CHECK(desc_error({0x10000, tj::DType::BF16, {8, 32}}, decl(tj::DType::F32, {32, 8})) ==
        a + "reads f32 elements but the tensor is bf16[8, 32]");
  CHECK(desc_error({0x10000, tj::DType::F32, {4, 8, 32}}, decl(tj::DType::F32, {32, 8})) ==
        a + "is 2-D but the tensor f32[4, 8, 32] has 3 dimension(s)");
  // Rows of 10 f32 are 40 bytes: TMA needs row strides that are multiples of 16.
  const std::string e = desc_error({0x10000, tj::DType::F32, {8, 10}}, decl(tj::DType::F32, {32, 8}));
  CHECK(e.rfind(a + "cannot read the tensor f32[8, 10] (TMA counts dimensions innermost first): ", 0) == 0);
  CHECK(e.find("stride of dimension 1 is 40 bytes") != std::string::npos);
  CHECK(e.find("16") != std::string::npos);
  // An unaligned address.
  CHECK(desc_error({0x10004, tj::DType::F32, {8, 32}}, decl(tj::DType::F32, {32, 8})).find("cannot read the tensor") !=
        std::string::npos);
}

TEST_CASE("tensor_map_dtype: what TMA can move", "[api][tensor]") {
  CHECK(tj::tensor_map_dtype(tj::DType::F16) == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  CHECK(tj::tensor_map_dtype(tj::DType::U8) == CU_TENSOR_MAP_DATA_TYPE_UINT8);
  CHECK(tj::tensor_map_dtype(tj::DType::I64) == CU_TENSOR_MAP_DATA_TYPE_INT64);
  try {
    tj::tensor_map_dtype(tj::DType::Bool);
    FAIL("bool must be refused");
  } catch (const tj::RuntimeError& e) {
    CHECK(std::string(e.what()) == "TMA cannot move bool elements; tensor maps hold u8, i32, u32, i64, u64, f32, f16 or bf16");
  }
}

TEST_CASE("TensorView: size and text", "[api][tensor]") {
  tj::TensorView v{0, tj::DType::BF16, {3, 5, 7}};
  CHECK(v.rank() == 3);
  CHECK(v.elements() == 105);
  CHECK(v.bytes() == 210);
  CHECK(v.str() == "bf16[3, 5, 7]");
  CHECK(tj::dtype_of<tj::dsl::bf16>() == tj::DType::BF16);
  CHECK(tj::dtype_of<const float>() == tj::DType::F32);
}

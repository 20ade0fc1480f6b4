#include "samples/tma_common.h"

#include <random>

#include "dsl/builder.h"
#include "samples/tma_multicast.h"

namespace tj::samples {

namespace {
int64_t param_or(const Config& c, const std::string& name, int64_t fallback) {
  auto it = c.params.find(name);
  return it == c.params.end() ? fallback : it->second;
}
ir::Swizzle swizzle_of(int64_t span) {
  switch (span) {
    case 32: return ir::Swizzle::B32;
    case 64: return ir::Swizzle::B64;
    case 128: return ir::Swizzle::B128;
    default: return ir::Swizzle::None;
  }
}
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}  // namespace

uint64_t TmaShape::box_bytes() const {
  uint64_t n = elem_bytes;
  for (unsigned b : box) n *= b;
  return n;
}
uint64_t TmaShape::tensor_bytes() const {
  uint64_t n = elem_bytes;
  for (uint64_t d : dims) n *= d;
  return n;
}
uint64_t TmaShape::tiles() const {
  uint64_t n = 1;
  for (unsigned i = 0; i < rank; ++i) n *= ceil_div(dims[i], box[i]);
  return n;
}

TmaShape tma_shape(const Config& c) {
  TmaShape s;
  s.elem_bytes = static_cast<unsigned>(param_or(c, "elem_bytes", 4));
  s.rank = static_cast<unsigned>(param_or(c, "rank", 2));
  s.dims = {uint64_t(param_or(c, "cols", 1)), uint64_t(param_or(c, "rows", 1))};
  s.box = {unsigned(param_or(c, "box_cols", 1)), unsigned(param_or(c, "box_rows", 1))};
  if (s.rank == 3) {
    s.dims.push_back(uint64_t(param_or(c, "depth", 1)));
    s.box.push_back(unsigned(param_or(c, "box_depth", 1)));
  }
  s.swizzle = swizzle_of(param_or(c, "swizzle", 0));
  return s;
}

std::vector<ConfigProblem> check_tma_shape(const Config& c) {
  std::vector<ConfigProblem> out;
  const int64_t eb = param_or(c, "elem_bytes", 4);
  if (eb != 1 && eb != 2 && eb != 4) out.push_back({"params.elem_bytes", "must be 1 (u8), 2 (bf16) or 4 (f32)"});
  const int64_t sw = param_or(c, "swizzle", 0);
  if (sw != 0 && sw != 32 && sw != 64 && sw != 128) out.push_back({"params.swizzle", "must be 0, 32, 64 or 128"});
  if (!out.empty()) return out;
  TmaShape s = tma_shape(c);
  if (s.dims[0] * eb % 16 != 0)
    out.push_back({"params.cols", "rows of the tensor are " + std::to_string(s.dims[0] * eb) +
                                      " bytes; TMA needs row strides that are multiples of 16"});
  const uint64_t inner = uint64_t(s.box[0]) * eb;
  if (inner % 16 != 0)
    out.push_back({"params.box_cols", "the inner box is " + std::to_string(inner) + " bytes; TMA needs a multiple of 16"});
  if (sw != 0 && inner != uint64_t(sw))
    out.push_back({"params.box_cols", "with a " + std::to_string(sw) + "-byte swizzle this sample needs an inner box of exactly " +
                                          std::to_string(sw) + " bytes (" + std::to_string(sw / eb) + " elements), not " +
                                          std::to_string(inner)});
  if (s.box_bytes() > 200 * 1024)
    out.push_back({"params.box_rows", "the box is " + std::to_string(s.box_bytes()) + " bytes; keep it under 200 KiB of shared memory"});
  if (s.tensor_bytes() > (uint64_t(4) << 30))
    out.push_back({"params.rows", "the tensor is " + std::to_string(s.tensor_bytes()) + " bytes; keep it at most 4 GiB"});
  return out;
}

std::vector<dsl::i32> tile_coords(const TmaShape& s, const dsl::i32& tile) {
  using dsl::i32;
  const int32_t tx = int32_t(ceil_div(s.dims[0], s.box[0])), ty = int32_t(ceil_div(s.dims[1], s.box[1]));
  i32 t = tile % int32_t(s.tiles());
  std::vector<i32> out = {(t % tx) * int32_t(s.box[0]), (t / tx % ty) * int32_t(s.box[1])};
  if (s.rank == 3) out.push_back(t / (tx * ty) * int32_t(s.box[2]));
  return out;
}

std::vector<uint8_t> make_tensor_bytes(const TmaShape& s, uint64_t seed) {
  std::vector<uint8_t> out(s.tensor_bytes());
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < out.size(); i += 8) {
    uint64_t r = rng();
    for (size_t j = 0; j < 8 && i + j < out.size(); ++j) out[i + j] = uint8_t(r >> (8 * j));
  }
  return out;
}

rt::TensorMapDesc tensor_desc(const TmaShape& s, CUdeviceptr address) {
  CUtensorMapDataType t = s.elem_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                          : s.elem_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                              : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMapSwizzle sw = s.swizzle == ir::Swizzle::B128  ? CU_TENSOR_MAP_SWIZZLE_128B
                          : s.swizzle == ir::Swizzle::B64 ? CU_TENSOR_MAP_SWIZZLE_64B
                          : s.swizzle == ir::Swizzle::B32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
  return rt::TensorMapDesc::packed(t, address, s.dims, s.box, sw);
}

std::vector<uint8_t> expected_box_image(const TmaShape& s, const std::vector<uint8_t>& tensor, uint64_t tile) {
  const uint64_t tx = ceil_div(s.dims[0], s.box[0]), ty = ceil_div(s.dims[1], s.box[1]);
  tile %= s.tiles();
  const uint64_t ox = tile % tx * s.box[0], oy = tile / tx % ty * s.box[1], oz = s.rank == 3 ? tile / (tx * ty) * s.box[2] : 0;
  const unsigned bd = s.rank == 3 ? s.box[2] : 1;
  const uint64_t depth = s.rank == 3 ? s.dims[2] : 1;
  std::vector<uint8_t> img(s.box_bytes(), 0);
  const unsigned span = ir::swizzle_span(s.swizzle);
  for (unsigned z = 0; z < bd; ++z)
    for (unsigned y = 0; y < s.box[1]; ++y)
      for (unsigned x = 0; x < s.box[0]; ++x) {
        const uint64_t gx = ox + x, gy = oy + y, gz = oz + z;
        const bool inside = gx < s.dims[0] && gy < s.dims[1] && gz < depth;
        for (unsigned b = 0; b < s.elem_bytes; ++b) {
          const uint64_t dense = ((uint64_t(z) * s.box[1] + y) * s.box[0] + x) * s.elem_bytes + b;
          const uint64_t g = ((gz * s.dims[1] + gy) * s.dims[0] + gx) * s.elem_bytes + b;
          img[swizzled_offset(dense, span)] = inside ? tensor[g] : 0;
        }
      }
  return img;
}

}  // namespace tj::samples

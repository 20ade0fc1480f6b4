// Encoding TMA tensor maps (cuTensorMapEncodeTiled), after checking the rules
// ourselves so that a bad shape gets a sentence, not CUDA_ERROR_INVALID_VALUE.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tj::rt {

struct TensorMapDesc {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_UINT8;
  unsigned rank = 2;                   // 1..5
  CUdeviceptr address = 0;             // 16-byte aligned
  uint64_t dims[5] = {1, 1, 1, 1, 1};  // elements, innermost first
  uint64_t strides[5] = {0};           // bytes between consecutive indices of dims 1..rank-1 (strides[0] unused)
  unsigned box[5] = {1, 1, 1, 1, 1};   // elements per copy, innermost first
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;

  // A packed row-major tensor: strides from the dims.
  static TensorMapDesc packed(CUtensorMapDataType dtype, CUdeviceptr address, std::vector<uint64_t> dims,
                              std::vector<unsigned> box, CUtensorMapSwizzle swizzle);
};

unsigned element_bytes(CUtensorMapDataType dtype);
unsigned swizzle_bytes(CUtensorMapSwizzle s);  // 0 for none

// Every rule of cuTensorMapEncodeTiled the description breaks, as sentences
// naming `name` (empty when it can be encoded). Needs no GPU.
std::vector<std::string> tensor_map_problems(const TensorMapDesc& d, std::string_view name);

// Checks, then encodes through the driver. Throws RuntimeError(Usage) with the
// problems, or the driver's error naming the call.
CUtensorMap encode_tensor_map(const TensorMapDesc& d, std::string_view name);

}  // namespace tj::rt

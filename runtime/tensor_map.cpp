#include "runtime/tensor_map.h"

#include "runtime/driver.h"
#include "runtime/error.h"

namespace tj::rt {

unsigned element_bytes(CUtensorMapDataType dtype) {
  switch (dtype) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;
  }
}

unsigned swizzle_bytes(CUtensorMapSwizzle s) {
  switch (s) {
    case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B: return 128;
    default: return 0;
  }
}

TensorMapDesc TensorMapDesc::packed(CUtensorMapDataType dtype, CUdeviceptr address, std::vector<uint64_t> dims,
                                    std::vector<unsigned> box, CUtensorMapSwizzle swizzle) {
  TensorMapDesc d;
  d.dtype = dtype;
  d.rank = static_cast<unsigned>(dims.size());
  d.address = address;
  d.swizzle = swizzle;
  uint64_t stride = element_bytes(dtype);
  for (unsigned i = 0; i < d.rank && i < 5; ++i) {
    d.dims[i] = dims[i];
    if (i > 0) d.strides[i] = stride;
    stride *= dims[i];
    d.box[i] = i < box.size() ? box[i] : 1;
  }
  return d;
}

std::vector<std::string> tensor_map_problems(const TensorMapDesc& d, std::string_view name) {
  std::vector<std::string> out;
  const std::string what = "tensor map '" + std::string(name) + "'";
  const unsigned eb = element_bytes(d.dtype);
  if (eb == 0) out.push_back(what + ": unsupported element type " + std::to_string(int(d.dtype)));
  if (d.rank < 1 || d.rank > 5) {
    out.push_back(what + ": rank " + std::to_string(d.rank) + "; TMA takes 1 to 5 dimensions");
    return out;
  }
  if (d.address % 16 != 0)
    out.push_back(what + ": global address is not 16-byte aligned (it is " + std::to_string(d.address % 16) +
                  " bytes past a boundary)");
  for (unsigned i = 0; i < d.rank; ++i) {
    const std::string dim = "dimension " + std::to_string(i);
    if (d.dims[i] == 0 || d.dims[i] > (uint64_t(1) << 32))
      out.push_back(what + ": " + dim + " has " + std::to_string(d.dims[i]) + " elements; it must be 1 to 2^32");
    if (d.box[i] == 0 || d.box[i] > 256)
      out.push_back(what + ": box " + dim + " is " + std::to_string(d.box[i]) + " elements; boxes have 1 to 256 per dimension");
    if (i > 0) {
      if (d.strides[i] % 16 != 0)
        out.push_back(what + ": stride of " + dim + " is " + std::to_string(d.strides[i]) +
                      " bytes; strides must be multiples of 16 (pad the rows)");
      if (d.strides[i] >= (uint64_t(1) << 40))
        out.push_back(what + ": stride of " + dim + " is " + std::to_string(d.strides[i]) + " bytes, over 2^40");
    }
  }
  const uint64_t inner = uint64_t(d.box[0]) * eb;
  if (eb && inner % 16 != 0)
    out.push_back(what + ": inner box is " + std::to_string(inner) + " bytes; it must be a multiple of 16");
  if (unsigned span = swizzle_bytes(d.swizzle); span && inner > span)
    out.push_back(what + ": inner box is " + std::to_string(inner) + " bytes, wider than the " + std::to_string(span) +
                  "-byte swizzle span");
  return out;
}

CUtensorMap encode_tensor_map(const TensorMapDesc& d, std::string_view name) {
  std::vector<std::string> problems = tensor_map_problems(d, name);
  if (!problems.empty()) {
    std::string msg;
    for (const std::string& p : problems) msg += (msg.empty() ? "" : "\n") + p;
    throw RuntimeError(ErrorKind::Usage, msg);
  }
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elem_strides[5];
  for (unsigned i = 0; i < d.rank; ++i) {
    dims[i] = d.dims[i];
    box[i] = d.box[i];
    elem_strides[i] = 1;
    if (i > 0) strides[i - 1] = d.strides[i];
  }
  CUtensorMap map;
  check(driver().cuTensorMapEncodeTiled(&map, d.dtype, d.rank, reinterpret_cast<void*>(d.address), dims, strides, box,
                                        elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, d.swizzle, d.l2_promotion,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
        "cuTensorMapEncodeTiled", name);
  return map;
}

}  // namespace tj::rt

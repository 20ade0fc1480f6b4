// An ir::Kernel with the GEMM's parameters and tensor maps and no body: everything
// make_gemm_instance() reads from a kernel, for tests of the host side without the
// GEMM sample's kernel.
#pragma once

#include "dsl/ir/kernel.h"
#include "samples/gemm.h"

namespace tj::samples::test {

inline ir::Kernel gemm_interface_kernel(ir::Scalar in, ir::Scalar out, GemmLayout layout) {
  ir::Kernel k;
  k.name = "gemm";
  for (const char* map : {"A", "B", "D", "C"}) k.params.push_back({map, ir::Type::of(ir::Scalar::TensorMap), {}});
  for (const char* dim : {"m", "n", "k"}) k.params.push_back({dim, ir::Type::of(ir::Scalar::I32), {}});
  for (const char* scale : {"alpha", "beta"}) k.params.push_back({scale, ir::Type::of(ir::Scalar::F32), {}});
  // Split-K's workspaces, bound by the runtime: sized for nothing, as without split-K.
  const ir::Expr none = ir::IntImm::make(ir::Scalar::I64, 0);
  k.params.push_back({"workspace", ir::Type::pointer(ir::Scalar::F32, ir::Space::Global), {}, ir::Workspace{none, false}});
  k.params.push_back({"counters", ir::Type::pointer(ir::Scalar::U32, ir::Space::Global), {}, ir::Workspace{none, true}});
  // Boxes of a 128 x 128 x 64 tile, innermost first; 64 bf16/f16 fill a 128-byte swizzle row.
  k.tensor_maps.push_back({"A", in, 2, {64, 128}, ir::Swizzle::B128, {}});
  k.tensor_maps.push_back({"B", in, 2, layout == GemmLayout::TN ? std::vector<unsigned>{64, 128} : std::vector<unsigned>{64, 64},
                           ir::Swizzle::B128, {}});
  k.tensor_maps.push_back({"D", out, 2, {32, 64}, ir::Swizzle::None, {}});
  k.tensor_maps.push_back({"C", out, 2, {32, 64}, ir::Swizzle::None, {}});
  return k;
}

}  // namespace tj::samples::test

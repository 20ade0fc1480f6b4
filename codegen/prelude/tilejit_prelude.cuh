// tilejit device prelude: one small inline-PTX wrapper per hardware primitive.
// Generated kernels include this as "tilejit/prelude.cuh"; it is embedded in
// the tilejit binary and handed to NVRTC in memory. It includes no toolkit
// header, so a kernel compiles in tens of milliseconds.
#pragma once

namespace tj {

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

#define TJ_DEVICE __device__ __forceinline__

// Four u32 lanes moved as one 16-byte access.
struct __align__(16) u32x4 {
  u32 x, y, z, w;
};

// An mbarrier object in shared memory, and a TMA tensor map passed by value
// as a __grid_constant__ kernel parameter (CUtensorMap's size and alignment).
typedef unsigned long long mbarrier;
struct __align__(64) tensor_map {
  unsigned long long opaque[16];
};
typedef unsigned char u8;

#include "types.cuh"

#include "math.cuh"

#include "warp.cuh"

#include "special_regs.cuh"

#include "cta_barrier.cuh"

#include "phase_bits.cuh"

#include "dsmem.cuh"

#include "cluster_barrier.cuh"

#include "mbarrier.cuh"

#include "tma.cuh"

#include "bulk_copy.cuh"

#include "launch_control.cuh"

#include "warpgroup.cuh"

#include "sm90_wgmma.cuh"

#include "atomics.cuh"

#include "sm90_accumulator.cuh"

#include "sm100_tcgen05.cuh"

}  // namespace tj

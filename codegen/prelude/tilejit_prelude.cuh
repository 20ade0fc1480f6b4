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

// ---- bf16 -------------------------------------------------------------------
struct bf16 {
  unsigned short bits;
};
TJ_DEVICE float to_f32(bf16 v) {
  float f;
  asm("mov.b32 %0, %1;" : "=f"(f) : "r"((u32)v.bits << 16));
  return f;
}
TJ_DEVICE bf16 to_bf16(float f) {
  bf16 v;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(v.bits) : "f"(f));
  return v;
}

template <class T>
TJ_DEVICE T min_(T a, T b) { return b < a ? b : a; }
template <class T>
TJ_DEVICE T max_(T a, T b) { return a < b ? b : a; }

// ---- special registers --------------------------------------------------------
// Not volatile: each is constant for the thread's lifetime, so the compiler may
// read it once.
#define TJ_SREG_U32(fn, reg)                   \
  TJ_DEVICE i32 fn() {                         \
    u32 v;                                     \
    asm("mov.u32 %0, " reg ";" : "=r"(v));     \
    return (i32)v;                             \
  }
TJ_SREG_U32(lane_id, "%laneid")
TJ_SREG_U32(cluster_ctarank, "%cluster_ctarank")
TJ_SREG_U32(cluster_nctarank, "%cluster_nctarank")
TJ_SREG_U32(cluster_id_x, "%clusterid.x")
TJ_SREG_U32(cluster_id_y, "%clusterid.y")
TJ_SREG_U32(cluster_id_z, "%clusterid.z")
TJ_SREG_U32(num_clusters_x, "%nclusterid.x")
TJ_SREG_U32(num_clusters_y, "%nclusterid.y")
TJ_SREG_U32(num_clusters_z, "%nclusterid.z")
TJ_SREG_U32(cluster_ctaid_x, "%cluster_ctaid.x")
TJ_SREG_U32(cluster_ctaid_y, "%cluster_ctaid.y")
TJ_SREG_U32(cluster_ctaid_z, "%cluster_ctaid.z")
TJ_SREG_U32(cluster_dim_x, "%cluster_nctaid.x")
TJ_SREG_U32(cluster_dim_y, "%cluster_nctaid.y")
TJ_SREG_U32(cluster_dim_z, "%cluster_nctaid.z")
#undef TJ_SREG_U32

// ---- CTA barrier ----------------------------------------------------------------
TJ_DEVICE void sync_threads() { asm volatile("bar.sync 0;" ::: "memory"); }

// ---- distributed shared memory -------------------------------------------------
// A generic pointer into this CTA's shared memory, as a 32-bit shared-window address.
TJ_DEVICE u32 smem_addr(const void* p) {
  u32 a;
  asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(a) : "l"(p));
  return a;
}

// An element pointer into a peer CTA's shared memory (cluster window address).
template <class T>
struct cluster_ptr {
  u32 addr;
};

// mapa: the address of the same shared location inside CTA `rank` of the cluster.
// A pure function of its inputs (not volatile), so loops can hoist it.
template <class T>
TJ_DEVICE cluster_ptr<T> map_shared_rank(T* local, i32 rank) {
  cluster_ptr<T> p;
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(p.addr) : "r"(smem_addr(local)), "r"(rank));
  return p;
}

// Loads, stores and reductions through the cluster window, one overload per
// element type. Table: C++ type, PTX type, asm constraint.
#define TJ_CLUSTER_ACCESS(T, PT, C)                                                              \
  TJ_DEVICE T ld_cluster(cluster_ptr<T> p, i64 i) {                                              \
    T v;                                                                                         \
    asm volatile("ld.shared::cluster." PT " %0, [%1];" : "=" C(v) : "r"(p.addr + (u32)(i * sizeof(T))) : "memory"); \
    return v;                                                                                    \
  }                                                                                              \
  TJ_DEVICE void st_cluster(cluster_ptr<T> p, i64 i, T v) {                                      \
    asm volatile("st.shared::cluster." PT " [%0], %1;" ::"r"(p.addr + (u32)(i * sizeof(T))), C(v) : "memory"); \
  }
TJ_CLUSTER_ACCESS(i32, "s32", "r")
TJ_CLUSTER_ACCESS(u32, "u32", "r")
TJ_CLUSTER_ACCESS(i64, "s64", "l")
TJ_CLUSTER_ACCESS(u64, "u64", "l")
TJ_CLUSTER_ACCESS(float, "f32", "f")
#undef TJ_CLUSTER_ACCESS

TJ_DEVICE bf16 ld_cluster(cluster_ptr<bf16> p, i64 i) {
  bf16 v;
  asm volatile("ld.shared::cluster.b16 %0, [%1];" : "=h"(v.bits) : "r"(p.addr + (u32)(i * 2)) : "memory");
  return v;
}
TJ_DEVICE void st_cluster(cluster_ptr<bf16> p, i64 i, bf16 v) {
  asm volatile("st.shared::cluster.b16 [%0], %1;" ::"r"(p.addr + (u32)(i * 2)), "h"(v.bits) : "memory");
}

TJ_DEVICE u32x4 ld_cluster(cluster_ptr<u32x4> p, i64 i) {
  u32x4 v;
  asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(p.addr + (u32)(i * 16))
               : "memory");
  return v;
}
TJ_DEVICE void st_cluster(cluster_ptr<u32x4> p, i64 i, u32x4 v) {
  asm volatile("st.shared::cluster.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(p.addr + (u32)(i * 16)), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w)
               : "memory");
}

#define TJ_CLUSTER_RED(T, PT, C)                                                                 \
  TJ_DEVICE void red_add_cluster(cluster_ptr<T> p, i64 i, T v) {                                 \
    asm volatile("red.shared::cluster.add." PT " [%0], %1;" ::"r"(p.addr + (u32)(i * sizeof(T))), C(v) : "memory"); \
  }
TJ_CLUSTER_RED(i32, "s32", "r")
TJ_CLUSTER_RED(u32, "u32", "r")
TJ_CLUSTER_RED(u64, "u64", "l")
TJ_CLUSTER_RED(float, "f32", "f")
#undef TJ_CLUSTER_RED

// Reductions on global and local shared memory go through the generic address.
#define TJ_GENERIC_RED(T, PT, C) \
  TJ_DEVICE void red_add(T* p, T v) { asm volatile("red.add." PT " [%0], %1;" ::"l"(p), C(v) : "memory"); }
TJ_GENERIC_RED(i32, "s32", "r")
TJ_GENERIC_RED(u32, "u32", "r")
TJ_GENERIC_RED(u64, "u64", "l")
TJ_GENERIC_RED(float, "f32", "f")
#undef TJ_GENERIC_RED

// ---- cluster barrier -------------------------------------------------------------
// Not .aligned: the DSL cannot promise that every thread of a warp reaches the
// same barrier instruction.
TJ_DEVICE void cluster_arrive_release() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
TJ_DEVICE void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed;" ::: "memory"); }
TJ_DEVICE void cluster_wait_acquire() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }
TJ_DEVICE void cluster_sync() {
  cluster_arrive_release();
  cluster_wait_acquire();
}

}  // namespace tj

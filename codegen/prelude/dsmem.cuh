// ---- distributed shared memory -------------------------------------------------
// A generic pointer into this CTA's shared memory, as a 32-bit shared-window address.
// The builtin, not an asm cvta: NVVM folds it for shared variables and buffers.
TJ_DEVICE u32 smem_addr(const void* p) { return (u32)__cvta_generic_to_shared(p); }

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

// Packed types through the cluster window, as the unsigned type of their size.
#define TJ_CLUSTER_ACCESS_AS(T, U)                                                      \
  TJ_DEVICE T ld_cluster(cluster_ptr<T> p, i64 i) {                                     \
    return bitcast<T>(ld_cluster(cluster_ptr<U>{p.addr}, i));                           \
  }                                                                                     \
  TJ_DEVICE void st_cluster(cluster_ptr<T> p, i64 i, T v) { st_cluster(cluster_ptr<U>{p.addr}, i, bitcast<U>(v)); }
TJ_CLUSTER_ACCESS_AS(bf16x2, u32)
TJ_CLUSTER_ACCESS_AS(f16x2, u32)
TJ_CLUSTER_ACCESS_AS(f32x2, u64)
TJ_CLUSTER_ACCESS_AS(f32x4, u32x4)
#undef TJ_CLUSTER_ACCESS_AS

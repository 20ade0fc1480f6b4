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

// ---- f16 --------------------------------------------------------------------
struct f16 {
  unsigned short bits;
};
TJ_DEVICE float to_f32(f16 v) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v.bits));
  return f;
}
TJ_DEVICE f16 to_f16(float f) {
  f16 v;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(v.bits) : "f"(f));
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

// This thread's warpgroup (threadIdx.x / 128 in a one-dimensional block), read from
// lane 0 so that the compiler treats it as the same in the whole warp. Every lane of
// the warp must be active (a role's entry).
TJ_DEVICE int warpgroup_index() {
  int wg;
  asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "=r"(wg) : "r"((int)threadIdx.x / 128));
  return wg;
}

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

// ---- mbarriers --------------------------------------------------------------------
TJ_DEVICE void mbar_init(mbarrier* bar, u32 arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}
// Makes the inits visible to the cluster (and to the async proxy) before use.
TJ_DEVICE void fence_mbarrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Orders this thread's shared-memory writes before later async-proxy (TMA) reads.
TJ_DEVICE void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

TJ_DEVICE void mbar_arrive(mbarrier* bar) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(smem_addr(bar)) : "memory");
}
TJ_DEVICE void mbar_arrive_expect_tx(mbarrier* bar, u32 tx) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(smem_addr(bar)), "r"(tx)
               : "memory");
}
// A peer's barrier (from map_shared_rank). The destination must be the sink `_`.
TJ_DEVICE void mbar_arrive(cluster_ptr<mbarrier> bar, i64 i) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar.addr + (u32)(i * 8)) : "memory");
}
// Arrivals that order nothing: a consumer giving back a slot it has finished reading.
TJ_DEVICE void mbar_arrive_relaxed(mbarrier* bar) {
  asm volatile("{ .reg .b64 st; mbarrier.arrive.relaxed.cta.shared::cta.b64 st, [%0]; }" ::"r"(smem_addr(bar)) : "memory");
}
TJ_DEVICE void mbar_arrive_relaxed(cluster_ptr<mbarrier> bar, i64 i) {
  asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(bar.addr + (u32)(i * 8)) : "memory");
}
TJ_DEVICE void mbar_arrive_expect_tx(cluster_ptr<mbarrier> bar, i64 i, u32 tx) {
  asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(bar.addr + (u32)(i * 8)),
               "r"(tx)
               : "memory");
}

// One bounded try of the phase with `parity`; acquire at cluster scope so a
// peer's released writes (remote arrivals, multicast data) are visible.
TJ_DEVICE bool mbar_try_wait(mbarrier* bar, u32 parity) {
  u32 done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
TJ_DEVICE void mbar_wait(mbarrier* bar, u32 parity) {
  while (!mbar_try_wait(bar, parity)) {
  }
}
// The same with a CTA-scope acquire (wait_local): TMA bytes, multicast ones too,
// are visible once the phase completes; peers' DSMEM stores would not be.
TJ_DEVICE bool mbar_try_wait_cta(mbarrier* bar, u32 parity) {
  u32 done;
  asm volatile(
      "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
      : "=r"(done)
      : "r"(smem_addr(bar)), "r"(parity)
      : "memory");
  return done != 0;
}
TJ_DEVICE void mbar_wait_cta(mbarrier* bar, u32 parity) {
  while (!mbar_try_wait_cta(bar, parity)) {
  }
}
TJ_DEVICE u64 global_timer_ns() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// TILEJIT_DEBUG_HANGS: a wait that gives up after `limit_ns`, names the barrier
// and traps instead of hanging the GPU.
TJ_DEVICE void mbar_wait_guarded(mbarrier* bar, u32 parity, const char* name, i32 index, u64 limit_ns) {
  u64 start = global_timer_ns();
  while (!mbar_try_wait(bar, parity)) {
    if (global_timer_ns() - start > limit_ns) {
      printf("tilejit: hang guard: barrier %s[%d] never completed phase parity %u in CTA (%d,%d,%d), cluster rank %d, thread %d\n",
             name, index, parity, (int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z, cluster_ctarank(), (int)threadIdx.x);
      asm volatile("trap;");
    }
  }
}

// ---- TMA (cp.async.bulk.tensor) -----------------------------------------------------
// One wrapper per rank and direction; the coordinate lists come from this table.
#define TJ_C1 "{%2}"
#define TJ_C2 "{%2, %3}"
#define TJ_C3 "{%2, %3, %4}"
#define TJ_C4 "{%2, %3, %4, %5}"
#define TJ_C5 "{%2, %3, %4, %5, %6}"
#define TJ_P1 i32 c0
#define TJ_P2 i32 c0, i32 c1
#define TJ_P3 i32 c0, i32 c1, i32 c2
#define TJ_P4 i32 c0, i32 c1, i32 c2, i32 c3
#define TJ_P5 i32 c0, i32 c1, i32 c2, i32 c3, i32 c4
#define TJ_A1 "r"(c0)
#define TJ_A2 "r"(c0), "r"(c1)
#define TJ_A3 "r"(c0), "r"(c1), "r"(c2)
#define TJ_A4 "r"(c0), "r"(c1), "r"(c2), "r"(c3)
#define TJ_A5 "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
#define TJ_BAR1 "%3"
#define TJ_BAR2 "%4"
#define TJ_BAR3 "%5"
#define TJ_BAR4 "%6"
#define TJ_BAR5 "%7"
#define TJ_MASK1 "%4"
#define TJ_MASK2 "%5"
#define TJ_MASK3 "%6"
#define TJ_MASK4 "%7"
#define TJ_MASK5 "%8"
#define TJ_TMA(N)                                                                                             \
  TJ_DEVICE void tma_load_##N##d(void* dst, const tensor_map* map, TJ_P##N, mbarrier* bar) {                   \
    asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, " \
                 TJ_C##N "], [" TJ_BAR##N "];" ::"r"(smem_addr(dst)), "l"(map), TJ_A##N, "r"(smem_addr(bar))    \
                 : "memory");                                                                                 \
  }                                                                                                           \
  TJ_DEVICE void tma_load_##N##d_multicast(void* dst, const tensor_map* map, TJ_P##N, mbarrier* bar, u32 mask) { \
    asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"      \
                 ".multicast::cluster [%0], [%1, " TJ_C##N "], [" TJ_BAR##N "], " TJ_MASK##N ";"             \
                 ::"r"(smem_addr(dst)), "l"(map), TJ_A##N, "r"(smem_addr(bar)), "h"((unsigned short)mask)    \
                 : "memory");                                                                                 \
  }                                                                                                           \
  TJ_DEVICE void tma_store_##N##d(const tensor_map* map, TJ_P##N, const void* src) {                          \
    asm volatile("cp.async.bulk.tensor." #N "d.global.shared::cta.tile.bulk_group [%0, " TJ_C##N "], [%1];"  \
                 ::"l"(map), "r"(smem_addr(src)), TJ_A##N                                                     \
                 : "memory");                                                                                 \
  }
TJ_TMA(1)
TJ_TMA(2)
TJ_TMA(3)
TJ_TMA(4)
TJ_TMA(5)
#undef TJ_TMA

TJ_DEVICE void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
TJ_DEVICE void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
template <int N>
TJ_DEVICE void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// ---- DSMEM bulk copy and st.async --------------------------------------------------
TJ_DEVICE void bulk_copy_to_peer(u32 dst_cluster_addr, const void* src, u32 bytes, cluster_ptr<mbarrier> bar, i64 bi) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst_cluster_addr), "r"(smem_addr(src)), "r"(bytes), "r"(bar.addr + (u32)(bi * 8))
               : "memory");
}
template <class T>
TJ_DEVICE u32 cluster_addr(cluster_ptr<T> p, i64 i) { return p.addr + (u32)(i * sizeof(T)); }

#define TJ_ST_ASYNC(T, PT, C)                                                                               \
  TJ_DEVICE void st_async(cluster_ptr<T> p, i64 i, T v, cluster_ptr<mbarrier> bar, i64 bi) {                 \
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes." PT " [%0], %1, [%2];"             \
                 ::"r"(p.addr + (u32)(i * sizeof(T))), C(v), "r"(bar.addr + (u32)(bi * 8))                  \
                 : "memory");                                                                               \
  }
TJ_ST_ASYNC(u32, "b32", "r")
TJ_ST_ASYNC(float, "f32", "f")
#undef TJ_ST_ASYNC

// ---- warpgroups ----------------------------------------------------------------------
// The warps of a role or a warpgroup meet (id 1..15; 0 is sync_threads).
TJ_DEVICE void named_barrier_sync(u32 id, u32 threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
// Per-thread register count of the calling warpgroup (all its threads execute it).
template <u32 N>
TJ_DEVICE void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N)); }
template <u32 N>
TJ_DEVICE void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N)); }

// ---- wgmma (sm_90a) ------------------------------------------------------------------
// The m64nNk16 instructions themselves are generated per shape into the kernel's
// source (codegen/prelude/wgmma_wrappers.cpp): only the shapes a kernel uses.
TJ_DEVICE void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
TJ_DEVICE void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
TJ_DEVICE void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
// A shared-memory matrix descriptor: start address, leading and stride byte
// offsets, swizzle (1: 128B, 2: 64B, 3: 32B).
// A wgmma's A operand from registers: this thread's part of rows [16 w, 16 w + 16)
// (w: its warp in the warpgroup) by K columns [k0, k0 + 16) of a K-major tile of
// 16-bit elements, in the fragment order of the register form (the m16n8k16 A
// order): one ldmatrix.x4. `rows` points at the m64 block's first row; the tile
// is stored in panels of PANEL_COLS elements (rows of 2 * PANEL_COLS bytes,
// PANEL_BYTES apart) swizzled over SPAN bytes (128, 64 or 32), from an address
// aligned to the swizzle's repeat, as TMA writes it.
template <int PANEL_COLS, int PANEL_BYTES, int SPAN>
TJ_DEVICE void ldmatrix_a_k16(u32 (&r)[4], const void* rows, int k0) {
  const int lane = (int)threadIdx.x % 32, warp = ((int)threadIdx.x % 128) / 32;
  const int row = warp * 16 + lane % 16, col = k0 + 8 * (lane / 16);
  u32 off = (u32)(col / PANEL_COLS) * PANEL_BYTES + (u32)row * (PANEL_COLS * 2) + (u32)(col % PANEL_COLS) * 2;
  off ^= ((off >> 7) & (u32)(SPAN / 16 - 1)) << 4;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(static_cast<const char*>(rows) + off)));
}
TJ_DEVICE u64 wgmma_desc(const void* smem, u32 lbo_bytes, u32 sbo_bytes, u32 swizzle) {
  return (u64)((smem_addr(smem) & 0x3FFFF) >> 4) | ((u64)((lbo_bytes >> 4) & 0x3FFF) << 16) |
         ((u64)((sbo_bytes >> 4) & 0x3FFF) << 32) | ((u64)swizzle << 62);
}

// ---- atomics that return the old value (split-K's tile counters) --------------------
// atom.<sem>.<scope>.global.add.u32: one read-modify-write; .acq_rel is both a
// release (this thread's earlier accesses, and those ordered before them, e.g.
// by a bar.sync, happen before) and an acquire (later accesses happen after).
#define TJ_ATOM_ADD(name, insn)                                                          \
  TJ_DEVICE u32 name(u32* p, u32 v) {                                                    \
    u32 old;                                                                             \
    asm volatile(insn " %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");        \
    return old;                                                                          \
  }
TJ_ATOM_ADD(atom_add_relaxed_cta, "atom.relaxed.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_relaxed_cluster, "atom.relaxed.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_relaxed_gpu, "atom.relaxed.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_cta, "atom.acquire.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_cluster, "atom.acquire.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_gpu, "atom.acquire.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_release_cta, "atom.release.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_release_cluster, "atom.release.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_release_gpu, "atom.release.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_cta, "atom.acq_rel.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_cluster, "atom.acq_rel.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_gpu, "atom.acq_rel.gpu.global.add.u32")
#undef TJ_ATOM_ADD

// ---- split-K: an accumulator <-> a global workspace slot ---------------------------
// Fragment order: register group j (acc[4j..4j+3]) of thread t of the warpgroup
// at float4 j * 128 + t of the slot. Each st/ld.global.v4 of a warp covers 512
// contiguous bytes. volatile + "memory": they stay on their side of the counter's
// atomic and of the barriers around it.
template <int REGS>
TJ_DEVICE void acc_partial_store(const float* acc, float* slot) {
  float* p = slot + 4 * ((int)threadIdx.x % 128);
#pragma unroll
  for (int j = 0; j < REGS / 4; ++j)
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p + 512 * j), "f"(acc[4 * j]), "f"(acc[4 * j + 1]),
                 "f"(acc[4 * j + 2]), "f"(acc[4 * j + 3])
                 : "memory");
}
template <int REGS>
TJ_DEVICE void acc_partial_add(float* acc, const float* slot) {
  const float* p = slot + 4 * ((int)threadIdx.x % 128);
#pragma unroll
  for (int j = 0; j < REGS / 4; ++j) {
    float a, b, c, d;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p + 512 * j) : "memory");
    acc[4 * j] += a, acc[4 * j + 1] += b, acc[4 * j + 2] += c, acc[4 * j + 3] += d;
  }
}

// ---- epilogue: accumulator -> shared tile ------------------------------------------
TJ_DEVICE void store_pair(float* p, float a, float b) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};" ::"r"(smem_addr(p)), "f"(a), "f"(b) : "memory");
}
TJ_DEVICE void store_pair(bf16* p, float a, float b) {
  u32 v;
  asm("cvt.rn.bf16x2.f32 %0, %2, %1;" : "=r"(v) : "f"(a), "f"(b));
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(smem_addr(p)), "r"(v) : "memory");
}
TJ_DEVICE void store_pair(f16* p, float a, float b) {
  u32 v;
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(v) : "f"(a), "f"(b));
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(smem_addr(p)), "r"(v) : "memory");
}
// One shared-memory load per pair, volatile like the stores: the epilogue then
// reads, scales and writes pair by pair instead of the compiler hoisting every
// load of a chunk (which needs a register per value and spilled wide tiles).
TJ_DEVICE void load_pair(const float* p, float& a, float& b) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "r"(smem_addr(p)) : "memory");
}
TJ_DEVICE void load_pair(const bf16* p, float& a, float& b) {
  u32 v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(smem_addr(p)) : "memory");
  a = to_f32(bf16{(unsigned short)(v & 0xffffu)}), b = to_f32(bf16{(unsigned short)(v >> 16)});
}
TJ_DEVICE void load_pair(const f16* p, float& a, float& b) {
  u32 v;
  asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(smem_addr(p)) : "memory");
  a = to_f32(f16{(unsigned short)(v & 0xffffu)}), b = to_f32(f16{(unsigned short)(v >> 16)});
}

// Two floats as one register of 16-bit values (a in the low half).
TJ_DEVICE u32 pack2(bf16*, float a, float b) {
  u32 v;
  asm("cvt.rn.bf16x2.f32 %0, %2, %1;" : "=r"(v) : "f"(a), "f"(b));
  return v;
}
TJ_DEVICE u32 pack2(f16*, float a, float b) {
  u32 v;
  asm("cvt.rn.f16x2.f32 %0, %2, %1;" : "=r"(v) : "f"(a), "f"(b));
  return v;
}
// Four 8x8 matrices of 16-bit values into shared memory: lane l gives the address of
// row l % 8 of matrix l / 8; register k holds this lane's pair of matrix k (row
// lane / 4, columns 2 (lane % 4) and + 1: the accumulator's own layout).
TJ_DEVICE void stmatrix_x4(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2),
               "r"(r3)
               : "memory");
}

// One warpgroup's m64 x N block of a wgmma accumulator (N / 2 floats per
// thread: thread t holds rows 16 (t/32) + (t%32)/4 and + 8, columns 8j + 2(t%4)
// and + 1) written to a shared tile stored in 128-byte-swizzled panels of
// PANEL_COLS elements, PANEL_BYTES apart. dst and c point at the block's first
// row (1024-byte aligned). dst = alpha * acc + beta * c (c may be null).
template <int N, class T, int PANEL_COLS, int PANEL_BYTES>
TJ_DEVICE void acc_store_m64(const float* acc, T* dst, float alpha, float beta, const T* c) {
  const int t = (int)threadIdx.x % 128, lane = t % 32;
  const int r0 = (t / 32) * 16 + lane / 4;
  const bool with_c = c != nullptr && beta != 0.0f;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r0 + 8 * h, col = 8 * j + 2 * (lane % 4);
      u32 off = (u32)(col / PANEL_COLS) * PANEL_BYTES + (u32)row * (PANEL_COLS * sizeof(T)) + (u32)(col % PANEL_COLS) * sizeof(T);
      off ^= ((off >> 7) & 7u) << 4;  // the 128-byte swizzle TMA reads with
      float a = alpha * acc[4 * j + 2 * h], b = alpha * acc[4 * j + 2 * h + 1];
      if (with_c) {
        float ca, cb;
        load_pair(reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(c) + off), ca, cb);
        a += beta * ca, b += beta * cb;
      }
      store_pair(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(dst) + off), a, b);
    }
  }
}


// The same for 16-bit tiles without C (N a multiple of 16): stmatrix, four 8x8
// matrices (column blocks j and j + 1, rows + 0 and + 8) per instruction instead
// of a 32-bit store per pair. Codegen picks it when the element type and a C-less
// (or beta-literal-0) store allow; a separate function so that the NVRTC front end
// and optimizer see only the path that runs.
template <int N, class T, int PANEL_COLS, int PANEL_BYTES>
TJ_DEVICE void acc_store_m64_x4(const float* acc, T* dst, float alpha) {
  static_assert(sizeof(T) == 2 && N % 16 == 0, "stmatrix stores 16-bit values, 16 columns at a time");
  const int t = (int)threadIdx.x % 128, lane = t % 32;
  const int m = lane / 8, row = (t / 32) * 16 + 8 * (m % 2) + lane % 8;
  const u32 base = smem_addr(dst);
#pragma unroll
  for (int j = 0; j < N / 8; j += 2) {
    const int col = 8 * (j + m / 2);
    u32 off = (u32)(col / PANEL_COLS) * PANEL_BYTES + (u32)row * (PANEL_COLS * sizeof(T)) + (u32)(col % PANEL_COLS) * sizeof(T);
    off ^= ((off >> 7) & 7u) << 4;  // the 128-byte swizzle TMA reads with
    stmatrix_x4(base + off, pack2(dst, alpha * acc[4 * j], alpha * acc[4 * j + 1]),
                pack2(dst, alpha * acc[4 * j + 2], alpha * acc[4 * j + 3]), pack2(dst, alpha * acc[4 * j + 4], alpha * acc[4 * j + 5]),
                pack2(dst, alpha * acc[4 * j + 6], alpha * acc[4 * j + 7]));
  }
}

}  // namespace tj

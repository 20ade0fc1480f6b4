// ---- TMA (cp.async.bulk.tensor) -----------------------------------------------------
// One wrapper per rank and direction; the coordinate lists come from this table.
#define TJ_C1 "{%2}"
#define TJ_C2 "{%2, %3}"
#define TJ_C3 "{%2, %3, %4}"
#define TJ_C4 "{%2, %3, %4, %5}"
#define TJ_C5 "{%2, %3, %4, %5, %6}"
#define TJ_Q1 "{%1}"
#define TJ_Q2 "{%1, %2}"
#define TJ_Q3 "{%1, %2, %3}"
#define TJ_Q4 "{%1, %2, %3, %4}"
#define TJ_Q5 "{%1, %2, %3, %4, %5}"
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
// .cta_group::2 (sm_100a): the box lands in this CTA (or, multicast, in each CTA of the
// mask) and completes on the barrier at bar's offset in the pair leader, the even CTA of
// ranks (2k, 2k + 1), whose expect_tx counts both CTAs' bytes.
TJ_DEVICE u32 pair_leader_barrier(mbarrier* bar) {
  u32 rank, out;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(smem_addr(bar)), "r"(rank & ~1u));
  return out;
}
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
  TJ_DEVICE void tma_load_##N##d_pair(void* dst, const tensor_map* map, TJ_P##N, mbarrier* bar) {              \
    asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"      \
                 ".cta_group::2 [%0], [%1, " TJ_C##N "], [" TJ_BAR##N "];"                                   \
                 ::"r"(smem_addr(dst)), "l"(map), TJ_A##N, "r"(pair_leader_barrier(bar))                     \
                 : "memory");                                                                                 \
  }                                                                                                           \
  TJ_DEVICE void tma_load_##N##d_pair_multicast(void* dst, const tensor_map* map, TJ_P##N, mbarrier* bar,      \
                                                 u32 mask) {                                                  \
    asm volatile("cp.async.bulk.tensor." #N "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"      \
                 ".multicast::cluster.cta_group::2 [%0], [%1, " TJ_C##N "], [" TJ_BAR##N "], " TJ_MASK##N ";" \
                 ::"r"(smem_addr(dst)), "l"(map), TJ_A##N, "r"(pair_leader_barrier(bar)),                     \
                 "h"((unsigned short)mask)                                                                    \
                 : "memory");                                                                                 \
  }                                                                                                           \
  TJ_DEVICE void tma_store_##N##d(const tensor_map* map, TJ_P##N, const void* src) {                          \
    asm volatile("cp.async.bulk.tensor." #N "d.global.shared::cta.tile.bulk_group [%0, " TJ_C##N "], [%1];"  \
                 ::"l"(map), "r"(smem_addr(src)), TJ_A##N                                                     \
                 : "memory");                                                                                 \
  }                                                                                                           \
  /* A hint: the box into L2, nothing written, nothing to wait for (a later load finds it there). */          \
  TJ_DEVICE void tma_prefetch_##N##d(const tensor_map* map, TJ_P##N) {                                        \
    asm volatile("cp.async.bulk.prefetch.tensor." #N "d.L2.global.tile [%0, " TJ_Q##N "];" ::"l"(map), TJ_A##N); \
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

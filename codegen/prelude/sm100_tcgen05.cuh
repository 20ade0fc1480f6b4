// ---- Blackwell tensor memory and the tcgen05 MMA (sm_100a only) ----------------------
// Tensor memory: per CTA 128 lanes x 512 columns of 32-bit cells. One full warp allocates
// a power of two of columns (32..512) and finds the address (lane << 16 | column) in
// shared memory; the same warp deallocates it before the CTA exits, and relinquishes the
// permit to allocate once it will allocate no more. CTA_GROUP 2: a CTA pair (the even
// and odd CTA of a cluster) allocates and works together. A kernel uses one CTA group.
template <int CTA_GROUP>
TJ_DEVICE void tmem_alloc(u32* dst, u32 columns) {
  static_assert(CTA_GROUP == 1 || CTA_GROUP == 2, "cta_group::1 or ::2");
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(dst)), "r"(columns) : "memory");
  else
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(dst)), "r"(columns) : "memory");
}
template <int CTA_GROUP>
TJ_DEVICE void tmem_relinquish() {
  if constexpr (CTA_GROUP == 1) asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  else asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
}
template <int CTA_GROUP>
TJ_DEVICE void tmem_dealloc(u32 taddr, u32 columns) {
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(columns) : "memory");
  else
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(columns) : "memory");
}

// D (tensor memory at d) (+)= A x B from shared-memory descriptors, bf16/f16 in, f32
// accumulated (kind::f16), the shape and types in the instruction descriptor idesc.
// Issued by one thread; asynchronous until a commit's barrier phase completes.
template <int CTA_GROUP>
TJ_DEVICE void tcgen05_mma_f16(u32 d, u64 a_desc, u64 b_desc, u32 idesc, bool accumulate) {
  if constexpr (CTA_GROUP == 1)
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d), "l"(a_desc),
        "l"(b_desc), "r"(idesc), "r"((u32)accumulate)
        : "memory");
  else
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %4, 0;\n tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(d), "l"(a_desc),
        "l"(b_desc), "r"(idesc), "r"((u32)accumulate)
        : "memory");
}
// One arrival on bar once every tcgen05 op this thread issued before has completed.
// The multicast form arrives on the barrier at the same offset in each CTA of cta_mask
// (the pair's completion, signalled to both CTAs by the even one).
template <int CTA_GROUP>
TJ_DEVICE void tcgen05_commit(mbarrier* bar) {
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
}
template <int CTA_GROUP>
TJ_DEVICE void tcgen05_commit_multicast(mbarrier* bar, unsigned short cta_mask) {
  if constexpr (CTA_GROUP == 1)
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
                     smem_addr(bar)),
                 "h"(cta_mask)
                 : "memory");
  else
    asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;" ::"r"(
                     smem_addr(bar)),
                 "h"(cta_mask)
                 : "memory");
}

// Tensor memory to registers: each warp reads its own 32 lanes (warp w % 4 of the
// CTA: lanes 32 (w % 4) ..), thread t of the warp lane t, 8 or 16 consecutive 32-bit
// columns from taddr. Asynchronous: the registers are valid after tcgen05_wait_ld().
TJ_DEVICE void tmem_ld_32x32b_x8(u32 taddr, float* v) {
  u32* r = reinterpret_cast<u32*>(v);
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
               : "r"(taddr));
}
TJ_DEVICE void tmem_ld_32x32b_x16(u32 taddr, float* v) {
  u32* r = reinterpret_cast<u32*>(v);
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, [%16];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]),
        "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
      : "r"(taddr));
}
// The tcgen05 epilogue's accesses of one row of a 128-byte-swizzled tile (panels of
// PANEL_COLS elements, PANEL_BYTES apart): 16 bytes (16 / sizeof(T) elements from col, a
// multiple of that) as one vector access; each thread of a warp a different row, so
// eight rows of a quarter-warp fall on eight different 16-byte bank groups.
template <int PANEL_COLS, int PANEL_BYTES, class T>
TJ_DEVICE u32 row16_b128_offset(int row, int col) {
  u32 off = (u32)(col / PANEL_COLS) * PANEL_BYTES + (u32)row * (PANEL_COLS * sizeof(T)) + (u32)(col % PANEL_COLS) * sizeof(T);
  return off ^ (((off >> 7) & 7u) << 4);  // the 128-byte swizzle TMA reads and writes with
}
template <int PANEL_COLS, int PANEL_BYTES, class T>
TJ_DEVICE void store_row16_b128(T* block, int row, int col, const float* v) {
  unsigned char* p = reinterpret_cast<unsigned char*>(block) + row16_b128_offset<PANEL_COLS, PANEL_BYTES, T>(row, col);
  if constexpr (sizeof(T) == 4) *reinterpret_cast<f32x4*>(p) = f32x4{v[0], v[1], v[2], v[3]};
  else
    *reinterpret_cast<u32x4*>(p) = u32x4{pack2(block, v[0], v[1]), pack2(block, v[2], v[3]), pack2(block, v[4], v[5]), pack2(block, v[6], v[7])};
}
template <int PANEL_COLS, int PANEL_BYTES, class T>
TJ_DEVICE void load_row16_b128(const T* block, int row, int col, float* v) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(block) + row16_b128_offset<PANEL_COLS, PANEL_BYTES, T>(row, col);
  if constexpr (sizeof(T) == 4) {
    const f32x4 w = *reinterpret_cast<const f32x4*>(p);
    v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w;
  } else {
    const T* e = reinterpret_cast<const T*>(p);
    for (int i = 0; i < 8; ++i) v[i] = to_f32(e[i]);
  }
}
TJ_DEVICE void tcgen05_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
TJ_DEVICE void tcgen05_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }
// Orders tcgen05 ops around a thread synchronization (a barrier wait, bar.sync).
TJ_DEVICE void tcgen05_fence_before_sync() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
TJ_DEVICE void tcgen05_fence_after_sync() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// The sm_100 shared-memory matrix descriptor: the sm_90 fields (start address, leading
// and stride byte offsets, each >> 4) plus the version (bits 46-47 = 1) and the swizzle
// in bits 61-63; `fixed` holds the bits the host computed (codegen/mma/tcgen05_desc.h).
TJ_DEVICE u64 sm100_smem_desc(const void* tile, u64 fixed) {
  return fixed | (u64)((smem_addr(tile) & 0x3FFFFu) >> 4);
}

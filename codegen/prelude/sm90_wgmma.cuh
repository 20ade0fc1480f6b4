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

// ---- split-K: an accumulator <-> a partial-sum slot --------------------------------
// Fragment order over the 8-column groups [G0, G1) of each 64-row block (acc[B * N/2 +
// 4 g ..], N the accumulator's columns): the i-th group of thread t of the warpgroup at
// float4 i * 128 + t of the slot. Each 16-byte access of a warp covers 512 contiguous
// bytes: coalesced in global memory, one wavefront per quarter warp in shared memory.
// volatile + "memory": they stay on their side of the counter's atomic, the barriers
// around them and the mbarrier a send completes on.
#define TJ_ACC_GROUPS(BODY)                                                  \
  _Pragma("unroll") for (int tj_b = 0; tj_b < REGS / (N / 2); ++tj_b)        \
  _Pragma("unroll") for (int tj_g = G0; tj_g < G1; ++tj_g) {                 \
    const int tj_i = tj_b * (G1 - G0) + tj_g - G0, tj_r = tj_b * (N / 2) + 4 * tj_g; \
    BODY                                                                     \
  }
template <int REGS, int N, int G0, int G1>
TJ_DEVICE void acc_partial_store(const float* acc, float* slot) {
  float* p = slot + 4 * ((int)threadIdx.x % 128);
  TJ_ACC_GROUPS(asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p + 512 * tj_i), "f"(acc[tj_r]), "f"(acc[tj_r + 1]),
                             "f"(acc[tj_r + 2]), "f"(acc[tj_r + 3])
                             : "memory");)
}
// slot += acc: relaxed gpu-scope atomic adds at L2, 16 bytes each (red .v4.f32, sm_90+),
// so that many warpgroups may add into one slot at once.
template <int REGS, int N, int G0, int G1>
TJ_DEVICE void acc_partial_reduce(const float* acc, float* slot) {
  float* p = slot + 4 * ((int)threadIdx.x % 128);
  TJ_ACC_GROUPS(asm volatile("red.relaxed.gpu.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p + 512 * tj_i), "f"(acc[tj_r]),
                             "f"(acc[tj_r + 1]), "f"(acc[tj_r + 2]), "f"(acc[tj_r + 3])
                             : "memory");)
}
// Into a peer CTA's shared memory: st.async, each completing its 16 bytes on the peer's barrier.
template <int REGS, int N, int G0, int G1>
TJ_DEVICE void acc_partial_send(const float* acc, cluster_ptr<float> slot, cluster_ptr<mbarrier> bar) {
  const u32 p = slot.addr + 16u * ((u32)threadIdx.x % 128u);
  TJ_ACC_GROUPS(asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
                                 p + 2048u * (u32)tj_i),
                             "f"(acc[tj_r]), "f"(acc[tj_r + 1]), "f"(acc[tj_r + 2]), "f"(acc[tj_r + 3]), "r"(bar.addr)
                             : "memory");)
}
#undef TJ_ACC_GROUPS
// acc += the slot, from global memory or this CTA's shared memory (SHARED). Eight 16-byte
// loads in flight, then their adds: one load's latency per eight, not per load. CLEAR
// (global memory): each 16 bytes read is then set to 0, by the thread that read it.
template <int REGS, int N, int G0, int G1, bool SHARED, bool CLEAR = false>
TJ_DEVICE void acc_partial_add(float* acc, float* slot) {
  static_assert(!(SHARED && CLEAR), "acc_partial_add: CLEAR is for a global slot");
  constexpr int kGroups = REGS / (N / 2) * (G1 - G0), kBatch = 8;
  float* p = slot + 4 * ((int)threadIdx.x % 128);
#pragma unroll
  for (int i0 = 0; i0 < kGroups; i0 += kBatch) {
    float t[4 * kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (i0 + j < kGroups) {
        if constexpr (SHARED)
          asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                       : "=f"(t[4 * j]), "=f"(t[4 * j + 1]), "=f"(t[4 * j + 2]), "=f"(t[4 * j + 3])
                       : "r"(smem_addr(p + 512 * (i0 + j)))
                       : "memory");
        else
          asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                       : "=f"(t[4 * j]), "=f"(t[4 * j + 1]), "=f"(t[4 * j + 2]), "=f"(t[4 * j + 3])
                       : "l"(p + 512 * (i0 + j))
                       : "memory");
      }
    if constexpr (CLEAR) {
#pragma unroll
      for (int j = 0; j < kBatch; ++j)
        if (i0 + j < kGroups)
          asm volatile("st.global.v4.f32 [%0], {%1, %1, %1, %1};" ::"l"(p + 512 * (i0 + j)), "f"(0.0f) : "memory");
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (i0 + j < kGroups) {
        const int i = i0 + j, r = i / (G1 - G0) * (N / 2) + 4 * (G0 + i % (G1 - G0));
#pragma unroll
        for (int x = 0; x < 4; ++x) acc[r + x] += t[4 * j + x];
      }
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

// The byte offset of element (row, col) in a tile block stored in panels of PANEL_COLS
// elements, PANEL_BYTES apart, swizzled as TMA reads and writes it: SPAN 128, 64 or 32 (the
// swizzle's bytes, one panel row: 16-byte chunk bits [4, 4 + log2(SPAN / 16)) take address
// bits from 7 up), 0 unswizzled (a panel is then the whole row).
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE u32 tile_offset(int row, int col) {
  static_assert(SPAN == 0 || SPAN == 32 || SPAN == 64 || SPAN == 128, "a TMA swizzle span");
  u32 off = (u32)(col / PANEL_COLS) * PANEL_BYTES + (u32)row * (PANEL_COLS * sizeof(T)) + (u32)(col % PANEL_COLS) * sizeof(T);
  if constexpr (SPAN != 0) off ^= ((off >> 7) & (u32)(SPAN / 16 - 1)) << 4;
  return off;
}
// One pair of values (columns col, col + 1) at `row` of a tile block (tile_offset's
// layout; an epilogue function's store).
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE void store_pair_tile(T* block, int row, int col, float a, float b) {
  const u32 off = tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row, col);
  store_pair(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(block) + off), a, b);
}
// The pair at the same place, read (an epilogue function's e[tile]).
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE void load_pair_tile(const T* block, int row, int col, float& a, float& b) {
  const u32 off = tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row, col);
  load_pair(reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(block) + off), a, b);
}

// ---- row fragments: reductions over the rows of an accumulator ----------------------
template <int OP>  // 0 sum, 1 max, 2 min
TJ_DEVICE float reduce2(float a, float b) {
  if constexpr (OP == 0) return a + b;
  else if constexpr (OP == 1) return fmaxf(a, b);
  else return fminf(a, b);
}
// The two rows this thread holds of one m64 x N block (its n / 2 registers: row h at
// registers 4 j + 2 h and + 1) reduced over all N columns: the thread's own columns,
// then across the four lanes that share the rows (lane % 4). dst[h] = the row's value
// (of combine: op(dst[h], it)), the same in those four lanes.
template <int N, int OP>
TJ_DEVICE void row_reduce_m64(const float* src, float* dst, bool combine) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float r0 = src[2 * h], r1 = src[2 * h + 1];  // two chains: independent adds
#pragma unroll
    for (int j = 1; j < N / 8; ++j) r0 = reduce2<OP>(r0, src[4 * j + 2 * h]), r1 = reduce2<OP>(r1, src[4 * j + 2 * h + 1]);
    float r = reduce2<OP>(r0, r1);
    r = reduce2<OP>(r, __shfl_xor_sync(0xffffffffu, r, 1));
    r = reduce2<OP>(r, __shfl_xor_sync(0xffffffffu, r, 2));
    dst[h] = combine ? reduce2<OP>(dst[h], r) : r;
  }
}

// Sixteen columns [col0, col0 + 16) of one warpgroup's 64-row block of a 16-bit tile
// (tile_offset's layout) in one stmatrix.x4: four 8x8 matrices, columns col0 and col0 + 8,
// rows + 0 and + 8. v holds the thread's 8 values in accumulator order: v[4 g + 2 h + x]
// at row 16 (t/32) + (t%32)/4 + 8 h, column col0 + 8 g + 2 (t%4) + x. An epilogue
// function's store.
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE void stmatrix_x4_tile(T* block, int col0, const float* v) {
  static_assert(sizeof(T) == 2, "stmatrix stores 16-bit values");
  const int t = (int)threadIdx.x % 128, lane = t % 32;
  const int m = lane / 8, row = (t / 32) * 16 + 8 * (m % 2) + lane % 8;
  const u32 off = tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row, col0 + 8 * (m / 2));
  stmatrix_x4(smem_addr(block) + off, pack2(block, v[0], v[1]), pack2(block, v[2], v[3]), pack2(block, v[4], v[5]),
              pack2(block, v[6], v[7]));
}

// ---- the transposed epilogue: accumulator (r, c) -> tile row c, column r -------------
TJ_DEVICE void stmatrix_x4_trans(u32 addr, u32 r0, u32 r1, u32 r2, u32 r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(r0), "r"(r1), "r"(r2),
               "r"(r3)
               : "memory");
}
// stmatrix_x4_tile's sixteen accumulator columns (v as there: v[4 g + 2 h + x] at row
// 16 (t/32) + (t%32)/4 + 8 h of a 64-row block, column 8 g + 2 (t%4) + x of the sixteen)
// written transposed: column 8 g + i of them to tile row row0 + 8 g + i, the block's rows
// to tile columns col0 .. col0 + 63. Matrix k = 2 g + h goes out with .trans: lane 8 k + i
// addresses tile row row0 + 8 g + i at columns col0 + 16 (t/32) + 8 h (16 bytes).
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE void stmatrix_x4_trans_tile(T* block, int row0, int col0, const float* v) {
  static_assert(sizeof(T) == 2, "stmatrix stores 16-bit values");
  const int t = (int)threadIdx.x % 128, lane = t % 32, m = lane / 8;
  const u32 off = tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row0 + 8 * (m / 2) + lane % 8, col0 + (t / 32) * 16 + 8 * (m % 2));
  stmatrix_x4_trans(smem_addr(block) + off, pack2(block, v[0], v[1]), pack2(block, v[2], v[3]), pack2(block, v[4], v[5]),
                    pack2(block, v[6], v[7]));
}
// One value at (row, col) of a tile block, written and read where stmatrix does not apply
// (f32 tiles, an odd number of 8-column groups, the tile an epilogue function reads).
TJ_DEVICE void store_one(float* p, float v) { asm volatile("st.shared.f32 [%0], %1;" ::"r"(smem_addr(p)), "f"(v) : "memory"); }
TJ_DEVICE void store_one(bf16* p, float v) {
  asm volatile("st.shared.b16 [%0], %1;" ::"r"(smem_addr(p)), "h"(to_bf16(v).bits) : "memory");
}
TJ_DEVICE void store_one(f16* p, float v) {
  asm volatile("st.shared.b16 [%0], %1;" ::"r"(smem_addr(p)), "h"(to_f16(v).bits) : "memory");
}
TJ_DEVICE float load_one(const float* p) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(smem_addr(p)) : "memory");
  return v;
}
TJ_DEVICE float load_one(const bf16* p) {
  unsigned short b;
  asm volatile("ld.shared.b16 %0, [%1];" : "=h"(b) : "r"(smem_addr(p)) : "memory");
  return to_f32(bf16{b});
}
TJ_DEVICE float load_one(const f16* p) {
  unsigned short b;
  asm volatile("ld.shared.b16 %0, [%1];" : "=h"(b) : "r"(smem_addr(p)) : "memory");
  return to_f32(f16{b});
}
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE void store_one_tile(T* block, int row, int col, float v) {
  store_one(reinterpret_cast<T*>(reinterpret_cast<unsigned char*>(block) + tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row, col)), v);
}
template <int PANEL_COLS, int PANEL_BYTES, int SPAN, class T>
TJ_DEVICE float load_one_tile(const T* block, int row, int col) {
  return load_one(
      reinterpret_cast<const T*>(reinterpret_cast<const unsigned char*>(block) + tile_offset<PANEL_COLS, PANEL_BYTES, SPAN, T>(row, col)));
}

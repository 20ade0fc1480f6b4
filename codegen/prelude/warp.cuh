// ---- warp shuffles and reductions ------------------------------------------------
// Every lane named in `mask` must execute the call with the same mask: shfl.sync and
// redux.sync wait for them (a missing lane hangs the warp or is undefined behaviour).
// Shuffles move 32-bit values; `width` (a power of two, 1..32) splits the warp into
// groups that shuffle among themselves (lane arguments are within the group).
#define TJ_SHFL(name, mode, clamp)                                                              \
  template <class T>                                                                            \
  TJ_DEVICE T name(T v, i32 lane, u32 mask, i32 width) {                                        \
    static_assert(sizeof(T) == 4, "shuffles move 32-bit values");                               \
    u32 r;                                                                                      \
    asm volatile("shfl.sync." mode ".b32 %0, %1, %2, %3, %4;"                                   \
                 : "=r"(r)                                                                      \
                 : "r"(bitcast<u32>(v)), "r"(lane), "r"(clamp), "r"(mask));                     \
    return bitcast<T>(r);                                                                       \
  }
TJ_SHFL(shfl_xor, "bfly", ((32 - width) << 8) | 31)
TJ_SHFL(shfl_up, "up", (32 - width) << 8)
TJ_SHFL(shfl_down, "down", ((32 - width) << 8) | 31)
TJ_SHFL(shfl_idx, "idx", ((32 - width) << 8) | 31)
#undef TJ_SHFL

// 32-bit integers: redux.sync (sm_80 and later).
#define TJ_REDUX(name, op, T, PT)                                                          \
  TJ_DEVICE T name(T v, u32 mask) {                                                        \
    T r;                                                                                   \
    asm volatile("redux.sync." op "." PT " %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));    \
    return r;                                                                              \
  }
TJ_REDUX(warp_sum, "add", u32, "u32")
TJ_REDUX(warp_sum, "add", i32, "s32")
TJ_REDUX(warp_max, "max", u32, "u32")
TJ_REDUX(warp_max, "max", i32, "s32")
TJ_REDUX(warp_min, "min", u32, "u32")
TJ_REDUX(warp_min, "min", i32, "s32")
#undef TJ_REDUX

// f32: a butterfly of shfl.sync.bfly over the full warp; for a partial mask, the
// members' values folded in lane order through shfl.sync.idx. Either way every member
// gets the same bits.
template <class Op>
TJ_DEVICE float warp_reduce_f32(float v, u32 mask, Op op) {
  if (mask == 0xffffffffu) {
    for (i32 d = 16; d >= 1; d /= 2) v = op(v, shfl_xor(v, d, mask, 32));
    return v;
  }
  float acc = shfl_idx(v, __ffs(mask) - 1, mask, 32);
  for (u32 m = mask & (mask - 1); m; m &= m - 1) acc = op(acc, shfl_idx(v, __ffs(m) - 1, mask, 32));
  return acc;
}
struct f32_add { TJ_DEVICE float operator()(float a, float b) const { return a + b; } };
struct f32_max { TJ_DEVICE float operator()(float a, float b) const { return fmaxf(a, b); } };
struct f32_min { TJ_DEVICE float operator()(float a, float b) const { return fminf(a, b); } };
TJ_DEVICE float warp_sum(float v, u32 mask) { return warp_reduce_f32(v, mask, f32_add{}); }
TJ_DEVICE float warp_max(float v, u32 mask) { return warp_reduce_f32(v, mask, f32_max{}); }
TJ_DEVICE float warp_min(float v, u32 mask) { return warp_reduce_f32(v, mask, f32_min{}); }

// Whether this lane is the lowest of the lanes executing the call: no lane below it is
// active (activemask.b32, %lanemask_lt). Volatile: the active set is read where it stands.
TJ_DEVICE bool warp_leader() {
  u32 active, below;
  asm volatile("activemask.b32 %0;" : "=r"(active));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  return (active & below) == 0;
}
// The lanes executing the call.
TJ_DEVICE u32 warp_active() {
  u32 active;
  asm volatile("activemask.b32 %0;" : "=r"(active));
  return active;
}
// Whether this lane is the lowest of `mask`, after the lanes of mask meet (bar.warp.sync):
// lanes of one group that diverged in between elect one leader, not one per branch.
TJ_DEVICE bool warp_leader_of(u32 mask) {
  u32 below;
  __syncwarp(mask);
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  return (mask & below) == 0;
}

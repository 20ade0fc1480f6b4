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

// ---- warpgroups ----------------------------------------------------------------------
// The warps of a role or a warpgroup meet (id 1..15; 0 is sync_threads).
TJ_DEVICE void named_barrier_sync(u32 id, u32 threads) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
// Counts the calling warps at barrier id without waiting for the others.
TJ_DEVICE void named_barrier_arrive(u32 id, u32 threads) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory"); }
// Per-thread register count of the calling warpgroup (all its threads execute it).
template <u32 N>
TJ_DEVICE void setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N)); }
template <u32 N>
TJ_DEVICE void setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N)); }

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

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

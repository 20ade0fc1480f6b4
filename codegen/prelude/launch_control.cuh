// ---- cluster launch control (sm_100a): claim a cluster that has not started ---------
// try_cancel asks the hardware to cancel the launch of a cluster of this grid that is
// still pending; the 16-byte answer lands in shared memory and completes 16 transaction
// bytes on the mbarrier (complete_tx), like a TMA load. The _multicast form (clusters
// of more than one CTA) writes the answer into every CTA of the cluster, at the same
// offsets, each completing on its own barrier. Never issue another try_cancel after
// one whose answer was "not canceled" (undefined behaviour).
TJ_DEVICE void clc_try_cancel(u32* response, mbarrier* bar) {
  asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];"
               ::"r"(smem_addr(response)), "r"(smem_addr(bar)) : "memory");
}
TJ_DEVICE void clc_try_cancel_multicast(u32* response, mbarrier* bar) {
  asm volatile(
      "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 "
      "[%0], [%1];" ::"r"(smem_addr(response)), "r"(smem_addr(bar)) : "memory");
}
// The answer, read from shared memory after the barrier's phase completed: whether a
// cluster was canceled (claimed), and %ctaid.x of its first CTA (only when it was).
TJ_DEVICE bool clc_is_canceled(u32x4 r) {
  u32 got;
  asm volatile(
      "{\n .reg .b128 q;\n .reg .pred p;\n mov.b128 q, {%1, %2};\n"
      " clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, q;\n selp.u32 %0, 1, 0, p;\n}"
      : "=r"(got) : "l"((u64)r.x | ((u64)r.y << 32)), "l"((u64)r.z | ((u64)r.w << 32)));
  return got != 0;
}
TJ_DEVICE i32 clc_first_ctaid_x(u32x4 r) {
  u32 x;
  asm volatile(
      "{\n .reg .b128 q;\n mov.b128 q, {%1, %2};\n"
      " clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %0, q;\n}"
      : "=r"(x) : "l"((u64)r.x | ((u64)r.y << 32)), "l"((u64)r.z | ((u64)r.w << 32)));
  return (i32)x;
}

// ---- programmatic dependent launch (sm_90 and later) --------------------------------
// A grid launched with programmatic stream serialization may start while the grid before
// it in the stream finishes. wait: until that grid has completed and its memory is
// visible to this one (at once when there is no such grid). launch_dependents: the grid
// behind this one may start its CTAs once every CTA of this grid has called it or exited.
TJ_DEVICE void grid_dependency_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
TJ_DEVICE void launch_dependents() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

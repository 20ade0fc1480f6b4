// ---- special registers --------------------------------------------------------
// Not volatile: each is constant for the thread's lifetime, so the compiler may
// read it once.
#define TJ_SREG_U32(fn, reg)                   \
  TJ_DEVICE i32 fn() {                         \
    u32 v;                                     \
    asm("mov.u32 %0, " reg ";" : "=r"(v));     \
    return (i32)v;                             \
  }
TJ_SREG_U32(lane_id, "%laneid")
TJ_SREG_U32(cluster_ctarank, "%cluster_ctarank")
TJ_SREG_U32(cluster_nctarank, "%cluster_nctarank")
TJ_SREG_U32(cluster_id_x, "%clusterid.x")
TJ_SREG_U32(cluster_id_y, "%clusterid.y")
TJ_SREG_U32(cluster_id_z, "%clusterid.z")
TJ_SREG_U32(num_clusters_x, "%nclusterid.x")
TJ_SREG_U32(num_clusters_y, "%nclusterid.y")
TJ_SREG_U32(num_clusters_z, "%nclusterid.z")
TJ_SREG_U32(cluster_ctaid_x, "%cluster_ctaid.x")
TJ_SREG_U32(cluster_ctaid_y, "%cluster_ctaid.y")
TJ_SREG_U32(cluster_ctaid_z, "%cluster_ctaid.z")
TJ_SREG_U32(cluster_dim_x, "%cluster_nctaid.x")
TJ_SREG_U32(cluster_dim_y, "%cluster_nctaid.y")
TJ_SREG_U32(cluster_dim_z, "%cluster_nctaid.z")
#undef TJ_SREG_U32
// Clocks: volatile, so every call reads the register anew and stays in program order
// with the other volatile asm (a busy-wait on the timer is not folded away).
TJ_DEVICE u64 global_timer() {
  u64 v;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(v));
  return v;
}
TJ_DEVICE u32 sm_id() {
  u32 v;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
  return v;
}

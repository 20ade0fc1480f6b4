// ---- DSMEM bulk copy and st.async --------------------------------------------------
TJ_DEVICE void bulk_copy_to_peer(u32 dst_cluster_addr, const void* src, u32 bytes, cluster_ptr<mbarrier> bar, i64 bi) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst_cluster_addr), "r"(smem_addr(src)), "r"(bytes), "r"(bar.addr + (u32)(bi * 8))
               : "memory");
}
template <class T>
TJ_DEVICE u32 cluster_addr(cluster_ptr<T> p, i64 i) { return p.addr + (u32)(i * sizeof(T)); }

#define TJ_ST_ASYNC(T, PT, C)                                                                               \
  TJ_DEVICE void st_async(cluster_ptr<T> p, i64 i, T v, cluster_ptr<mbarrier> bar, i64 bi) {                 \
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes." PT " [%0], %1, [%2];"             \
                 ::"r"(p.addr + (u32)(i * sizeof(T))), C(v), "r"(bar.addr + (u32)(bi * 8))                  \
                 : "memory");                                                                               \
  }
TJ_ST_ASYNC(u32, "b32", "r")
TJ_ST_ASYNC(float, "f32", "f")
#undef TJ_ST_ASYNC

// ---- atomics that return the old value (split-K's tile counters) --------------------
// atom.<sem>.<scope>.global.add.u32: one read-modify-write; .acq_rel is both a
// release (this thread's earlier accesses, and those ordered before them, e.g.
// by a bar.sync, happen before) and an acquire (later accesses happen after).
#define TJ_ATOM_ADD(name, insn)                                                          \
  TJ_DEVICE u32 name(u32* p, u32 v) {                                                    \
    u32 old;                                                                             \
    asm volatile(insn " %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");        \
    return old;                                                                          \
  }
TJ_ATOM_ADD(atom_add_relaxed_cta, "atom.relaxed.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_relaxed_cluster, "atom.relaxed.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_relaxed_gpu, "atom.relaxed.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_cta, "atom.acquire.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_cluster, "atom.acquire.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_acquire_gpu, "atom.acquire.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_release_cta, "atom.release.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_release_cluster, "atom.release.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_release_gpu, "atom.release.gpu.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_cta, "atom.acq_rel.cta.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_cluster, "atom.acq_rel.cluster.global.add.u32")
TJ_ATOM_ADD(atom_add_acq_rel_gpu, "atom.acq_rel.gpu.global.add.u32")
#undef TJ_ATOM_ADD

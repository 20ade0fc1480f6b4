// refused:
<loc>: error: tma_load_pair is tcgen05 (cp.async.bulk.tensor .cta_group::2, for a CTA pair's 2-CTA MMA), which sm_90a lacks
  fix: on sm_90a each CTA loads its own part with tma_load (or shares it with tma_load_multicast) and completes it on its own barrier; or compile for sm_100a
<loc>: error: tma_load_pair is tcgen05 (cp.async.bulk.tensor .cta_group::2, for a CTA pair's 2-CTA MMA), which sm_90a lacks
  fix: on sm_90a each CTA loads its own part with tma_load (or shares it with tma_load_multicast) and completes it on its own barrier; or compile for sm_100a
<loc>: error: mma_pair is tcgen05's CTA-pair MMA (tcgen05.mma.cta_group::2, sm_100a); wgmma has no pair form
  fix: on sm_90a give each CTA its own mma (wgmma) and share B's loads across the cluster with a multicast tma_load_tile; or compile for sm_100a
<loc>: error: accumulator 'acc' has 2 stages; wgmma keeps an accumulator in registers, one buffer
  fix: declare one accumulator per buffer (k.accumulator(name, m, n)), or compile for sm_100a (tensor memory)
<loc>: error: role 'producer' holds accumulator 'acc' (128x256): 256 registers per thread, plus about 40 for addresses and loop state, but it runs with 255
  fix: a thread has at most 255 registers: split the accumulator across more warpgroups or use a smaller tile
<loc>: error: role 'epilogue' holds accumulator 'acc' (128x256): 256 registers per thread, plus about 40 for addresses and loop state, but it runs with 255
  fix: a thread has at most 255 registers: split the accumulator across more warpgroups or use a smaller tile
<loc>: error: mma_commit_multicast is tcgen05 (tcgen05.commit), which sm_90a lacks
  fix: on sm_90a MMAs complete through mma_wait(n) (wgmma groups), and a stage goes back with arrive after it; or compile for sm_100a
<loc>: error: mma runs in 1 of the 128 threads of warpgroup 0 (CTA rank 0), split by the condition at <loc>: an MMA is issued by a whole warpgroup, every thread of it or none; on the GPU this hangs or is undefined
  fix: call it where every thread of the warpgroup gets (e.g. under the role or a condition on the warpgroup index), and guard only what one thread does
<loc>: error: accumulator 'acc' is used here by role 'epilogue', but role 'producer' used it at <loc>: it lives in registers, each role's warpgroups hold their own copy, so this one never sees what the other wrote
  fix: use it within one role, or hand its values over through shared memory (store_accumulator or store_rows, then a barrier both roles pass)

// refused:
<loc>: error: mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier
  fix: after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where the accumulator or the stages are needed
<loc>: error: mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier
  fix: after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where the accumulator or the stages are needed
<loc>: error: store_accumulator_transposed into tile 'd': the tcgen05 epilogue has no transposed store
  fix: store the accumulator untransposed (store_accumulator), or compile for sm_90a
<loc>: error: store_accumulator_transposed into tile 'd_tail': the tcgen05 epilogue has no transposed store
  fix: store the accumulator untransposed (store_accumulator), or compile for sm_90a
<loc>: error: accumulator 'acc' has 64 rows; a tcgen05 accumulator holds 128 per CTA, one per tensor-memory lane (a pair's mma_pair makes 256 rows from two CTAs of 128)
  fix: declare it with k.accumulator("acc", 128, 96)
<loc>: error: mma runs in 256 threads of CTA rank 0: a tcgen05 MMA is issued by one thread for the whole CTA, so each of them issues the whole MMA again into the accumulator
  fix: issue it from one thread: if_(thread_idx_x() == 128, ...) around the mma and its mma_commit
<loc>: error: mma runs in 256 threads of CTA rank 0: a tcgen05 MMA is issued by one thread for the whole CTA, so each of them issues the whole MMA again into the accumulator
  fix: issue it from one thread: if_(thread_idx_x() == 128, ...) around the mma and its mma_commit

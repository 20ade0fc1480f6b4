// refused:
<loc>: error: mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier
  fix: after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where the accumulator or the stages are needed
<loc>: error: mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier
  fix: after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where the accumulator or the stages are needed
<loc>: error: add_accumulator_partial works on register fragments (wgmma, sm_90a); tcgen05 keeps accumulators in tensor memory, read only through store_accumulator
  fix: compute on the elements in store_accumulator's function (value, row, column), or compile for sm_90a
<loc>: error: store_accumulator_partial works on register fragments (wgmma, sm_90a); tcgen05 keeps accumulators in tensor memory, read only through store_accumulator
  fix: compute on the elements in store_accumulator's function (value, row, column), or compile for sm_90a
<loc>: error: accumulator 'acc' has 64 rows; a tcgen05 accumulator holds 128 per CTA, one per tensor-memory lane (a pair's mma_pair makes 256 rows from two CTAs of 128)
  fix: declare it with k.accumulator("acc", 128, 256)

// refused:
<loc>: error: mma needs Hopper's wgmma, which sm_100a does not have
  fix: compile for sm_90a (--arch sm_90a); the tcgen05 lowering of tile MMAs for sm_100a is not written yet
<loc>: error: mma needs Hopper's wgmma, which sm_100a does not have
  fix: compile for sm_90a (--arch sm_90a); the tcgen05 lowering of tile MMAs for sm_100a is not written yet
<loc>: error: add_accumulator_partial needs Hopper's register accumulators (wgmma), which sm_100a does not have
  fix: compile for sm_90a (--arch sm_90a); the tcgen05 lowering of tile MMAs for sm_100a is not written yet
<loc>: error: store_accumulator_partial needs Hopper's register accumulators (wgmma), which sm_100a does not have
  fix: compile for sm_90a (--arch sm_90a); the tcgen05 lowering of tile MMAs for sm_100a is not written yet
<loc>: error: add_accumulator_partial needs Hopper's register accumulators (wgmma), which sm_100a does not have
  fix: compile for sm_90a (--arch sm_90a); the tcgen05 lowering of tile MMAs for sm_100a is not written yet
<loc>: error: store_accumulator needs a target with an MMA family (register fragments), and sm_100a has none in tilejit yet
  fix: compile for sm_90a (--arch sm_90a)
<loc>: error: store_accumulator needs a target with an MMA family (register fragments), and sm_100a has none in tilejit yet
  fix: compile for sm_90a (--arch sm_90a)
<loc>: error: store_accumulator needs a target with an MMA family (register fragments), and sm_100a has none in tilejit yet
  fix: compile for sm_90a (--arch sm_90a)
<loc>: error: store_accumulator needs a target with an MMA family (register fragments), and sm_100a has none in tilejit yet
  fix: compile for sm_90a (--arch sm_90a)

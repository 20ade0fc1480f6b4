// gemm_sm100: D = A * B on Blackwell's tensor cores (sm_100a), written with the DSL's
// tiles: bf16 or f16 in, f32 accumulated in tensor memory, bf16 / f16 / f32 out; A is
// M x K row-major, B N x K row-major (tn), D M x N row-major. Compile-verified only:
// no Blackwell GPU has run it (tilejit compile --arch sm_100a; `tilejit run` needs one).
//
// A cluster of 1 x 2 is a CTA pair making one 256 x bn output tile with one MMA
// (mma_pair, tcgen05.mma.cta_group::2): each CTA loads its 128 rows of A and half of B's
// bn columns (tma_load_tile_pair: both complete on the pair leader's barrier), the
// leader's MMA thread issues for both, its commits (mma_commit_multicast) give each stage
// back to both CTAs' loaders and tell both CTAs' epilogues that the accumulator is done.
// A cluster of one runs the same kernel with cta_group::1 (128 x bn tiles). Warp 0 loads,
// warp 1 issues the MMAs (in the leader), warpgroup 1 is the epilogue: tcgen05.ld of a
// row per thread, the tile through shared memory in 64-column chunks and TMA stores.
// Two accumulator buffers in tensor memory (by default): the epilogue of one tile runs
// while the leader issues the next tile's MMAs into the other.
// Tiles are claimed with the dynamic schedule (cluster launch control on sm_100a).
#pragma once

#include "generators/sample.h"
#include "samples/gemm.h"

namespace tj::samples {

struct GemmSm100Tiling {
  unsigned bn = 256;     // output columns per tile (the pair's, and each CTA's accumulator)
  unsigned stages = 4;   // A and B stages in each CTA
  bool pair = true;      // a 1 x 2 cluster issuing mma_pair; false: one CTA, mma
  unsigned pairs = 1;    // pairs in the cluster along M (2: a 1 x 4 cluster, B's halves multicast to both pairs)
  bool dynamic = true;   // the dynamic schedule (CLC); false: static persistent
  unsigned group = 8;    // rasterization group
  unsigned accumulators = 2;  // buffers in tensor memory (2 x bn columns of the 512)
};

// The kernel (samples/gemm_sm100.cpp); its parameters are the GEMM's (samples/gemm_host.h).
ir::Kernel build_gemm_sm100_kernel(const GemmShape& s, const GemmSm100Tiling& t);

// Who loads which part of the pair's operands, where it completes, how many bytes each
// barrier counts, and who commits: the host's model of the pair split, which the CPU
// tests hold against what the generator emits.
struct PairSplit {
  unsigned rank;          // the CTA's rank in the cluster (even: a pair leader)
  unsigned a_row0;        // first row of the cluster tile's 128-row blocks of A this CTA loads (and its rows of D)
  unsigned b_row0;        // first of B's bn rows (N) in this CTA's stage: (rank % 2) x bn / 2
  unsigned b_rows;        // B's rows in each CTA's stage: bn / 2 (bn alone)
  unsigned b_load_row0;   // the rows of B this CTA loads: from b_row0 + b_load_row0 ...
  unsigned b_load_rows;   // ... this many (b_rows, or half of them with two pairs)
  unsigned b_mask;        // the CTAs its B load lands in (its own, or the same half in both pairs)
  unsigned bytes_per_stage;     // A and B bytes landing in this CTA per k-block
  unsigned leader_expect_tx;    // bytes a pair leader's full barrier expects per k-block (both CTAs')
  bool issues_mma;              // only the leaders' MMA threads issue
  unsigned stage_commit_mask;   // the CTAs a leader's stage commits arrive in (every CTA its loads reach)
  unsigned acc_commit_mask;     // the CTAs a leader's accumulator commits arrive in (its pair)
  unsigned empty_arrivals;      // commits that give a stage back in each CTA: one per pair
};
PairSplit gemm_sm100_pair_split(const GemmShape& s, const GemmSm100Tiling& t, unsigned rank);

class GemmSm100 final : public Sample {
 public:
  std::string name() const override { return "gemm_sm100"; }
  std::string summary() const override {
    return "D = A*B on sm_100a with tcgen05: the CTA pair's MMA (cta_group::2), accumulators in tensor memory, cluster launch "
           "control (compile-verified only)";
  }
  std::vector<ParamSpec> params() const override;
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
  std::vector<std::string> targets() const override { return {"sm_100a"}; }
};

GemmShape gemm_sm100_shape(const Config& c);
GemmSm100Tiling gemm_sm100_tiling(const Config& c);

}  // namespace tj::samples

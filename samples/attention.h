// attention: the forward pass of softmax attention, FlashAttention-style, written
// with the DSL's tiles and accumulators as values.
//
//   O = softmax(Q K^T / sqrt(d) [+ causal mask]) V,   lse = ln sum_j exp(q_i . k_j / sqrt(d))
//
// Q [batch, heads, seq_q, d], K and V [batch, heads, seq_k, d], O [batch, heads, seq_q, d]
// are row-major bf16; lse [batch, heads, seq_q] is f32 (natural log, what a backward
// pass reads). Causal: query i sees keys j <= i (top-left aligned, as PyTorch's
// is_causal), with seq_q and seq_k equal or not.
//
// One CTA per (block of 64 x consumers queries, batch * head), or a persistent walk over
// them. A producer warpgroup loads the unit's Q, then streams K and V blocks of block_n
// keys through a `stages`-deep full/empty mbarrier pipeline with TMA; each consumer
// warpgroup owns 64 query rows:
// S = Q K^T on the tensor cores, the online softmax in registers
// (running row max m and row sum l, O rescaled by 2^(m_old - m_new)), O += P V with
// P converted to bf16 in registers as the MMA's A operand, then O / l through the
// warpgroup's own rows of the Q tile and a TMA store. d is any multiple of 8 up to 256,
// held in 64, 128, 192 or 256 columns. The tensors are viewed by TMA as 3-D (d, seq,
// batch * head), so a block that runs past seq is zero-filled on load and clipped
// on store within its own head; keys past seq_k are masked with -inf.
#pragma once

#include <cstdint>
#include <string>

#include "dsl/ir/kernel.h"
#include "generators/sample.h"

namespace tj::samples {

// The problem.
struct AttentionShape {
  int64_t batch = 1, heads = 1, seq_q = 1, seq_k = 1, head_dim = 64;
  bool causal = false;
  // The d the kernel's tiles hold: head_dim rounded up to whole 128-byte panels of bf16 (64,
  // 128, 192 or 256). TMA fills the columns past head_dim with zeros (they add nothing to
  // Q K^T, and P V's are never stored); the scale is head_dim's.
  int64_t panel_dim() const { return (head_dim + 63) / 64 * 64; }
  int64_t rows_q() const { return batch * heads * seq_q; }
  int64_t rows_k() const { return batch * heads * seq_k; }
  // 4 b h sq sk d (two GEMMs of 2 flops per multiply-add), halved when causal.
  double flops() const {
    const double f = 4.0 * double(batch) * double(heads) * double(seq_q) * double(seq_k) * double(head_dim);
    return causal ? f / 2 : f;
  }
};

// How the kernel tiles it.
// How units (query block, batch * head) reach CTAs: one CTA each from the grid (causal:
// the longest launched first), or a persistent grid walking them with a static or a
// dynamic schedule (dynamic: causal's longest query blocks first); persistent CTAs carry
// the K/V pipeline from one unit into the next and load the next unit's Q while this
// one runs. The spec's `auto`: attention_auto_schedule.
enum class AttentionSchedule : uint8_t { Grid, Static, Dynamic };

struct AttentionTiling {
  AttentionSchedule schedule = AttentionSchedule::Grid;
  unsigned consumers = 2;  // consumer warpgroups, 64 query rows each
  unsigned block_n = 128;  // keys per pipeline stage (the spec's 0: attention_default_block_n)
  unsigned stages = 2;
  // Q buffers: 2 lets a persistent CTA load the next unit's Q while this one still reads
  // its own (attention_tiling takes 2 under a persistent schedule where it fits).
  unsigned q_stages = 1;
  unsigned block_m() const { return 64 * consumers; }
  unsigned threads() const { return 128 * (consumers + 1); }
};

// block_n where the spec leaves it 0: 128 at d 64 and 128; 64 at d 256, where O alone is
// 128 registers per thread and 2 stages of 128 keys would not fit in shared memory.
inline unsigned attention_default_block_n(int64_t head_dim) { return head_dim > 128 ? 64 : 128; }

// Registers per thread of the producer warpgroup and of each consumer warpgroup.
inline constexpr unsigned kAttentionProducerRegisters = 24;
unsigned attention_consumer_registers(unsigned consumers);
// Accumulator registers per consumer thread: S (64 x block_n), O (64 x d), the bf16 copy
// of P fed to the second MMA and the row fragments m, m_old, l, alpha.
unsigned attention_fragment_registers(const AttentionShape& s, const AttentionTiling& t);

// Shared memory the kernel uses (tiles, alignment and barriers), bytes.
uint64_t attention_smem_bytes(const AttentionShape& s, const AttentionTiling& t);
// The kernel itself (samples/attention_kernel.cpp). Parameters, in order: tensor maps
// "Q", "K", "V", "O" (3-D: d, seq, batch * head), f32* "lse", i32 "seq_q", "seq_k".
ir::Kernel build_attention_kernel(const AttentionShape& s, const AttentionTiling& t);

// What the spec's schedule `auto` takes for the shape, with block_n keys per block.
AttentionSchedule attention_auto_schedule(const AttentionShape& s, unsigned block_n);

AttentionShape attention_shape(const Config& c);
AttentionTiling attention_tiling(const Config& c);

class Attention final : public Sample {
 public:
  std::string name() const override { return "attention"; }
  std::string summary() const override {
    return "softmax attention forward (FlashAttention-style online softmax) with wgmma, register P and a TMA pipeline";
  }
  std::vector<ParamSpec> params() const override;
  ir::Dim3 default_cluster() const override { return {1, 1, 1}; }  // runs without clusters
  std::vector<ConfigProblem> check_config(const Config& c) const override;
  ir::Kernel build(const Config& c) const override;
  std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const override;
  // One CTA per (query block, batch * head): the grid follows the problem, not the spec.
  std::optional<ir::Dim3> problem_grid(const Config& c) const override;
  // schedule static or dynamic: as many CTAs as run at once, at most one per unit.
  std::optional<ir::Dim3> persistent_grid(const Config& c, int max_active_clusters) const override;
};

// Device buffers, tensor maps and the host reference (samples/attention_host.cpp).
// The random inputs' draw (the spec's `inputs`).
enum class AttentionInputs : uint8_t { Uniform, Rising };
std::unique_ptr<Instance> make_attention_instance(const AttentionShape& s, const ir::Kernel& kernel, uint64_t seed,
                                                  AttentionInputs inputs = AttentionInputs::Uniform);

}  // namespace tj::samples

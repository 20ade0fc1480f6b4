#include "samples/attention.h"

#include <algorithm>

#include "codegen/passes/verify_tiles.h"

namespace tj::samples {

namespace {
constexpr uint64_t kSmemPerCta = 232448;  // what a CTA may opt in to on sm_90a
std::string str(uint64_t v) { return std::to_string(v); }
const std::vector<std::string> kSchedules = {"grid", "static", "dynamic", "auto"};
const std::vector<std::string> kInputs = {"uniform", "rising"};
}  // namespace

std::vector<ParamSpec> Attention::params() const {
  return {{"batch", 4, 1, 65535, "batch size"},
          {"heads", 16, 1, 65535, "heads (batch x heads at most 65535: one grid row each)"},
          {"seq_q", 4096, 1, 1 << 24, "queries per head"},
          {"seq_k", 4096, 1, 1 << 24, "keys (and values) per head"},
          {"head_dim", 128, 8, 256,
           "d, the length of each query, key and value: a multiple of 8 up to 256. The kernel's tiles hold d rounded up "
           "to whole 128-byte panels (64, 128, 192 or 256 columns), the columns past d zeros: a d between them (96, 160) "
           "costs the larger one's MMAs"},
          {"causal", 0, 0, 1, "1: query i sees keys j <= i (top-left aligned); 0: every key"},
          {"consumers", 2, 1, 2, "consumer warpgroups, 64 query rows each: a CTA's query block is 64 x consumers rows"},
          {"block_n", 0, 0, 256,
           "keys per pipeline stage: a multiple of 64; 0: 128 at d 64 and 128, 64 at d 256 (what fits a consumer's "
           "registers and 2 stages of shared memory)"},
          {"stages", 2, 2, 8, "K/V pipeline stages in shared memory"},
          {"schedule", 3, 0, 3,
           "grid: one CTA per (query block, batch x head), causal's longest first; static or dynamic: as many CTAs as "
           "fit walk the units with that schedule (dynamic claims each next unit, causal's longest first), loading "
           "the next unit's Q while one runs where it fits; auto: static (dynamic when causal) at d 64, and at "
           "d 128 up to 32 key blocks of block_n (64 when causal); grid otherwise",
           kSchedules},
          {"inputs", 0, 0, 1,
           "the random inputs: uniform (Q, K and V uniform in [-1, 1)), or rising (K's key j of each head also scaled by "
           "1 + 15 j / seq_k, so that each query's largest score keeps rising from key block to key block: the online "
           "softmax's rescaling of O runs again and again)",
           kInputs}};
}

AttentionShape attention_shape(const Config& c) {
  AttentionShape s;
  s.batch = c.param("batch"), s.heads = c.param("heads");
  s.seq_q = c.param("seq_q"), s.seq_k = c.param("seq_k");
  s.head_dim = c.param("head_dim");
  s.causal = c.param("causal") == 1;
  return s;
}

AttentionSchedule attention_auto_schedule(const AttentionShape& s, unsigned block_n) {
  // From same-run comparisons on the H200 (docs/performance-log.md): the persistent walks
  // (the next unit's Q landing while one runs, causal's longest units first) win at d 64
  // on every length, and at d 128 up to 32 key blocks per unit (64 when causal); on longer
  // d 128 units and at d 256 (no room for a second Q) one CTA per unit from the grid does.
  const int64_t key_blocks = (s.seq_k + block_n - 1) / block_n;
  const bool persistent = s.panel_dim() <= 64 || (s.panel_dim() <= 128 && key_blocks <= (s.causal ? 64 : 32));
  if (!persistent) return AttentionSchedule::Grid;
  return s.causal ? AttentionSchedule::Dynamic : AttentionSchedule::Static;
}

AttentionTiling attention_tiling(const Config& c) {
  AttentionTiling t;
  t.consumers = unsigned(c.param("consumers"));
  t.block_n = unsigned(c.param("block_n"));
  if (t.block_n == 0) t.block_n = attention_default_block_n(attention_shape(c).panel_dim());
  t.stages = unsigned(c.param("stages"));
  const int64_t schedule = c.param("schedule");
  const bool automatic = schedule == 3;
  t.schedule = automatic ? attention_auto_schedule(attention_shape(c), t.block_n) : AttentionSchedule(schedule);
  if (t.schedule != AttentionSchedule::Grid) {
    AttentionTiling two = t;
    two.q_stages = 2;
    if (attention_smem_bytes(attention_shape(c), two) <= kSmemPerCta) t = two;
  }
  return t;
}

std::vector<ConfigProblem> Attention::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  auto need = [&](bool ok, const std::string& field, const std::string& msg) {
    if (!ok) out.push_back({field, msg});
  };
  const AttentionShape s = attention_shape(c);
  const AttentionTiling t = attention_tiling(c);
  need(c.cluster.count() == 1, "cluster", "attention runs without clusters: use cluster 1");
  need(s.head_dim % 8 == 0, "params.head_dim",
       "head_dim = " + str(uint64_t(s.head_dim)) + ": rows of Q, K, V and O must be a multiple of 16 bytes for TMA: use a "
       "multiple of 8 (the kernel holds d in 64, 128, 192 or 256 columns)");
  need(t.block_n % 64 == 0, "params.block_n", "block_n = " + str(t.block_n) + " must be a multiple of 64");
  need(s.batch * s.heads <= 65535, "params.heads",
       "batch x heads = " + str(uint64_t(s.batch * s.heads)) + ": one grid row per (batch, head) allows at most 65535");
  const unsigned regs = attention_fragment_registers(s, t), budget = attention_consumer_registers(t.consumers);
  need(regs + codegen::kMmaRoleOverheadRegisters <= budget, "params.block_n",
       "a consumer warpgroup holds S (64 x " + str(t.block_n) + "), O (64 x " + str(uint64_t(s.panel_dim())) +
           "), P in bf16 and its row fragments: " + str(regs) + " registers per thread plus about " +
           str(codegen::kMmaRoleOverheadRegisters) + " more; a consumer of " + str(t.consumers) + " has " + str(budget) +
           ": use a smaller block_n");
  const uint64_t smem = attention_smem_bytes(s, t);
  need(smem <= kSmemPerCta, "params.stages",
       str(t.stages) + " stages of K and V (" + str(t.block_n) + " x " + str(uint64_t(s.panel_dim())) + " each) plus Q, which also holds the output (" +
           str(t.block_m()) + " rows), and the logsumexp rows need " + str(smem) + " bytes of shared memory; a CTA has " + str(kSmemPerCta) +
           ": use fewer stages or a smaller block_n");
  return out;
}

ir::Kernel Attention::build(const Config& c) const { return build_attention_kernel(attention_shape(c), attention_tiling(c)); }

std::unique_ptr<Instance> Attention::instantiate(const Config& c, uint64_t seed) const {
  return make_attention_instance(attention_shape(c), build(c), seed, AttentionInputs(c.param("inputs")));
}

std::optional<ir::Dim3> Attention::problem_grid(const Config& c) const {
  const AttentionShape s = attention_shape(c);
  const uint64_t bm = attention_tiling(c).block_m();
  return ir::Dim3{unsigned((uint64_t(s.seq_q) + bm - 1) / bm), unsigned(s.batch * s.heads), 1};
}

std::optional<ir::Dim3> Attention::persistent_grid(const Config& c, int max_active_clusters) const {
  if (attention_tiling(c).schedule == AttentionSchedule::Grid) return std::nullopt;
  const ir::Dim3 units = *problem_grid(c);
  const uint64_t n = uint64_t(units.x) * units.y;
  return ir::Dim3{unsigned(std::max<uint64_t>(1, std::min<uint64_t>(n, uint64_t(std::max(1, max_active_clusters))))), 1, 1};
}

}  // namespace tj::samples

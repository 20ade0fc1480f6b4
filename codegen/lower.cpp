#include "codegen/lower.h"

#include <cstdlib>
#include <iostream>

#include "codegen/emit_cuda.h"
#include "codegen/passes/insert_barrier_init.h"
#include "codegen/passes/insert_entry_barrier.h"
#include "codegen/passes/insert_exit_barrier.h"
#include "codegen/passes/insert_grid_dependency.h"
#include "codegen/passes/insert_tensor_memory.h"
#include "codegen/passes/insert_timeline.h"
#include "codegen/passes/lower_schedules.h"
#include "codegen/passes/verify_tiles.h"
#include "codegen/passes/verify_async.h"
#include "codegen/passes/verify_cluster_shape.h"
#include "codegen/passes/verify_arithmetic.h"
#include "codegen/passes/verify_cluster_barriers.h"
#include "codegen/passes/verify_dsmem.h"
#include "codegen/passes/verify_launch_bounds.h"
#include "codegen/passes/verify_shared_memory.h"
#include "codegen/passes/verify_bounds.h"
#include "codegen/passes/verify_collectives.h"
#include "codegen/passes/verify_fragment_owners.h"
#include "codegen/passes/verify_accumulators.h"
#include "codegen/passes/verify_scopes.h"
#include "codegen/passes/verify_tensor_memory.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/printer.h"

namespace tj::codegen {
namespace {

std::function<void(const std::string&, const std::string&)> dumper(const LowerOptions& opts) {
  if (opts.dump) return opts.dump;
  const char* env = std::getenv("TILEJIT_DUMP_IR");
  if (!env || !*env || std::string(env) == "0") return nullptr;
  std::string which = env;
  return [which](const std::string& pass, const std::string& ir) {
    if (which == "1" || which == "all" || which == pass) std::cerr << "// ---- IR after " << pass << " ----\n" << ir;
  };
}

unsigned long long hang_guard_ns(const LowerOptions& opts) {
  if (opts.debug_hangs) return *opts.debug_hangs ? kHangGuardNs : 0;
  const char* env = std::getenv("TILEJIT_DEBUG_HANGS");
  return env && *env && std::string(env) != "0" ? kHangGuardNs : 0;
}

// What the passes read and write as lower() runs them.
struct PassState {
  const Target& target;
  ir::Kernel kernel;
  std::vector<Diagnostic> diags;
  TransactionReport transactions;
  RaceReport races;
  EmitOptions emit;
  bool timeline = false;
  std::string cuda;
};

enum class Stage : uint8_t {
  Normalize,  // before verification: what every check must see (schedules become loops)
  Verify,     // collects diagnostics; every verifier runs, so that the user sees all errors at once
  VerifyWellFormed,  // runs only when the verifiers before it found nothing (needs well-formed copies)
  Rewrite,    // after verification passed
  Emit,
};

struct Pass {
  const char* name;
  Stage stage;
  void (*run)(PassState&);
};

void add(PassState& s, std::vector<Diagnostic> found) { s.diags.insert(s.diags.end(), found.begin(), found.end()); }

// The pipeline, in order: one row per pass.
const std::vector<Pass>& passes() {
  static const std::vector<Pass> table = {
      {"lower_schedules", Stage::Normalize, [](PassState& s) { s.kernel = lower_schedules(s.kernel, s.target); }},
      {"verify_cluster_shape", Stage::Verify, [](PassState& s) { add(s, verify_cluster_shape(s.kernel, s.target)); }},
      {"verify_shared_memory", Stage::Verify, [](PassState& s) { add(s, verify_shared_memory(s.kernel, s.target)); }},
      {"verify_dsmem", Stage::Verify, [](PassState& s) { add(s, verify_dsmem(s.kernel, s.target)); }},
      {"verify_cluster_barriers", Stage::Verify, [](PassState& s) { add(s, verify_cluster_barriers(s.kernel)); }},
      {"verify_arithmetic", Stage::Verify, [](PassState& s) { add(s, verify_arithmetic(s.kernel)); }},
      {"verify_async", Stage::Verify, [](PassState& s) { add(s, verify_async(s.kernel, s.target)); }},
      {"verify_tiles", Stage::Verify, [](PassState& s) { add(s, verify_tiles(s.kernel, s.target)); }},
      {"verify_launch_bounds", Stage::Verify, [](PassState& s) { add(s, verify_launch_bounds(s.kernel, s.target)); }},
      {"verify_tensor_memory", Stage::Verify, [](PassState& s) { add(s, verify_tensor_memory(s.kernel, s.target)); }},
      {"verify_scopes", Stage::Verify, [](PassState& s) { add(s, verify_scopes(s.kernel)); }},
      {"verify_collectives", Stage::Verify, [](PassState& s) { add(s, verify_collectives(s.kernel, s.target)); }},
      {"verify_fragment_owners", Stage::Verify, [](PassState& s) { add(s, verify_fragment_owners(s.kernel, s.target)); }},
      {"verify_accumulators", Stage::Verify, [](PassState& s) { add(s, verify_accumulators(s.kernel)); }},
      {"verify_bounds", Stage::VerifyWellFormed, [](PassState& s) { add(s, verify_bounds(s.kernel)); }},
      {"verify_transactions", Stage::VerifyWellFormed,
       [](PassState& s) {
         s.transactions = account_transactions(s.kernel);
         add(s, s.transactions.errors);
       }},
      {"verify_races", Stage::VerifyWellFormed,
       [](PassState& s) {
         s.races = check_races(s.kernel);
         add(s, s.races.errors);
       }},
      {"insert_grid_dependency", Stage::Rewrite, [](PassState& s) { s.kernel = insert_grid_dependency(s.kernel); }},
      {"insert_tensor_memory", Stage::Rewrite, [](PassState& s) { s.kernel = insert_tensor_memory(s.kernel, s.target); }},
      {"insert_barrier_init", Stage::Rewrite, [](PassState& s) { s.kernel = insert_barrier_init(s.kernel); }},
      {"insert_entry_barrier", Stage::Rewrite, [](PassState& s) { s.kernel = insert_entry_barrier(s.kernel); }},
      {"insert_exit_barrier", Stage::Rewrite, [](PassState& s) { s.kernel = insert_exit_barrier(s.kernel); }},
      {"insert_timeline", Stage::Rewrite,
       [](PassState& s) {
         if (s.timeline) s.kernel = insert_timeline(s.kernel);
       }},
      {"emit_cuda", Stage::Emit, [](PassState& s) { s.cuda = emit_cuda(s.kernel, s.target, s.emit); }},
  };
  return table;
}

}  // namespace

std::string Lowered::check_report() const {
  std::string out;
  if (transactions.empty()) out += "tx check  no barrier receives transaction bytes\n";
  for (const TransactionCheck& c : transactions) out += "tx check  " + to_string(c) + "\n";
  for (const race::RaceCheck& c : races) out += "race check  " + race::to_string(c) + "\n";
  return out;
}

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Pass& p : passes()) out.push_back(p.name);
    return out;
  }();
  return names;
}

Lowered lower(const ir::Kernel& user, const Target& target, const LowerOptions& opts) {
  auto dump = dumper(opts);
  PassState state{target, user, {}, {}, {}, {}, opts.timeline, {}};
  state.emit.hang_guard_ns = hang_guard_ns(opts);
  for (const Pass& p : passes()) {
    const bool verifying = p.stage == Stage::Verify || p.stage == Stage::VerifyWellFormed;
    if (p.stage == Stage::VerifyWellFormed && !state.diags.empty()) continue;
    // Leaving verification: every user error found so far, at once.
    if (!verifying && p.stage != Stage::Normalize && !state.diags.empty()) throw UserError(std::move(state.diags));
    p.run(state);
    if (dump) dump(p.name, p.stage == Stage::Emit ? state.cuda : ir::to_string(state.kernel));
  }
  if (!state.diags.empty()) throw UserError(std::move(state.diags));

  Lowered out;
  out.cuda = std::move(state.cuda);
  out.dynamic_smem = static_cast<unsigned>(state.kernel.dynamic_shared_bytes());
  out.kernel = std::move(state.kernel);
  out.transactions = std::move(state.transactions.checks);
  out.races = std::move(state.races.checks);
  out.race_check_seconds = state.races.seconds;
  return out;
}

}  // namespace tj::codegen

#include "codegen/lower.h"

#include <cstdlib>
#include <iostream>

#include "codegen/emit_cuda.h"
#include "codegen/passes/insert_barrier_init.h"
#include "codegen/passes/insert_entry_barrier.h"
#include "codegen/passes/insert_exit_barrier.h"
#include "codegen/passes/lower_schedules.h"
#include "codegen/passes/verify_tiles.h"
#include "codegen/passes/verify_async.h"
#include "codegen/passes/verify_cluster_shape.h"
#include "codegen/passes/verify_dsmem.h"
#include "codegen/passes/verify_shared_memory.h"
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

}  // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = {"lower_schedules",     "verify_cluster_shape", "verify_shared_memory",
                                                 "verify_dsmem",        "verify_async",         "verify_tiles",
                                                 "verify_transactions", "verify_races",         "insert_barrier_init",  "insert_entry_barrier",
                                                 "insert_exit_barrier", "emit_cuda"};
  return names;
}

Lowered lower(const ir::Kernel& user, const Target& target, const LowerOptions& opts) {
  auto dump = dumper(opts);
  auto after = [&](const char* pass, const ir::Kernel& k) {
    if (dump) dump(pass, ir::to_string(k));
  };

  // 0. Schedules become plain loops, so that every check sees what will run.
  const ir::Kernel input = lower_schedules(user, target);
  after("lower_schedules", input);

  // 1. Verification: collect every user error before giving up.
  std::vector<Diagnostic> diags;
  auto check = [&](const char* pass, std::vector<Diagnostic> found) {
    diags.insert(diags.end(), found.begin(), found.end());
    after(pass, input);
  };
  check("verify_cluster_shape", verify_cluster_shape(input, target));
  check("verify_shared_memory", verify_shared_memory(input, target));
  check("verify_dsmem", verify_dsmem(input, target));
  check("verify_async", verify_async(input, target));
  check("verify_tiles", verify_tiles(input, target));
  TransactionReport transactions;
  if (diags.empty()) {  // needs well-formed copies
    transactions = account_transactions(input);
    check("verify_transactions", transactions.errors);
  }
  RaceReport races;
  if (diags.empty()) {  // reasons about well-formed copies and barriers
    races = check_races(input);
    check("verify_races", races.errors);
  }
  if (!diags.empty()) throw UserError(std::move(diags));

  // 2. Rewrites.
  ir::Kernel k = insert_barrier_init(input);
  after("insert_barrier_init", k);
  k = insert_entry_barrier(k);
  after("insert_entry_barrier", k);
  k = insert_exit_barrier(k);
  after("insert_exit_barrier", k);

  // 3. Emission.
  Lowered out;
  EmitOptions emit;
  emit.hang_guard_ns = hang_guard_ns(opts);
  out.cuda = emit_cuda(k, target, emit);
  if (dump) dump("emit_cuda", out.cuda);
  out.dynamic_smem = static_cast<unsigned>(k.dynamic_shared_bytes());
  out.kernel = std::move(k);
  out.transactions = std::move(transactions.checks);
  out.races = std::move(races.checks);
  out.race_check_seconds = races.seconds;
  return out;
}

}  // namespace tj::codegen

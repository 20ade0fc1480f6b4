// The lowering pipeline, IR to CUDA C++ for one Target. Reads top to bottom in
// lower.cpp: verification passes, then rewrites, then emission.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "codegen/passes/verify_races.h"
#include "codegen/passes/verify_transactions.h"
#include "codegen/target.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// How long a guarded mbarrier wait spins before it reports a hang and traps.
inline constexpr unsigned long long kHangGuardNs = 2'000'000'000ull;

struct LowerOptions {
  // Bounded barrier waits that trap with the barrier's name instead of hanging.
  // Unset: TILEJIT_DEBUG_HANGS=1 turns them on.
  std::optional<bool> debug_hangs;
  // Called with (pass name, IR text) after every pass that runs; also enabled
  // by TILEJIT_DUMP_IR=1 (to stderr) or TILEJIT_DUMP_IR=<pass name>.
  std::function<void(const std::string& pass, const std::string& ir)> dump;
  // Record every work unit's SM and start and end times (codegen/passes/insert_timeline.h):
  // `tilejit run --timeline`. Adds two workspace parameters; the kernel is otherwise the same.
  bool timeline = false;
};

struct Lowered {
  ir::Kernel kernel;  // after the rewrites
  std::string cuda;   // the generated translation unit
  unsigned dynamic_smem = 0;
  // Transaction accounting of each barrier that receives bytes, verified or not (and why).
  std::vector<TransactionCheck> transactions;
  // The race check's lines (verified, not checked and why, allowed by allow_race) and its time.
  std::vector<race::RaceCheck> races;
  double race_check_seconds = 0;
  // Both checks as `tilejit compile` prints them: a "tx check" line per barrier and phase
  // that receives bytes, then a "race check" line per part of the race check. Read the
  // "not verified" and "not checked" lines: they say what was not decided before run time.
  std::string check_report() const;
};

// Verifies `k` for `target` (throws UserError with every diagnostic found),
// rewrites it and emits CUDA C++.
Lowered lower(const ir::Kernel& k, const Target& target, const LowerOptions& opts = {});

// The names of the passes lower() runs, in order.
const std::vector<std::string>& pass_names();

}  // namespace tj::codegen

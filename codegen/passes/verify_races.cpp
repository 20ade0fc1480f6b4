#include "codegen/passes/verify_races.h"

#include <chrono>

#include "codegen/passes/race_checks.h"

namespace tj::codegen {

RaceReport check_races(const ir::Kernel& k) {
  const auto start = std::chrono::steady_clock::now();
  race::Findings f;
  race::check_cluster_epochs(k, f);
  race::check_async_proxy(k, f);
  race::check_arrivals(k, f);
  RaceReport out{std::move(f.errors), std::move(f.checks), 0};
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::vector<Diagnostic> verify_races(const ir::Kernel& k, const Target&) { return check_races(k).errors; }

}  // namespace tj::codegen

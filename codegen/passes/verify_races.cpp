#include "codegen/passes/verify_races.h"

#include <chrono>

#include "codegen/passes/race_checks.h"

namespace tj::codegen {

RaceReport check_races(const ir::Kernel& k) {
  const auto start = std::chrono::steady_clock::now();
  race::Findings f;
  auto lap = start;
  auto part = [&](double& seconds) {
    const auto now = std::chrono::steady_clock::now();
    seconds = std::chrono::duration<double>(now - lap).count();
    lap = now;
  };
  RaceReport out;
  race::check_cluster_epochs(k, f);
  part(out.epochs_seconds);
  race::check_async_proxy(k, f);
  part(out.async_seconds);
  race::check_arrivals(k, f);
  part(out.arrivals_seconds);
  out.errors = std::move(f.errors);
  out.checks = std::move(f.checks);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

std::vector<Diagnostic> verify_races(const ir::Kernel& k, const Target&) { return check_races(k).errors; }

}  // namespace tj::codegen

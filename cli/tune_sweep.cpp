#include "cli/tune_sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "generators/compile_ahead.h"
#include "generators/runner.h"
#include "runtime/error.h"

namespace tj::cli {

namespace {

using Clock = std::chrono::steady_clock;
using Outcome = CandidateResult::Outcome;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The first line of an error message, at most 160 characters: it goes into a table row.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

// Runs candidate `r` (compiled); fills its outcome.
void run_one(const CandidateRunner& run, const samples::Compiled& compiled, int iters, CandidateResult& r) {
  try {
    samples::RunReport report = run(r.config, compiled, iters);
    r.timing = report.timing;
    r.counts_flops = report.flops_per_launch > 0;
    r.work = r.counts_flops ? report.flops_per_launch : report.bytes_per_launch;
    r.outcome = report.check.ok ? Outcome::Passed : Outcome::Mismatch;
    if (!report.check.ok) r.why = first_line(report.check.detail);
  } catch (const rt::RuntimeError& e) {
    // A device fault (illegal address, trap) leaves the context unusable for what follows.
    r.outcome = e.kind() == rt::ErrorKind::Device ? Outcome::DeviceError : Outcome::LaunchError;
    r.why = first_line(e.what());
  } catch (const std::exception& e) {
    r.outcome = Outcome::LaunchError;
    r.why = first_line(e.what());
  }
}

}  // namespace

double CandidateResult::rate(double ms) const {
  if (ms <= 0) return 0;
  return counts_flops ? work / (ms * 1e9) : work / (ms * 1e6);
}

CandidateRunner gpu_runner(const samples::Sample& s, const Device& device) {
  return [&s, device](const samples::Config& c, const samples::Compiled& compiled, int iters) {
    samples::RunOptions opts;
    opts.iters = iters;
    opts.verify = true;
    return samples::run_sample(s, c, compiled, device, opts);
  };
}

Sweep run_sweep(const samples::Sample& s, const std::vector<samples::Config>& candidates, const codegen::Target& target,
                const CandidateRunner& run, const SweepOptions& opts, const SweepProgress& progress) {
  Sweep sweep;
  const Clock::time_point start = Clock::now();
  const size_t n = candidates.size();
  for (const samples::Config& c : candidates) {
    sweep.results.emplace_back();
    sweep.results.back().config = c;
  }
  auto time_is_up = [&] { return opts.max_seconds > 0 && since(start) >= opts.max_seconds; };

  samples::CompileAhead compiles(s, candidates, target, rt::Cache::from_env(), opts.compile_ahead);

  for (size_t i = 0; i < n; ++i) {
    CandidateResult& r = sweep.results[i];
    if (sweep.device_fault) {
      r.why = "not run: an earlier candidate faulted the GPU context";
      continue;
    }
    if (time_is_up()) {
      sweep.cut_short = true;
      char buf[96];
      std::snprintf(buf, sizeof buf, "not run: --max-seconds %g reached", opts.max_seconds);
      r.why = buf;
      continue;
    }
    const Clock::time_point began = Clock::now();
    ++sweep.tried;
    if (progress) progress(i, nullptr);
    samples::CompileOutcome compiled = compiles.get(i);
    sweep.compile_s += compiled.seconds;
    if (!compiled.compiled) {
      r.outcome = Outcome::CompileError;
      r.why = first_line(compiled.error);
    } else {
      run_one(run, *compiled.compiled, opts.iters, r);
      sweep.device_fault = r.outcome == Outcome::DeviceError;
    }
    r.seconds = since(began);
    if (progress) progress(i, &r);
  }
  sweep.compile_s += compiles.finish();  // those started ahead of a cut
  sweep.wall_s = since(start);
  return sweep;
}

std::vector<size_t> ranking(const std::vector<CandidateResult>& results) {
  std::vector<size_t> order(results.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto group = [&](size_t i) { return int(results[i].outcome); };  // Outcome lists the groups in order
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (group(a) != group(b)) return group(a) < group(b);
    if (results[a].outcome == Outcome::Passed) return results[a].median_rate() > results[b].median_rate();
    return false;
  });
  return order;
}

std::string outcome_text(const CandidateResult& r) {
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f %s", r.median_rate(), r.unit());
  switch (r.outcome) {
    case Outcome::Passed: return rate;
    case Outcome::Mismatch: return std::string("verify FAILED (") + rate + "): " + r.why;
    case Outcome::CompileError: return "compile error: " + r.why;
    case Outcome::LaunchError: return "launch error: " + r.why;
    case Outcome::DeviceError: return "device fault: " + r.why;
    case Outcome::NotRun: return r.why.empty() ? "not run" : r.why;
  }
  return "?";
}

}  // namespace tj::cli

// tilejit tune SPEC: sweep the sample's candidate configs for the spec's problem on the
// GPU, verify and time each, print them ranked, record the fastest verified one.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

#include "cli/clusters_fit.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "cli/tune_report.h"
#include "cli/tune_sweep.h"
#include "cli/version.h"
#include "generators/tuning.h"
#include "runtime/driver.h"
#include "runtime/error.h"
#include "samples/builtin.h"

namespace tj::cli {

namespace {

std::string fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string tunable_samples() {
  std::string out;
  for (const samples::Sample* s : samples::all_samples())
    if (!s->tuned_fields().empty()) out += (out.empty() ? "" : ", ") + s->name();
  return out;
}

// How many candidates compile while the GPU runs one: a core each, one core left for the
// GPU's thread; at most 8 (NVRTC takes hundreds of MB per GEMM compile).
unsigned compile_ahead() { return std::clamp(std::thread::hardware_concurrency(), 2u, 9u) - 1; }

// The candidates for the device of `facts`: the sample's for it, and first what `run` decides
// there without a tuning DB (the record is then at least as fast as the default path, up to
// the timing noise), which `chosen` then holds (nullopt where there is none that passes).
std::vector<samples::Config> device_candidates(const samples::Sample& s, const samples::Config& c,
                                               const samples::Sample::DeviceFacts& facts,
                                               std::optional<samples::Sample::DeviceChoice>& chosen) {
  std::vector<samples::Config> candidates = s.device_tuning_candidates(c, facts);
  chosen = s.for_device(c, facts);
  if (!chosen || !s.check_config(chosen->config).empty()) {
    chosen.reset();
    return candidates;
  }
  return samples::default_first(s, std::move(candidates), chosen->config);
}

// --list: the candidates a sweep would try, numbered, without a GPU; with --sms, for a GPU
// of that many SMs.
int list_candidates(const samples::Sample& s, const Spec& spec, std::vector<samples::Config> candidates, const TuneArgs& args) {
  std::optional<samples::Sample::DeviceChoice> chosen;
  if (args.sms > 0) candidates = device_candidates(s, spec.config, modelled_device(args.sms, args.clusters_fit), chosen);
  const std::vector<std::string> fields = samples::varying_fields(s, candidates);
  std::cout << "tune      " << s.name() << ", problem class " << s.problem_class(spec.config) << ": " << candidates.size()
            << " candidates"
            << (args.sms > 0 ? " for a GPU of " + std::to_string(args.sms) + " SMs" : std::string(" (without --sms: none sized to a GPU)"))
            << "; nothing run\n";
  if (chosen) std::cout << "default   candidate 1 is what `run` decides without a tuning DB: " << chosen->line << "\n";
  for (size_t i = 0; i < candidates.size(); ++i)
    std::cout << "  " << (i + 1) << "  " << samples::describe_fields(s, candidates[i], fields) << "\n";
  return kOk;
}

}  // namespace

int cmd_tune(const TuneArgs& args) {
  // Everything about the input is checked before the GPU question.
  Spec spec = load_spec(args.spec);
  const samples::Sample& s = *spec.sample;
  std::vector<samples::Config> candidates = s.tuning_candidates(spec.config);
  if (candidates.empty())
    throw SpecError(spec.file, "$.kernel", s.name() + " has no tuning candidates for this spec; tunable samples: " + tunable_samples());
  if (!args.clusters_fit.empty() && args.sms <= 0)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "--clusters-fit: describes the GPU of --sms N; give --sms too");
  if (args.sms > 0 && !args.list)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "--sms: models a GPU for --list; a sweep runs on the GPU itself: add --list, or drop --sms");
  if (args.list) return list_candidates(s, spec, std::move(candidates), args);
  const std::string db_path = samples::tuning_db_path(args.db);
  if (db_path.empty())
    throw rt::RuntimeError(rt::ErrorKind::Usage, "--db: no place for the tuning DB is known (no TILEJIT_TUNING_DB, "
                                                 "TILEJIT_CACHE_DIR, XDG_CACHE_HOME or HOME): give --db FILE");
  if (std::string why = samples::why_unwritable(db_path); !why.empty())
    throw rt::RuntimeError(rt::ErrorKind::Usage, (args.db.empty() ? "tuning DB " : "--db ") + db_path + ": cannot be written (" +
                                                     why + "); give --db a writable file");

  std::string why;
  if (!rt::driver_available(&why)) {
    std::cout << "tune      not run: no GPU here (" << why << "). Tuning needs an sm_90a or sm_100a GPU.\n";
    return kNoGpu;
  }
  const Device device = open_device(args.device);
  const rt::DeviceInfo& dev = device.info();
  const codegen::Target target = device_target(device.context());
  std::optional<samples::Sample::DeviceChoice> chosen;
  candidates = device_candidates(s, spec.config, samples::device_facts(device), chosen);
  const std::vector<std::string> fields = samples::varying_fields(s, candidates);
  const unsigned ahead = compile_ahead();

  // The class, not the spec's exact problem: the record serves every problem of it.
  std::cout << "tune      " << s.name() << ", problem class " << s.problem_class(spec.config) << " (what one record serves), on "
            << dev.name << " (" << target.arch
            << ", " << dev.sm_count << " SMs)\n"
            << "          " << candidates.size() << " candidates; each compiled (through the disk cache), verified against "
            << "the reference and timed over " << args.iters << " launches\n";
  if (chosen) std::cout << "default   candidate 1 is what `run` decides without a tuning DB: " << chosen->line << "\n";
  std::vector<std::string> named;
  for (const std::string& f : s.tuned_fields())
    if (spec.config.named.count(f)) named.push_back(f);
  if (!named.empty()) {
    std::cout << "note      each candidate replaces what the spec sets for";
    for (size_t i = 0; i < named.size(); ++i) std::cout << (i ? ", " : " ") << named[i];
    std::cout << "\n";
  }
  std::cout.flush();

  std::vector<std::string> labels;
  for (const samples::Config& c : candidates) labels.push_back(samples::describe_fields(s, c, fields));
  Progress progress(std::cerr, isatty(STDERR_FILENO) == 1, candidates.size(), args.max_seconds);
  SweepOptions opts;
  opts.iters = args.iters;
  opts.max_seconds = args.max_seconds;
  opts.compile_ahead = ahead;
  const Sweep sweep = run_sweep(s, candidates, target, gpu_runner(s, device), opts, [&](size_t i, const CandidateResult* r) {
    if (!r) progress.begin(i, labels[i]);
    else progress.end(i, labels[i], outcome_text(*r) + fixed(" (%.1f s)", r->seconds));
  });
  progress.close();

  std::cout << "\n";
  print_tune_table(std::cout, s, sweep.results, fields);
  std::cout << "\n";
  print_sweep_summary(std::cout, sweep, args.max_seconds, ahead);
  return record_best(std::cout, s, sweep, {dev.name, db_path, utc_now(), version_text()}, fields) ? kOk : kMismatch;
}

}  // namespace tj::cli

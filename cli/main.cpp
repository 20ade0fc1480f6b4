// tilejit: compile and launch DSL kernels described by JSON specs.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "cli/version.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/ir.h"
#include "generators/plugin_loader.h"
#include "runtime/compiler.h"
#include "runtime/error.h"
#include "samples/builtin.h"

namespace {

int exit_code(tj::rt::ErrorKind k) {
  using tj::rt::ErrorKind;
  switch (k) {
    case ErrorKind::NoDriver: return tj::cli::kNoGpu;
    case ErrorKind::Compile: return tj::cli::kCompile;
    case ErrorKind::Launch:
    case ErrorKind::Device: return tj::cli::kDevice;
    case ErrorKind::Usage:
    case ErrorKind::Io: return tj::cli::kBadInput;
  }
  return tj::cli::kDevice;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tj::cli;
  // tilejit's own cache is the one to hit: a cold compile is a compile (runtime/compiler.h).
  tj::rt::disable_nvrtc_result_cache();
  CLI::App app{"tilejit: a JIT kernel generator for Hopper and Blackwell, driven by a C++ DSL"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tilejit " + version_text());

  std::vector<std::string> plugin_flags;
  app.add_option("--plugin", plugin_flags,
                 "Load kernel generators from this shared library (repeatable; TILEJIT_PLUGINS=a.so:b.so loads more, "
                 "first). Give it before the command: tilejit --plugin libmine.so list")
      ->type_name("LIB.so");

  app.add_subcommand("list", "List the kernels (samples and plugins' generators) a spec can name");

  app.add_subcommand("reference", "Print the DSL reference (every op, its PTX, the targets that support it) as Markdown");

  std::string info_spec;
  CLI::App* info = app.add_subcommand("info", "Show the GPU, and for a spec the cluster occupancy it would get");
  info->add_option("spec", info_spec, "A spec file (optional)");
  // --device on info, run and tune: parsed by tilejit (digits only), not by CLI11.
  std::string device_text;
  const char* device_help = "The CUDA device to use, 0, 1, ... (default: $TILEJIT_DEVICE, else 0)";
  info->add_option("--device", device_text, device_help)->type_name("N");

  CompileArgs ca;
  std::string emit = "ir,cuda,ptx,cubin";
  CLI::App* compile = app.add_subcommand("compile", "Verify, lower and compile a spec; write what --emit names");
  compile->add_option("spec", ca.spec, "The spec file")->required();
  compile->add_option("--arch", ca.arch, "Target architecture")->check(CLI::IsMember({"sm_90a", "sm_100a"}));
  compile->add_option("--emit", emit,
                      "Comma-separated: ir, cuda, ptx, cubin, sass (sass: through cuobjdump or nvdisasm, found in PATH "
                      "or $CUDA_ROOT/bin; exit 3 when neither is)");
  compile->add_option("-o,--out", ca.out_dir, "Output folder (created if missing)");
  compile
      ->add_option("--sms", ca.sms,
                   "Decide what the spec leaves to the device (the GEMM's bn 0, splits 0, schedule and multicast auto) "
                   "for a GPU of N SMs, as `run` does on one, print it on the 'auto' line and compile that kernel. Not "
                   "known here: the tuning DB, and, unless --clusters-fit says, how many clusters the GPU runs at once "
                   "(clusters of 2 count as half the SMs; no 2x2 packing; split-K in the cluster keeps a CTA per plane), "
                   "so `run` may still choose otherwise")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  compile->add_option("--clusters-fit", ca.clusters_fit,
                      "With --sms: how many clusters of each size that GPU runs at once, CTAS=COUNT pairs, e.g. 2=66,4=30 "
                      "(an H200's; `tilejit info SPEC` reports them on a GPU); the choices that weigh clusters (the GEMM's 2x2 packing, split-K's planes) then decide "
                      "as `run` does there. Sizes not given count as the SMs / CTAS")
      ->type_name("LIST");
  bool debug_hangs = false;
  // Exactly what is guarded: barrier.cluster.wait has no bounded form in PTX, and bulk_wait
  // waits only for this thread's own TMA stores, which complete or fault on their own.
  const char* debug_hangs_help =
      "Bound every mbarrier wait (wait(), a Pipeline's waits) to 2 s, then print the barrier, phase, CTA and "
      "thread and trap: exit 5 instead of a hang (= TILEJIT_DEBUG_HANGS=1). Not bounded: cluster_wait and "
      "cluster_sync (a missing cluster arrival still hangs), bulk_wait and bulk_wait_read";
  compile->add_flag("--debug-hangs", debug_hangs, debug_hangs_help);

  RunArgs ra;
  CLI::App* run = app.add_subcommand("run", "Compile, launch, verify against the reference and time a spec");
  run->footer("run compiles the kernel once, through the disk cache (TILEJIT_CACHE_DIR); its 'compile' line gives that "
              "compile's time, part by part, and whether it was a cache hit. Cold and cache-hit compile times side by "
              "side: tilejit_bench_jit [--sample NAME].");
  run->add_option("spec", ra.spec, "The spec file")->required();
  run->add_option("--iters", ra.iters, "Timed launches")->check(CLI::Range(0, 100000));
  bool no_verify = false;
  run->add_flag("--no-verify", no_verify, "Skip the check against the host reference");
  std::string seed_text;
  run->add_option("--seed", seed_text, "Seed for the random inputs (0 to 2^64 - 1)");
  run->add_option("-o,--out", ra.out_dir, "Where the PTX goes when no GPU is present");
  run->add_flag("--debug-hangs", debug_hangs, debug_hangs_help);
  bool no_tuned = false;
  run->add_flag("--no-tuned", no_tuned, "Run the spec's config even when the tuning DB has one for this problem");
  run->add_option("--device", device_text, device_help)->type_name("N");
  run->add_option("--timeline", ra.timeline,
                  "Record one more launch with each work unit's SM, start and end, and draw it as a per-SM Gantt chart "
                  "(SVG) at this path, with the makespan and its lower bound; a path ending in .csv gets the units as CSV "
                  "(cta, sm, unit, start, end, duration in ns) instead")
      ->type_name("FILE.svg|FILE.csv");

  TuneArgs ta;
  CLI::App* tune = app.add_subcommand(
      "tune", "Sweep what `run` would choose, then tiles, clusters and rasterization (stages sized to fit), for a spec's "
              "problem on the GPU; verify and time each; record the fastest for `run`");
  tune->add_option("spec", ta.spec, "The spec file (its problem: shape, types, layout)")->required();
  tune->add_option("--iters", ta.iters, "Timed launches per candidate")->check(CLI::Range(1, 100000))->capture_default_str();
  tune->add_option("--db", ta.db, "The tuning DB (default: $TILEJIT_TUNING_DB, else <cache dir>/tuning.json)");
  std::string max_seconds_text;
  tune->add_option("--max-seconds", max_seconds_text, "Start no new candidate after this many seconds (default: no limit)");
  tune->add_option("--device", device_text, device_help)->type_name("N");
  tune->add_flag("--list", ta.list, "Print the candidates a sweep would try, numbered; run nothing (no GPU needed)");
  tune->add_option("--sms", ta.sms, "With --list: the candidates for a GPU of N SMs (the default path's decision first, tiles "
                                    "sized to its waves last)")
      ->type_name("N")
      ->check(CLI::Range(1, 1024));
  tune->add_option("--clusters-fit", ta.clusters_fit,
                   "With --sms: how many clusters of each size that GPU runs at once, CTAS=COUNT,... (e.g. 2=66,4=30)")
      ->type_name("LIST");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kBadInput;
  }

  // The lowering reads the same switch from the environment, and the cache key
  // covers the generated code, so guarded and plain builds never mix.
  if (debug_hangs) setenv("TILEJIT_DEBUG_HANGS", "1", 1);

  try {
    for (const std::string& path : tj::samples::plugin_paths(plugin_flags))
      tj::samples::load_plugin(tj::samples::registry(), path);
    if (app.got_subcommand("list")) return cmd_list();
    if (app.got_subcommand("reference")) return cmd_reference();
    std::optional<int> device;
    for (CLI::App* sub : {info, run, tune})
      if (app.got_subcommand(sub) && sub->count("--device")) device = parse_device_flag(device_text);
    if (app.got_subcommand("info")) return cmd_info(info_spec, device);
    if (app.got_subcommand("compile")) {
      ca.emit.clear();
      std::string item;
      for (char ch : emit + ",") {
        if (ch != ',') { item += ch; continue; }
        if (item.empty()) continue;
        if (std::find(emit_kinds().begin(), emit_kinds().end(), item) == emit_kinds().end()) {
          std::cerr << "error: --emit: unknown kind '" << item << "'; use ir, cuda, ptx, cubin, sass\n";
          return kBadInput;
        }
        ca.emit.push_back(item);
        item.clear();
      }
      if (ca.emit.empty()) {
        std::cerr << "error: --emit: name at least one of ir, cuda, ptx, cubin, sass\n";
        return kBadInput;
      }
      return cmd_compile(ca);
    }
    if (app.got_subcommand("run")) {
      ra.verify = !no_verify;
      if (!seed_text.empty()) {
        // Digits only: CLI11 would wrap -1 to 2^64 - 1 and accept overflow silently.
        errno = 0;
        char* end = nullptr;
        const unsigned long long v = std::strtoull(seed_text.c_str(), &end, 10);
        if (seed_text.find_first_not_of("0123456789") != std::string::npos || *end != '\0' || errno == ERANGE) {
          std::cerr << "error: --seed: '" << seed_text << "' is not a whole number from 0 to 18446744073709551615\n";
          return kBadInput;
        }
        ra.seed = v;
      }
      ra.tuned = !no_tuned;
      ra.device = device;
      if (run->count("--timeline") && ra.timeline.empty()) {
        std::cerr << "error: --timeline: the file name is empty\n";
        return kBadInput;
      }
      return cmd_run(ra);
    }
    if (app.got_subcommand("tune")) {
      if (tune->count("--db") && ta.db.empty()) {
        std::cerr << "error: --db: the file name is empty\n";
        return kBadInput;
      }
      if (tune->count("--max-seconds")) {
        // strtod alone takes "nan", "inf" and "1e999"; a limit must be a finite positive number.
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(max_seconds_text.c_str(), &end);
        if (max_seconds_text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || !(v > 0)) {
          std::cerr << "error: --max-seconds: '" << max_seconds_text << "' is not a number of seconds greater than 0\n";
          return kBadInput;
        }
        ta.max_seconds = v;
      }
      ta.device = device;
      return cmd_tune(ta);
    }
  } catch (const SpecError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const tj::samples::PluginError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  } catch (const tj::UserError& e) {
    std::cerr << e.what() << "\n";
    return kBadInput;
  } catch (const tj::rt::RuntimeError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return exit_code(e.kind());
  } catch (const tj::ir::InternalError& e) {
    std::cerr << e.what() << "\n(this is a bug in tilejit; please report it with the spec)\n";
    return kDevice;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kDevice;
  }
  return kBadInput;
}

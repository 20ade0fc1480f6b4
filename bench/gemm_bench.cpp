// The GEMM sample against cuBLAS, shape by shape, in one run: each shape is verified once
// (the instance's check against cuBLAS), then timed interleaved with cublasGemmEx (with a
// fused epilogue in the config: cublasLtMatmul with the same epilogue) on the
// same stream and the same device buffers. Prints min/median/max TFLOP/s of both, the
// ratio of medians, and a markdown table. Each shape runs the config `tilejit run` would
// run for it: the tuning DB's record for this device and the shape's problem class when
// `tilejit tune` made one and --config names no tuned field (--no-tuned: never), else
// the sample's defaults with --config. So a shape tuned to split-K (1024x1024x8192)
// is measured with it. cuBLAS's result is verified too, from the configuration it was
// timed in; --sustained adds the ratio over long blocks of launches (the card at its
// sustained clocks); --versus-plain, with a fused epilogue, also times our plain GEMM of
// the same config against the fused one (what the epilogue costs). Exit: 0 all verified, 1 a verification failed,
// 2 bad flags or config, 3 no GPU or cuBLAS, 4 compile error, 5 launch or device error.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <algorithm>
#include <functional>
#include <map>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/gemm_options.h"
#include "bench/interleaved_timing.h"
#include "cli/spec.h"
#include "dsl/diagnostic.h"
#include "generators/runner.h"
#include "generators/tuning.h"
#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/cublas.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "samples/builtin.h"
#include "samples/gemm_host.h"

namespace {

using namespace tj;

struct Options {
  std::string shapes, layout = "tn", config;
  bool tuned = true;  // --no-tuned: the defaults (and --config) only
  bool versus_plain = false;  // --versus-plain: the fused kernel against ours without the epilogue
  std::map<std::string, int64_t> versus;  // --versus: ours against ours with these params
  std::optional<ir::Dim3> versus_cluster; // ... and this cluster
  int iters = 50, reps = 5;
  int sustained = 300, sustained_reps = 3;  // --sustained: launches per block under sustained load (0: none)
  uint64_t seed = 1;
};

struct Row {
  std::string shape, types, layout, launch, tuned, error;
  samples::Check check;         // our D against the reference
  samples::Check cublas_check;  // cuBLAS's D, from the configuration it was timed in
  // cuBLAS's D failed the check as timed but passed with reduced-precision reduction
  // disallowed: the call is right, cuBLAS's default summed split-K partials in D's 16-bit type.
  bool cublas_coarse = false;
  bench::Spread ours, cublas;  // TFLOP/s
  bench::Spread paired;        // ours / cuBLAS within each repetition
  std::optional<bench::Spread> sustained;  // the same in blocks of o.sustained launches
  std::optional<bench::Spread> plain;      // --versus-plain / --versus: the variant's TFLOP/s, timed against ours
  bench::Spread fused, fused_paired;       // the fused kernel's TFLOP/s in that timing; fused / plain per repetition
  int exit_code = 0;
};

int exit_code_of(rt::ErrorKind k) {
  switch (k) {
    case rt::ErrorKind::NoDriver: return 3;
    case rt::ErrorKind::Compile: return 4;
    case rt::ErrorKind::Launch:
    case rt::ErrorKind::Device: return 5;
    case rt::ErrorKind::Usage:
    case rt::ErrorKind::Io: return 2;
  }
  return 5;
}

bench::Spread tflops(const std::vector<double>& ms, double flops) {
  const bench::Spread t = bench::spread(ms);  // the fastest time is the highest rate
  return {flops / (t.max * 1e9), flops / (t.median * 1e9), flops / (t.min * 1e9)};
}

std::string dims(const rt::Dim3& d) { return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z); }

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&t));
  return buf;
}

// Our GEMM of `config` (as the spec and tuning DB made it, before the device's choices)
// with `overrides` (and `cluster`) applied, then made concrete for the device as ours was,
// verified, and timed interleaved with `ours`: --versus-plain (the fused epilogue's fields
// off: what the epilogue costs) and --versus (any fields).
void time_variant(const samples::Sample& gemm, samples::Config config, const std::map<std::string, int64_t>& overrides,
                  std::optional<ir::Dim3> cluster, const Options& o, const Device& device, const codegen::Target& target,
                  rt::Cache& cache, CUstream stream, const std::function<void(int)>& ours, Row& row) {
  // Named, as a spec names them: the default path keeps them (a variant of swap 0 is the
  // default path without the rules that swap).
  for (const auto& [key, value] : overrides) config.params[key] = value, config.named.insert("params." + key);
  if (cluster) config.cluster = *cluster, config.named.insert("cluster");
  if (std::optional<samples::Sample::DeviceChoice> d = gemm.for_device(config, samples::device_facts(device))) {
    config = d->config;
    std::printf("  variant %s\n", d->line.c_str());
  }
  std::printf("  variant cluster %s\n", config.cluster.str().c_str());
  JitKernel kernel = tj::load(samples::compile_sample(gemm, config, target, &cache), device);
  std::unique_ptr<samples::Instance> inst = gemm.instantiate(config, o.seed);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(gemm, config, kernel, args);
  inst->poison();
  kernel.launch(plan.grid, args);
  kernel.synchronize();
  const samples::Check check = inst->verify();
  std::printf("  variant verify %s: %s\n", check.ok ? "PASSED" : "FAILED", check.detail.c_str());
  if (!check.ok) row.check = check;  // a wrong variant fails the row
  auto variant = [&](int n) { kernel.launch_repeated(plan.grid, args, n, stream); };
  const bench::Interleaved t = bench::time_interleaved(stream, o.iters, o.reps, 3, ours, variant);
  row.plain = tflops(t.b_ms, inst->flops_per_launch());
  row.fused = tflops(t.a_ms, inst->flops_per_launch());
  row.fused_paired = bench::spread(t.paired_speedups());
  std::printf("  variant TFLOP/s min %.1f  median %.1f  max %.1f; ours / variant %.3f (medians), per rep %.3f / %.3f / %.3f\n",
              row.plain->min, row.plain->median, row.plain->max, row.fused.median / row.plain->median, row.fused_paired.min,
              row.fused_paired.median, row.fused_paired.max);
}

// Verifies and times one shape; fills `row` (an error leaves it with exit_code set).
void run_shape(const samples::Sample& gemm, const bench::MatmulSize& size, const Options& o, const Device& device,
               const codegen::Target& target, rt::Cache& cache, rt::Cublas& blas, const samples::TunedQuery& tuned, Row& row) {
  const std::string spec_text = bench::gemm_spec(gemm, size, o.layout, o.config);
  cli::Spec spec = cli::parse_spec(spec_text, "gemm " + size.str());
  // The config `tilejit run` would use for this shape (generators/tuning.h).
  const samples::TunedChoice choice = samples::decide_tuned(gemm, spec.config, tuned);
  spec.config = choice.config;
  row.tuned = choice.line;
  // ... and made concrete for this GPU as `tilejit run` does (splits 0: S decided here).
  const samples::Config before_device = spec.config;
  if (std::optional<samples::Sample::DeviceChoice> d = gemm.for_device(spec.config, samples::device_facts(device))) {
    spec.config = d->config;
    row.tuned += (row.tuned.empty() ? "" : "; ") + d->line;
  }
  JitKernel kernel = tj::load(samples::compile_sample(gemm, spec.config, target, &cache), device);
  std::unique_ptr<samples::Instance> inst = gemm.instantiate(spec.config, o.seed);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(gemm, spec.config, kernel, args);
  const rt::LaunchConfig& lc = plan.config;
  row.launch = std::to_string(lc.grid_clusters.count()) + " clusters of " + dims(lc.cluster) +
               (plan.persistent ? " (persistent: " + std::to_string(plan.max_active_clusters) + " fit)" : "") +
               (plan.scheduled ? " (the schedule's grid)" : "") + ", " + std::to_string(lc.block.count()) + " threads, " +
               std::to_string(lc.dynamic_smem) + " B dynamic smem";

  auto* g = dynamic_cast<samples::GemmInstance*>(inst.get());
  if (!g)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "the gemm sample's instance is not a samples::GemmInstance: make "
                                                 "Gemm::instantiate return make_gemm_instance(...)");
  const samples::GemmShape& s = g->shape();
  if (s.m != size.m || s.n != size.n || s.k != size.k)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "the gemm sample made a " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
                                                     std::to_string(s.k) + " problem from params m, n, k = " + size.str());
  row.types = std::string(ir::scalar_name(s.in)) + "->" + std::string(ir::scalar_name(s.out));
  // With a fused epilogue the reference is cuBLASLt's matmul with that epilogue.
  const std::string ref = g->reference_name();
  if (ref != "cuBLAS") row.types += " (vs " + ref + ")";
  row.layout = s.layout == samples::GemmLayout::TN ? "tn" : "nn";
  std::printf("\ngemm %s %s %s, alpha %g beta %g: %s\n", size.str().c_str(), row.layout.c_str(), row.types.c_str(), s.alpha,
              s.beta, row.launch.c_str());
  if (!row.tuned.empty()) std::printf("  tuned   %s\n", row.tuned.c_str());

  inst->poison();
  kernel.launch(plan.grid, args);
  kernel.synchronize();
  row.check = inst->verify();
  std::printf("  verify  %s: %s\n", row.check.ok ? "PASSED" : "FAILED", row.check.detail.c_str());

  // cuBLAS is timed without the copy of C into D that beta != 0 needs before each call
  // (run_cublas's refresh_c): it reads D as its C, the same traffic, and ours pays no copy.
  auto ours = [&](int n) { kernel.launch_repeated(plan.grid, args, n, lc.stream); };
  auto theirs = [&](int n) {
    for (int i = 0; i < n; ++i) g->run_cublas(blas, lc.stream, /*refresh_c=*/false);
  };
  bench::Interleaved t = bench::time_interleaved(lc.stream, o.iters, o.reps, 3, ours, theirs);
  row.ours = tflops(t.a_ms, inst->flops_per_launch());
  row.cublas = tflops(t.b_ms, inst->flops_per_launch());
  row.paired = bench::spread(t.paired_speedups());
  std::printf("  ours    TFLOP/s min %.1f  median %.1f  max %.1f\n", row.ours.min, row.ours.median, row.ours.max);
  std::printf("  %-7s TFLOP/s min %.1f  median %.1f  max %.1f\n", ref == "cuBLAS" ? "cuBLAS" : "ref", row.cublas.min,
              row.cublas.median, row.cublas.max);
  std::printf("  ratio   %.3f (median ours / median cuBLAS; %d reps of %d launches each); per rep %.3f / %.3f / %.3f "
              "(min / median / max of ours / cuBLAS within a rep)\n",
              row.ours.median / row.cublas.median, o.reps, o.iters, row.paired.min, row.paired.median, row.paired.max);
  if (o.sustained > 0) {
    // Long blocks: the card at its sustained clocks (power and thermal limits), not its boost.
    const bench::Interleaved long_blocks = bench::time_interleaved(lc.stream, o.sustained, o.sustained_reps, 1, ours, theirs);
    row.sustained = bench::spread(long_blocks.paired_speedups());
    std::printf("  sustained %.3f / %.3f / %.3f (min / median / max of ours / cuBLAS over %d reps of %d launches each)\n",
                row.sustained->min, row.sustained->median, row.sustained->max, o.sustained_reps, o.sustained);
  }
  if (o.versus_plain && ref != "cuBLAS")
    time_variant(gemm, before_device, {{"bias", 0}, {"col_scale", 0}, {"act", 0}, {"residual", 0}}, std::nullopt, o, device, target,
                 cache, lc.stream, ours, row);
  if (!o.versus.empty() || o.versus_cluster)
    time_variant(gemm, before_device, o.versus, o.versus_cluster, o, device, target, cache, lc.stream, ours, row);
  // What cuBLAS computed, as it is timed (with C in D first): a wrong reference call
  // would make the timing meaningless.
  g->run_cublas(blas, lc.stream);
  rt::check(rt::driver().cuStreamSynchronize(lc.stream), "cuStreamSynchronize (cuBLAS's result)");
  row.cublas_check = inst->verify();
  std::printf("  %s verify %s: %s\n", ref.c_str(), row.cublas_check.ok ? "PASSED" : "FAILED", row.cublas_check.detail.c_str());
  if (!row.cublas_check.ok && ref == "cuBLAS" && ir::scalar_bytes(s.out) == 2) {
    // cuBLAS may sum split-K partials of a 16-bit D in that type (its default, coarser than
    // the f32 tolerance): the same call with that disallowed tells a coarse sum from a wrong call.
    blas.allow_reduced_precision_reduction(false);
    g->run_cublas(blas, lc.stream);
    rt::check(rt::driver().cuStreamSynchronize(lc.stream), "cuStreamSynchronize (cuBLAS's result, f32 reduction)");
    const samples::Check strict = inst->verify();
    blas.allow_reduced_precision_reduction(true);
    row.cublas_coarse = strict.ok;
    const std::string why = strict.ok ? "the call is right; the timed default sums split-K partials in " +
                                            std::string(ir::scalar_name(s.out)) +
                                            " (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION unset)"
                                      : strict.detail;
    std::printf("  cuBLAS verify with reduced-precision reduction disallowed %s: %s\n", strict.ok ? "PASSED" : "FAILED", why.c_str());
  }
}

// --versus-plain: the fused kernel against ours without its epilogue, timed in one loop;
// --versus: ours against the variant.
void print_plain_table(const std::vector<Row>& rows, const std::string& variant) {
  std::printf("\n| M x N x K | ours TFLOP/s (min / median / max) | %s TFLOP/s (min / median / max) | ours / that | per rep (min / median / max) |\n",
              variant.c_str());
  std::printf("|---|---|---|---|---|\n");
  for (const Row& r : rows)
    if (r.plain)
      std::printf("| %s | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.3f | %.3f / %.3f / %.3f |\n", r.shape.c_str(), r.fused.min,
                  r.fused.median, r.fused.max, r.plain->min, r.plain->median, r.plain->max, r.fused.median / r.plain->median,
                  r.fused_paired.min, r.fused_paired.median, r.fused_paired.max);
}

void print_table(const std::vector<Row>& rows, const Options& o) {
  const std::string sustained = o.sustained > 0 ? " sustained, " + std::to_string(o.sustained) + "-launch blocks (min / median / max) |" : "";
  std::printf("\n| M x N x K | layout | types | ours TFLOP/s (min / median / max) | cuBLAS TFLOP/s (min / median / max) | ours / cuBLAS | per rep (min / median / max) |%s verified |\n",
              sustained.c_str());
  std::printf("|---|---|---|---|---|---|---|%s---|\n", o.sustained > 0 ? "---|" : "");
  for (const Row& r : rows) {
    if (!r.error.empty()) {
      std::printf("| %s | %s | %s | error | error | - | - |%s %s |\n", r.shape.c_str(), r.layout.c_str(), r.types.c_str(),
                  o.sustained > 0 ? " - |" : "", r.error.c_str());
      continue;
    }
    char extra[96] = "";
    if (r.sustained) std::snprintf(extra, sizeof extra, " %.3f / %.3f / %.3f |", r.sustained->min, r.sustained->median, r.sustained->max);
    const std::string verified = !r.check.ok            ? "FAILED"
                                 : r.cublas_coarse      ? "yes (cuBLAS's split-K sum in 16 bits)"
                                 : !r.cublas_check.ok   ? "cuBLAS FAILED"
                                                        : "yes";
    std::printf("| %s | %s | %s | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f | %.3f | %.3f / %.3f / %.3f |%s %s |\n", r.shape.c_str(),
                r.layout.c_str(), r.types.c_str(), r.ours.min, r.ours.median, r.ours.max, r.cublas.min, r.cublas.median,
                r.cublas.max, r.ours.median / r.cublas.median, r.paired.min, r.paired.median, r.paired.max, extra, verified.c_str());
  }
}

// --versus: each key=value names a parameter of the GEMM sample, or the cluster; the values
// are read as a spec's would be (names such as act=gelu included, a cluster as NxM or NxMxL),
// and checked together with --config's (the variant is --config with these changed).
struct Versus {
  std::map<std::string, int64_t> params;
  std::optional<ir::Dim3> cluster;
};
Versus parse_versus(const std::string& text, const std::string& config) {
  const samples::Sample* gemm = samples::find_sample("gemm");
  if (!gemm) throw bench::OptionError("--versus: this build has no 'gemm' sample");
  std::vector<std::string> keys;
  std::string params;  // the items other than the cluster, read as a spec's
  Versus out;
  for (const std::string& item : bench::split(text, ',')) {
    const std::string key = item.substr(0, item.find('='));
    if (key == "cluster" && item.find('=') != std::string::npos) {
      out.cluster = bench::parse_cluster(item.substr(item.find('=') + 1), "--versus");
      continue;
    }
    params += (params.empty() ? "" : ",") + item;
    bool known = false;
    std::string names;
    for (const samples::ParamSpec& p : gemm->params()) {
      known |= p.name == key;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    if (item.find('=') == std::string::npos || !known)
      throw bench::OptionError("--versus: '" + item + "' is not key=value with a key among the gemm sample's parameters (" +
                               names + ") or cluster");
    keys.push_back(key);
  }
  if (keys.empty()) return out;
  // --config's items the variant keeps: those --versus does not change.
  for (const std::string& item : config.empty() ? std::vector<std::string>{} : bench::split(config, ',')) {
    const std::string key = item.substr(0, item.find('='));
    if (std::find(keys.begin(), keys.end(), key) == keys.end() && !(key == "cluster" && out.cluster)) params += "," + item;
  }
  const cli::Spec spec = cli::parse_spec(bench::gemm_spec(*gemm, {64, 64, 64}, "tn", params), "--versus");
  for (const std::string& key : keys) out.params[key] = spec.config.param(key);
  return out;
}

int run(const Options& o) {
  const std::vector<bench::MatmulSize> sizes = o.shapes.empty() ? bench::default_sizes() : bench::parse_sizes(o.shapes);
  const samples::Sample* gemm = samples::find_sample("gemm");
  if (!gemm) {
    std::string names;
    for (const samples::Sample* s : samples::all_samples()) names += (names.empty() ? "" : ", ") + s->name();
    std::fprintf(stderr, "error: this build has no 'gemm' sample (samples::all_samples() holds: %s); build one that "
                 "registers samples/gemm.cpp\n", names.c_str());
    return 2;
  }
  // The first spec is parsed before any GPU work, so that a bad --config stops at once.
  cli::parse_spec(bench::gemm_spec(*gemm, sizes.front(), o.layout, o.config), "gemm " + sizes.front().str());

  std::string why;
  if (!rt::driver_available(&why)) {
    std::fprintf(stderr, "error: tilejit_bench_gemm needs a GPU: %s\n", why.c_str());
    return 3;
  }
  const Device device = Device::get();
  const rt::DeviceInfo& info = device.info();
  const std::optional<codegen::Target> target = codegen::Target::parse(device.arch());
  if (!target) {
    std::fprintf(stderr, "error: %s is %s; tilejit runs kernels on sm_90a or sm_100a\n", info.name.c_str(),
                 device.arch().c_str());
    return 3;
  }
  rt::Cublas blas;
  rt::Cache cache = rt::Cache::from_env();
  std::optional<samples::TuningDb> db;
  samples::TunedQuery tuned;
  tuned.enabled = o.tuned;
  tuned.device = info.name;
  tuned.db = [&]() -> const samples::TuningDb& {
    if (!db) db = samples::TuningDb::load(samples::tuning_db_path(""));
    return *db;
  };
  const int driver = rt::driver().version;
  std::printf("device %s (%s, %d SMs), driver %d.%d, NVRTC %s, cuBLAS %s, %s\n", info.name.c_str(), target->arch.c_str(),
              info.sm_count, driver / 1000, driver % 1000 / 10, rt::nvrtc_version().c_str(), rt::Cublas::version().c_str(),
              now_utc().c_str());
  std::printf("%d reps of %d launches each, interleaved with cublasGemmEx (cublasLtMatmul with the same epilogue where the "
              "config fuses one; fp32 compute) on one stream; --config '%s'\n",
              o.reps, o.iters, o.config.c_str());

  std::vector<Row> rows;
  for (const bench::MatmulSize& size : sizes) {
    Row& row = rows.emplace_back();
    row.shape = size.str();
    row.layout = o.layout;
    try {
      run_shape(*gemm, size, o, device, *target, cache, blas, tuned, row);
    } catch (const cli::SpecError& e) {
      row.error = e.what(), row.exit_code = 2;
    } catch (const UserError& e) {
      row.error = e.what(), row.exit_code = 2;
    } catch (const rt::RuntimeError& e) {
      row.error = e.what(), row.exit_code = exit_code_of(e.kind());
    } catch (const std::exception& e) {  // an internal error: a bug in the sample or in tilejit
      row.error = e.what(), row.exit_code = 5;
    }
    if (!row.error.empty()) std::printf("\ngemm %s: error: %s\n", row.shape.c_str(), row.error.c_str());
    // A device fault poisons the context: later shapes would only repeat it.
    if (row.exit_code == 5) break;
  }
  print_table(rows, o);
  if (o.versus_plain) print_plain_table(rows, "ours without the fused epilogue");
  if (!o.versus.empty() || o.versus_cluster) {
    std::string what = o.versus_cluster ? "cluster=" + o.versus_cluster->str() : "";
    for (const auto& [key, value] : o.versus) what += (what.empty() ? "" : ",") + key + "=" + std::to_string(value);
    print_plain_table(rows, "ours with " + what);
  }

  int code = 0;
  for (const Row& r : rows) code = code ? code : r.exit_code;
  for (const Row& r : rows) code = code ? code : (r.check.ok && (r.cublas_check.ok || r.cublas_coarse) ? 0 : 1);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  tj::rt::disable_nvrtc_result_cache();  // cold means compiled (runtime/compiler.h)
  CLI::App app{"tilejit_bench_gemm: the GEMM sample against cuBLAS, interleaved in one run"};
  Options o;
  app.add_option("--shapes", o.shapes, "MxNxK,... (default: 4096^3, 6144^3, 8192^3, 4224x4224x4096, 8192x8192x1024, 1024x1024x8192, 2048^3)");
  app.add_option("--layout", o.layout, "B as N x K (tn) or K x N (nn), row-major")->check(CLI::IsMember({"tn", "nn"}));
  app.add_option("--iters", o.iters, "Launches between two events")->check(CLI::Range(1, 100000));
  app.add_option("--reps", o.reps, "Repetitions of {ours x iters, cuBLAS x iters}")->check(CLI::Range(1, 1000));
  app.add_option("--sustained", o.sustained, "Also time blocks of this many launches each, 3 reps (0: not)")->check(CLI::Range(0, 100000));
  app.add_option("--config", o.config, "key=value,... for the GEMM sample (e.g. bm=128,bn=256,stages=4,cluster=2x1,splits=4)");
  bool no_tuned = false;
  app.add_flag("--versus-plain", o.versus_plain,
               "With a fused epilogue in --config: also time our plain GEMM of the same config against the fused one");
  std::string versus;
  app.add_option("--versus", versus,
                 "key=value,... of the GEMM sample's params (e.g. pdl=0): also time ours against ours with those set, "
                 "interleaved; each named as a spec names it, so the device's decisions leave it as given");
  app.add_flag("--no-tuned", no_tuned, "Ignore the tuning DB: run the sample's defaults (with --config) for every shape");
  std::string seed = "1";
  app.add_option("--seed", seed, "Seed of the random inputs (0 to 2^64 - 1)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    o.seed = bench::parse_seed(seed);
    o.tuned = !no_tuned;
    if (!versus.empty()) {
      Versus v = parse_versus(versus, o.config);
      o.versus = std::move(v.params), o.versus_cluster = v.cluster;
    }
    if (o.versus_plain && (!o.versus.empty() || o.versus_cluster)) throw bench::OptionError("--versus-plain and --versus each fill the second table: give one");
    return run(o);
  } catch (const bench::OptionError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const cli::SpecError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const rt::RuntimeError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_code_of(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 5;
  }
}

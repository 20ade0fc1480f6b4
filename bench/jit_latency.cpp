// JIT latency of a sample's kernel (default: the GEMM of samples/specs/gemm.json's shape):
// what a user waits for before the first launch, cold (DSL build + verification and
// emission + NVRTC, no cache) and on a disk-cache hit (the same, with the cache lookup
// instead of NVRTC), each repeated in this one process and reported as min / median / max,
// with the parts beside the total. Module loading needs a GPU and is left out (tilejit run
// prints it: about 0.2 ms on the H200). The first NVRTC compile of the process (NVRTC's
// own start) is reported on its own line, not mixed into the cold figures. (`tilejit run`
// compiles once and prints that one compile; the cold-vs-hit comparison is this program's.)
//
//   tilejit_bench_jit [--sample NAME] [--reps N] [--arch sm_90a|sm_100a]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "dsl/diagnostic.h"
#include "generators/runner.h"
#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/error.h"
#include "samples/builtin.h"

using namespace tj;

namespace {

struct Stats {
  double min = 0, median = 0, max = 0;
};
Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2], v.back()};
}

void line(const char* what, const std::vector<samples::CompileTimes>& runs) {
  std::vector<double> total, build, lower, compile;
  for (const samples::CompileTimes& t : runs) {
    total.push_back(t.total() * 1e3), build.push_back(t.build * 1e3), lower.push_back(t.lower * 1e3);
    compile.push_back(t.compile * 1e3);
  }
  const Stats s = stats(total);
  std::printf("%-32s %8.2f %8.2f %8.2f   build %.2f + verify and emit %.2f + %s %.2f (medians)\n", what, s.min, s.median,
              s.max, stats(build).median, stats(lower).median, std::string(what).find("hit") != std::string::npos ? "cache lookup" : "NVRTC",
              stats(compile).median);
}

int usage(const std::string& why) {
  std::fprintf(stderr, "tilejit_bench_jit: %s\nusage: tilejit_bench_jit [--sample NAME] [--reps N] [--arch sm_90a|sm_100a]\n",
               why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  tj::rt::disable_nvrtc_result_cache();  // cold means compiled (runtime/compiler.h)
  std::string name = "gemm", arch = "sm_90a";
  int reps = 10;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage("'" + a + "' needs a value");
    const std::string v = argv[++i];
    if (a == "--sample") name = v;
    else if (a == "--arch") arch = v;
    else if (a == "--reps") {
      if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1)
        return usage("--reps takes a whole number from 1 to 9999, got '" + v + "'");
      reps = std::stoi(v);
    } else return usage("unknown flag '" + a + "'");
  }
  const samples::Sample* sample = samples::find_sample(name);
  if (!sample) return usage("no sample '" + name + "'");
  std::optional<codegen::Target> target = codegen::Target::parse(arch);
  if (!target) return usage("--arch takes sm_90a or sm_100a, got '" + arch + "'");
  const samples::Config config = samples::default_config(*sample);

  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("tilejit-bench-jit-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  try {
    std::printf("JIT latency of sample '%s' (its default config) for %s, %d repetitions in one process\n", name.c_str(),
                arch.c_str(), reps);
    std::printf("%-32s %8s %8s %8s\n", "ms", "min", "median", "max");
    samples::Compiled first = samples::compile_sample(*sample, config, *target, nullptr);
    line("first compile (NVRTC starts)", {first.times});
    std::vector<samples::CompileTimes> cold, hit;
    for (int r = 0; r < reps; ++r) cold.push_back(samples::compile_sample(*sample, config, *target, nullptr).times);
    line("cold (no cache)", cold);
    rt::Cache cache(dir.string());
    samples::Compiled filled = samples::compile_sample(*sample, config, *target, &cache);  // the miss that fills it
    if (filled.result.from_cache) throw std::runtime_error("a fresh cache folder already held the kernel");
    for (int r = 0; r < reps; ++r) {
      samples::Compiled c = samples::compile_sample(*sample, config, *target, &cache);
      if (!c.result.from_cache) throw std::runtime_error("the cache missed on repetition " + std::to_string(r));
      hit.push_back(c.times);
    }
    line("cache hit", hit);
  } catch (const UserError& e) {
    std::fprintf(stderr, "%s", e.what());
    std::filesystem::remove_all(dir);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilejit_bench_jit: %s\n", e.what());
    std::filesystem::remove_all(dir);
    return 4;
  }
  std::filesystem::remove_all(dir);
  return 0;
}

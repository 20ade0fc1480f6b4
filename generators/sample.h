// A sample: a kernel generator written in the DSL, the host side that feeds
// it, and the reference that checks it. The CLI, the GPU tests and the
// benchmarks all drive samples through this one interface.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/check.h"
#include "dsl/ir/kernel.h"
#include "runtime/launch.h"

namespace tj::samples {

// One integer parameter a sample takes from a spec's "params".
struct ParamSpec {
  std::string name;
  int64_t default_value;
  int64_t min, max;
  std::string doc;
  // Names for the values 0, 1, ... (e.g. {"tn", "nn"} with min 0, max 1): a spec may
  // give the name or the number. Empty: numbers only. (Defaulted, so that initializers
  // without it stay complete.)
  std::vector<std::string> choices = {};
};

// One real-valued parameter (e.g. a GEMM's alpha and beta).
struct RealParamSpec {
  std::string name;
  double default_value;
  double min, max;
  std::string doc;
};

// What a spec asks for: the launch shape and the sample's parameters.
struct Config {
  ir::Dim3 cluster{1, 1, 1};
  ir::Dim3 grid_clusters{1, 1, 1};  // the grid, counted in clusters
  unsigned threads = 128;
  bool non_portable = false;
  std::map<std::string, int64_t> params;  // every ParamSpec has a value (defaults filled in)
  std::map<std::string, double> reals;    // every RealParamSpec has a value
  // The fields the spec gave explicitly, by spec key ("cluster", "clusters", "grid",
  // "threads", "non_portable", "params.bm"); the others hold defaults. `tilejit run`
  // applies a tuned config only when the spec names none of the tuned fields.
  std::set<std::string> named;

  int64_t param(const std::string& name) const;
  double real(const std::string& name) const;
  ir::Dim3 grid_ctas() const;
  unsigned num_ctas() const { return grid_ctas().count(); }
};

// A sample's rule on a config, broken: `field` is the spec key it concerns
// ("cluster", "threads", "params.elems").
struct ConfigProblem {
  std::string field;
  std::string message;
};

// ok, and what was compared; on failure, the first mismatches (the host API's type).
using Check = tj::Check;

// Device buffers and arguments for launches of one compiled sample.
class Instance {
 public:
  virtual ~Instance() = default;
  // The kernel's arguments, in parameter order.
  virtual rt::ArgPack args() = 0;
  // Poisons the outputs so that a check can see unwritten elements.
  virtual void poison() = 0;
  // Downloads the outputs and compares them with the host reference.
  virtual Check verify() = 0;
  // Bytes one launch moves through the memory the sample measures (for bandwidth).
  virtual double bytes_per_launch() const = 0;
  // Floating-point operations of one launch (0: not a compute kernel).
  virtual double flops_per_launch() const { return 0; }
};

class Sample {
 public:
  virtual ~Sample() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  virtual std::vector<ParamSpec> params() const = 0;
  virtual std::vector<RealParamSpec> real_params() const { return {}; }
  // The cluster a spec that names none gets (default_config): 2x1, or 1 for kernels that
  // run without clusters.
  virtual ir::Dim3 default_cluster() const { return {2, 1, 1}; }
  // Rules beyond the DSL verifier's (e.g. a 1-D cluster); empty when fine.
  virtual std::vector<ConfigProblem> check_config(const Config& c) const { return {}; }
  // Builds the kernel with the DSL.
  virtual ir::Kernel build(const Config& c) const = 0;
  // Allocates and fills device buffers (needs a current CUDA context).
  virtual std::unique_ptr<Instance> instantiate(const Config& c, uint64_t seed) const = 0;
  // Kernels whose grid follows the problem (one cluster per block of work, e.g.
  // attention's query blocks x batch * heads): that grid, in clusters, whatever the
  // spec's. nullopt: the spec's grid (or persistent_grid's).
  virtual std::optional<ir::Dim3> problem_grid(const Config& c) const {
    (void)c;
    return std::nullopt;
  }
  // Persistent kernels size their own grid from the device: given how many clusters of
  // the compiled kernel can be co-resident, the grid (in clusters) to launch. nullopt:
  // the spec's grid.
  virtual std::optional<ir::Dim3> persistent_grid(const Config& c, int max_active_clusters) const {
    (void)c, (void)max_active_clusters;
    return std::nullopt;
  }

  // What for_device knows of the device: its SM count, and how many clusters of n CTAs it
  // holds at once when each CTA takes a whole SM (fewer than sm_count / n where the SMs of
  // a GPC do not divide into clusters of n: 30 clusters of 4 on a 132-SM H200). Built from
  // a count alone (tests, a device without the query), the second is unknown (nullopt).
  struct DeviceFacts {
    DeviceFacts(int sms) : sm_count(sms) {}  // NOLINT(google-explicit-constructor): a count is the common case
    DeviceFacts(int sms, std::function<int(unsigned)> clusters) : sm_count(sms), clusters_of(std::move(clusters)) {}
    int sm_count = 0;
    std::function<int(unsigned ctas)> clusters_of;
    std::optional<int> clusters_that_fit(unsigned ctas) const {
      if (!clusters_of) return std::nullopt;
      return clusters_of(ctas);
    }
  };
  // The config made concrete for the device it is about to run on: what the sample would
  // otherwise leave to the kernel to decide at run time (the GEMM's `splits 0`), so the
  // kernel is built for the decision. nullopt: nothing to decide (and so, without a
  // device, the run-time choice stays in the kernel).
  struct DeviceChoice {
    Config config;
    std::string line;  // what was decided and why, for the run's output
  };
  virtual std::optional<DeviceChoice> for_device(const Config& c, const DeviceFacts& device) const {
    (void)c, (void)device;
    return std::nullopt;
  }

  // Tuning (`tilejit tune`). The configs worth trying for c's problem: c with the tuned
  // fields set each way, each passing check_config, the likeliest winners first (a sweep
  // cut short by a time limit has then tried those). Empty: the sample is not tunable.
  virtual std::vector<Config> tuning_candidates(const Config& c) const {
    (void)c;
    return {};
  }
  // The candidates for the device `tilejit tune` runs them on: tuning_candidates(c), and
  // where the sample sizes its tiles to the device (the GEMM's widths fitted to its waves),
  // those too, after them.
  virtual std::vector<Config> device_tuning_candidates(const Config& c, const DeviceFacts& device) const {
    (void)device;
    return tuning_candidates(c);
  }
  // The class of problems one tuned config serves, as text (it keys the tuning DB with
  // the device and the sample's name): what changes which config wins, in buckets.
  virtual std::string problem_class(const Config& c) const {
    (void)c;
    return "";
  }
  // The spec keys a tuned config sets ("cluster", "params.bm", ...), as in
  // Config::named: a spec naming any of them has chosen how to build the kernel itself.
  virtual std::vector<std::string> tuned_fields() const { return {}; }
  // The targets (arch names) the sample's kernel is written for; empty: every target.
  // compile_sample refuses the others with a usage error naming them.
  virtual std::vector<std::string> targets() const { return {}; }
};

// A config with the sample's defaults: cluster 2, 2 clusters, 128 threads.
Config default_config(const Sample& s);

}  // namespace tj::samples

// Compiling a list of configs of one sample on worker threads, ahead of a caller that
// uses them in order (`tilejit tune` runs candidate i on the GPU while the next ones
// compile: NVRTC takes most of a second per GEMM candidate, a GPU run much less).
#pragma once

#include <cstddef>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "generators/runner.h"
#include "runtime/cache.h"

namespace tj::samples {

struct CompileOutcome {
  std::optional<Compiled> compiled;
  std::string error;    // when it failed: the message
  double seconds = 0;   // on its thread
};

class CompileAhead {
 public:
  // Nothing starts until get(). `cache` may be disabled; its copies share its state.
  // `ahead`: how many of the configs after i compile while the caller uses i.
  CompileAhead(const Sample& s, const std::vector<Config>& configs, const codegen::Target& target, rt::Cache cache,
               unsigned ahead);
  ~CompileAhead() { finish(); }
  CompileAhead(const CompileAhead&) = delete;
  CompileAhead& operator=(const CompileAhead&) = delete;

  // Config i's compile, once done; first starts those of i and of the `ahead` configs
  // after it that have not started. Each i once, in increasing order.
  CompileOutcome get(size_t i);
  // Starts nothing more and waits for the compiles still running; returns their seconds.
  double finish();

 private:
  const Sample& sample_;
  const std::vector<Config>& configs_;
  codegen::Target target_;
  rt::Cache cache_;
  unsigned ahead_;
  std::vector<std::future<CompileOutcome>> running_;
  size_t started_ = 0;
};

}  // namespace tj::samples

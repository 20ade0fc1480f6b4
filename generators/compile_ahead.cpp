#include "generators/compile_ahead.h"

#include <algorithm>
#include <chrono>

namespace tj::samples {

namespace {

// On a worker thread: every failure becomes a message, nothing escapes.
CompileOutcome compile_one(const Sample& s, const Config& c, const codegen::Target& target, rt::Cache cache) {
  CompileOutcome out;
  const auto start = std::chrono::steady_clock::now();
  try {
    out.compiled = compile_sample(s, c, target, &cache);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

CompileAhead::CompileAhead(const Sample& s, const std::vector<Config>& configs, const codegen::Target& target,
                           rt::Cache cache, unsigned ahead)
    : sample_(s), configs_(configs), target_(target), cache_(std::move(cache)), ahead_(ahead),
      running_(configs.size()) {}

CompileOutcome CompileAhead::get(size_t i) {
  for (const size_t end = std::min(configs_.size(), i + 1 + ahead_); started_ < end; ++started_)
    running_[started_] = std::async(std::launch::async, compile_one, std::cref(sample_), std::cref(configs_[started_]),
                                    std::cref(target_), cache_);
  return running_.at(i).get();
}

double CompileAhead::finish() {
  double seconds = 0;
  started_ = configs_.size();
  for (std::future<CompileOutcome>& f : running_)
    if (f.valid()) seconds += f.get().seconds;
  return seconds;
}

}  // namespace tj::samples

// tilejit_bench_gemm's command line, turned into the problems to run and, for each, a
// spec for the GEMM sample: the bench sets its config through the spec parser, so a
// bad value gets the same message `tilejit run` gives it. Needs no GPU.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "generators/sample.h"

namespace tj::bench {

// A bad flag value; what() names the flag ("--shapes: ...").
class OptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MatmulSize {
  int64_t m = 0, n = 0, k = 0;
  std::string str() const;  // "4096x4096x4096"
};

// The default list: 4096^3, 6144^3, 8192^3, 4224x4224x4096, 8192x8192x1024,
// 1024x1024x8192, 2048^3.
std::vector<MatmulSize> default_sizes();

// "MxNxK,MxNxK,...", each from 1 to 2^31 - 1.
std::vector<MatmulSize> parse_sizes(const std::string& text);

// --seed: a whole number from 0 to 2^64 - 1 (digits only: no sign, no wrap-around).
uint64_t parse_seed(const std::string& text);

// The spec text (JSON) for `gemm` at `size`: params m, n, k; "layout" ("tn" or "nn") when
// the sample has that parameter; one cluster; then each "key=value" of `config`
// (comma-separated). cluster (N, NxM or NxMxL), threads and non_portable are the spec's
// own keys; every other key is a parameter. A value is a number or a name ([A-Za-z0-9_.+-]).
std::string gemm_spec(const samples::Sample& gemm, const MatmulSize& size, const std::string& layout,
                      const std::string& config);

// A cluster shape as --config and --versus spell it ("2", "1x2", "1x2x2"); `option` names
// the flag in the error.
ir::Dim3 parse_cluster(const std::string& value, const std::string& option);

// `text` cut at each `sep` (an empty text: one empty item).
std::vector<std::string> split(const std::string& text, char sep);

}  // namespace tj::bench

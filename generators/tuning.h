// Tuned configs between the tuning DB and a run: naming them, making records of them,
// applying a record to a spec's config, and the decision `tilejit run` makes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generators/sample.h"
#include "generators/tuning_db.h"

namespace tj::samples {

// The tuned fields (in tuned_fields() order) whose values differ among `configs`: what
// tells one candidate from another.
std::vector<std::string> varying_fields(const Sample& s, const std::vector<Config>& configs);

// c's values of `fields` (spec keys), e.g. "bm=128 bn=256 cluster 2x1 group 8"; a
// parameter with named choices shows the name.
std::string describe_fields(const Sample& s, const Config& c, const std::vector<std::string>& fields);

// The candidates with `chosen` (what the sample decides for the device without a tuning DB)
// first, so that a tuning run measures the default path too and never records a config
// slower than it: a candidate with the same tuned fields moves there instead of running twice.
std::vector<Config> default_first(const Sample& s, std::vector<Config> candidates, const Config& chosen);

// A record of c's tuned fields for `device` and c's problem class; the caller fills in
// the rate, the date and the version.
TuningRecord record_of(const Sample& s, const Config& c, const std::string& device);

// c with the record's tuned fields set, or why that config cannot be used (a parameter
// the sample does not have, a value out of range, a rule of check_config): the message.
struct AppliedRecord {
  std::optional<Config> config;
  std::string why_not;
};
AppliedRecord apply_record(const Sample& s, const Config& c, const TuningRecord& r);

// What `tilejit run` does about tuned configs.
struct TunedChoice {
  enum class Kind {
    NotTunable,   // the sample has no tuning candidates: nothing to say
    Disabled,     // --no-tuned
    SpecChooses,  // the spec names a tuned field itself
    NoDevice,     // no GPU, so no device to look up
    NoRecord,     // no usable record for this device and problem class
    Unusable,     // a record exists but does not apply (it names why)
    Applied,
  };
  Kind kind = Kind::NotTunable;
  Config config;     // what runs: the spec's config, or the tuned one
  std::string line;  // the text after "tuned     " (empty for NotTunable)
};

struct TunedQuery {
  bool enabled = true;  // false: --no-tuned
  std::string device;   // the GPU's name; "" when there is none
  // The DB, read only when a lookup is due.
  std::function<const TuningDb&()> db;
};

// The config `run` uses for spec config c: the DB's record for (device, sample, problem
// class) when the sample is tunable, tuning is enabled, the spec names none of the tuned
// fields and the record applies; otherwise c. Pure apart from the DB read.
TunedChoice decide_tuned(const Sample& s, const Config& c, const TunedQuery& q);

}  // namespace tj::samples

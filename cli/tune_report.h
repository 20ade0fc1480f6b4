// What `tilejit tune` prints after its sweep: every candidate ranked, the sweep's time,
// and the record it writes for the best verified candidate.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/tune_sweep.h"
#include "generators/sample.h"

namespace tj::cli {

// One row per result in ranking() order; `fields` are the tuned fields that tell the
// candidates apart (samples::varying_fields).
void print_tune_table(std::ostream& out, const samples::Sample& s, const std::vector<CandidateResult>& results,
                      const std::vector<std::string>& fields);

// "sweep     24 of 24 candidates in 83.2 s (...)", saying what stopped it early if anything.
void print_sweep_summary(std::ostream& out, const Sweep& sweep, double max_seconds, unsigned compile_ahead);

// Where and as what the best candidate is recorded.
struct RecordContext {
  std::string device;   // the GPU's name
  std::string db_path;
  std::string date;     // UTC, ISO 8601
  std::string tilejit;  // version_text()
};

// Writes the best verified result of `sweep` into the tuning DB at ctx.db_path (read again
// first, so that other records stay) and says so; false, saying so, when none verified.
bool record_best(std::ostream& out, const samples::Sample& s, const Sweep& sweep, const RecordContext& ctx,
                 const std::vector<std::string>& fields);

}  // namespace tj::cli

#include "cli/tune_report.h"

#include <algorithm>
#include <cstdio>

#include "generators/tuning.h"
#include "generators/tuning_db.h"

namespace tj::cli {

namespace {

using Outcome = CandidateResult::Outcome;

std::string number(double v, const char* format = "%.1f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string pad_left(const std::string& s, size_t width) { return std::string(width - std::min(width, s.size()), ' ') + s; }
std::string pad_right(const std::string& s, size_t width) { return s + std::string(width - std::min(width, s.size()), ' '); }

std::string result_text(const CandidateResult& r) {
  switch (r.outcome) {
    case Outcome::Passed: return "verified";
    case Outcome::Mismatch: return "verify FAILED: " + r.why;
    default: return outcome_text(r);
  }
}

}  // namespace

void print_tune_table(std::ostream& out, const samples::Sample& s, const std::vector<CandidateResult>& results,
                      const std::vector<std::string>& fields) {
  const std::vector<size_t> order = ranking(results);
  std::vector<std::string> labels;
  size_t label_width = 6;
  for (const CandidateResult& r : results) {
    labels.push_back(samples::describe_fields(s, r.config, fields));
    label_width = std::max(label_width, labels.back().size());
  }
  // The unit of the first candidate that ran (one sample: they all count the same).
  std::string unit = "TFLOP/s";
  for (const CandidateResult& r : results)
    if (r.timing.iters > 0) {
      unit = r.unit();
      break;
    }
  const size_t w = std::max<size_t>(8, unit.size() + 1);
  out << "rank  " << pad_right("config", label_width) << "  " << pad_left(unit, w) << pad_left("min", w)
      << pad_left("max", w) << "  result\n"
      << "      " << pad_right("", label_width) << "  " << pad_left("median", w) << "\n";
  size_t rank = 0;
  for (size_t i : order) {
    const CandidateResult& r = results[i];
    const bool ran = r.timing.iters > 0;
    const std::string place = r.outcome == Outcome::Passed ? std::to_string(++rank) : "-";
    // The slowest launch gives the lowest rate.
    out << pad_left(place, 4) << "  " << pad_right(labels[i], label_width) << "  "
        << pad_left(ran ? number(r.median_rate()) : "-", w) << pad_left(ran ? number(r.rate(r.timing.max_ms)) : "-", w)
        << pad_left(ran ? number(r.rate(r.timing.min_ms)) : "-", w) << "  " << result_text(r) << "\n";
  }
}

void print_sweep_summary(std::ostream& out, const Sweep& sweep, double max_seconds, unsigned compile_ahead) {
  out << "sweep     ";
  if (sweep.cut_short) out << "stopped by --max-seconds " << number(max_seconds, "%g") << ": ";
  if (sweep.device_fault) out << "stopped by a device fault (the GPU context is unusable after one): ";
  out << sweep.tried << " of " << sweep.results.size() << " candidates in " << number(sweep.wall_s) << " s; compiles took "
      << number(sweep.compile_s) << " s of CPU time, up to " << compile_ahead << " ahead of the GPU (the disk cache keeps them)\n";
}

bool record_best(std::ostream& out, const samples::Sample& s, const Sweep& sweep, const RecordContext& ctx,
                 const std::vector<std::string>& fields) {
  const std::vector<size_t> order = ranking(sweep.results);
  if (order.empty() || sweep.results[order[0]].outcome != Outcome::Passed) {
    out << "recorded  nothing: no candidate verified\n";
    return false;
  }
  const CandidateResult& best = sweep.results[order[0]];
  samples::TuningRecord rec = samples::record_of(s, best.config, ctx.device);
  rec.rate = best.median_rate();
  rec.unit = best.unit();
  rec.date = ctx.date;
  rec.tilejit = ctx.tilejit;
  // Read again just before writing, so that what another sweep wrote meanwhile stays.
  samples::TuningDb db = samples::TuningDb::load(ctx.db_path);
  std::optional<samples::TuningRecord> replaced = db.put(rec);
  db.save();
  out << "recorded  " << samples::describe_fields(s, best.config, fields) << ": " << number(rec.rate) << " " << rec.unit
      << (sweep.tried < sweep.results.size() ? " (the best of those tried)" : "") << ", for " << ctx.device << ", "
      << s.name() << " class " << rec.problem_class << ", in " << ctx.db_path << "\n";
  if (replaced)
    out << "          it replaces the record of " << replaced->date << " (" << number(replaced->rate) << " " << replaced->unit
        << ")\n";
  out << "          `tilejit run` uses it for specs of this class that set none of the tuned fields\n";
  return true;
}

}  // namespace tj::cli

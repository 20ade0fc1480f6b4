// The tuning DB: the best config `tilejit tune` measured, per (device, sample, problem
// class), in one JSON file that `tilejit run` reads.
//
//   { "format": "tilejit-tuning-v1",
//     "records": [ { "device": "NVIDIA H200", "sample": "gemm",
//                    "class": "bf16>bf16 tn m4096 n4096 k4096",
//                    "params": { "bm": 128, "bn": 256, ... }, "cluster": [2, 1, 1],
//                    "rate": 745.0, "unit": "TFLOP/s",
//                    "date": "2026-11-30T14:02:11Z", "tilejit": "0.1.0 (commit 49b4b91)" } ] }
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dsl/ir/kernel.h"

namespace tj::samples {

struct TuningRecord {
  // The key.
  std::string device;         // the GPU's name, as the driver gives it
  std::string sample;         // "gemm"
  std::string problem_class;  // Sample::problem_class()
  // The tuned config: the params among the sample's tuned fields, and the cluster.
  std::map<std::string, int64_t> params;
  ir::Dim3 cluster{1, 1, 1};
  // What it measured, when, and with which build.
  double rate = 0;
  std::string unit;     // "TFLOP/s" or "GB/s"
  std::string date;     // UTC, ISO 8601
  std::string tilejit;  // version (and commit when the build knew it)
};

// Why save() could not write `path`, found without creating anything (the nearest
// existing folder on its way must be a writable folder; the file, if there, a regular
// file); "" when it can.
std::string why_unwritable(const std::string& path);

// --db's value when given, else $TILEJIT_TUNING_DB, else <cache dir>/tuning.json (the
// compile cache's folder: TILEJIT_CACHE_DIR, XDG_CACHE_HOME, ~/.cache); "" when none is known.
std::string tuning_db_path(const std::string& flag);

class TuningDb {
 public:
  // Reads `path`. A missing file is an empty DB. A file that cannot be read or is not a
  // tuning DB is empty too, with one warning on stderr naming the file and what is
  // wrong; save() then keeps it as <path>.bad instead of overwriting it.
  static TuningDb load(const std::string& path);

  const std::string& path() const { return path_; }
  // Why the file was unusable when loaded; empty when it was fine or missing.
  const std::string& problem() const { return problem_; }
  const std::vector<TuningRecord>& records() const { return records_; }

  // The record for this key, or null.
  const TuningRecord* find(const std::string& device, const std::string& sample, const std::string& problem_class) const;
  // Adds `r`, replacing the record with its key; returns the one it replaced.
  std::optional<TuningRecord> put(TuningRecord r);

  // Writes every record atomically (a temp file renamed over the path; the folder is made
  // if missing). Throws rt::RuntimeError(Io) naming the path on failure.
  void save();

 private:
  std::string path_, problem_;
  std::vector<TuningRecord> records_;
};

// The DB's text for `records` (what save() writes), and the records of a DB's text (throws
// std::runtime_error naming the JSON path of the first thing wrong).
std::string tuning_db_text(const std::vector<TuningRecord>& records);
std::vector<TuningRecord> parse_tuning_db(const std::string& text);

}  // namespace tj::samples

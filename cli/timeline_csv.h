// A launch's timeline as CSV, for analysis outside tilejit: one line per (CTA, unit),
// in order of start, times in ns from the first start (%globaltimer).
#pragma once

#include <string>
#include <vector>

#include "generators/timeline.h"

namespace tj::cli {

// Header `cta,sm,unit,start_ns,end_ns,duration_ns`, then the units as given.
std::string timeline_csv(const std::vector<samples::TimelineUnit>& units);

// Whether `path` asks for the CSV form (its extension is .csv, any case).
bool is_csv_path(const std::string& path);

}  // namespace tj::cli

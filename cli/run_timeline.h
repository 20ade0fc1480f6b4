// `tilejit run SPEC --timeline out.svg`: one more launch of the spec's kernel, compiled
// with the timeline (generators/timeline.h), drawn as a per-SM Gantt chart
// (cli/timeline_svg.h) with its makespan and the lower bound max(total unit time / slots,
// longest unit) from the recorded durations, slots the units the records show running at
// once (the SM count when one runs per SM).
#pragma once

#include <string>

#include "api/device.h"
#include "cli/spec.h"
#include "codegen/target.h"
#include "generators/sample.h"
#include "runtime/cache.h"

namespace tj::cli {

// Throws RuntimeError(Io) when the chart could not be written at `path` (its folder
// missing, or the name taken by a folder): checked before anything runs.
void check_timeline_path(const std::string& path);

// Compiles the timeline variant without running it (no GPU here), so that what would stop
// it on a GPU (its compile) stops it here too.
void compile_timeline(const Spec& spec, const samples::Config& config, const codegen::Target& target);

// Records and draws one launch; prints its "timeline" lines. Returns the exit code: kOk,
// or kMismatch when the recorded launch's output failed its check.
int run_timeline(const Spec& spec, const samples::Config& config, const codegen::Target& target, const Device& device,
                 rt::Cache& cache, const std::string& path, unsigned long long seed, bool verify);

}  // namespace tj::cli

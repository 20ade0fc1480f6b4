// What `tilejit compile` and `tilejit run` print about a compiled kernel beyond its files:
// where the compile time went, and which barriers' transaction bytes were verified (and
// which not, and why).
#pragma once

#include <ostream>

#include <string>

#include "codegen/lower.h"
#include "generators/runner.h"

namespace tj::cli {

// "95.31 ms = DSL build 0.21 + verify and emit 0.63 + NVRTC 87.70 + module load 6.77 ms": what a
// user waits for, part by part ("cache lookup" instead of NVRTC on a hit; no load when
// `load_s` is negative).
std::string compile_time_text(const samples::CompileTimes& t, bool from_cache, double load_s = -1);

// One "tx check" line per barrier and phase that receives transaction bytes, one "race
// check" line per part of the race check (verified, not checked and why, allowed by
// allow_race), then the race check's time.
void print_checks(std::ostream& out, const codegen::Lowered& lowered);

}  // namespace tj::cli

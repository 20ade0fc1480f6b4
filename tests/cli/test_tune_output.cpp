// What `tilejit tune` shows and records, without a GPU: progress lines and the bar, the
// ranking of results, the table, the summary and the record, from results made by hand.
#include <catch2/catch.hpp>

#include <sstream>

#include <llvm/Support/FileSystem.h>

#include "cli/progress.h"
#include "cli/tune_report.h"
#include "cli/tune_sweep.h"
#include "generators/sample.h"
#include "generators/tuning.h"
#include "generators/tuning_db.h"
#include "samples/builtin.h"
#include "tests/runtime/test_support.h"

using tj::cli::CandidateResult;
using Outcome = tj::cli::CandidateResult::Outcome;

namespace {

const tj::samples::Sample& gemm() { return *tj::samples::find_sample("gemm"); }

// A GEMM candidate of 8192^3 (1.1e12 flops) that ran in `median_ms` (min and max 1% off).
CandidateResult ran(size_t candidate, Outcome outcome, double median_ms) {
  tj::samples::Config spec = tj::samples::default_config(gemm());
  spec.params["m"] = spec.params["n"] = spec.params["k"] = 8192;
  CandidateResult r;
  r.config = gemm().tuning_candidates(spec).at(candidate);
  r.outcome = outcome;
  r.work = 2.0 * 8192 * 8192 * 8192;
  r.timing = {median_ms, median_ms * 0.99, median_ms * 1.01, 50};
  return r;
}

CandidateResult failed(size_t candidate, Outcome outcome, const std::string& why) {
  CandidateResult r = ran(candidate, outcome, 0);
  r.timing = {};
  r.why = why;
  return r;
}

}  // namespace

TEST_CASE("tune progress: one line per candidate, and a bar on a terminal", "[cli][tune]") {
  CHECK(tj::cli::step_line(6, 24, "bm=128 bn=256 cluster 2x1 group=8", "745.0 TFLOP/s (2.1 s)") ==
        "[ 7/24] bm=128 bn=256 cluster 2x1 group=8 ... 745.0 TFLOP/s (2.1 s)");
  CHECK(tj::cli::step_line(0, 9, "x", "y") == "[1/9] x ... y");
  CHECK(tj::cli::bar_line(0, 24, 0.5, 0, "bm=128") == "[....................] 0/24  0.5 s  now: bm=128");
  CHECK(tj::cli::bar_line(6, 24, 30, 0, "") == "[#####...............] 6/24  30 s, ~90 s left");
  // A time limit caps the estimate.
  CHECK(tj::cli::bar_line(6, 24, 30, 60, "") == "[#####...............] 6/24  30 s, ~30 s left");
  CHECK(tj::cli::bar_line(24, 24, 120, 0, "") == "[####################] 24/24  120 s");

  std::ostringstream lines;
  {
    tj::cli::Progress p(lines, /*redraw=*/false, 2);
    p.begin(0, "a");
    p.end(0, "a", "1.0 TFLOP/s");
    p.begin(1, "b");
    p.end(1, "b", "compile error: x");
  }
  CHECK(lines.str() == "[1/2] a ... 1.0 TFLOP/s\n[2/2] b ... compile error: x\n");

  std::ostringstream tty;
  {
    tj::cli::Progress p(tty, /*redraw=*/true, 2);
    p.begin(0, "a");
    p.end(0, "a", "ok");
  }
  const std::string t = tty.str();
  // The bar is drawn, erased before the finished line, drawn again, and erased at the end.
  CHECK(t.rfind("[....................] 0/2", 0) == 0);
  CHECK(t.find("\r\033[2K[1/2] a ... ok\n[##########..........] 1/2") != std::string::npos);
  CHECK(t.substr(t.size() - 5) == "\r\033[2K");
}

TEST_CASE("tune ranking: verified fastest first, then failures in candidate order", "[cli][tune]") {
  std::vector<CandidateResult> rs = {failed(0, Outcome::CompileError, "nvrtc"), ran(1, Outcome::Passed, 1.6),
                                     ran(2, Outcome::Mismatch, 1.0), ran(3, Outcome::Passed, 1.5),
                                     failed(4, Outcome::NotRun, "not run: --max-seconds 5 reached"),
                                     failed(5, Outcome::LaunchError, "too many resources"), ran(6, Outcome::Passed, 1.55)};
  CHECK(tj::cli::ranking(rs) == std::vector<size_t>{3, 6, 1, 2, 0, 5, 4});
  CHECK(rs[3].median_rate() == Approx(733.0).epsilon(0.001));
  CHECK(tj::cli::outcome_text(rs[3]) == "733.0 TFLOP/s");
  CHECK(tj::cli::outcome_text(rs[0]) == "compile error: nvrtc");
  CHECK(tj::cli::outcome_text(rs[4]) == "not run: --max-seconds 5 reached");
  CHECK(tj::cli::outcome_text(rs[2]).rfind("verify FAILED (1099.5 TFLOP/s): ", 0) == 0);
  CHECK(tj::cli::ranking({}).empty());
}

TEST_CASE("tune table: every candidate with median, min and max, best first", "[cli][tune]") {
  std::vector<CandidateResult> rs = {ran(0, Outcome::Passed, 1.5), ran(2, Outcome::Passed, 1.45),
                                     failed(4, Outcome::CompileError, "nvrtc: out of registers")};
  std::ostringstream out;
  tj::cli::print_tune_table(out, gemm(), rs, {"params.bm", "params.bn", "cluster", "params.group"});
  CHECK(out.str() ==
        "rank  config                              TFLOP/s     min     max  result\n"
        "                                           median\n"
        "   1  bm=128 bn=256 cluster 2x1 group=8     758.3   750.8   765.9  verified\n"
        "   2  bm=128 bn=256 cluster 1x2 group=8     733.0   725.8   740.4  verified\n"
        "   -  bm=128 bn=256 cluster 1x1 group=8         -       -       -  compile error: nvrtc: out of registers\n");
}

TEST_CASE("tune summary: the sweep's time, and what stopped it early", "[cli][tune]") {
  tj::cli::Sweep sweep;
  sweep.results = {ran(0, Outcome::Passed, 1.5), ran(2, Outcome::Passed, 1.45), failed(4, Outcome::NotRun, "x")};
  sweep.tried = 3;
  sweep.wall_s = 83.24;
  sweep.compile_s = 61.04;
  std::ostringstream full;
  tj::cli::print_sweep_summary(full, sweep, 0, 8);
  CHECK(full.str() == "sweep     3 of 3 candidates in 83.2 s; compiles took 61.0 s of CPU time, up to 8 ahead of the GPU "
                      "(the disk cache keeps them)\n");
  sweep.tried = 2;
  sweep.cut_short = true;
  std::ostringstream cut;
  tj::cli::print_sweep_summary(cut, sweep, 120, 8);
  CHECK(cut.str().rfind("sweep     stopped by --max-seconds 120: 2 of 3 candidates in 83.2 s;", 0) == 0);
}

TEST_CASE("tune record: the best verified candidate goes into the DB, next to the others", "[cli][tune]") {
  tj::rt::test::TempDir tmp;
  const std::string path = tmp / "tuning.json";
  const std::vector<std::string> fields = {"params.bm", "params.bn", "cluster", "params.group"};
  tj::cli::Sweep sweep;
  sweep.results = {ran(0, Outcome::Passed, 1.5), ran(3, Outcome::Passed, 1.45), ran(4, Outcome::Mismatch, 1.0)};
  sweep.tried = 3;
  tj::cli::RecordContext ctx{"NVIDIA H200", path, "2026-11-30T14:02:11Z", "0.1.0 (commit abc1234)"};

  // Another device's record is already there.
  tj::samples::TuningDb before = tj::samples::TuningDb::load(path);
  tj::samples::TuningRecord other = tj::samples::record_of(gemm(), sweep.results[0].config, "NVIDIA H100 80GB HBM3");
  other.rate = 600;
  before.put(other);
  before.save();

  std::ostringstream out;
  CHECK(tj::cli::record_best(out, gemm(), sweep, ctx, fields));
  CHECK(out.str() == "recorded  bm=128 bn=256 cluster 2x1 group=16: 758.3 TFLOP/s, for NVIDIA H200, gemm class bf16>bf16 tn "
                     "m8192 n8192 k8192, in " + path + "\n"
                     "          `tilejit run` uses it for specs of this class that set none of the tuned fields\n");
  const tj::samples::TuningDb db = tj::samples::TuningDb::load(path);
  CHECK(db.records().size() == 2);
  const tj::samples::TuningRecord* r = db.find("NVIDIA H200", "gemm", "bf16>bf16 tn m8192 n8192 k8192");
  REQUIRE(r);
  CHECK(r->cluster == tj::ir::Dim3{2, 1, 1});
  CHECK(r->params.at("group") == 16);
  CHECK(r->rate == Approx(758.27).epsilon(0.001));
  CHECK(r->unit == "TFLOP/s");
  CHECK(r->date == "2026-11-30T14:02:11Z");
  CHECK(r->tilejit == "0.1.0 (commit abc1234)");

  // A second sweep replaces it and says so; one cut short says its best is of those tried.
  sweep.results[1] = ran(1, Outcome::Passed, 1.4);
  sweep.tried = 2;
  ctx.date = "2026-12-01T09:00:00Z";
  std::ostringstream again;
  CHECK(tj::cli::record_best(again, gemm(), sweep, ctx, fields));
  CHECK(again.str().find("bm=128 bn=256 cluster 1x2 group=16: 785.4 TFLOP/s (the best of those tried), for") != std::string::npos);
  CHECK(again.str().find("          it replaces the record of 2026-11-30T14:02:11Z (758.3 TFLOP/s)\n") != std::string::npos);
  CHECK(tj::samples::TuningDb::load(path).records().size() == 2);
}

TEST_CASE("tune record: nothing when no candidate verified", "[cli][tune]") {
  tj::rt::test::TempDir tmp;
  tj::cli::Sweep sweep;
  sweep.results = {ran(0, Outcome::Mismatch, 1.5), failed(1, Outcome::CompileError, "x")};
  std::ostringstream out;
  CHECK_FALSE(tj::cli::record_best(out, gemm(), sweep, {"NVIDIA H200", tmp / "tuning.json", "d", "v"}, {}));
  CHECK(out.str() == "recorded  nothing: no candidate verified\n");
  CHECK_FALSE(llvm::sys::fs::exists(tmp / "tuning.json"));
}

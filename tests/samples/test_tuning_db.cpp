// The tuning DB file: where it lives, round trips, keys, damage and atomic writes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <set>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "generators/tuning_db.h"
#include "runtime/error.h"
#include "runtime/files.h"
#include "tests/runtime/test_support.h"

using tj::rt::test::CaptureStderr;
using tj::rt::test::count_lines;
using tj::rt::test::ScopedEnv;
using tj::rt::test::TempDir;
using tj::samples::TuningDb;
using tj::samples::TuningRecord;

namespace {

TuningRecord record(const std::string& device, const std::string& cls, double rate) {
  TuningRecord r;
  r.device = device;
  r.sample = "gemm";
  r.problem_class = cls;
  r.params = {{"bm", 128}, {"bn", 256}, {"group", 16}, {"stages", 0}};
  r.cluster = {2, 1, 1};
  r.rate = rate;
  r.unit = "TFLOP/s";
  r.date = "2026-11-30T14:02:11Z";
  r.tilejit = "0.1.0 (commit 49b4b91)";
  return r;
}

// Names in `dir`, sorted.
std::set<std::string> names_in(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.insert(llvm::sys::path::filename(it->path()).str());
  return out;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::string read_file(const std::string& path) { return tj::rt::files::read(path).value_or("<unreadable>"); }

}  // namespace

TEST_CASE("tuning DB: --db, then TILEJIT_TUNING_DB, then the cache folder", "[samples][tuning]") {
  TempDir tmp;
  ScopedEnv cache("TILEJIT_CACHE_DIR", tmp / "cache");
  {
    ScopedEnv db("TILEJIT_TUNING_DB", tmp / "env.json");
    CHECK(tj::samples::tuning_db_path(tmp / "flag.json") == tmp / "flag.json");
    CHECK(tj::samples::tuning_db_path("") == tmp / "env.json");
  }
  ScopedEnv db("TILEJIT_TUNING_DB", std::nullopt);
  CHECK(tj::samples::tuning_db_path("") == tmp / "cache/tuning.json");
  ScopedEnv no_cache("TILEJIT_CACHE_DIR", std::nullopt);
  ScopedEnv xdg("XDG_CACHE_HOME", tmp / "xdg");
  CHECK(tj::samples::tuning_db_path("") == tmp / "xdg/tilejit/tuning.json");
  // Working out the path creates nothing.
  CHECK_FALSE(llvm::sys::fs::exists(tmp / "xdg"));
  CHECK_FALSE(llvm::sys::fs::exists(tmp / "cache"));
}

TEST_CASE("tuning DB: records survive a save and a load, field by field", "[samples][tuning]") {
  TempDir tmp;
  const std::string path = tmp / "sub/dir/tuning.json";  // folders are made on save
  TuningDb db = TuningDb::load(path);
  CHECK(db.records().empty());
  CHECK(db.problem().empty());
  TuningRecord a = record("NVIDIA H200", "bf16>bf16 tn m8192 n8192 k8192", 745.04);
  a.cluster = {1, 2, 1};
  CHECK_FALSE(db.put(a));
  CHECK_FALSE(db.put(record("NVIDIA H100 80GB HBM3", "f16>f32 nn m4096 n4096 k4096 +C", 612.5)));
  db.save();

  TuningDb again = TuningDb::load(path);
  REQUIRE(again.records().size() == 2);
  const TuningRecord& r = again.records()[0];
  CHECK(r.device == "NVIDIA H200");
  CHECK(r.sample == "gemm");
  CHECK(r.problem_class == "bf16>bf16 tn m8192 n8192 k8192");
  CHECK(r.params == a.params);
  CHECK(r.cluster == tj::ir::Dim3{1, 2, 1});
  CHECK(r.rate == Approx(745.04));
  CHECK(r.unit == "TFLOP/s");
  CHECK(r.date == "2026-11-30T14:02:11Z");
  CHECK(r.tilejit == "0.1.0 (commit 49b4b91)");
  CHECK(again.records()[1].problem_class == "f16>f32 nn m4096 n4096 k4096 +C");
  // People read the file: keys in a fixed order, the rate at two decimals.
  const std::string text = read_file(path);
  CHECK(text.find("\"format\": \"tilejit-tuning-v1\"") != std::string::npos);
  CHECK(text.find("\"rate\": 745.04,") != std::string::npos);
  CHECK(text.find("\"device\"") < text.find("\"class\""));
}

TEST_CASE("tuning DB: a record is found by device, sample and class, all three", "[samples][tuning]") {
  TuningDb db = TuningDb::load("");
  db.put(record("NVIDIA H200", "bf16>bf16 tn m8192 n8192 k8192", 745));
  db.put(record("NVIDIA H200", "bf16>bf16 tn m4096 n4096 k4096", 700));
  db.put(record("NVIDIA H100 80GB HBM3", "bf16>bf16 tn m8192 n8192 k8192", 650));
  REQUIRE(db.find("NVIDIA H200", "gemm", "bf16>bf16 tn m4096 n4096 k4096"));
  CHECK(db.find("NVIDIA H200", "gemm", "bf16>bf16 tn m4096 n4096 k4096")->rate == 700);
  CHECK(db.find("NVIDIA H100 80GB HBM3", "gemm", "bf16>bf16 tn m8192 n8192 k8192")->rate == 650);
  CHECK(db.find("NVIDIA H200", "gemm", "bf16>bf16 tn m8192 n8192 k8192")->rate == 745);
  CHECK_FALSE(db.find("NVIDIA H200", "gemm", "bf16>bf16 nn m8192 n8192 k8192"));
  CHECK_FALSE(db.find("NVIDIA H20", "gemm", "bf16>bf16 tn m8192 n8192 k8192"));
  CHECK_FALSE(db.find("NVIDIA H200", "tma_copy", "bf16>bf16 tn m8192 n8192 k8192"));
  // The same key again replaces the record and returns the old one.
  std::optional<TuningRecord> old = db.put(record("NVIDIA H200", "bf16>bf16 tn m4096 n4096 k4096", 710));
  REQUIRE(old);
  CHECK(old->rate == 700);
  CHECK(db.records().size() == 3);
  CHECK(db.find("NVIDIA H200", "gemm", "bf16>bf16 tn m4096 n4096 k4096")->rate == 710);
}

TEST_CASE("tuning DB: a damaged file is one warning and an empty DB, kept aside on save", "[samples][tuning]") {
  TempDir tmp;
  const std::string path = tmp / "tuning.json";
  const std::string good = tj::samples::tuning_db_text({record("NVIDIA H200", "c", 745)});
  const std::pair<std::string, std::string> damaged[] = {
      {good.substr(0, good.size() / 2), "not valid JSON"},
      {"[]", "$: expected an object"},
      {R"({"format": "tilejit-tuning-v9", "records": []})", "$.format: expected \"tilejit-tuning-v1\""},
      {R"({"format": "tilejit-tuning-v1"})", "$.records: expected an array"},
      {R"({"format": "tilejit-tuning-v1", "records": [{"device": "x"}]})", "$.records[0].sample: missing"},
      {std::string(good).replace(good.find("\"bm\": 128"), 9, "\"bm\": 1.5"), "$.records[0].params.bm: expected an integer"},
      {std::string(good).replace(good.find("745.00"), 6, "-1"), "$.records[0].rate: expected a number >= 0"},
      {std::string("\0\1\2", 3), "not valid JSON"},
  };
  for (const auto& [text, problem] : damaged) {
    INFO(problem);
    write_file(path, text);
    std::string warnings;
    std::optional<TuningDb> db;
    {
      CaptureStderr capture;
      db = TuningDb::load(path);
      warnings = capture.text();
    }
    CHECK(db->records().empty());
    CHECK(db->problem().find(problem) != std::string::npos);
    CHECK(count_lines(warnings) == 1);
    CHECK(warnings.find("tilejit: warning: tuning DB " + path + " is unusable (") == 0);
    CHECK(warnings.find(problem) != std::string::npos);
  }
  // Saving over a damaged file keeps it as <path>.bad, and says so.
  write_file(path, "{ damaged");
  std::string warnings;
  {
    CaptureStderr capture;
    TuningDb db = TuningDb::load(path);
    db.put(record("NVIDIA H200", "c", 700));
    db.save();
    db.save();  // a second save finds nothing to keep aside
    warnings = capture.text();
  }
  CHECK(count_lines(warnings) == 2);  // the load's, then the save's
  CHECK(warnings.find("tilejit: warning: tuning DB " + path + " was unusable; kept it as " + path + ".bad and wrote a new one\n") !=
        std::string::npos);
  CHECK(read_file(path + ".bad") == "{ damaged");
  CHECK(TuningDb::load(path).find("NVIDIA H200", "gemm", "c")->rate == 700);
}

TEST_CASE("tuning DB: a missing file is empty and quiet", "[samples][tuning]") {
  TempDir tmp;
  std::string warnings;
  {
    CaptureStderr capture;
    TuningDb db = TuningDb::load(tmp / "none.json");
    CHECK(db.records().empty());
    CHECK(db.problem().empty());
    warnings = capture.text();
  }
  CHECK(warnings.empty());
  CHECK(names_in(tmp.path()).empty());
}

TEST_CASE("tuning DB: saves are atomic and leave no temp files", "[samples][tuning]") {
  TempDir tmp;
  const std::string path = tmp / "tuning.json";
  TuningDb db = TuningDb::load(path);
  for (int i = 0; i < 5; ++i) {
    db.put(record("NVIDIA H200", "class " + std::to_string(i), 700 + i));
    db.save();
    CHECK(names_in(tmp.path()) == std::set<std::string>{"tuning.json"});
  }
  CHECK(TuningDb::load(path).records().size() == 5);

  // A failed save throws naming the file and leaves neither a temp file nor a change.
  const std::string ro = tmp / "ro";
  REQUIRE(llvm::sys::fs::create_directory(ro) == std::error_code());
  TuningDb in_ro = TuningDb::load(ro + "/tuning.json");
  in_ro.put(record("NVIDIA H200", "c", 1));
  in_ro.save();
  REQUIRE(::chmod(ro.c_str(), 0500) == 0);
  // Root writes into a 0500 folder anyway: the failed save is checked as an unprivileged
  // user (the folder handed to it), never skipped because CI runs as root.
  const std::string ro_file = ro + "/tuning.json";
  tj::rt::test::Unprivileged child = tj::rt::test::as_unprivileged({tmp.path(), ro, ro_file}, [&] {
    TuningDb again = TuningDb::load(ro_file);
    again.put(record("NVIDIA H200", "d", 2));
    std::string report;
    try {
      again.save();
      report = "saved";
    } catch (const std::exception& e) {
      report = e.what();
    }
    return report + "\n" + std::to_string(TuningDb::load(ro_file).records().size()) + "\n" + tj::samples::why_unwritable(ro_file);
  });
  if (child.failed) FAIL(child.report);
  if (!child.ran) return tj::rt::test::report_skipped("a tuning DB in a read-only folder: " + child.report);
  INFO(child.report);
  CHECK(child.report.rfind("tuning DB " + ro_file + ": cannot write: ", 0) == 0);
  CHECK(names_in(ro) == std::set<std::string>{"tuning.json"});
  CHECK(TuningDb::load(ro_file).records().size() == 1);
  CHECK(child.report.find("\n1\ncannot write in " + ro) != std::string::npos);
  ::chmod(ro.c_str(), 0700);
}

TEST_CASE("tuning DB: where it cannot be written is known before a sweep", "[samples][tuning]") {
  TempDir tmp;
  CHECK(tj::samples::why_unwritable(tmp / "tuning.json") == "");
  CHECK(tj::samples::why_unwritable(tmp / "new/deeper/tuning.json") == "");  // save() makes the folders
  CHECK(tj::samples::why_unwritable("/dev/null/tuning.json") == "/dev/null is not a folder");
  CHECK(tj::samples::why_unwritable(tmp.path()) == "it is not a regular file");
  CHECK(tj::samples::why_unwritable("") == "no file name");
  CHECK(names_in(tmp.path()).empty());  // nothing was created
  // A DB with no known place cannot be saved, and says how to give one.
  TuningDb nowhere = TuningDb::load("");
  CHECK_THROWS_WITH(nowhere.save(), Catch::Contains("give --db"));
}

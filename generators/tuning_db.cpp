#include "generators/tuning_db.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include "runtime/cache.h"
#include "runtime/error.h"
#include "runtime/files.h"

namespace tj::samples {

namespace json = llvm::json;

namespace {

constexpr const char* kFormat = "tilejit-tuning-v1";

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw std::runtime_error(path + ": " + what); }

const json::Object& object_at(const json::Value& v, const std::string& path) {
  if (const json::Object* o = v.getAsObject()) return *o;
  fail(path, "expected an object");
}

std::string string_at(const json::Object& o, const std::string& key, const std::string& path) {
  const json::Value* v = o.get(key);
  if (!v) fail(path + "." + key, "missing");
  std::optional<llvm::StringRef> s = v->getAsString();
  if (!s) fail(path + "." + key, "expected a string");
  return s->str();
}

int64_t integer_at(const json::Value& v, const std::string& path, int64_t lo, int64_t hi) {
  std::optional<double> d = v.getAsNumber();
  if (!d || !(*d >= double(lo) && *d <= double(hi)) || *d != double(int64_t(*d)))
    fail(path, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return int64_t(*d);
}

TuningRecord record_at(const json::Value& v, const std::string& path) {
  const json::Object& o = object_at(v, path);
  TuningRecord r;
  r.device = string_at(o, "device", path);
  r.sample = string_at(o, "sample", path);
  r.problem_class = string_at(o, "class", path);
  r.unit = string_at(o, "unit", path);
  r.date = string_at(o, "date", path);
  r.tilejit = string_at(o, "tilejit", path);
  const json::Value* params = o.get("params");
  if (!params) fail(path + ".params", "missing");
  for (const auto& [key, value] : object_at(*params, path + ".params"))
    r.params[key.str()] = integer_at(value, path + ".params." + key.str(), INT32_MIN, INT32_MAX);
  const json::Value* cluster = o.get("cluster");
  const json::Array* dims = cluster ? cluster->getAsArray() : nullptr;
  if (!dims || dims->size() != 3) fail(path + ".cluster", "expected [x, y, z]");
  unsigned d[3];
  for (size_t i = 0; i < 3; ++i) d[i] = unsigned(integer_at((*dims)[i], path + ".cluster[" + std::to_string(i) + "]", 1, 16));
  r.cluster = {d[0], d[1], d[2]};
  const json::Value* rate = o.get("rate");
  if (!rate || !rate->getAsNumber() || !(*rate->getAsNumber() >= 0)) fail(path + ".rate", "expected a number >= 0");
  r.rate = *rate->getAsNumber();
  return r;
}

void warn(const std::string& message) { std::fprintf(stderr, "tilejit: warning: %s\n", message.c_str()); }

}  // namespace

std::string tuning_db_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("TILEJIT_TUNING_DB"); env && *env) return env;
  const std::string dir = rt::cache_dir_from_env();
  return dir.empty() ? "" : rt::files::join(dir, "tuning.json");
}

std::string why_unwritable(const std::string& path) {
  namespace fs = llvm::sys::fs;
  if (path.empty()) return "no file name";
  fs::file_status st;
  if (!fs::status(path, st) && fs::exists(st) && st.type() != fs::file_type::regular_file) return "it is not a regular file";
  // The nearest existing folder on the way decides whether the rest can be made.
  std::string dir = llvm::sys::path::parent_path(path).str();
  while (!dir.empty() && !fs::exists(dir)) dir = llvm::sys::path::parent_path(dir).str();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir)) return dir + " is not a folder";
  if (std::error_code ec = fs::access(dir, fs::AccessMode::Write)) return "cannot write in " + dir + ": " + ec.message();
  return "";
}

std::vector<TuningRecord> parse_tuning_db(const std::string& text) {
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) fail("$", "not valid JSON: " + llvm::toString(parsed.takeError()));
  const json::Object& root = object_at(*parsed, "$");
  if (string_at(root, "format", "$") != kFormat) fail("$.format", std::string("expected \"") + kFormat + "\"");
  const json::Value* records = root.get("records");
  const json::Array* list = records ? records->getAsArray() : nullptr;
  if (!list) fail("$.records", "expected an array");
  std::vector<TuningRecord> out;
  for (size_t i = 0; i < list->size(); ++i) out.push_back(record_at((*list)[i], "$.records[" + std::to_string(i) + "]"));
  return out;
}

std::string tuning_db_text(const std::vector<TuningRecord>& records) {
  std::string text;
  llvm::raw_string_ostream os(text);
  json::OStream j(os, 2);
  // Written field by field (not through json::Value) to keep the order readable and the
  // rate at two decimals rather than 17 significant digits.
  j.object([&] {
    j.attribute("format", kFormat);
    j.attributeArray("records", [&] {
      for (const TuningRecord& r : records)
        j.object([&] {
          j.attribute("device", r.device);
          j.attribute("sample", r.sample);
          j.attribute("class", r.problem_class);
          j.attributeObject("params", [&] {
            for (const auto& [name, value] : r.params) j.attribute(name, value);
          });
          j.attributeArray("cluster", [&] {
            for (unsigned d : {r.cluster.x, r.cluster.y, r.cluster.z}) j.value(int64_t(d));
          });
          j.attributeBegin("rate");
          j.rawValue([&](llvm::raw_ostream& out) { out << llvm::format("%.2f", r.rate); });
          j.attributeEnd();
          j.attribute("unit", r.unit);
          j.attribute("date", r.date);
          j.attribute("tilejit", r.tilejit);
        });
    });
  });
  os << "\n";
  return text;
}

TuningDb TuningDb::load(const std::string& path) {
  TuningDb db;
  db.path_ = path;
  if (path.empty() || !llvm::sys::fs::exists(path)) return db;
  std::optional<std::string> text = rt::files::read(path);
  try {
    if (!text) fail("$", "cannot read the file");
    db.records_ = parse_tuning_db(*text);
  } catch (const std::runtime_error& e) {
    db.problem_ = e.what();
    db.records_.clear();
    warn("tuning DB " + path + " is unusable (" + db.problem_ + "); no tuned configs are read from it");
  }
  return db;
}

const TuningRecord* TuningDb::find(const std::string& device, const std::string& sample,
                                   const std::string& problem_class) const {
  for (const TuningRecord& r : records_)
    if (r.device == device && r.sample == sample && r.problem_class == problem_class) return &r;
  return nullptr;
}

std::optional<TuningRecord> TuningDb::put(TuningRecord r) {
  for (TuningRecord& old : records_)
    if (old.device == r.device && old.sample == r.sample && old.problem_class == r.problem_class) {
      std::optional<TuningRecord> replaced = std::move(old);
      old = std::move(r);
      return replaced;
    }
  records_.push_back(std::move(r));
  return std::nullopt;
}

void TuningDb::save() {
  auto io_error = [&](const std::string& what) { return rt::RuntimeError(rt::ErrorKind::Io, "tuning DB " + path_ + ": " + what); };
  if (path_.empty())
    throw rt::RuntimeError(rt::ErrorKind::Io, "no place for the tuning DB: set TILEJIT_TUNING_DB, TILEJIT_CACHE_DIR or HOME, or give --db");
  const std::string dir = llvm::sys::path::parent_path(path_).str();
  if (!dir.empty())
    if (std::error_code ec = rt::files::make_private_dirs(dir)) throw io_error("cannot create its folder: " + ec.message());
  if (!problem_.empty()) {
    // Never replace a file we could not read without keeping it.
    const std::string bad = path_ + ".bad";
    if (std::error_code ec = llvm::sys::fs::rename(path_, bad))
      throw io_error("it was unusable and cannot be moved aside to " + bad + ": " + ec.message());
    warn("tuning DB " + path_ + " was unusable; kept it as " + bad + " and wrote a new one");
    problem_.clear();
  }
  if (std::error_code ec = rt::files::write_atomic(path_, tuning_db_text(records_))) throw io_error("cannot write: " + ec.message());
}

}  // namespace tj::samples

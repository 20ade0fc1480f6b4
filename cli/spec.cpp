#include "cli/spec.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <set>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "llvm/Support/JSON.h"
#include "samples/builtin.h"

namespace tj::cli {
namespace {

constexpr size_t kMaxSpecBytes = 1 << 20;
constexpr int kMaxDepth = 32;

std::string kind_of(const llvm::json::Value& v) {
  switch (v.kind()) {
    case llvm::json::Value::Null: return "null";
    case llvm::json::Value::Boolean: return "a boolean";
    case llvm::json::Value::Number: return "a number";
    case llvm::json::Value::String: return "a string";
    case llvm::json::Value::Array: return "an array";
    case llvm::json::Value::Object: return "an object";
  }
  return "?";
}

// The shortest decimal that reads back as `d` ("0.1", "1000", "1e+30", "inf").
std::string shortest(double d) {
  char text[64];
  if (d == std::floor(d) && std::fabs(d) < 1e15) {
    std::snprintf(text, sizeof text, "%.0f", d);
    return text;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, d);
    if (std::strtod(text, nullptr) == d) break;
  }
  return text;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& msg) const { throw SpecError(file_, path, msg); }

  int64_t integer(const llvm::json::Value& v, const std::string& path, int64_t lo, int64_t hi) const {
    // getAsInteger() converts a double of 2^63 to int64 (undefined behaviour): numbers
    // outside int64 are refused here, before it is called.
    if (std::optional<double> d = v.getAsNumber(); d && !(*d > -9223372036854775808.0 && *d < 9223372036854775808.0)) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", *d);
      fail(path, std::string(text) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      if (v.kind() == llvm::json::Value::Number)
        fail(path, "expected an integer, got " + std::to_string(*v.getAsNumber()));
      fail(path, "expected an integer, got " + kind_of(v));
    }
    if (*i < lo || *i > hi)
      fail(path, std::to_string(*i) + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return *i;
  }

  // A real-valued parameter: any JSON number in [lo, hi].
  double real(const llvm::json::Value& v, const std::string& path, double lo, double hi) const {
    std::optional<double> d = v.getAsNumber();
    if (!d) fail(path, "expected a number, got " + kind_of(v));
    if (!(*d >= lo && *d <= hi))
      fail(path, shortest(*d) + " is out of range [" + shortest(lo) + ", " + shortest(hi) + "]");
    return *d;
  }

  // An integer parameter; one with choices also takes a choice's name, meaning its index.
  int64_t param(const llvm::json::Value& v, const std::string& path, const samples::ParamSpec& p) const {
    if (p.choices.empty()) return integer(v, path, p.min, p.max);
    std::string names;
    for (const std::string& c : p.choices) names += (names.empty() ? "" : ", ") + c;
    if (std::optional<llvm::StringRef> s = v.getAsString()) {
      for (size_t i = 0; i < p.choices.size(); ++i)
        if (p.choices[i] == *s) return static_cast<int64_t>(i);
      fail(path, "unknown choice '" + s->str() + "'; expected one of " + names);
    }
    if (v.kind() != llvm::json::Value::Number)
      fail(path, "expected one of " + names + " (or its number), got " + kind_of(v));
    return integer(v, path, p.min, p.max);
  }

  // An integer n (meaning [n, 1, 1]) or an array of one to three integers.
  ir::Dim3 dim3(const llvm::json::Value& v, const std::string& path, int64_t lo, int64_t hi) const {
    if (const llvm::json::Array* a = v.getAsArray()) {
      if (a->empty() || a->size() > 3) fail(path, "expected 1 to 3 dimensions, got " + std::to_string(a->size()));
      unsigned d[3] = {1, 1, 1};
      for (size_t i = 0; i < a->size(); ++i)
        d[i] = static_cast<unsigned>(integer((*a)[i], path + "[" + std::to_string(i) + "]", lo, hi));
      return {d[0], d[1], d[2]};
    }
    if (v.kind() != llvm::json::Value::Number) fail(path, "expected an integer or [x, y, z], got " + kind_of(v));
    return {static_cast<unsigned>(integer(v, path, lo, hi)), 1, 1};
  }

 private:
  std::string file_;
};

// Before the parser sees the text: rejects pathological nesting, and duplicate
// keys (llvm::json keeps the last one silently), naming the key's JSON path.
void prescan(const std::string& text, const std::string& file) {
  struct Frame {
    bool object;
    std::string path;
    std::set<std::string> keys;
    std::string last_key;
    size_t index = 0;
  };
  std::vector<Frame> stack;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      std::string str = text.substr(i + 1, std::min(j, text.size()) - i - 1);
      i = j;
      size_t k = j + 1;
      while (k < text.size() && std::isspace(static_cast<unsigned char>(text[k]))) ++k;
      if (k < text.size() && text[k] == ':' && !stack.empty() && stack.back().object) {
        Frame& f = stack.back();
        if (!f.keys.insert(str).second) throw SpecError(file, f.path + "." + str, "duplicate key");
        f.last_key = str;
      }
    } else if (c == '{' || c == '[') {
      if (stack.size() >= size_t(kMaxDepth))
        throw SpecError(file, "$", "nested deeper than " + std::to_string(kMaxDepth) + " levels");
      std::string path = "$";
      if (!stack.empty())
        path = stack.back().object ? stack.back().path + "." + stack.back().last_key
                                   : stack.back().path + "[" + std::to_string(stack.back().index) + "]";
      stack.push_back(Frame{c == '{', path, {}, {}, 0});
    } else if (c == ',' && !stack.empty() && !stack.back().object) {
      ++stack.back().index;
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    }
  }
}

}  // namespace

SpecError::SpecError(const std::string& file, const std::string& json_path, const std::string& message)
    : std::runtime_error(file + ": " + json_path + ": " + message), json_path_(json_path) {}

Spec parse_spec(const std::string& text, const std::string& file) { return parse_spec(text, file, samples::all_samples()); }

Spec parse_spec(const std::string& text, const std::string& file, const std::vector<const samples::Sample*>& known_samples) {
  if (text.size() > kMaxSpecBytes) throw SpecError(file, "$", "spec is larger than 1 MiB");
  prescan(text, file);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (!parsed) throw SpecError(file, "$", "not valid JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object* root = parsed->getAsObject();
  Reader r(file);
  if (!root) r.fail("$", "expected an object at the top level, got " + kind_of(*parsed));

  static const char* known[] = {"kernel", "cluster", "clusters", "grid", "threads", "non_portable", "params", "description"};
  for (const auto& kv : *root) {
    std::string key = kv.first.str();
    bool ok = false;
    for (const char* k : known) ok |= key == k;
    if (!ok)
      r.fail("$." + key, "unknown key; expected one of kernel, cluster, clusters, grid, threads, non_portable, params, description");
  }

  Spec spec;
  spec.file = file;
  const llvm::json::Value* kernel = root->get("kernel");
  if (!kernel) r.fail("$.kernel", "missing; name a sample (see `tilejit list`)");
  std::optional<llvm::StringRef> name = kernel->getAsString();
  if (!name) r.fail("$.kernel", "expected a string, got " + kind_of(*kernel));
  for (const samples::Sample* s : known_samples)
    if (s->name() == name->str()) spec.sample = s;
  if (!spec.sample) {
    std::string names;
    for (const samples::Sample* s : known_samples) names += (names.empty() ? "" : ", ") + s->name();
    r.fail("$.kernel", "unknown kernel '" + name->str() + "'; known: " + names);
  }
  spec.config = samples::default_config(*spec.sample);
  samples::Config& c = spec.config;
  for (const char* key : {"cluster", "clusters", "grid", "threads", "non_portable"})
    if (root->get(key)) c.named.insert(key);

  if (const llvm::json::Value* v = root->get("description")) {
    if (!v->getAsString()) r.fail("$.description", "expected a string, got " + kind_of(*v));
    spec.description = v->getAsString()->str();
  }
  if (const llvm::json::Value* v = root->get("cluster")) c.cluster = r.dim3(*v, "$.cluster", 1, 1024);
  if (const llvm::json::Value* v = root->get("threads")) c.threads = static_cast<unsigned>(r.integer(*v, "$.threads", 1, 1024));
  if (const llvm::json::Value* v = root->get("non_portable")) {
    if (!v->getAsBoolean()) r.fail("$.non_portable", "expected true or false, got " + kind_of(*v));
    c.non_portable = *v->getAsBoolean();
  }
  const llvm::json::Value* clusters = root->get("clusters");
  const llvm::json::Value* grid = root->get("grid");
  if (clusters && grid) r.fail("$.grid", "give either \"clusters\" (the grid in clusters) or \"grid\" (in CTAs), not both");
  if (clusters) c.grid_clusters = r.dim3(*clusters, "$.clusters", 1, std::numeric_limits<int32_t>::max());
  if (grid) {
    ir::Dim3 g = r.dim3(*grid, "$.grid", 1, std::numeric_limits<int32_t>::max());
    const unsigned gd[] = {g.x, g.y, g.z}, cd[] = {c.cluster.x, c.cluster.y, c.cluster.z};
    const char* axis = "xyz";
    for (int i = 0; i < 3; ++i)
      if (gd[i] % cd[i] != 0)
        r.fail("$.grid", "grid of " + g.str() + " CTAs is not divisible by the cluster shape " + c.cluster.str() + " (" +
                             std::string(1, axis[i]) + ": " + std::to_string(gd[i]) + " % " + std::to_string(cd[i]) +
                             " = " + std::to_string(gd[i] % cd[i]) + "); give \"clusters\" instead, or a multiple");
    c.grid_clusters = {g.x / c.cluster.x, g.y / c.cluster.y, g.z / c.cluster.z};
  }
  if (uint64_t(c.grid_ctas().x) * 1 > uint64_t(std::numeric_limits<int32_t>::max()) ||
      uint64_t(c.grid_clusters.x) * c.cluster.x > uint64_t(std::numeric_limits<int32_t>::max()))
    r.fail(clusters ? "$.clusters" : "$.grid", "the grid has more than 2^31 - 1 CTAs along x");
  if (uint64_t(c.grid_clusters.y) * c.cluster.y > 65535 || uint64_t(c.grid_clusters.z) * c.cluster.z > 65535)
    r.fail(clusters ? "$.clusters" : "$.grid", "the grid has more than 65535 CTAs along y or z");

  if (const llvm::json::Value* v = root->get("params")) {
    const llvm::json::Object* p = v->getAsObject();
    if (!p) r.fail("$.params", "expected an object, got " + kind_of(*v));
    const std::vector<samples::ParamSpec> specs = spec.sample->params();
    const std::vector<samples::RealParamSpec> reals = spec.sample->real_params();
    for (const auto& kv : *p) {
      std::string key = kv.first.str(), path = "$.params." + key;
      const samples::ParamSpec* ps = nullptr;
      const samples::RealParamSpec* rs = nullptr;
      for (const samples::ParamSpec& s : specs)
        if (s.name == key) ps = &s;
      for (const samples::RealParamSpec& s : reals)
        if (s.name == key) rs = &s;
      c.named.insert("params." + key);
      if (ps) {
        c.params[key] = r.param(kv.second, path, *ps);
      } else if (rs) {
        c.reals[key] = r.real(kv.second, path, rs->min, rs->max);
      } else {
        std::string names;
        for (const samples::ParamSpec& s : specs) names += (names.empty() ? "" : ", ") + s.name;
        for (const samples::RealParamSpec& s : reals) names += (names.empty() ? "" : ", ") + s.name;
        r.fail(path, "unknown parameter of " + spec.sample->name() + "; it takes: " + names);
      }
    }
  }
  // The sample's own rules, reported against the spec's keys.
  std::vector<samples::ConfigProblem> problems = spec.sample->check_config(c);
  if (!problems.empty()) {
    std::string msg = problems[0].message;
    for (size_t i = 1; i < problems.size(); ++i) msg += "; and $." + problems[i].field + ": " + problems[i].message;
    r.fail("$." + problems[0].field, msg);
  }
  return spec;
}

Spec load_spec(const std::string& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw SpecError(file, "$", "is a directory, not a spec file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SpecError(file, "$", "cannot read the file: " + std::string(std::strerror(errno)));
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxSpecBytes) throw SpecError(file, "$", "spec is larger than 1 MiB");
  }
  if (in.bad()) throw SpecError(file, "$", "read error");
  return parse_spec(text, file);
}

}  // namespace tj::cli

#include "bench/gemm_options.h"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <regex>
#include <set>

namespace tj::bench {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == sep) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

namespace {

// A whole number from 1 to 2^31 - 1, or nullopt.
std::optional<int64_t> dimension(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE || v < 1 || v > uint64_t(std::numeric_limits<int32_t>::max())) return std::nullopt;
  return int64_t(v);
}

// A JSON number, exactly as JSON spells them (no "+1", ".5", "inf").
bool is_number(const std::string& s) {
  static const std::regex number(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
  return std::regex_match(s, number);
}

bool is_name(const std::string& s) {
  return !s.empty() &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") == std::string::npos;
}

bool has_param(const samples::Sample& s, const std::string& name) {
  for (const samples::ParamSpec& p : s.params())
    if (p.name == name) return true;
  return false;
}

// "2x1" -> "[2, 1]"
std::string cluster_json(const std::string& value) {
  const ir::Dim3 c = parse_cluster(value, "--config");
  return "[" + std::to_string(c.x) + ", " + std::to_string(c.y) + ", " + std::to_string(c.z) + "]";
}

}  // namespace

ir::Dim3 parse_cluster(const std::string& value, const std::string& option) {
  std::vector<std::string> dims = split(value, 'x');
  unsigned d[3] = {1, 1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    std::optional<int64_t> v = dimension(dims[i]);
    if (!v || dims.size() > 3 || *v > 1024)
      throw OptionError(option + ": cluster=" + value + " is not N, NxM or NxMxL with whole numbers from 1 to 1024");
    d[i] = unsigned(*v);
  }
  return {d[0], d[1], d[2]};
}

std::string MatmulSize::str() const { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

std::vector<MatmulSize> default_sizes() {
  return {{4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192}, {4224, 4224, 4096},
          {8192, 8192, 1024}, {1024, 1024, 8192}, {2048, 2048, 2048}};
}

std::vector<MatmulSize> parse_sizes(const std::string& text) {
  std::vector<MatmulSize> out;
  for (const std::string& item : split(text, ',')) {
    std::vector<std::string> dims = split(item, 'x');
    std::optional<int64_t> m, n, k;
    if (dims.size() == 3) m = dimension(dims[0]), n = dimension(dims[1]), k = dimension(dims[2]);
    if (!m || !n || !k)
      throw OptionError("--shapes: '" + item + "' is not MxNxK with M, N and K whole numbers from 1 to 2147483647");
    out.push_back({*m, *n, *k});
  }
  return out;
}

uint64_t parse_seed(const std::string& text) {
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE)
    throw OptionError("--seed: '" + text + "' is not a whole number from 0 to 18446744073709551615");
  return v;
}

std::string gemm_spec(const samples::Sample& gemm, const MatmulSize& size, const std::string& layout,
                      const std::string& config) {
  std::string top, params = "\"m\": " + std::to_string(size.m) + ", \"n\": " + std::to_string(size.n) +
                                ", \"k\": " + std::to_string(size.k);
  if (has_param(gemm, "layout")) params += ", \"layout\": \"" + layout + "\"";
  else if (layout != "tn")
    throw OptionError("--layout: the " + gemm.name() + " sample has no 'layout' parameter, so only tn can be run");
  std::set<std::string> seen = {"m", "n", "k", "layout"};
  for (const std::string& item : config.empty() ? std::vector<std::string>{} : split(config, ',')) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (eq == std::string::npos || !is_name(key) || value.empty())
      throw OptionError("--config: '" + item + "' is not key=value");
    if (!seen.insert(key).second)
      throw OptionError("--config: " + key + " is given twice, or also set by --shapes/--layout");
    if (key == "cluster") {
      top += ", \"cluster\": " + cluster_json(value);
      continue;
    }
    if (!is_number(value) && !is_name(value))
      throw OptionError("--config: " + key + "=" + value + ": a value is a number or a name of letters, digits and _.+-");
    const std::string json = is_number(value) || value == "true" || value == "false" ? value : "\"" + value + "\"";
    if (key == "threads" || key == "non_portable") top += ", \"" + key + "\": " + json;
    else params += ", \"" + key + "\": " + json;
  }
  return "{\"kernel\": \"" + gemm.name() + "\", \"clusters\": 1" + top + ", \"params\": {" + params + "}}";
}

}  // namespace tj::bench

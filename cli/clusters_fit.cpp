#include "cli/clusters_fit.h"

#include <algorithm>

#include <cctype>
#include <optional>

#include "runtime/error.h"

namespace tj::cli {

namespace {
// A whole number of digits only, within [lo, hi].
std::optional<int> number_in(const std::string& s, int lo, int hi) {
  if (s.empty() || s.size() > 4) return std::nullopt;
  for (char ch : s)
    if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
  const int v = std::stoi(s);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}
}  // namespace

std::map<unsigned, int> parse_clusters_fit(const std::string& text) {
  auto bad = [](const std::string& why) { return rt::RuntimeError(rt::ErrorKind::Usage, "--clusters-fit: " + why); };
  std::map<unsigned, int> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t eq = item.find('=');
    const std::optional<int> ctas = eq == std::string::npos ? std::nullopt : number_in(item.substr(0, eq), 1, 16);
    const std::optional<int> count = eq == std::string::npos ? std::nullopt : number_in(item.substr(eq + 1), 0, 1024);
    if (!ctas || !count)
      throw bad("'" + item + "' is not CTAS=COUNT with CTAS from 1 to 16 and COUNT from 0 to 1024 (e.g. 2=66,4=30)");
    if (!out.emplace(unsigned(*ctas), *count).second) throw bad("clusters of " + std::to_string(*ctas) + " are given twice");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

samples::Sample::DeviceFacts modelled_device(int sms, const std::string& clusters_fit) {
  if (clusters_fit.empty()) return samples::Sample::DeviceFacts(sms);
  const std::map<unsigned, int> fit = parse_clusters_fit(clusters_fit);
  return samples::Sample::DeviceFacts(sms, [fit, sms](unsigned ctas) {
    const auto it = fit.find(ctas);
    return it != fit.end() ? it->second : sms / int(std::max(1u, ctas));
  });
}

}  // namespace tj::cli

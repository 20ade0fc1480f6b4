#include "cli/timeline_csv.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>

namespace tj::cli {

std::string timeline_csv(const std::vector<samples::TimelineUnit>& units) {
  uint64_t first = UINT64_MAX;
  for (const samples::TimelineUnit& u : units) first = std::min(first, u.start);
  std::string out = "cta,sm,unit,start_ns,end_ns,duration_ns\n";
  for (const samples::TimelineUnit& u : units) {
    out += std::to_string(u.cta) + ',' + std::to_string(u.sm) + ',' + std::to_string(u.unit) + ',' +
           std::to_string(u.start - first) + ',' + std::to_string(u.end - first) + ',' + std::to_string(u.end - u.start) + '\n';
  }
  return out;
}

bool is_csv_path(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext == ".csv";
}

}  // namespace tj::cli

#include "cli/report.h"

#include <cstdio>

namespace tj::cli {

std::string compile_time_text(const samples::CompileTimes& t, bool from_cache, double load_s) {
  const double total = t.total() + (load_s >= 0 ? load_s : 0);
  char buf[200];
  std::snprintf(buf, sizeof buf, "%.2f ms = DSL build %.2f + verify and emit %.2f + %s %.2f", total * 1e3, t.build * 1e3,
                t.lower * 1e3, from_cache ? "cache lookup" : "NVRTC", t.compile * 1e3);
  std::string out = buf;
  if (load_s >= 0) {
    std::snprintf(buf, sizeof buf, " + module load %.2f", load_s * 1e3);
    out += buf;
  }
  return out + " ms";
}

void print_checks(std::ostream& out, const codegen::Lowered& lowered) {
  out << lowered.check_report();
  char buf[80];
  std::snprintf(buf, sizeof buf, "%.3f ms", lowered.race_check_seconds * 1e3);
  out << "race check  took " << buf << "\n";
}

}  // namespace tj::cli

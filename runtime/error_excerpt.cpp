// annotate_errors: points at the generated source lines an NVRTC log complains about, since
// the user never saw that source and the log alone gives only line numbers.
#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

#include "runtime/compiler.h"

namespace tj::rt {

namespace {

constexpr int kContext = 3;     // lines shown on each side
constexpr size_t kMaxSites = 8; // a cascade of errors needs no more than the first few

struct Site {
  std::string file;
  int line;
};

// "name.cu(12): error: ..." or "name.cu(12): catastrophic error: ..." -> {name.cu, 12}.
std::optional<Site> parse_site(llvm::StringRef text) {
  size_t colon = text.find("): ");
  if (colon == llvm::StringRef::npos) return std::nullopt;
  llvm::StringRef rest = text.substr(colon + 3);
  if (!rest.starts_with("error") && !rest.starts_with("catastrophic error")) return std::nullopt;
  size_t open = text.substr(0, colon).rfind('(');
  if (open == llvm::StringRef::npos) return std::nullopt;
  int line = 0;
  if (text.substr(open + 1, colon - open - 1).getAsInteger(10, line) || line <= 0)
    return std::nullopt;
  return Site{text.substr(0, open).trim().str(), line};
}

const Header* find_file(const std::vector<Header>& files, const std::string& name) {
  for (const Header& file : files)
    if (file.name == name) return &file;
  // NVRTC may print an included header with a directory prefix.
  for (const Header& file : files)
    if (llvm::StringRef(name).ends_with("/" + file.name)) return &file;
  return nullptr;
}

std::string excerpt(const Header& file, int line) {
  llvm::SmallVector<llvm::StringRef, 64> lines;
  llvm::StringRef(file.content).split(lines, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back(); // text after the last '\n'
  if (line > int(lines.size())) return "";
  std::string out = file.name + ":" + std::to_string(line) + ":\n";
  int first = std::max(1, line - kContext), last = std::min(int(lines.size()), line + kContext);
  for (int n = first; n <= last; ++n) {
    std::string number = std::to_string(n);
    out += (n == line ? "  > " : "    ") + std::string(6 - std::min<size_t>(6, number.size()), ' ') +
           number + " | " + lines[n - 1].rtrim("\r").str() + "\n";
  }
  return out;
}

} // namespace

std::string annotate_errors(const std::string& log, const std::vector<Header>& files) {
  llvm::SmallVector<llvm::StringRef, 32> lines;
  llvm::StringRef(log).split(lines, '\n');
  std::set<std::pair<std::string, int>> seen;
  std::string out;
  for (llvm::StringRef text : lines) {
    auto site = parse_site(text);
    if (!site || !seen.insert({site->file, site->line}).second) continue;
    if (seen.size() > kMaxSites) break;
    if (const Header* file = find_file(files, site->file)) out += excerpt(*file, site->line);
  }
  return out;
}

} // namespace tj::rt

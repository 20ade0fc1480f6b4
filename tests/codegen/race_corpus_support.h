// What the race corpora share: statement lines marked while a kernel is built, and
// expected diagnostics that name them ("{read}" -> the line marked "read").
#pragma once

#include <map>
#include <string>

namespace tj::test {

struct Marks {
  std::map<std::string, unsigned> line;
};
#define MARK(name) marks.line[name] = __LINE__

inline std::string expand(std::string text, const Marks& marks) {
  for (const auto& [name, line] : marks.line) {
    const std::string key = "{" + name + "}";
    for (size_t p; (p = text.find(key)) != std::string::npos;) text.replace(p, key.size(), std::to_string(line));
  }
  return text;
}

}  // namespace tj::test

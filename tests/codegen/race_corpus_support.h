// What the race corpora share: statement lines marked with MARK("name") in a kernel
// builder, and expected diagnostics that name them as {name}.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "dsl/ir/kernel.h"

namespace tj::test {

struct Marks {
  std::map<std::string, unsigned> line;
};
#define MARK(name) marks.line[name] = __LINE__

// "{zero}" -> the marked line number.
inline std::string expand(std::string text, const Marks& marks) {
  for (const auto& [name, line] : marks.line) {
    const std::string key = "{" + name + "}";
    for (size_t p; (p = text.find(key)) != std::string::npos;) text.replace(p, key.size(), std::to_string(line));
  }
  return text;
}

// A kernel in its racy or its corrected form.
using Builder = std::function<ir::Kernel(bool racy, Marks& marks)>;

}  // namespace tj::test

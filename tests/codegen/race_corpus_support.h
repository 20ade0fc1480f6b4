// What the race corpora share: statement lines marked with MARK("name") in a kernel
// builder, expected diagnostics that name them as {name}, and the two verdicts.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "dsl/ir/kernel.h"
#include "tests/codegen/codegen_test_support.h"

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

// The racy form is refused with exactly one error, `expected` with its marks filled in
// and each "@" read as `file` + ":" (the test file's name, as diagnostics write it).
inline void refused(const Builder& build, std::string expected, const std::string& file) {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(build(true, marks));
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE(d.size() == 1);
  for (size_t p; (p = expected.find('@')) != std::string::npos;) expected.replace(p, 1, file + ":");
  CHECK(d[0].str() == expand(expected, marks));
}

// The corrected (or race-free) form lowers without an error.
inline void lowers(const Builder& build) {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(build(false, marks));
  CHECK(d.empty());
  if (!d.empty()) CHECK(d[0].str() == "");
}

}  // namespace tj::test

// Helpers shared by the codegen tests.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen/lower.h"
#include "dsl/diagnostic.h"

namespace tj::test {

// Whether `what` occurs in `s`, and how many times (not overlapping).
inline bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }
inline size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// The diagnostics lower() throws for `k` (empty when it lowers).
inline std::vector<Diagnostic> lower_errors(const ir::Kernel& k,
                                            const codegen::Target& t = codegen::Target::sm90a()) {
  try {
    codegen::lower(k, t);
  } catch (const UserError& e) {
    return e.diagnostics();
  }
  return {};
}

// The statements of generated code: lines inside the kernel that are not comments, trimmed.
inline std::vector<std::string> code_lines(const std::string& cuda) {
  std::vector<std::string> out;
  size_t start = cuda.find(") {\n");
  REQUIRE(start != std::string::npos);
  std::string rest = cuda.substr(start + 4);
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t nl = rest.find('\n', pos);
    std::string line = rest.substr(pos, nl - pos);
    pos = nl == std::string::npos ? rest.size() : nl + 1;
    size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    line = line.substr(first);
    if (line.rfind("//", 0) == 0) continue;
    out.push_back(line);
  }
  return out;
}

}  // namespace tj::test

// Helpers shared by the runtime tests: a temp dir, an env var override, stderr capture,
// and a tiny kernel with an in-memory header.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>

#include "runtime/compiler.h"

namespace tj::rt::test {

// A fresh directory, removed with everything in it at scope exit.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createUniqueDirectory("tilejit-rt-test", path)) std::abort();
    path_ = path.str().str();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path_, /*IgnoreErrors=*/true); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& child) const { return path_ + "/" + child; }

private:
  std::string path_;
};

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

// Collects what is written to stderr (fd 2) while it lives.
class CaptureStderr {
public:
  CaptureStderr() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~CaptureStderr() { restore(); }
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) out.append(buf, n);
    return out;
  }

private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

inline int count_lines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

// 0x5eed = 24301: a constant from the header that must show up in the PTX.
inline const char* kMagicHeader = R"(#pragma once
namespace tj_test {
constexpr int kMagic = 0x5eed;
__device__ inline int plus_magic(int x) { return x + kMagic; }
}
)";

inline CompileRequest tiny_request(const std::string& arch = "sm_90a") {
  CompileRequest request;
  request.kernel_name = "add_magic";
  request.source = R"(#include "tilejit/test_magic.cuh"
extern "C" __global__ void add_magic(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tj_test::plus_magic(i);
}
)";
  request.headers = {{"tilejit/test_magic.cuh", kMagicHeader}};
  request.arch = arch;
  return request;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace tj::rt::test

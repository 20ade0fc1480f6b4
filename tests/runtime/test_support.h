// Helpers shared by the runtime tests: a temp dir, an env var override, stderr capture,
// and a tiny kernel with an in-memory header.
#pragma once

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

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

// What a body run by as_unprivileged() returned, or why it could not run.
struct Unprivileged {
  bool ran = false;     // false: the body did not run; `report` says why
  std::string report;   // the body's return value when it ran
  bool failed = false;  // the child died or exited non-zero: a failure of the code under test, never a skip
};

// Runs `body` in a child process as a user that file permissions apply to: uid and
// gid 65534 (nobody) when this process is root, which ignores permission bits (a
// check of them would pass without testing anything); this process's own user
// otherwise. Each path in `hand_over` is given to that user first. The body must
// not use Catch2 assertions (it runs in the child): it returns a short report that
// the test checks. Only a privilege drop that fails may make the caller skip; a child
// that crashes (`failed`) is the test's failure.
inline Unprivileged as_unprivileged(const std::vector<std::string>& hand_over, const std::function<std::string()>& body) {
  const bool root = geteuid() == 0;
  constexpr uid_t kNobody = 65534;
  for (const std::string& p : hand_over)
    if (root && ::chown(p.c_str(), kNobody, kNobody) != 0)
      return {false, "cannot hand " + p + " to uid 65534: " + std::strerror(errno)};
  int fds[2];
  if (::pipe(fds) != 0) return {false, std::string("pipe: ") + std::strerror(errno)};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return {false, std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (root && (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0 || ::geteuid() != kNobody))
      out = std::string("\x01" "cannot drop root privileges: ") + std::strerror(errno);
    else
      out = body();
    for (size_t done = 0; done < out.size();) {
      ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += size_t(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return {false, "the unprivileged child died (status " + std::to_string(status) + "): " + out, true};
  if (!out.empty() && out[0] == '\x01') return {false, out.substr(1)};
  return {true, out};
}

// Reports a test as skipped: CTest's SKIP_REGULAR_EXPRESSION for the CPU tests
// matches "SKIPPED: " and shows the test as Skipped, never Passed.
inline void report_skipped(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

} // namespace tj::rt::test

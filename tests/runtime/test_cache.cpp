// The content-addressed compile cache: keys, hits, corruption, failures, permissions.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <set>
#include <thread>

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/error.h"
#include "runtime/files.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

namespace {

int mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return int(st.st_mode & 0777);
}

// Every published entry under a cache dir (temp dirs excluded).
std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator shard(dir, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    std::string name = llvm::sys::path::filename(shard->path()).str();
    if (name.rfind(".tmp-", 0) == 0) continue;
    std::error_code ec2;
    for (llvm::sys::fs::directory_iterator e(shard->path(), ec2); !ec2 && e != end; e.increment(ec2))
      out.insert(llvm::sys::path::filename(e->path()).str());
  }
  return out;
}

} // namespace

TEST_CASE("a miss compiles and stores, and the same request then hits", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "cache");
  REQUIRE(cache.enabled());
  CompileRequest request = tiny_request();

  CompileResult first = compile(request, &cache);
  CHECK_FALSE(first.from_cache);
  CHECK(entries(cache.dir()) == std::set<std::string>{first.key});

  CompileResult second = compile(request, &cache);
  CHECK(second.from_cache);
  CHECK(second.key == first.key);
  CHECK(second.ptx == first.ptx);
  CHECK(second.cubin == first.cubin);
  CHECK(second.log == first.log);
  CHECK(second.kernel_name == "add_magic");

  // A second Cache object on the same dir (another process, say) sees the entry too.
  Cache other(cache.dir());
  auto hit = other.lookup(first.key);
  REQUIRE(hit);
  CHECK(hit->cubin == first.cubin);
}

TEST_CASE("the key covers every input that changes the output", "[runtime][cache]") {
  const CompileRequest base = tiny_request();
  const std::string key = Cache::key_of(base);
  CHECK(key.size() == 64);
  CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(Cache::key_of(tiny_request()) == key); // identical request, identical key

  auto changed = [&](auto edit) {
    CompileRequest r = base;
    edit(r);
    return Cache::key_of(r);
  };
  std::set<std::string> keys = {
      key,
      changed([](CompileRequest& r) { r.headers[0].content += "// edit\n"; }),
      changed([](CompileRequest& r) { r.headers[0].name = "tilejit/other.cuh"; }),
      changed([](CompileRequest& r) { r.headers.push_back({"extra.cuh", ""}); }),
      changed([](CompileRequest& r) { r.source += " "; }),
      changed([](CompileRequest& r) { r.arch = "sm_100a"; }),
      changed([](CompileRequest& r) { r.options = {"-DX=1"}; }),
      changed([](CompileRequest& r) { r.options = {"-DX=1", "-DY=1"}; }),
      changed([](CompileRequest& r) { r.options = {"-DY=1", "-DX=1"}; }), // order matters
      changed([](CompileRequest& r) { r.kernel_name = "renamed"; }),
  };
  CHECK(keys.size() == 10);

  // Length prefixes keep field boundaries: moving text between fields changes the key.
  CompileRequest a = base, b = base;
  a.options = {"-DAB", "C"};
  b.options = {"-DA", "BC"};
  CHECK(Cache::key_of(a) != Cache::key_of(b));
}

TEST_CASE("the key does not depend on where the cache or the process lives", "[runtime][cache]") {
  TempDir one, two;
  std::string key = Cache::key_of(tiny_request());
  ScopedEnv env("TILEJIT_CACHE_DIR", one.path());
  CHECK(Cache::key_of(tiny_request()) == key);
  CHECK(Cache(one.path()).entry_dir(key) == one.path() + "/" + key.substr(0, 2) + "/" + key);
  CHECK(Cache(two.path()).entry_dir(key) == two.path() + "/" + key.substr(0, 2) + "/" + key);
}

TEST_CASE("a truncated cubin is detected, removed and rebuilt", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "cache");
  CompileRequest request = tiny_request();
  CompileResult good = compile(request, &cache);
  std::string entry = cache.entry_dir(good.key);
  REQUIRE(llvm::sys::fs::is_directory(entry));
  REQUIRE(::truncate((entry + "/kernel.cubin").c_str(), off_t(good.cubin.size() / 2)) == 0);

  std::string warnings;
  {
    CaptureStderr capture;
    CHECK_FALSE(cache.lookup(good.key));
    warnings = capture.text();
  }
  CHECK(count_lines(warnings) == 1);
  CHECK(contains(warnings, "corrupt cache entry"));
  CHECK(contains(warnings, "checksum mismatch"));
  CHECK_FALSE(llvm::sys::fs::exists(entry));

  CompileResult rebuilt = compile(request, &cache);
  CHECK_FALSE(rebuilt.from_cache);
  CHECK(rebuilt.cubin == good.cubin);
  CHECK(compile(request, &cache).from_cache);
}

TEST_CASE("a missing file in an entry is a miss too", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "cache");
  CompileResult good = compile(tiny_request(), &cache);
  REQUIRE(llvm::sys::fs::remove(cache.entry_dir(good.key) + "/meta") == std::error_code());
  CaptureStderr capture;
  CHECK_FALSE(cache.lookup(good.key));
  CHECK(contains(capture.text(), "a file is missing"));
}

TEST_CASE("a failed compile stores nothing", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "cache");
  CompileRequest request = tiny_request();
  request.source = "__global__ void add_magic() { undefined_thing(); }\n";
  CHECK_THROWS_AS(compile(request, &cache), RuntimeError);
  CHECK(entries(cache.dir()).empty());
  CHECK_FALSE(llvm::sys::fs::exists(cache.entry_dir(Cache::key_of(request))));
}

TEST_CASE("an unusable cache dir disables caching with one warning", "[runtime][cache]") {
  std::string warnings;
  CompileResult a, b;
  {
    CaptureStderr capture;
    Cache cache("/dev/null/x"); // a path under a file: cannot be created
    CHECK_FALSE(cache.enabled());
    a = compile(tiny_request(), &cache);
    b = compile(tiny_request(), &cache);
    warnings = capture.text();
  }
  CHECK_FALSE(a.from_cache);
  CHECK_FALSE(b.from_cache);
  CHECK(a.cubin == b.cubin);
  CHECK(count_lines(warnings) == 1);
  CHECK(contains(warnings, "tilejit: warning: compile cache disabled: cannot create '/dev/null/x'"));
}

TEST_CASE("a cache dir that becomes unwritable degrades at store time", "[runtime][cache]") {
  TempDir tmp;
  const std::string dir = tmp / "cache";
  // Root writes into a 0500 folder anyway: the cache is used by an unprivileged user.
  Unprivileged child = as_unprivileged({tmp.path()}, [&] {
    Cache cache(dir);
    if (!cache.enabled()) return std::string("the cache was disabled from the start");
    if (::chmod(cache.dir().c_str(), 0500) != 0) return std::string("chmod 0500 failed");
    std::string warnings;
    bool hit1, hit2;
    {
      CaptureStderr capture;
      hit1 = compile(tiny_request(), &cache).from_cache;
      hit2 = compile(tiny_request(), &cache).from_cache;
      warnings = capture.text();
    }
    ::chmod(cache.dir().c_str(), 0700);
    return "uid " + std::to_string(::geteuid()) + ": hits " + std::to_string(hit1) + std::to_string(hit2) + ", enabled after " + std::to_string(cache.enabled()) +
           ", warning lines " + std::to_string(count_lines(warnings)) + ": " + warnings;
  });
  if (child.failed) FAIL(child.report);
  if (!child.ran) return report_skipped("a cache dir that becomes unwritable: " + child.report);
  const std::string uid = "uid " + std::to_string(::geteuid() == 0 ? 65534 : ::geteuid()) + ": ";
  CHECK_THAT(child.report, Catch::StartsWith(uid + "hits 00, enabled after 0, warning lines 1: tilejit: warning: compile cache disabled"));
}

TEST_CASE("cache directories are private (0700)", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "a/b/cache");
  CompileResult r = compile(tiny_request(), &cache);
  CHECK(mode_of(cache.dir()) == 0700);
  CHECK(mode_of(tmp / "a") == 0700);
  CHECK(mode_of(cache.dir() + "/" + r.key.substr(0, 2)) == 0700);
  CHECK(mode_of(cache.entry_dir(r.key)) == 0700);
}

TEST_CASE("storing an entry that already exists is a quiet no-op", "[runtime][cache]") {
  TempDir tmp;
  Cache cache(tmp / "cache");
  CompileResult r = compile(tiny_request(), &cache);
  CompileResult other = r;
  other.ptx = "not the same";
  CaptureStderr capture;
  cache.store(r.key, other); // the first publisher wins
  CHECK(capture.text().empty());
  CHECK(cache.lookup(r.key)->ptx == r.ptx);
  CHECK(cache.enabled());
}

TEST_CASE("concurrent compiles of one request publish one entry", "[runtime][cache]") {
  TempDir tmp;
  std::string dir = tmp / "cache";
  std::vector<CompileResult> results(6);
  std::string warnings;
  {
    CaptureStderr capture;
    std::vector<std::thread> threads;
    for (auto& result : results)
      threads.emplace_back([&dir, &result] {
        Cache cache(dir); // one Cache per thread, as separate processes would have
        result = compile(tiny_request(), &cache);
      });
    for (auto& t : threads) t.join();
    warnings = capture.text();
  }
  CHECK(warnings.empty());
  for (const auto& r : results) CHECK(r.cubin == results[0].cubin);
  CHECK(entries(dir) == std::set<std::string>{results[0].key});
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    CHECK(llvm::sys::path::filename(it->path()).str().rfind(".tmp-", 0) != 0); // no leftovers
}

TEST_CASE("from_env: TILEJIT_CACHE_DIR, then XDG_CACHE_HOME, then HOME", "[runtime][cache]") {
  TempDir tmp;
  {
    ScopedEnv dir("TILEJIT_CACHE_DIR", tmp / "explicit");
    ScopedEnv xdg("XDG_CACHE_HOME", tmp / "xdg");
    CHECK(Cache::from_env().dir() == tmp / "explicit");
  }
  {
    ScopedEnv dir("TILEJIT_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", tmp / "xdg");
    CHECK(Cache::from_env().dir() == tmp / "xdg/tilejit");
  }
  {
    ScopedEnv dir("TILEJIT_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnv home("HOME", tmp / "home");
    Cache cache = Cache::from_env();
    CHECK(cache.dir() == tmp / "home/.cache/tilejit");
    CHECK(cache.enabled());
  }
}

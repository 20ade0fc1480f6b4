// The lowering pipeline: the insert_exit_barrier rewrite, the per-pass IR dump,
// and the embedded prelude.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

#include "codegen/lower.h"
#include "codegen/passes/insert_exit_barrier.h"
#include "codegen/prelude.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;

namespace {

std::string without_locs(const std::string& text) {
  return std::regex_replace(text, std::regex("    // [^\n]*"), "");
}

// Sets (or unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
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

// What is written to file descriptor 2 while it lives.
class CaptureStderr {
 public:
  CaptureStderr() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = dup(2);
    dup2(fileno(file_), 2);
  }
  ~CaptureStderr() {
    restore();
    std::fclose(file_);
  }
  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::cerr.flush();
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

// The entry barrier insert_entry_barrier puts first in every DSMEM kernel of a
// cluster > 1 (its own tests are below); the exit-barrier tests look past it.
ir::Kernel strip_entry(const ir::Kernel& k) {
  const auto& body = k.body->as<ir::Block>()->body;
  if (body.size() < 2) return k;
  const ir::ClusterBarrier* a = body[0]->as<ir::ClusterBarrier>();
  const ir::ClusterBarrier* w = body[1]->as<ir::ClusterBarrier>();
  if (!a || !w || a->op != ir::ClusterBarrierOp::Arrive || a->order != ir::MemoryOrder::Relaxed ||
      w->op != ir::ClusterBarrierOp::Wait)
    return k;
  ir::Kernel out = k;
  out.body = ir::Block::make(std::vector<ir::Stmt>(body.begin() + 2, body.end()), k.body->loc);
  return out;
}
std::string strip_entry_text(std::string text) {
  const std::string entry = "  cluster_arrive.relaxed()\n  cluster_wait.acquire()\n";
  if (size_t at = text.find(entry); at != std::string::npos) text.erase(at, entry.size());
  return text;
}
ir::Kernel lowered_kernel(const ir::Kernel& k) { return strip_entry(codegen::lower(k, Target::sm90a()).kernel); }

}  // namespace

TEST_CASE("insert_exit_barrier appends cluster_sync when a DSMEM store is the last thing", "[codegen][exit_barrier]") {
  const unsigned l_kernel = __LINE__ + 1;
  KernelBuilder k("no_wait");
  k.cluster(2);
  auto buf = k.shared<int32_t>("buf", 4);
  allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
  ir::Kernel kern = k.build();
  codegen::Lowered l = codegen::lower(kern, Target::sm90a());
  CHECK(without_locs(ir::to_string(strip_entry(l.kernel))) ==
        "kernel no_wait() block(128,1,1) cluster(2,1,1) {\n"
        "  shared buf: i32[4]\n"
        "  map_shared_rank(buf, 1)[0] = 7\n"
        "  cluster_sync()\n"
        "}\n");
  // The barrier the pass adds is attributed to the kernel's line, and is emitted.
  ir::Kernel stripped = strip_entry(l.kernel);
  const auto& body = stripped.body->as<ir::Block>()->body;
  REQUIRE(body.size() == 2);
  CHECK(body[1]->loc.line == l_kernel);
  const std::string tail = "  // ClusterBarrier at test_lower.cpp:" + std::to_string(l_kernel) +
                           ": cluster_sync()\n  tj::cluster_sync();\n}\n";
  REQUIRE(l.cuda.size() > tail.size());
  CHECK(l.cuda.substr(l.cuda.size() - tail.size()) == tail);
  // The input kernel is a value: unchanged.
  CHECK(kern.body->as<ir::Block>()->body.size() == 1);
}

// An arrive the kernel leaves pending gets its wait, not a second arrive (cluster_sync).
TEST_CASE("insert_exit_barrier appends after an arrive alone, or a load from a peer", "[codegen][exit_barrier]") {
  {
    KernelBuilder k("arrive_only");
    k.cluster(2);
    auto buf = k.shared<int32_t>("buf", 4);
    allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
    cluster_arrive();
    CHECK(without_locs(ir::to_string(lowered_kernel(k.build()))) ==
          "kernel arrive_only() block(128,1,1) cluster(2,1,1) {\n"
          "  shared buf: i32[4]\n"
          "  map_shared_rank(buf, 1)[0] = 7\n"
          "  cluster_arrive.release()\n"
          "  cluster_wait.acquire()\n"
          "}\n");
  }
  {
    KernelBuilder k("peer_load");
    k.cluster(2);
    auto out = k.param<int32_t*>("out");
    auto buf = k.shared<int32_t>("buf", 4);
    cluster_sync();
    out[0] = map_shared_rank(buf, 1)[0];
    CHECK(without_locs(ir::to_string(lowered_kernel(k.build()))) ==
          "kernel peer_load(out: global i32*) block(128,1,1) cluster(2,1,1) {\n"
          "  shared buf: i32[4]\n"
          "  cluster_sync()\n"
          "  out[0] = map_shared_rank(buf, 1)[0]\n"
          "  cluster_sync()\n"
          "}\n");
  }
}

TEST_CASE("insert_exit_barrier leaves a kernel alone when a cluster wait follows the last DSMEM use",
          "[codegen][exit_barrier]") {
  {
    KernelBuilder k("then_wait");
    k.cluster(2);
    auto out = k.param<int32_t*>("out");
    auto buf = k.shared<int32_t>("buf", 4);
    allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
    cluster_arrive();
    out[0] = 1;  // work between arrive and wait
    cluster_wait();
    out[1] = buf[0];  // local shared memory only
    ir::Kernel kern = k.build();
    CHECK(ir::to_string(lowered_kernel(kern)) == ir::to_string(kern));
  }
  {
    // The last use is a loop whose body ends with cluster_sync (dsmem_ring's shape).
    KernelBuilder k("loop_sync");
    k.cluster(4);
    auto buf = k.shared<int32_t>("buf", 4);
    for_(0, 8, [&](i32 r) {
      allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = r; });
      cluster_sync();
    });
    ir::Kernel kern = k.build();
    CHECK(ir::to_string(lowered_kernel(kern)) == ir::to_string(kern));
  }
  {
    // No DSMEM at all: nothing to protect, even in a cluster.
    KernelBuilder k("no_dsmem");
    k.cluster(2);
    auto out = k.param<int32_t*>("out");
    out[0] = cluster_ctarank();
    ir::Kernel kern = k.build();
    CHECK(ir::to_string(lowered_kernel(kern)) == ir::to_string(kern));
  }
}

TEST_CASE("insert_exit_barrier is conservative about branches and loops that end with a use",
          "[codegen][exit_barrier]") {
  {
    // Only one branch ends with a wait.
    KernelBuilder k("branch");
    k.cluster(2);
    auto buf = k.shared<int32_t>("buf", 4);
    if_(cluster_ctarank() == 0, [&] {
      allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
      cluster_sync();
    });
    ir::Kernel kern = lowered_kernel(k.build());
    const auto& body = kern.body->as<ir::Block>()->body;
    REQUIRE(body.size() == 2);
    const ir::ClusterBarrier* b = body[1]->as<ir::ClusterBarrier>();
    REQUIRE(b != nullptr);
    CHECK(b->op == ir::ClusterBarrierOp::Sync);
  }
  {
    // The loop body touches the peer after its barrier.
    KernelBuilder k("use_after_sync");
    k.cluster(2);
    auto buf = k.shared<int32_t>("buf", 4);
    for_(0, 8, [&](i32 r) {
      cluster_sync();
      allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = r; });
    });
    ir::Kernel kern = lowered_kernel(k.build());
    CHECK(without_locs(ir::to_string(kern)) ==
          "kernel use_after_sync() block(128,1,1) cluster(2,1,1) {\n"
          "  shared buf: i32[4]\n"
          "  for i in [0, 8) step 1 {\n"
          "    cluster_sync()\n"
          "    map_shared_rank(buf, 1)[0] = i\n"
          "  }\n"
          "  cluster_sync()\n"
          "}\n");
  }
}

// ends_with_cluster_wait() counts a For whose body ends with a wait as a wait,
// also when the loop comes after the last DSMEM use: if it runs zero times
// (n == 0 here), nothing orders the remote store before this CTA's peers exit.
TEST_CASE("a zero-trip loop after the last DSMEM use does not count as the exit barrier",
          "[codegen][exit_barrier]") {
  KernelBuilder k("zero_trip");
  k.cluster(2);
  auto n = k.param<int32_t>("n");
  auto buf = k.shared<int32_t>("buf", 4);
  allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
  for_(0, n, [&](i32) { cluster_sync(); });
  ir::Kernel kern = lowered_kernel(k.build());
  const auto& body = kern.body->as<ir::Block>()->body;
  REQUIRE(body.size() == 3);
  CHECK(body[2]->as<ir::ClusterBarrier>() != nullptr);
}

TEST_CASE("insert_exit_barrier is also callable on its own", "[codegen][exit_barrier]") {
  KernelBuilder k("direct");
  k.cluster(2);
  auto buf = k.shared<float>("buf", 4);
  atomic_add(map_shared_rank(buf, 0)[0], 1.0f);
  ir::Kernel in = k.build();
  ir::Kernel out = codegen::insert_exit_barrier(in);
  CHECK(out.body->as<ir::Block>()->body.size() == 2);
  // Idempotent: running it again adds nothing.
  CHECK(ir::to_string(codegen::insert_exit_barrier(out)) == ir::to_string(out));
}

TEST_CASE("pass_names lists schedule lowering, then verification, then the rewrites, then emission", "[codegen][lower]") {
  const std::vector<std::string>& names = codegen::pass_names();
  REQUIRE(names.size() >= 5);
  // Schedules become plain loops first, so that every check sees the loops that will run.
  CHECK(names[0] == "lower_schedules");
  CHECK(names[1] == "verify_cluster_shape");
  CHECK(names[2] == "verify_shared_memory");
  CHECK(names[3] == "verify_dsmem");
  CHECK(names[names.size() - 3] == "insert_exit_barrier");
  CHECK(names[names.size() - 2] == "insert_timeline");  // does nothing unless asked for
  CHECK(names.back() == "emit_cuda");
  // Every verify_ pass runs before every rewrite.
  size_t last_verify = 0, first_rewrite = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].rfind("verify_", 0) == 0) last_verify = i;
    if (names[i].rfind("insert_", 0) == 0) first_rewrite = std::min(first_rewrite, i);
  }
  CHECK(last_verify < first_rewrite);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
}

namespace {

ir::Kernel dsmem_store_kernel() {
  KernelBuilder k("dumped");
  k.cluster(2);
  auto buf = k.shared<int32_t>("buf", 4);
  allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
  return k.build();
}

}  // namespace

// The position of `pass` in pass_names(), or -1.
static int pass_index(const std::string& pass) {
  const std::vector<std::string>& names = codegen::pass_names();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == pass) return static_cast<int>(i);
  return -1;
}

TEST_CASE("LowerOptions::dump sees the IR after each pass, in pipeline order", "[codegen][lower][dump]") {
  ir::Kernel kern = dsmem_store_kernel();
  std::vector<std::pair<std::string, std::string>> seen;
  codegen::LowerOptions opts;
  opts.dump = [&](const std::string& pass, const std::string& ir) { seen.emplace_back(pass, ir); };
  codegen::Lowered l = codegen::lower(kern, Target::sm90a(), opts);
  const std::string before = ir::to_string(kern), after = ir::to_string(l.kernel);
  REQUIRE(seen.size() >= 4);
  // No for_each_tile here: lowering schedules changes nothing.
  CHECK(seen[0] == std::make_pair(std::string("lower_schedules"), before));
  CHECK(seen[1] == std::make_pair(std::string("verify_cluster_shape"), before));
  CHECK(seen[2] == std::make_pair(std::string("verify_shared_memory"), before));
  CHECK(seen[3] == std::make_pair(std::string("verify_dsmem"), before));
  // Each pass at most once, in pass_names() order; verification passes see the input unchanged.
  int previous = -1;
  bool saw_exit_barrier = false;
  for (const auto& [pass, text] : seen) {
    INFO(pass);
    int index = pass_index(pass);
    CHECK(index > previous);
    previous = index;
    if (pass.rfind("verify_", 0) == 0) CHECK(text == before);
    if (pass == "insert_exit_barrier") {
      saw_exit_barrier = true;
      CHECK(text == after);  // the dump after the rewrite shows the barrier it added
    }
  }
  CHECK(saw_exit_barrier);
  CHECK(before != after);
  CHECK(strip_entry_text(without_locs(after)) ==
        "kernel dumped() block(128,1,1) cluster(2,1,1) {\n"
        "  shared buf: i32[4]\n"
        "  map_shared_rank(buf, 1)[0] = 7\n"
        "  cluster_sync()\n"
        "}\n");
}

TEST_CASE("when verification fails, verification passes are still dumped, then the error thrown",
          "[codegen][lower][dump]") {
  KernelBuilder k("bad");
  k.cluster(17);
  ir::Kernel kern = k.build();
  std::vector<std::string> passes;
  codegen::LowerOptions opts;
  opts.dump = [&](const std::string& pass, const std::string&) { passes.push_back(pass); };
  CHECK_THROWS_AS(codegen::lower(kern, Target::sm90a(), opts), UserError);
  REQUIRE(passes.size() >= 4);
  CHECK(passes[0] == "lower_schedules");
  CHECK(passes[1] == "verify_cluster_shape");
  CHECK(passes[2] == "verify_shared_memory");
  CHECK(passes[3] == "verify_dsmem");
  for (size_t i = 1; i < passes.size(); ++i) {
    INFO(passes[i]);
    CHECK(passes[i].rfind("verify_", 0) == 0);  // no rewrite runs on a kernel that failed verification
  }
}

// pass_names() ends with "emit_cuda", but lower() never calls dump after it,
// so a dump hook (or TILEJIT_DUMP_IR=emit_cuda) never hears of that pass.
TEST_CASE("LowerOptions::dump is called once per pass in pass_names() order", "[codegen][lower][dump]") {
  std::vector<std::string> passes;
  codegen::LowerOptions opts;
  opts.dump = [&](const std::string& pass, const std::string&) { passes.push_back(pass); };
  codegen::lower(dsmem_store_kernel(), Target::sm90a(), opts);
  CHECK(passes == codegen::pass_names());
}

TEST_CASE("TILEJIT_DUMP_IR=<pass> prints that pass's IR to stderr", "[codegen][lower][dump]") {
  ir::Kernel kern = dsmem_store_kernel();
  std::string err;
  codegen::Lowered l;
  {
    ScopedEnv env("TILEJIT_DUMP_IR", "insert_exit_barrier");
    CaptureStderr capture;
    l = codegen::lower(kern, Target::sm90a());
    err = capture.text();
  }
  CHECK(err == "// ---- IR after insert_exit_barrier ----\n" + ir::to_string(l.kernel));
  {
    ScopedEnv env("TILEJIT_DUMP_IR", "0");
    CaptureStderr capture;
    codegen::lower(kern, Target::sm90a());
    CHECK(capture.text().empty());
  }
  {
    // An explicit hook wins over the environment.
    ScopedEnv env("TILEJIT_DUMP_IR", "1");
    int calls = 0;
    codegen::LowerOptions opts;
    opts.dump = [&](const std::string&, const std::string&) { ++calls; };
    CaptureStderr capture;
    codegen::lower(kern, Target::sm90a(), opts);
    CHECK(capture.text().empty());
    CHECK(calls >= 4);
  }
}

TEST_CASE("the embedded prelude is codegen/prelude/tilejit_prelude.cuh with its topic files inlined, byte for byte",
          "[codegen][prelude]") {
  const std::string dir = tj::test::source_dir() + "/codegen/prelude/";
  auto read = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    INFO(path);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  // Each line `#include "name"` of the gathering header stands for the text of `name`.
  std::string expected;
  int parts = 0;
  std::istringstream head(read(dir + "tilejit_prelude.cuh"));
  for (std::string line; std::getline(head, line);) {
    static const std::regex include_line("#include \"([^\"]+)\"");
    std::smatch m;
    if (std::regex_match(line, m, include_line)) {
      expected += read(dir + m[1].str());
      ++parts;
    } else {
      expected += line + "\n";
    }
  }
  const std::string embedded(codegen::prelude_source());
  CHECK(parts >= 10);
  CHECK(embedded.size() == expected.size());
  CHECK(embedded == expected);
  CHECK(embedded.rfind("// tilejit device prelude", 0) == 0);
  // One self-contained header: NVRTC gets no other, and no toolkit header is included.
  CHECK(embedded.find("#include") == std::string::npos);
}

TEST_CASE("insert_entry_barrier waits for the whole cluster before the first access to a peer", "[codegen][entry_barrier]") {
  {
    const unsigned l_kernel = __LINE__ + 1;
    KernelBuilder k("early_write");
    k.cluster(2);
    auto buf = k.shared<int32_t>("buf", 4);
    allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
    cluster_sync();
    codegen::Lowered l = codegen::lower(k.build(), Target::sm90a());
    CHECK(without_locs(ir::to_string(l.kernel)) ==
          "kernel early_write() block(128,1,1) cluster(2,1,1) {\n"
          "  shared buf: i32[4]\n"
          "  cluster_arrive.relaxed()\n"
          "  cluster_wait.acquire()\n"
          "  map_shared_rank(buf, 1)[0] = 7\n"
          "  cluster_sync()\n"
          "}\n");
    CHECK(l.kernel.body->as<ir::Block>()->body[0]->loc.line == l_kernel);
    CHECK(l.cuda.find("tj::cluster_arrive_relaxed();\n  // ClusterBarrier at test_lower.cpp:" + std::to_string(l_kernel) +
                      ": cluster_wait.acquire()\n  tj::cluster_wait_acquire();") != std::string::npos);
  }
  {
    // A cluster barrier before the first use already guarantees every CTA has started.
    KernelBuilder k("synced_first");
    k.cluster(2);
    auto buf = k.shared<int32_t>("buf", 4);
    cluster_sync();
    allow_race("test: every CTA stores into rank 1", [&] { map_shared_rank(buf, 1)[0] = 7; });
    cluster_sync();
    ir::Kernel kern = k.build();
    CHECK(ir::to_string(codegen::lower(kern, Target::sm90a()).kernel) == ir::to_string(kern));
  }
  {
    // No peer access, or a cluster of one: nothing to wait for.
    KernelBuilder k("alone");
    k.cluster(1);
    auto buf = k.shared<int32_t>("buf", 4);
    map_shared_rank(buf, 0)[0] = 7;
    cluster_sync();
    ir::Kernel kern = k.build();
    CHECK(ir::to_string(codegen::lower(kern, Target::sm90a()).kernel) == ir::to_string(kern));
  }
}

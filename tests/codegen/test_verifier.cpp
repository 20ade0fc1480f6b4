// Verifier diagnostics, each with its exact text: codegen::lower() throws one
// UserError carrying every diagnostic the verification passes found.
#include <catch2/catch.hpp>
#include <optional>

#include "tests/codegen/codegen_test_support.h"

#include "codegen/lower.h"
#include "codegen/passes/verify_launch.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

constexpr const char* kFile = "test_verifier.cpp";


// The full text lower() throws, or "lowered".
std::string lower_what(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  try {
    codegen::lower(k, t);
  } catch (const UserError& e) {
    return e.what();
  }
  return "lowered";
}

std::string at(unsigned line) { return std::string(kFile) + ":" + std::to_string(line); }

// A kernel with the given cluster shape that touches a peer's shared memory.
ir::Kernel cluster_kernel(unsigned x, unsigned y, unsigned z, bool non_portable, unsigned* cluster_line = nullptr) {
  KernelBuilder k("clustered");
  if (cluster_line) *cluster_line = __LINE__ + 1;
  k.cluster(x, y, z);
  if (non_portable) k.allow_non_portable_cluster();
  auto buf = k.shared<int32_t>("buf", 128);
  map_shared_rank(buf, (cluster_ctarank() + 1) % cluster_nctarank())[thread_idx_x()] = 1;
  cluster_sync();
  return k.build();
}

const char* kPortableFix =
    "call allow_non_portable_cluster() on the kernel (or set \"non_portable\": true in the spec), or use at most 8 CTAs";

}  // namespace

TEST_CASE("a cluster of 9 CTAs needs allow_non_portable_cluster()", "[codegen][verify][cluster]") {
  unsigned line = 0;
  ir::Kernel k = cluster_kernel(9, 1, 1, false, &line);
  std::vector<Diagnostic> d = lower_errors(k);
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.file == kFile);
  CHECK(d[0].loc.line == line);
  CHECK(d[0].message == "cluster shape (9,1,1) has 9 CTAs, more than the portable 8");
  CHECK(d[0].fix == kPortableFix);
  CHECK(lower_what(k) == at(line) + ": error: cluster shape (9,1,1) has 9 CTAs, more than the portable 8\n  fix: " +
                             kPortableFix);
  // Same rule for a 3-D shape, and on sm_100a.
  std::vector<Diagnostic> d3 = lower_errors(cluster_kernel(3, 3, 1, false), Target::sm100a());
  REQUIRE(d3.size() == 1);
  CHECK(d3[0].message == "cluster shape (3,3,1) has 9 CTAs, more than the portable 8");
}

TEST_CASE("clusters of 9..16 CTAs lower once opted in, and 8 needs no opt-in", "[codegen][verify][cluster]") {
  codegen::Lowered l9 = codegen::lower(cluster_kernel(9, 1, 1, true), Target::sm90a());
  CHECK(l9.cuda.find("// block (128,1,1), cluster (9,1,1)\n") != std::string::npos);
  CHECK(l9.kernel.non_portable_cluster);
  CHECK(lower_errors(cluster_kernel(16, 1, 1, true)).empty());
  CHECK(lower_errors(cluster_kernel(4, 2, 2, true), Target::sm100a()).empty());
  CHECK(lower_errors(cluster_kernel(8, 1, 1, false)).empty());
  CHECK(lower_errors(cluster_kernel(2, 2, 2, false)).empty());
}

TEST_CASE("a cluster of 17 CTAs is refused even with the opt-in", "[codegen][verify][cluster]") {
  unsigned line = 0;
  for (bool opt_in : {true, false}) {
    std::vector<Diagnostic> d = lower_errors(cluster_kernel(17, 1, 1, opt_in, &line));
    REQUIRE(d.size() == 1);
    CHECK(d[0].loc.line == line);
    CHECK(d[0].message == "cluster shape (17,1,1) has 17 CTAs; sm_90a allows at most 16");
    CHECK(d[0].fix == "use a cluster of at most 16 CTAs");
  }
  std::vector<Diagnostic> d = lower_errors(cluster_kernel(4, 4, 2, true), Target::sm100a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "cluster shape (4,4,2) has 32 CTAs; sm_100a allows at most 16");
}

TEST_CASE("a cluster dimension of zero is refused", "[codegen][verify][cluster]") {
  KernelBuilder k("zero_cluster");
  k.cluster(2, 0, 1); const unsigned line = __LINE__;
  ir::Kernel kern = k.build();
  CHECK(lower_what(kern) ==
        at(line) + ": error: cluster shape (2,0,1) has a zero dimension\n  fix: use cluster(1) for no clustering");
}

// verify_dsmem checks constant ranks against cluster.count(), which is 0 for a
// zero-sized cluster: a second, wrong diagnostic ("outside the cluster of 0
// CTAs (ranks 0..4294967295)") follows the real one.
TEST_CASE("a zero cluster dimension is reported once, without a rank diagnostic", "[codegen][verify][cluster]") {
  KernelBuilder k("zero_cluster_dsmem");
  k.cluster(0);
  auto buf = k.shared<int32_t>("buf", 4);
  map_shared_rank(buf, 0)[0] = 1;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "cluster shape (0,1,1) has a zero dimension");
}

TEST_CASE("more than 1024 threads per CTA are refused", "[codegen][verify][threads]") {
  const unsigned line = __LINE__ + 1;
  KernelBuilder k("too_many");
  k.threads(1025);
  ir::Kernel kern = k.build();
  // The error points at the threads() call, the line after the builder.
  CHECK(lower_what(kern) == at(line + 1) +
                                ": error: kernel 'too_many' asks for 1025 threads per CTA; sm_90a allows at most 1024"
                                "\n  fix: use fewer threads per CTA and loop over the work");

  KernelBuilder k3("too_many_3d");
  k3.threads(32, 32, 2);
  std::vector<Diagnostic> d = lower_errors(k3.build(), Target::sm100a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "kernel 'too_many_3d' asks for 2048 threads per CTA; sm_100a allows at most 1024");

  KernelBuilder ok("just_enough");
  ok.threads(32, 8, 4);
  CHECK(lower_errors(ok.build()).empty());

  KernelBuilder z("no_threads");
  z.threads(0, 4);
  std::vector<Diagnostic> dz = lower_errors(z.build());
  REQUIRE(dz.size() == 1);
  CHECK(dz[0].message == "kernel 'no_threads' has a zero block dimension (0,4,1)");
  CHECK(dz[0].fix == "give threads(x, y, z) values of at least 1");
}

// KernelBuilder::threads() takes a SrcLoc but drops it (builder.cpp), and
// verify_cluster_shape reports block errors at the kernel's line: the user is
// not pointed at the threads() call that is wrong.
TEST_CASE("a bad thread count is reported at the threads() call", "[codegen][verify][threads]") {
  KernelBuilder k("threads_line");
  k.threads(2048); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == line);
}

TEST_CASE("shared memory over 227 KiB per CTA is refused, naming the largest buffer", "[codegen][verify][smem]") {
  KernelBuilder k("smem_over");
  auto flag = k.shared<uint32_t>("flag", 1);
  auto big = k.dynamic_shared<float>("big", 58113); const unsigned line = __LINE__;
  big[0] = cast<float>(flag[0]);
  ir::Kernel kern = k.build();
  // 58113 * 4 = 232452 B, rounded to 232464; plus 16 B static.
  CHECK(kern.dynamic_shared_bytes() == 232464);
  CHECK(kern.static_shared_bytes() == 16);
  CHECK(lower_what(kern) ==
        at(line) +
            ": error: kernel 'smem_over' uses 232480 bytes (227+ KiB) of shared memory per CTA; sm_90a allows at most "
            "232448 bytes (227 KiB) (largest buffer: 'big', 232452 bytes (227+ KiB))\n"
            "  fix: shrink the buffers, or split the tile across the cluster with map_shared_rank");
}

TEST_CASE("exactly 232448 bytes of shared memory fit", "[codegen][verify][smem]") {
  KernelBuilder k("smem_full");
  auto big = k.dynamic_shared<float>("big", 58112);
  big[0] = 1.0f;
  codegen::Lowered l = codegen::lower(k.build(), Target::sm90a());
  CHECK(l.dynamic_smem == 232448);

  // One static float more tips it over: 16 + 232448.
  KernelBuilder k2("smem_plus_one");
  auto s = k2.shared<float>("s", 1);
  auto big2 = k2.dynamic_shared<float>("big", 58112);
  big2[0] = s[0];
  std::vector<Diagnostic> d = lower_errors(k2.build(), Target::sm100a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message ==
        "kernel 'smem_plus_one' uses 232464 bytes (227+ KiB) of shared memory per CTA; sm_100a allows at most "
        "232448 bytes (227 KiB) (largest buffer: 'big', 232448 bytes (227 KiB))");
}

TEST_CASE("static shared memory over 48 KiB is refused, and exactly 48 KiB fits", "[codegen][verify][smem]") {
  KernelBuilder k("static_over");
  auto a = k.shared<float>("a", 12289); const unsigned line = __LINE__;
  a[0] = 1.0f;
  CHECK(lower_what(k.build()) ==
        at(line) +
            ": error: static shared buffers of kernel 'static_over' take 49168 bytes (48+ KiB), over the 48 KiB "
            "static limit ('a' is 49156 bytes (48+ KiB))\n"
            "  fix: declare the large buffers with dynamic_shared<T>(...), which may use up to 232448 bytes (227 KiB)");

  KernelBuilder ok("static_full");
  auto b = ok.shared<float>("b", 12288);
  auto dyn = ok.dynamic_shared<float>("dyn", 40000);  // dynamic memory does not count against the static limit
  b[0] = dyn[0];
  CHECK(lower_errors(ok.build()).empty());
}

// verify_shared_memory names the first static buffer, not the one that is
// large: here it says "('flag' is 4 bytes)" although 'tile' takes 48 KiB.
TEST_CASE("the static-limit diagnostic names the largest static buffer", "[codegen][verify][smem]") {
  KernelBuilder k("static_named");
  auto flag = k.shared<uint32_t>("flag", 1);
  auto tile = k.shared<float>("tile", 12288); const unsigned line = __LINE__;
  tile[0] = cast<float>(flag[0]);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == line);
  CHECK(d[0].message.find("'tile' is 49152 bytes (48 KiB)") != std::string::npos);
}

TEST_CASE("map_shared_rank on a global buffer is refused", "[codegen][verify][dsmem]") {
  KernelBuilder k("dsmem_global");
  k.cluster(2);
  auto g = k.param<float*>("g");
  auto peer = map_shared_rank(g, 1); const unsigned line = __LINE__;
  peer[0] = 1.0f;
  CHECK(lower_what(k.build()) ==
        at(line) +
            ": error: map_shared_rank needs a shared buffer, but 'g' (global f32*) is not: it is global memory\n"
            "  fix: pass a buffer declared with shared<T>() or dynamic_shared<T>()");
}

TEST_CASE("map_shared_rank on an already-mapped buffer is refused", "[codegen][verify][dsmem]") {
  KernelBuilder k("dsmem_twice");
  k.cluster(2);
  auto buf = k.shared<float>("buf", 8);
  auto once = map_shared_rank(buf, 1);
  auto twice = map_shared_rank(once, 0); const unsigned line = __LINE__;
  twice[0] = 1.0f;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == line);
  CHECK(d[0].message ==
        "map_shared_rank needs a shared buffer, but 'map_shared_rank(buf, 1)' (shared::cluster f32*) is not: it is "
        "already a peer's shared memory");
  CHECK(d[0].fix == "pass a buffer declared with shared<T>() or dynamic_shared<T>()");
}

TEST_CASE("a constant peer rank must lie inside the cluster", "[codegen][verify][dsmem]") {
  const char* fix4 = "use a rank below 4, e.g. (cluster_ctarank() + 1) % cluster_nctarank()";
  for (int rank : {4, 7, -1}) {
    KernelBuilder k("bad_rank");
    k.cluster(4);
    auto buf = k.dynamic_shared<uint32_t>("buf", 8);
    map_shared_rank(buf, rank)[0] = 1u; const unsigned line = __LINE__;
    std::string want = at(line) + ": error: map_shared_rank names CTA rank " + std::to_string(rank) +
                       ", outside the cluster of 4 CTAs (ranks 0..3)\n  fix: " + fix4;
    CHECK(lower_what(k.build()) == want);
  }
  // Seen through an integer cast, and with a single-CTA "cluster".
  KernelBuilder k1("rank_one");
  auto buf = k1.shared<float>("buf", 8);
  map_shared_rank(buf, cast<int32_t>(i64(1)))[0] = 1.0f;
  std::vector<Diagnostic> d = lower_errors(k1.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "map_shared_rank names CTA rank 1, outside the cluster of 1 CTA (ranks 0..0)");
  CHECK(d[0].fix == "use a rank below 1, e.g. (cluster_ctarank() + 1) % cluster_nctarank()");
  // Ranks 0..3 and run-time ranks are fine.
  KernelBuilder ok("good_ranks");
  ok.cluster(4);
  auto b = ok.shared<float>("b", 8);
  allow_race("test: ranks only", [&] { map_shared_rank(b, 0)[0] = 1.0f; });
  allow_race("test: ranks only", [&] { map_shared_rank(b, 3)[0] = 1.0f; });
  allow_race("test: ranks only", [&] { map_shared_rank(b, (cluster_ctarank() + 7) % 4)[0] = 1.0f; });
  cluster_sync();
  CHECK(lower_errors(ok.build()).empty());
}

// The checker visits the same MapSharedRank node once per use, so a bad
// mapping used twice (a store and a load here) is reported twice, word for word.
TEST_CASE("one bad map_shared_rank is reported once however often it is used", "[codegen][verify][dsmem]") {
  KernelBuilder k("dup_diag");
  k.cluster(2);
  auto g = k.param<float*>("g");
  auto peer = map_shared_rank(g, 5);
  peer[0] = peer[1] + 1.0f;
  std::vector<Diagnostic> d = lower_errors(k.build());
  CHECK(d.size() == 2);  // wrong memory space, rank 5 outside the cluster of 2
}

TEST_CASE("verify_launch: the grid must be divisible by the cluster shape", "[codegen][verify][launch]") {
  KernelBuilder k("launch");
  k.cluster(2); const unsigned line = __LINE__;
  ir::Kernel kern = k.build();
  std::vector<Diagnostic> d = codegen::verify_launch(kern, ir::Dim3{7, 1, 1});
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == at(line) +
                          ": error: grid of (7,1,1) CTAs is not divisible by the cluster shape (2,1,1) (x: 7 % 2 = 1)\n"
                          "  fix: give the grid in clusters, or round x up to 8");
  CHECK(codegen::verify_launch(kern, ir::Dim3{8, 3, 5}).empty());

  KernelBuilder k2("launch_2d");
  k2.cluster(2, 4);
  ir::Kernel kern2 = k2.build();
  std::vector<Diagnostic> d2 = codegen::verify_launch(kern2, ir::Dim3{3, 6, 1});
  REQUIRE(d2.size() == 2);
  CHECK(d2[0].message == "grid of (3,6,1) CTAs is not divisible by the cluster shape (2,4,1) (x: 3 % 2 = 1)");
  CHECK(d2[0].fix == "give the grid in clusters, or round x up to 4");
  CHECK(d2[1].message == "grid of (3,6,1) CTAs is not divisible by the cluster shape (2,4,1) (y: 6 % 4 = 2)");
  CHECK(d2[1].fix == "give the grid in clusters, or round y up to 8");
}

TEST_CASE("verify_launch: zero and oversized grids", "[codegen][verify][launch]") {
  const unsigned line = __LINE__ + 1;
  KernelBuilder k("grid_limits");
  ir::Kernel kern = k.build();
  std::vector<Diagnostic> d = codegen::verify_launch(kern, ir::Dim3{0, 1, 1});
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == at(line) + ": error: grid (0,1,1) of kernel 'grid_limits' has a zero dimension\n"
                                 "  fix: launch at least one cluster");
  std::vector<Diagnostic> big = codegen::verify_launch(kern, ir::Dim3{1, 65536, 70000});
  REQUIRE(big.size() == 2);
  CHECK(big[0].message == "grid y = 65536 CTAs exceeds the limit 65535");
  CHECK(big[1].message == "grid z = 70000 CTAs exceeds the limit 65535");
  CHECK(big[1].fix == "use fewer CTAs, e.g. a persistent loop");
  CHECK(codegen::verify_launch(kern, ir::Dim3{2147483647u, 65535, 65535}).empty());
  std::vector<Diagnostic> x = codegen::verify_launch(kern, ir::Dim3{2147483648u, 1, 1});
  REQUIRE(x.size() == 1);
  CHECK(x[0].message == "grid x = 2147483648 CTAs exceeds the limit 2147483647");
}

TEST_CASE("every verifier error is reported together, in pass order", "[codegen][verify]") {
  const unsigned l_kernel = __LINE__ + 1;
  KernelBuilder k("everything_wrong");
  const unsigned l_cluster = __LINE__ + 1;
  k.threads(2048).cluster(9);
  auto g = k.param<float*>("g");
  const unsigned l_tile = __LINE__ + 1;
  auto tile = k.shared<float>("tile", 16384);
  const unsigned l_map = __LINE__ + 1;
  auto peer = map_shared_rank(g, 0);
  peer[0] = tile[0];
  ir::Kernel kern = k.build();
  std::vector<Diagnostic> d = lower_errors(kern);
  REQUIRE(d.size() == 4);
  CHECK(d[0].loc.line == l_cluster);  // threads(2048) is on the cluster line
  CHECK(l_kernel < l_cluster);
  CHECK(d[0].message == "kernel 'everything_wrong' asks for 2048 threads per CTA; sm_90a allows at most 1024");
  CHECK(d[1].loc.line == l_cluster);
  CHECK(d[1].message == "cluster shape (9,1,1) has 9 CTAs, more than the portable 8");
  CHECK(d[2].loc.line == l_tile);
  CHECK(d[2].message ==
        "static shared buffers of kernel 'everything_wrong' take 65536 bytes (64 KiB), over the 48 KiB static limit "
        "('tile' is 65536 bytes (64 KiB))");
  CHECK(d[3].loc.line == l_map);
  CHECK(d[3].message == "map_shared_rank needs a shared buffer, but 'g' (global f32*) is not: it is global memory");
  // what() is the four diagnostics, one after the other.
  std::string joined;
  for (const Diagnostic& x : d) joined += (joined.empty() ? "" : "\n") + x.str();
  CHECK(lower_what(kern) == joined);
}

TEST_CASE("a target without clusters or DSMEM says so, naming the arch", "[codegen][verify][target]") {
  Target old;
  old.arch = "sm_80";
  old.sm = 80;
  old.features = 0;
  ir::Kernel k = cluster_kernel(2, 1, 1, false);
  std::vector<Diagnostic> d = lower_errors(k, old);
  REQUIRE(d.size() == 2);
  CHECK(d[0].message == "cluster shape (2,1,1) needs thread-block clusters, which sm_80 lacks");
  CHECK(d[0].fix == "compile for sm_90a or sm_100a");
  CHECK(d[1].message == "map_shared_rank needs distributed shared memory, which sm_80 lacks");
  CHECK(d[1].fix == "compile for sm_90a or sm_100a");
}

TEST_CASE("targets: features, limits and parsing", "[codegen][target]") {
  Target h = Target::sm90a(), b = Target::sm100a();
  CHECK(h.arch == "sm_90a");
  CHECK(h.sm == 90);
  CHECK(b.arch == "sm_100a");
  CHECK(b.sm == 100);
  CHECK(h.has(codegen::Feature::Clusters));
  CHECK(h.has(codegen::Feature::DistributedShared));
  CHECK(h.has(codegen::Feature::Wgmma));
  CHECK_FALSE(h.has(codegen::Feature::Tcgen05));
  CHECK_FALSE(h.has(codegen::Feature::ClusterLaunchControl));
  CHECK(b.has(codegen::Feature::Tcgen05));
  CHECK(b.has(codegen::Feature::ClusterLaunchControl));
  CHECK_FALSE(b.has(codegen::Feature::Wgmma));
  for (const Target& t : {h, b}) {
    CHECK(t.max_cluster_portable == 8);
    CHECK(t.max_cluster == 16);
    CHECK(t.max_shared_per_cta == 232448);
    CHECK(t.max_static_shared == 49152);
    CHECK(t.max_threads_per_cta == 1024);
  }
  CHECK(Target::parse("sm_90a") == h);
  CHECK(Target::parse("sm_100a") == b);
  CHECK_FALSE(Target::parse("sm_90").has_value());
  CHECK_FALSE(Target::parse("sm_80").has_value());
  CHECK(Target::known() == std::vector<std::string>{"sm_90a", "sm_100a"});
  CHECK(codegen::feature_name(codegen::Feature::DistributedShared) == "distributed shared memory");
}

TEST_CASE("a local read outside the body that declares it is refused with both lines", "[codegen][verify][scopes]") {
  const std::string fix =
      "read it inside that body, or carry the value out in a variable declared before the body (auto x = var(...); x = ... inside it)";
  {
    // A loop index kept in a C++ variable and read after the loop.
    KernelBuilder k("escaped_index");
    auto out = k.param<int32_t*>("out");
    std::optional<i32> last;
    const unsigned loop_line = __LINE__ + 1;
    for_(0, 4, [&](i32 i) { last.emplace(i); });
    const unsigned use_line = __LINE__ + 1;
    out[0] = *last;
    ir::Kernel kern = k.build();
    CHECK(lower_what(kern) == at(use_line) + ": error: 'i' (the index of the for_ at " + at(loop_line) +
                                  ") is read here, outside the body it belongs to\n  fix: " + fix);
  }
  {
    // A variable declared in an if_ body, read after it.
    KernelBuilder k("escaped_var");
    auto out = k.param<int32_t*>("out");
    std::optional<Var<int32_t>> t;
    const unsigned declare_line = __LINE__ + 1;
    if_(thread_idx_x() == 0, [&] { t.emplace(var(i32(3), "t")); });
    const unsigned use_line = __LINE__ + 1;
    out[1] = *t + 1;
    CHECK(lower_what(k.build()) == at(use_line) + ": error: 't' (declared at " + at(declare_line) +
                                       ") is read here, outside the body it belongs to\n  fix: " + fix);
  }
  {
    // A value of another kernel.
    KernelBuilder other("other");
    auto alpha = other.param<float>("alpha");
    other.build();
    KernelBuilder k("borrowed");
    auto out = k.param<float*>("out");
    const unsigned use_line = __LINE__ + 1;
    out[0] = alpha;
    CHECK(lower_what(k.build()) == at(use_line) +
                                       ": error: 'alpha' is read here, but kernel 'borrowed' never declares it: a DSL "
                                       "value of another kernel?\n  fix: build every value a kernel reads inside that "
                                       "kernel's KernelBuilder");
  }
  {
    // Inside its body, and a variable declared before the body and assigned in it: fine.
    KernelBuilder k("scoped");
    auto out = k.param<int32_t*>("out");
    auto sum = var(i32(0), "sum");
    for_(0, 4, [&](i32 i) {
      auto sq = var(i * i, "sq");
      sum = sum + sq;
    });
    out[0] = sum;
    CHECK(lower_what(k.build()) == "lowered");
  }
}

// The samples' kernels as built by the DSL (their IR holds the expected DSMEM
// ops, for several configs), their config rules, and the registry.
#include <catch2/catch.hpp>

#include <regex>

#include "codegen/lower.h"
#include "codegen/passes/verify_launch.h"
#include "codegen/prelude.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "generators/sample.h"
#include "samples/builtin.h"
#include "samples/cluster_reduce.h"
#include "samples/dsmem_ring.h"

using namespace tj;
using tj::codegen::Target;
using tj::samples::Config;

namespace {

const samples::Sample& sample(const std::string& name) {
  const samples::Sample* s = samples::find_sample(name);
  REQUIRE(s != nullptr);
  return *s;
}

Config config(const samples::Sample& s, unsigned cluster, unsigned clusters, unsigned threads,
              std::map<std::string, int64_t> params = {}) {
  Config c = samples::default_config(s);
  c.cluster = {cluster, 1, 1};
  c.grid_clusters = {clusters, 1, 1};
  c.threads = threads;
  for (const auto& [k, v] : params) c.params[k] = v;
  return c;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// IR text without the "    // file.cpp:NN" origin comments.
std::string ir_text(const ir::Kernel& k) {
  return std::regex_replace(ir::to_string(k), std::regex("    // [^\n]*"), "");
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::vector<std::pair<std::string, std::string>> problems(const samples::Sample& s, const Config& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const samples::ConfigProblem& p : s.check_config(c)) out.emplace_back(p.field, p.message);
  return out;
}

}  // namespace

TEST_CASE("the registry lists the samples in ladder order", "[samples]") {
  const auto& all = samples::all_samples();
  REQUIRE(all.size() >= 2);
  CHECK(all[0]->name() == "dsmem_ring");
  CHECK(all[1]->name() == "cluster_reduce");
  CHECK(samples::find_sample("cluster_reduce") == all[1]);
  CHECK(samples::find_sample("gemm") == all[4]);
  CHECK(samples::find_sample("sgemm") == nullptr);
  Config c = samples::default_config(*all[0]);
  CHECK(c.cluster == ir::Dim3{2, 1, 1});
  CHECK(c.grid_clusters == ir::Dim3{2, 1, 1});
  CHECK(c.threads == 128);
  CHECK_FALSE(c.non_portable);
}

TEST_CASE("dsmem_ring's parameters and host reference", "[samples][dsmem_ring]") {
  std::vector<samples::ParamSpec> p = sample("dsmem_ring").params();
  REQUIRE(p.size() >= 2);
  CHECK(p[0].name == "elems");
  CHECK(p[0].default_value == 4096);
  CHECK(p[0].min == 1);
  CHECK(p[0].max == 58112);  // 58112 u32 = 232448 B, the whole opt-in shared memory of a CTA
  CHECK(p[1].name == "rounds");
  CHECK(p[1].default_value == 1);
  // sender * 2654435761 + i * 7 + round + salt, modulo 2^32.
  CHECK(samples::ring_value(0, 0, 0, 0) == 0u);
  CHECK(samples::ring_value(1, 2, 3, 4) == 2654435782u);
  CHECK(samples::ring_value(2, 0, 0, 0) == 1013904226u);  // 2 * 2654435761 - 2^32
}

TEST_CASE("dsmem_ring builds a ring through the neighbour's shared memory", "[samples][dsmem_ring]") {
  const samples::Sample& ring = sample("dsmem_ring");
  for (unsigned cluster : {2u, 4u, 8u}) {
    for (int64_t elems : {int64_t(1), int64_t(4096), int64_t(58112)}) {
      Config c = config(ring, cluster, 3, 256, {{"elems", elems}, {"rounds", 2}});
      INFO("cluster " << cluster << ", elems " << elems);
      REQUIRE(ring.check_config(c).empty());
      ir::Kernel k = ring.build(c);
      const std::string text = ir_text(k);
      CHECK(k.name == "dsmem_ring");
      CHECK(k.block == ir::Dim3{256, 1, 1});
      CHECK(k.cluster == ir::Dim3{cluster, 1, 1});
      CHECK(text.rfind("kernel dsmem_ring(out: global u32*, salt: u32, rounds: i32) block(256,1,1) cluster(" +
                           std::to_string(cluster) + ",1,1) {\n", 0) == 0);
      CHECK(has(text, "  dynamic_shared ring: u32[" + std::to_string(elems) + "]"));
      CHECK(k.dynamic_shared_bytes() == uint64_t((elems * 4 + 15) / 16 * 16));
      CHECK(k.static_shared_bytes() == 0);
      // One remote store per element into the right-hand neighbour, then the cluster barrier.
      CHECK(count(text, "map_shared_rank(ring, ((%cluster_ctarank + 1) % %cluster_nctarank))[") == 1);
      CHECK(count(text, "cluster_sync()") == 1);
      CHECK(has(text, "in [%tid.x, " + std::to_string(elems) + ") step %ntid.x {"));
      CHECK(has(text, "= ring[i"));  // the copy-out reads the local ring
      CHECK_FALSE(has(text, "atomic_add"));
      // It lowers for both targets. The exit-barrier pass appends a cluster_sync:
      // the round loop's barrier does not count, since `rounds` may be 0.
      for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
        codegen::Lowered l = codegen::lower(k, t);
        const std::string lowered = ir_text(l.kernel);
        CHECK(count(lowered, "cluster_sync()") == 2);
        // And the entry barrier first: a CTA may not write a peer that has not started.
        const std::string entry = "  cluster_arrive.relaxed()\n  cluster_wait.acquire()\n";
        std::string without_entry = lowered;
        REQUIRE(without_entry.find(entry) != std::string::npos);
        without_entry.erase(without_entry.find(entry), entry.size());
        CHECK(without_entry.substr(0, without_entry.rfind("  cluster_sync()")) == text.substr(0, text.size() - 2));
        CHECK(l.dynamic_smem == k.dynamic_shared_bytes());
        CHECK(count(l.cuda, "tj::st_cluster(tj::map_shared_rank(ring, ") == 1);
      }
    }
  }
}

TEST_CASE("dsmem_ring with 9 CTAs needs the non-portable opt-in", "[samples][dsmem_ring]") {
  const samples::Sample& ring = sample("dsmem_ring");
  Config c = config(ring, 9, 1, 128);
  ir::Kernel plain = ring.build(c);
  CHECK_THROWS_WITH(codegen::lower(plain, Target::sm90a()),
                    Catch::Contains("cluster shape (9,1,1) has 9 CTAs, more than the portable 8"));
  c.non_portable = true;
  ir::Kernel opted = ring.build(c);
  CHECK(has(ir::to_string(opted), ") block(128,1,1) cluster(9,1,1) non_portable {\n"));
  CHECK(codegen::lower(opted, Target::sm90a()).kernel.non_portable_cluster);
}

TEST_CASE("cluster_reduce builds a tree reduction and a DSMEM atomic into rank 0", "[samples][cluster_reduce]") {
  const samples::Sample& reduce = sample("cluster_reduce");
  for (unsigned threads : {32u, 128u, 256u, 1024u}) {
    Config c = config(reduce, 4, 2, threads, {{"elems", 65536}});
    INFO("threads " << threads);
    REQUIRE(reduce.check_config(c).empty());
    ir::Kernel k = reduce.build(c);
    const std::string text = ir_text(k);
    CHECK(text.rfind("kernel cluster_reduce(in: global f32*, out: global f32*) block(" + std::to_string(threads) +
                         ",1,1) cluster(4,1,1) {\n", 0) == 0);
    CHECK(has(text, "  shared partial: f32[" + std::to_string(threads) + "]"));
    CHECK(has(text, "  shared cluster_total: f32[1]"));
    CHECK(k.static_shared_bytes() == uint64_t(threads * 4 + 16));
    CHECK(k.dynamic_shared_bytes() == 0);
    // log2(threads) tree steps, each followed by a CTA barrier, plus the one after zeroing the total.
    unsigned steps = 0;
    for (unsigned s = threads / 2; s > 0; s /= 2) {
      ++steps;
      CHECK(has(text, "  if (%tid.x < " + std::to_string(s) + ") {"));
    }
    CHECK(count(text, "sync_threads()") == steps + 1);
    CHECK(has(text, "  atomic_add(map_shared_rank(cluster_total, 0)[0], partial[0])"));
    CHECK(count(text, "map_shared_rank(") == 1);
    CHECK(count(text, "cluster_sync()") == 1);
    CHECK(count(text, "cluster_arrive.release()") == 1);
    CHECK(count(text, "cluster_wait.acquire()") == 1);
    CHECK(has(text, "  if ((%cluster_ctarank == 0) && (%tid.x == 0)) {\n    out[%clusterid.x] = cluster_total[0]"));
    // The arrive/wait pair after the atomic already protects rank 0's memory.
    codegen::Lowered l = codegen::lower(k, Target::sm90a());
    CHECK(ir_text(l.kernel) == text);
    CHECK(count(l.cuda, "tj::red_add_cluster(tj::map_shared_rank(cluster_total, 0), 0, partial[0]);") == 1);
  }
}

TEST_CASE("dsmem_ring's config rules", "[samples][dsmem_ring][config]") {
  const samples::Sample& ring = sample("dsmem_ring");
  Config c = config(ring, 2, 2, 128);
  CHECK(problems(ring, c).empty());
  c.cluster = {2, 2, 1};
  CHECK(problems(ring, c) ==
        std::vector<std::pair<std::string, std::string>>{{"cluster", "dsmem_ring takes a 1-D cluster [n, 1, 1]"}});
  c.grid_clusters = {2, 1, 3};
  CHECK(problems(ring, c) ==
        std::vector<std::pair<std::string, std::string>>{{"cluster", "dsmem_ring takes a 1-D cluster [n, 1, 1]"},
                                                         {"clusters", "dsmem_ring takes a 1-D grid of clusters"}});
}

TEST_CASE("cluster_reduce's config rules", "[samples][cluster_reduce][config]") {
  const samples::Sample& reduce = sample("cluster_reduce");
  CHECK(problems(reduce, config(reduce, 4, 33, 256)).empty());
  CHECK(problems(reduce, config(reduce, 4, 2, 96)) ==
        std::vector<std::pair<std::string, std::string>>{
            {"threads", "cluster_reduce needs a power of two of at least 32 threads, got 96"}});
  CHECK(problems(reduce, config(reduce, 4, 2, 16)) ==
        std::vector<std::pair<std::string, std::string>>{
            {"threads", "cluster_reduce needs a power of two of at least 32 threads, got 16"}});
  // 4 x 8192 CTAs of 65536 inputs: 2^31 inputs, one more than an i32 index reaches.
  CHECK(problems(reduce, config(reduce, 4, 8192, 256, {{"elems", 65536}})) ==
        std::vector<std::pair<std::string, std::string>>{
            {"params.elems", "elems x CTAs = 2147483648 inputs, more than 2^31 - 1"}});
  CHECK(problems(reduce, config(reduce, 4, 8191, 256, {{"elems", 65536}})).empty());
  Config c = config(reduce, 2, 2, 128);
  c.cluster = {1, 2, 1};
  c.grid_clusters = {1, 1, 2};
  CHECK(problems(reduce, c) ==
        std::vector<std::pair<std::string, std::string>>{
            {"cluster", "cluster_reduce takes a 1-D cluster [n, 1, 1]"},
            {"clusters", "cluster_reduce takes a 1-D grid of clusters"}});
}

TEST_CASE("cluster_reduce's check is exact up to 2^24 inputs per cluster, then the f32 worst case",
          "[samples][cluster_reduce]") {
  const samples::Sample& reduce = sample("cluster_reduce");
  // The default spec: 4 x 65536 = 2^18 inputs, each k/64 with 1 <= |k| <= 64: every partial
  // sum is a multiple of 2^-6 below 2^24 * 2^-6, so f32 sums exactly (before: 1e-5 x sum|x|).
  samples::ReduceInputs spec = samples::reduce_inputs(config(reduce, 4, 33, 256, {{"elems", 65536}}));
  CHECK(spec.max_units == 64);
  CHECK(spec.scale_log2 == 6);
  CHECK(spec.relative_bound == 0);
  CHECK(64.0 * (4 * 65536) * std::ldexp(1.0, -6) <= std::ldexp(1.0, 24 - 6));
  // 2^24 inputs: k = +-1, still exact.
  samples::ReduceInputs edge = samples::reduce_inputs(config(reduce, 16, 1, 1024, {{"elems", 1 << 20}}));
  CHECK(edge.max_units == 1);
  CHECK(edge.scale_log2 == 0);
  // 2^25 inputs: uniform, within gamma(h) sum|x|, h = 2^25 / 16 / 1024 + log2(1024) + 16 = 2074.
  samples::ReduceInputs big = samples::reduce_inputs(config(reduce, 16, 1, 1024, {{"elems", 1 << 21}}));
  CHECK(big.max_units == 0);
  const double u = std::ldexp(1.0, -24);
  CHECK(big.relative_bound == Approx(2074 * u / (1 - 2074 * u) + std::ldexp(1.0, 25 - 53)).epsilon(1e-12));
}

TEST_CASE("check_sample_config turns problems into one UserError", "[samples][config]") {
  const samples::Sample& reduce = sample("cluster_reduce");
  Config c = config(reduce, 4, 2, 96);
  c.cluster = {2, 2, 1};
  try {
    samples::check_sample_config(reduce, c);
    FAIL("no error");
  } catch (const UserError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(e.diagnostics()[0].message == "cluster: cluster_reduce takes a 1-D cluster [n, 1, 1]");
    CHECK(e.diagnostics()[1].message == "threads: cluster_reduce needs a power of two of at least 32 threads, got 96");
    CHECK(e.diagnostics()[0].fix.empty());
  }
  CHECK_NOTHROW(samples::check_sample_config(reduce, config(reduce, 4, 2, 128)));
}

// runner.h promises the location "spec" for config problems, but runner.cpp
// builds ir::Loc{"spec", 0, 0} and Loc::str() prints "<unknown>" for line 0:
// the user reads "<unknown>: error: cluster: ...".
TEST_CASE("config problems are located at the spec, not <unknown>", "[samples][config]") {
  const samples::Sample& ring = sample("dsmem_ring");
  Config c = config(ring, 2, 2, 128);
  c.cluster = {2, 2, 1};
  CHECK_THROWS_WITH(samples::check_sample_config(ring, c),
                    "config: error: cluster: dsmem_ring takes a 1-D cluster [n, 1, 1]");
}

TEST_CASE("compile_sample refuses a grid the cluster does not divide, before lowering", "[samples][config]") {
  const samples::Sample& ring = sample("dsmem_ring");
  Config c = config(ring, 4, 2, 128);
  CHECK(c.grid_ctas() == ir::Dim3{8, 1, 1});
  ir::Kernel k = ring.build(c);
  std::vector<Diagnostic> d = codegen::verify_launch(k, ir::Dim3{6, 1, 1});
  REQUIRE(d.size() == 1);
  CHECK(d[0].message == "grid of (6,1,1) CTAs is not divisible by the cluster shape (4,1,1) (x: 6 % 4 = 2)");
  CHECK(codegen::verify_launch(k, c.grid_ctas()).empty());
}

TEST_CASE("a missing parameter value is an internal error", "[samples][config]") {
  Config c;
  CHECK_THROWS_WITH(c.param("elems"), "tilejit internal error: sample parameter 'elems' has no value");
}

TEST_CASE("compile_request hands NVRTC the source, the prelude and the arch", "[samples]") {
  const samples::Sample& ring = sample("dsmem_ring");
  codegen::Lowered l = codegen::lower(ring.build(config(ring, 2, 2, 128)), Target::sm100a());
  rt::CompileRequest r = samples::compile_request(l, Target::sm100a());
  CHECK(r.kernel_name == "dsmem_ring");
  CHECK(r.arch == "sm_100a");
  CHECK(r.source == l.cuda);
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].name == "tilejit/prelude.cuh");
  CHECK(r.headers[0].content == std::string(codegen::prelude_source()));
}

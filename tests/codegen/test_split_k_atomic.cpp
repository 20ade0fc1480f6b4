// Split-K's atomic partial sums (PartialSum::Atomic, the GEMM's split_reduce atomic): the
// DSL ops reduce/take_accumulator_partial as emitted and compiled for sm_90a, their
// verifier errors (exact text), and what the GEMM becomes with them: one slot per tile in
// a zeroed workspace, the reduction before the counter's acq_rel atomic, the last
// contributor's take after it, and no spills.
#include <catch2/catch.hpp>

#include <map>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "samples/gemm.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_split_k_atomic.cpp:" + std::to_string(line); }

// One warpgroup adds its accumulator into slot 0 and, when it counted in last, takes the sum.
struct AtomicKernel {
  bool shared_workspace = false;
  unsigned reduce_line = 0, take_line = 0;
  ir::Kernel build() {
    KernelBuilder k("atomic_partial");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64, 1);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64, 1);
    Accumulator acc = k.accumulator("acc", 64, 64);
    Ptr<float> ws = shared_workspace ? k.shared<float>("ws", 64 * 64) : k.param<float*>("ws");
    Ptr<uint32_t> counter = k.param<uint32_t*>("counter");
    Ptr<uint32_t> flag = k.shared<uint32_t>("flag", 1);
    k.role("math", 1, 0, [&](i32) {
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      reduce_line = __LINE__ + 1;
      reduce_accumulator_partial(ws, acc, i32(0));
      warpgroup_sync(i32(0));
      if_(thread_idx_x() == 0, [&] { flag[0] = atomic_fetch_add(counter[0], u32(1u), ir::MemoryOrder::AcqRel, ir::MemoryScope::Gpu); });
      warpgroup_sync(i32(0));
      if_(flag[0] == u32(1u), [&] {
        fill(acc, f32(0.0f));
        take_line = __LINE__ + 1;
        take_accumulator_partial(ws, acc, i32(0));
      });
    });
    return k.build();
  }
};

samples::Config atomic_config(std::map<std::string, int64_t> params, ir::Dim3 cluster = {1, 1, 1}) {
  params["split_reduce"] = int64_t(samples::GemmSplitReduce::Atomic);
  return gemm_config(params, cluster);
}

}  // namespace

TEST_CASE("split-K atomic: reduce and take are emitted as stated and compile to red.add and a cleared slot",
          "[codegen][tiles][splitk][ptx]") {
  AtomicKernel p;
  const ir::Kernel kernel = p.build();
  codegen::Lowered l = codegen::lower(kernel, Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "tj::acc_partial_reduce<32, 64, 0, 8>(acc, &ws[(tj::u64)(0) * 4096ull]);"));
  CHECK(contains(l.cuda, "tj::acc_partial_add<32, 64, 0, 8, false, true>(acc, &ws[(tj::u64)(0) * 4096ull]);"));
  const std::string ir = ir::to_string(kernel.body);
  CHECK(contains(ir, "reduce_accumulator_partial(ws, acc, slot 0)"));
  CHECK(contains(ir, "take_accumulator_partial(ws, acc, slot 0)"));
  rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm90a()), nullptr);
  // 32 registers = 8 groups of 4: eight 16-byte reductions, eight loads and eight zeroing stores.
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t q = r.ptx.find(needle); q != std::string::npos; q = r.ptx.find(needle, q + 1)) ++n;
    return n;
  };
  CHECK(count("red.relaxed.gpu.global.add.v4.f32") == 8);
  CHECK(count("ld.global.v4.f32") == 8);
  CHECK(count("st.global.v4.f32") == 8);
  CHECK(contains(r.ptx, "atom.acq_rel.gpu.global.add.u32"));
}

TEST_CASE("split-K atomic: a shared workspace, a missing role and tcgen05 are refused at the user's line",
          "[codegen][tiles][verifier][splitk]") {
  SECTION("the slot of atomic adds is global memory") {
    AtomicKernel p;
    p.shared_workspace = true;
    auto d = lower_errors(p.build());
    REQUIRE(d.size() == 2);
    CHECK(d[0].str() == at(p.reduce_line) +
                            ": error: reduce_accumulator_partial through ws, a shared f32*; the workspace is global f32 memory\n"
                            "  fix: pass a kernel parameter k.param<float*>(name) (its slots of acc.m x acc.n floats)");
    CHECK(d[1].str() == at(p.take_line) +
                            ": error: take_accumulator_partial through ws, a shared f32*; the workspace is global f32 memory\n"
                            "  fix: pass a kernel parameter k.param<float*>(name) (its slots of acc.m x acc.n floats)");
  }
  SECTION("outside a role") {
    KernelBuilder k("misuse");
    k.threads(128);
    Accumulator acc = k.accumulator("acc", 64, 64);
    auto ws = k.param<float*>("ws");
    const unsigned line = __LINE__ + 1;
    auto reduce = [&] { reduce_accumulator_partial(ws, acc, i32(0)); };
    CHECK_THROWS_WITH(reduce(), at(line) + ": error: reduce_accumulator_partial outside a warpgroup role\n"
                                           "  fix: call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
    const unsigned line2 = __LINE__ + 1;
    auto take = [&] { take_accumulator_partial(ws, acc, i32(0)); };
    CHECK_THROWS_WITH(take(), at(line2) + ": error: take_accumulator_partial outside a warpgroup role\n"
                                          "  fix: call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
  }
  SECTION("tcgen05 keeps accumulators in tensor memory") {
    AtomicKernel p;
    auto d = lower_errors(p.build(), Target::sm100a());
    bool reduce = false;
    for (const Diagnostic& x : d) reduce |= contains(x.str(), at(p.reduce_line) + ": error: reduce_accumulator_partial works on register fragments");
    CHECK(reduce);
  }
}

TEST_CASE("split-K atomic gemm: reduction, barrier, acq_rel counter, take, epilogue in that order, no partial store, no spills",
          "[codegen][tiles][gemm][ptx][splitk]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    std::map<std::string, int64_t> params;
    ir::Dim3 cluster;
    unsigned regs;  // accumulator registers per thread
  };
  const std::vector<Case> cases = {
      {{{"m", 1024}, {"n", 1024}, {"k", 8192}, {"splits", 4}}, {1, 1, 1}, 128},
      {{{"m", 1000}, {"n", 1000}, {"k", 3000}, {"splits", 3}, {"out", 2}, {"owner_wait", 6}}, {1, 2, 1}, 128},
      {{{"splits", 2}, {"consumers", 1}, {"bm", 64}, {"bn", 128}}, {1, 1, 1}, 64},
      {{{"splits", 0}}, {1, 2, 1}, 128},
      {{{"m", 1024}, {"n", 1024}, {"k", 8192}, {"schedule", int64_t(samples::GemmSchedule::StreamK)}}, {1, 2, 1}, 128},
  };
  for (const Case& c : cases) {
    const samples::Config cfg = atomic_config(c.params, c.cluster);
    for (const samples::ConfigProblem& p : s->check_config(cfg)) FAIL(p.field << ": " << p.message);
    const ir::Kernel kernel = s->build(cfg);
    // The runtime zeroes the workspace once; the kernel leaves it zeroed.
    bool zeroed = false;
    for (const ir::Param& p : kernel.params)
      if (p.name == "workspace") zeroed = p.workspace && p.workspace->zeroed;
    CHECK(zeroed);
    codegen::Lowered l = codegen::lower(kernel, Target::sm90a());
    const std::string regs = std::to_string(c.regs);
    const size_t reduce = l.cuda.find("tj::acc_partial_reduce<" + regs + ", ");
    const size_t sync1 = l.cuda.find("tj::named_barrier_sync(", reduce);
    const size_t atom = l.cuda.find("= tj::atom_add_acq_rel_gpu(&counters[", sync1);
    const size_t sync2 = l.cuda.find("tj::named_barrier_sync(", atom);
    const size_t reset = l.cuda.find("] = 0u;", sync2);
    const size_t take = l.cuda.find("tj::acc_partial_add<" + regs + ", ", reset);
    const size_t epilogue = l.cuda.find("* tj_dst = ", take);
    INFO(l.cuda);
    CHECK(reduce != std::string::npos);
    CHECK(sync1 != std::string::npos);
    CHECK(atom != std::string::npos);
    CHECK(sync2 != std::string::npos);
    CHECK(reset != std::string::npos);
    REQUIRE(take != std::string::npos);
    CHECK(contains(l.cuda.substr(take, 80), ", false, true>("));
    CHECK(epilogue != std::string::npos);
    CHECK(!contains(l.cuda, "acc_partial_store"));  // no slot of its own: every partial goes through the atomic adds
    const rt::CompileResult r = compile_without_spills(l, "cluster " + cfg.cluster.str());
    CHECK(contains(r.ptx, "red.relaxed.gpu.global.add.v4.f32"));
    CHECK(contains(r.ptx, "atom.acq_rel.gpu.global.add.u32"));
  }
}

TEST_CASE("split-K atomic gemm: check_config refuses it with deterministic or a cluster's planes, and the workspace holds a slot per tile",
          "[samples][gemm][splitk]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  auto problems = [&](std::map<std::string, int64_t> params, ir::Dim3 cluster = {1, 1, 1}) {
    std::vector<std::string> out;
    for (const samples::ConfigProblem& p : s->check_config(atomic_config(params, cluster))) out.push_back(p.field + ": " + p.message);
    return out;
  };
  CHECK(problems({{"splits", 4}}).empty());
  CHECK(problems({{"splits", 4}, {"deterministic", 1}}) ==
        std::vector<std::string>{"params.split_reduce: split_reduce atomic adds a tile's partials in the order they reach L2, which "
                                 "deterministic 1 rules out: use split_reduce workspace with it, or deterministic 0"});
  const std::vector<std::string> planes = problems({{"splits", 2}, {"schedule", int64_t(samples::GemmSchedule::SplitK)}}, {1, 1, 2});
  REQUIRE(planes.size() == 1);
  CHECK(planes[0].rfind("cluster: a cluster of 2 along z holds a tile's splits", 0) == 0);

  // 1024 x 1024 in 128x256 tiles: 32 tiles, one slot each whatever the splits.
  samples::GemmTiling t;
  t.atomic_sum = true;
  for (unsigned splits : {2u, 4u, 8u}) {
    t.splits = splits;
    const samples::GemmWorkspace w = samples::gemm_workspace({1024, 1024, 8192}, t, 0);
    CHECK(w.workspace_floats == 32ull * 128 * 256);
    CHECK(w.counters == 32 * 2);
    CHECK(w.splits == splits);
  }
  // Stream-K: a slot per stream-K tile (all 32 on 66 clusters of 2), not two per cluster.
  t.splits = 1, t.stream_k = true, t.cluster_n = 2;
  samples::GemmWorkspace w = samples::gemm_workspace({1024, 1024, 8192}, t, 132);
  CHECK(w.workspace_floats == 16ull * 2 * 128 * 256);
  t.atomic_sum = false;
  CHECK(samples::gemm_workspace({1024, 1024, 8192}, t, 132).workspace_floats == 66ull * 2 * 2 * 128 * 256);
}

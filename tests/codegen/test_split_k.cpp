// Split-K: the schedule's (tile, split) units, the DSL ops it adds (atomic_fetch_add,
// store/add_accumulator_partial) with their verifier errors (exact text), and what
// the GEMM sample with splits > 1 becomes for sm_90a: the fix-up's order of partial
// stores, barrier, acq_rel atomic and partial loads, and no register spills.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"

#include "codegen/analysis/eval.h"
#include "codegen/lower.h"
#include "codegen/analysis/guards.h"
#include "codegen/analysis/uniformity.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "samples/gemm.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_split_k.cpp:" + std::to_string(line); }

// A one-warpgroup kernel that leaves its accumulator in a workspace slot and
// counts itself in; `shared_workspace` / `shared_counter` put those in shared memory.
struct PartialKernel {
  bool shared_workspace = false, shared_counter = false;
  unsigned store_line = 0, add_line = 0, atom_line = 0;
  ir::Kernel build() {
    KernelBuilder k("partial_kernel");
    k.threads(128);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64, 1);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64, 1);
    Accumulator acc = k.accumulator("acc", 64, 64);
    Ptr<float> ws = shared_workspace ? k.shared<float>("ws", 64 * 64) : k.param<float*>("ws");
    Ptr<uint32_t> counter = shared_counter ? k.shared<uint32_t>("counter", 1) : k.param<uint32_t*>("counter");
    k.role("math", 1, 0, [&](i32) {
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      store_line = __LINE__ + 1;
      store_accumulator_partial(ws, acc, i32(0));
      if_(thread_idx_x() == 0, [&] {
        atom_line = __LINE__ + 1;
        u32 old = atomic_fetch_add(counter[0], u32(1u), ir::MemoryOrder::AcqRel, ir::MemoryScope::Gpu);
        if_(old == u32(1u), [&] { counter[0] = u32(0u); });
      });
      add_line = __LINE__ + 1;
      add_accumulator_partial(ws, acc, i32(1));
    });
    return k.build();
  }
};


}  // namespace

TEST_CASE("split-K: for_each_tile with splits walks (tile, split) units, a tile's splits adjacent", "[codegen][tiles][schedule][splitk]") {
  KernelBuilder k("sched_split");
  k.threads(128).cluster(2, 1);
  auto out = k.param<int32_t*>("out");
  auto splits = k.param<int32_t>("splits");
  for_each_tile(static_persistent(4), i32(10), i32(6), splits, [&](i32 tm, i32 tn, i32 sp) { out[(tm * 6 + tn) * 8 + sp] = cluster_ctarank(); });
  // The call on a line of its own: inside a macro that spans lines, GCC and clang give
  // std::source_location different lines.
  const unsigned line = __LINE__ + 1;
  auto no_splits = [&] { for_each_tile(static_persistent(4), i32(10), i32(6), i32(0), [&](i32, i32, i32) {}); };
  CHECK_THROWS_WITH(no_splits(),
                    at(line) + ": error: for_each_tile with 0 splits\n"
                               "  fix: use at least 1 split (1: no split-K)");
  const ir::Kernel kernel = k.build();
  codegen::Lowered l = codegen::lower(kernel, Target::sm90a());
  INFO(l.cuda);
  CHECK(contains(l.cuda, "int tj_sched0_splits = splits;"));
  CHECK(contains(l.cuda, "int tj_sched0_units = (tj_sched0_total * tj_sched0_splits);"));
  CHECK(contains(l.cuda, "for (int tj_sched0_u = tj::cluster_id_x(); tj_sched0_u < tj_sched0_units; tj_sched0_u += tj::num_clusters_x()) {"));
  // Unit u: cluster tile u / splits (rasterized as before), split u % splits.
  CHECK(contains(l.cuda, "int tj_sched0_t = (tj_sched0_u / tj_sched0_splits);"));
  CHECK(contains(l.cuda, "int split = (tj_sched0_u % tj_sched0_splits);"));
  CHECK(contains(l.cuda, "int tj_sched0_in_group = (tj_sched0_t % tj_sched0_group_span);"));
  CHECK(contains(l.cuda, "int tile_n = (((tj_sched0_in_group / tj_sched0_group_rows) * 2) + tj::cluster_ctaid_x());"));
  // The IR says it too.
  CHECK(contains(ir::to_string(kernel.body), "for_each_tile static_persistent(group 4) (tile_m, tile_n, split) in [10 x 6 x splits splits]"));
}

TEST_CASE("split-K: the accumulator's partials and the counter's atomic are emitted as stated", "[codegen][tiles][splitk]") {
  PartialKernel p;
  codegen::Lowered l = codegen::lower(p.build(), Target::sm90a());
  INFO(l.cuda);
  // 64x64 f32 per warpgroup: 32 registers per thread, slots of 4096 floats, 64-bit offsets.
  CHECK(contains(l.cuda, "tj::acc_partial_store<32, 64, 0, 8>(acc, &ws[(tj::u64)(0) * 4096ull]);"));
  CHECK(contains(l.cuda, "unsigned old = tj::atom_add_acq_rel_gpu(&counter[0], 1u);"));
  CHECK(contains(l.cuda, "tj::acc_partial_add<32, 64, 0, 8, false>(acc, &ws[(tj::u64)(1) * 4096ull]);"));
  CHECK(contains(ir::to_string(p.build().body), "let old: u32 = atomic_fetch_add.acq_rel.gpu(counter[0], 1u)"));
  rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm90a()), nullptr);
  CHECK(contains(r.ptx, "atom.acq_rel.gpu.global.add.u32"));
  CHECK(contains(r.ptx, "st.global.v4.f32"));
  CHECK(contains(r.ptx, "ld.global.v4.f32"));
}

TEST_CASE("split-K: verifier and DSL errors name the user's line", "[codegen][tiles][verifier][splitk]") {
  SECTION("a workspace in shared memory: a partial is stored to global memory (adding from shared memory is split-K in the cluster's)") {
    PartialKernel p;
    p.shared_workspace = true;
    auto d = lower_errors(p.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(p.store_line) + ": error: store_accumulator_partial through ws, a shared f32*; the workspace is global f32 memory\n"
                        "  fix: pass a kernel parameter k.param<float*>(name) (its slots of acc.m x acc.n floats)");
  }
  SECTION("a counter in shared memory") {
    PartialKernel p;
    p.shared_counter = true;
    auto d = lower_errors(p.build());
    REQUIRE(!d.empty());
    CHECK(d[0].str() == at(p.atom_line) + ": error: atomic_fetch_add on counter, a shared u32*; it works on global memory\n"
                        "  fix: use a global u32 buffer (k.param<uint32_t*>(name)), or atomic_add (no result) for shared memory");
  }
  SECTION("a target without register accumulators") {
    PartialKernel p;
    auto d = lower_errors(p.build(), Target::sm100a());
    bool store = false, add = false;
    for (const Diagnostic& x : d) {
      const std::string rest = " works on register fragments (wgmma, sm_90a); tcgen05 keeps accumulators in tensor memory, read only "
                               "through store_accumulator\n"
                               "  fix: compute on the elements in store_accumulator's function (value, row, column), or compile for sm_90a";
      store |= x.str() == at(p.store_line) + ": error: store_accumulator_partial" + rest;
      add |= x.str() == at(p.add_line) + ": error: add_accumulator_partial" + rest;
    }
    CHECK(store);
    CHECK(add);
  }
  SECTION("outside a role, and an atomic without a memory order") {
    KernelBuilder k("misuse");
    k.threads(128);
    Accumulator acc = k.accumulator("acc", 64, 64);
    auto ws = k.param<float*>("ws");
    auto counter = k.param<uint32_t*>("counter");
    const unsigned line = __LINE__ + 1;
    auto store = [&] { store_accumulator_partial(ws, acc, i32(0)); };
    CHECK_THROWS_WITH(store(),
                      at(line) + ": error: store_accumulator_partial outside a warpgroup role\n"
                                 "  fix: call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
    const unsigned line2 = __LINE__ + 1;
    auto add = [&] { add_accumulator_partial(ws, acc, i32(0)); };
    CHECK_THROWS_WITH(add(),
                      at(line2) + ": error: add_accumulator_partial outside a warpgroup role\n"
                                  "  fix: call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
    const unsigned line3 = __LINE__ + 1;
    auto unordered = [&] { atomic_fetch_add(counter[0], u32(1u), ir::MemoryOrder::Default, ir::MemoryScope::Gpu); };
    CHECK_THROWS_WITH(unordered(),
                      at(line3) + ": error: atomic_fetch_add without a memory order\n"
                                  "  fix: state one: MemoryOrder::Relaxed, Acquire, Release or AcqRel");
  }
}

TEST_CASE("split-K gemm: partials, barrier, acq_rel counter, partial loads in that order, and no config spills",
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
      {{{"m", 1000}, {"n", 1000}, {"k", 3000}, {"splits", 3}, {"out", 2}}, {1, 2, 1}, 128},
      {{{"splits", 8}, {"bn", 128}}, {2, 1, 1}, 64},
      {{{"splits", 2}, {"consumers", 1}, {"bm", 64}, {"bn", 128}}, {1, 1, 1}, 64},
      {{{"splits", 2}, {"warp_specialized", 0}, {"stages", 4}, {"bn", 128}}, {1, 1, 1}, 128},
      {{{"splits", 0}}, {1, 2, 1}, 128},  // automatic: S from the launched grid
  };
  for (const Case& c : cases) {
    samples::Config cfg = gemm_config(c.params, c.cluster);
    REQUIRE(s->check_config(cfg).empty());
    codegen::Lowered l = codegen::lower(s->build(cfg), Target::sm90a());
    const std::string regs = std::to_string(c.regs);
    if (cfg.params["splits"] == 0) {
      // S = max(1, min(min(k-blocks / 4, 32), clusters / cluster tiles)); the runtime sizes
      // the workspace by the same expression (tests/api/test_workspace.cpp).
      CHECK(contains(l.cuda, "tj::num_clusters_x()"));
    }
    const size_t store = l.cuda.find("tj::acc_partial_store<" + regs + ", ");
    const size_t sync1 = l.cuda.find("tj::named_barrier_sync(", store);
    const size_t atom = l.cuda.find("= tj::atom_add_acq_rel_gpu(&counters[", sync1);
    const size_t sync2 = l.cuda.find("tj::named_barrier_sync(", atom);
    const size_t reset = l.cuda.find("] = 0u;", sync2);
    const size_t add = l.cuda.find("tj::acc_partial_add<" + regs + ", ", reset);
    const size_t epilogue = l.cuda.find("* tj_dst = ", add);  // the epilogue function's store
    INFO(l.cuda);
    CHECK(store != std::string::npos);
    CHECK(sync1 != std::string::npos);
    CHECK(atom != std::string::npos);
    CHECK(sync2 != std::string::npos);
    CHECK(reset != std::string::npos);
    CHECK(add != std::string::npos);
    CHECK(epilogue != std::string::npos);

    const rt::CompileResult r = compile_without_spills(l, "cluster " + cfg.cluster.str());
    CHECK(contains(r.ptx, "atom.acq_rel.gpu.global.add.u32"));
    CHECK(contains(r.ptx, "st.global.v4.f32"));
    CHECK(contains(r.ptx, "ld.global.v4.f32"));
  }
}

TEST_CASE("split-K gemm: splits 1 builds the kernel without split-K, the same as before", "[codegen][tiles][gemm][splitk]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  codegen::Lowered l = codegen::lower(s->build(gemm_config({})), Target::sm90a());
  CHECK(!contains(l.cuda, "acc_partial"));
  CHECK(!contains(l.cuda, "atom_add"));
  CHECK(!contains(l.cuda, "split_old"));
  CHECK(contains(l.cuda, "tj_sched0_t < tj_sched0_total;"));  // the plain walk over tiles
  CHECK(!contains(l.cuda, "tj_sched0_units"));
}

TEST_CASE("split-K gemm: check_config names params.splits, and the workspace follows tiles, splits and the SMs", "[samples][gemm][splitk]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  auto problems = [&](std::map<std::string, int64_t> params) {
    std::vector<std::string> out;
    for (const samples::ConfigProblem& p : s->check_config(gemm_config(params))) out.push_back(p.field + ": " + p.message);
    return out;
  };
  CHECK(problems({{"splits", 33}}) ==
        std::vector<std::string>{"params.splits: splits = 33: split-K cuts each tile's K into 1 to 32 ranges (1: no split, 0: chosen at run time)"});
  // 2^20 x 2^20 in 128x256 tiles, 32 splits: 2^25 tiles x 32 x 128 KiB of partials.
  CHECK(problems({{"m", 1 << 20}, {"n", 1 << 20}, {"k", 64}, {"splits", 32}}) ==
        std::vector<std::string>{"params.splits: splits = 32 needs a split-K workspace of 131072 GiB (f32 partials of every tile and split): "
                                 "use fewer splits, or none for a problem this large"});
  CHECK(problems({{"splits", 0}}).empty());
  CHECK(problems({{"m", 1000}, {"n", 1000}, {"k", 3000}, {"splits", 3}}).empty());

  // 1024 x 1024 in 128x256 tiles: 8 x 4 = 32 tiles; 2 consumer warpgroups.
  samples::GemmShape shape{1024, 1024, 8192};
  samples::GemmTiling t;
  t.splits = 4;
  samples::GemmWorkspace w = samples::gemm_workspace(shape, t, 0);
  CHECK(w.workspace_floats == 32ull * 4 * 128 * 256);
  CHECK(w.counters == 32 * 2);
  CHECK(w.splits == 4);
  t.splits = 1;
  w = samples::gemm_workspace(shape, t, 132);
  CHECK((w.workspace_floats == 0 && w.counters == 0 && w.splits == 1));
  // Automatic: 132 SMs hold 4 splits of 32 tiles (128 CTAs); 8192 / 64 / 4 = 32 caps nothing here.
  t.splits = 0;
  w = samples::gemm_workspace(shape, t, 132);
  CHECK(w.splits == 4);
  CHECK(w.workspace_floats == 32ull * 4 * 128 * 256);
  // ...a GPU of 80 SMs 2; 4096^3 (512 tiles) none; a short K none (256 / 64 / 4 = 1).
  CHECK(samples::gemm_workspace(shape, t, 80).splits == 2);
  CHECK(samples::gemm_workspace({4096, 4096, 4096}, t, 132).splits == 1);
  CHECK(samples::gemm_workspace({1024, 1024, 256}, t, 132).splits == 1);
  // Ragged tiles in a 2x2 cluster: the grid is padded to whole clusters (8 x 4 tiles).
  t.splits = 3, t.cluster_n = 2, t.cluster_m = 2;
  w = samples::gemm_workspace({1000, 900, 3000}, t, 0);
  CHECK(w.counters == 8 * 4 * 2);
  // The persistent grid covers every unit, cut to what fits.
  samples::Config c = gemm_config({{"m", 1024}, {"n", 1024}, {"k", 8192}, {"splits", 4}});
  CHECK(s->persistent_grid(c, 132)->x == 128);
  CHECK(s->persistent_grid(c, 100)->x == 100);
  c.params["splits"] = 0;
  CHECK(s->persistent_grid(c, 132)->x == 132);  // 32 tiles x up to 32 splits: the whole GPU
  c.params["k"] = 128;                          // 2 k-blocks: cap 1, no split
  CHECK(s->persistent_grid(c, 132)->x == 32);
}

TEST_CASE("split-K gemm: tuning tries splits 2, 4, 8 (atomic 4, 8, 16) for few tiles and a long K, and those kernels do not spill",
          "[samples][gemm][tuning][splitk][ptx]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  auto with_splits = [&](std::map<std::string, int64_t> shape) {
    std::vector<samples::Config> out;
    for (const samples::Config& c : s->tuning_candidates(gemm_config(shape)))
      if (c.params.at("splits") > 1) out.push_back(c);
    return out;
  };
  // 1024 x 1024 x 8192: 32 tiles of 128x256, 128 k-blocks.
  const std::vector<samples::Config> split = with_splits({{"m", 1024}, {"n", 1024}, {"k", 8192}});
  // Splits 2, 4, 8 x tiles 128x256, 128x128 x clusters 1x1, 1x2; with atomic partial sums
  // 4, 8, 16 x the same and x the narrow tile (64x128) in 1x2 and 1x1; and in the cluster
  // (1x1xS) only 128x128 in 2 and 4 splits (4: one chunk of one warpgroup's rows per
  // plane): at 128x256 the shares leave 2 stages; and the small tile (64x64 in 2x2) in 2.
  REQUIRE(split.size() == 33);
  std::set<int64_t> in_cluster, atomic;
  for (const samples::Config& c : split) {
    if (samples::gemm_tiling(c).split_in_cluster) {
      CHECK(c.params.at("bn") == 128);
      in_cluster.insert(c.params.at("splits"));
    }
    if (samples::gemm_tiling(c).atomic_sum) atomic.insert(c.params.at("splits"));
  }
  CHECK(in_cluster == std::set<int64_t>{2, 4});
  CHECK(atomic == std::set<int64_t>{4, 8, 16});
  std::set<int64_t> counts;
  for (const samples::Config& c : split) {
    CHECK(s->check_config(c).empty());
    counts.insert(c.params.at("splits"));
  }
  CHECK(counts == std::set<int64_t>{2, 4, 8, 16});
  // Enough tiles to fill a GPU, or too short a K for 2 splits of 4 k-blocks: none.
  CHECK(with_splits({{"m", 4096}, {"n", 4096}, {"k", 8192}}).empty());
  CHECK(with_splits({{"m", 1024}, {"n", 1024}, {"k", 448}}).empty());
  CHECK(with_splits({{"m", 1024}, {"n", 1024}, {"k", 1024}}).size() == 17);  // 16 k-blocks: splits 2 and 4, atomic 4
  for (const samples::Config& c : split) {
    if (c.params.at("splits") != 8) continue;  // the split count is a constant in the code: one per tile and cluster
    compile_without_spills(codegen::lower(s->build(c), Target::sm90a()),
                           "bm " + std::to_string(c.params.at("bm")) + " bn " + std::to_string(c.params.at("bn")) + " cluster " +
                               c.cluster.str());
  }
}

TEST_CASE("uniformity sees through locals, given their definitions: declared once, or every value they are assigned",
          "[codegen][uniformity][splitk]") {
  KernelBuilder k("uniform_locals");
  k.threads(128);
  auto n = k.param<int32_t>("n");
  auto out = k.param<int32_t*>("out");
  i32 per_cta = var(n / 4 + block_idx_x(), "per_cta");  // never assigned: as uniform as n / 4 + %ctaid.x
  i32 per_thread = var(n + thread_idx_x(), "per_thread");
  Var<int32_t> changed = var(n, "changed");
  changed = changed + 1;                                 // assigned values of n and itself: the whole cluster's
  Var<int32_t> counted = var(i32(0), "counted");
  for_(0, n / 2 + block_idx_x(), [&](i32) { counted = counted + 2; });  // as often as a per-CTA bound says
  Var<int32_t> some = var(n, "some");
  if_(thread_idx_x() < 3, [&] { some = some + 1; });     // by some threads only
  Var<int32_t> mixed = var(n, "mixed");
  mixed = mixed + thread_idx_x();                        // a per-thread value
  Var<int32_t> inner = var(i32(0), "inner");
  if_(thread_idx_x() == 0, [&] {
    Var<int32_t> mine = var(n, "mine");                  // declared under the condition: its assignments
    mine = mine * 2;                                     // are seen only by the threads that declared it
    inner = mine;
  });
  out[0] = per_cta + per_thread + changed + counted + some + mixed + inner;
  const ir::Kernel kernel = k.build();
  const auto defs = codegen::single_assignment_defs(kernel);
  CHECK(codegen::uniformity(per_cta.expr(), kernel, {}, &defs) == codegen::Uniform::Cta);
  CHECK(codegen::uniformity(per_cta.expr(), kernel, {}) == codegen::Uniform::Thread);  // without the definitions
  CHECK(codegen::uniformity(per_thread.expr(), kernel, {}, &defs) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(changed.expr(), kernel, {}, &defs) == codegen::Uniform::Cluster);
  CHECK(codegen::uniformity(changed.expr(), kernel, {}) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(counted.expr(), kernel, {}, &defs) == codegen::Uniform::Cta);
  CHECK(codegen::uniformity(some.expr(), kernel, {}, &defs) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(mixed.expr(), kernel, {}, &defs) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity(ir::VarRef::make("mine", ir::Type::of(ir::Scalar::I32), {}), kernel, {}, &defs) ==
        codegen::Uniform::Cluster);
  CHECK(codegen::uniformity(inner.expr(), kernel, {}, &defs) == codegen::Uniform::Thread);
  CHECK(codegen::uniformity((n * 2).expr(), kernel, {}, &defs) == codegen::Uniform::Cluster);
}

TEST_CASE("SplitK declares the schedule's workspace: two workspace parameters, then its shared buffer where the kernel puts it",
          "[codegen][split_k]") {
  for (unsigned requested : {1u, 0u, 4u}) {
    INFO("requested splits " << requested);
    KernelBuilder k("split_decl");
    k.threads(128);
    auto before = k.param<int32_t>("n");
    SplitK sk(k, requested, 32, 2, 64 * 128);
    auto mine = k.shared<uint32_t>("mine", 4);
    sk.declare_shared();
    (void)before, (void)mine;
    // The split count is a local of a role: reading it first is a bug in the kernel's generator.
    if (requested != 1) CHECK_THROWS_AS(sk.count(), ir::InternalError);
    ir::Kernel kern = k.build();
    REQUIRE(kern.params.size() == 3);
    CHECK(kern.params[1].name == "workspace");
    CHECK(kern.params[1].type == ir::Type::pointer(ir::Scalar::F32, ir::Space::Global));
    REQUIRE(kern.params[1].workspace);
    CHECK_FALSE(kern.params[1].workspace->zeroed);  // partials: each written before it is read
    CHECK(kern.params[2].name == "counters");
    CHECK(kern.params[2].type == ir::Type::pointer(ir::Scalar::U32, ir::Space::Global));
    REQUIRE(kern.params[2].workspace);
    CHECK(kern.params[2].workspace->zeroed);  // the kernel leaves its counters at 0
    // Sized by declare_count, which this kernel never calls: nothing to allocate.
    CHECK(codegen::eval_int(kern.params[1].workspace->elements, {}) == 0);
    // S = 1 has no fix-up, so no broadcast buffer; otherwise one counter value per MMA warpgroup, after the kernel's own.
    if (requested == 1) {
      CHECK(kern.shared.size() == 1);
    } else {
      REQUIRE(kern.shared.size() == 2);
      CHECK(kern.shared[1].name == "split_old");
      CHECK(kern.shared[1].count == 2);
    }
  }
}

TEST_CASE("split-K in the cluster: shares sent by st.async into the other planes, added from shared memory, no counter, no spills",
          "[codegen][tiles][gemm][ptx][splitk][cluster_split]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    std::map<std::string, int64_t> params;
    ir::Dim3 cluster;
    std::vector<std::string> code;  // in the CUDA
  };
  const std::vector<Case> cases = {
      // 2 splits of 128 columns: each plane keeps 64 (groups 0-8 or 8-16 of 16) and sends the other 64.
      {{{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bn", 128}, {"splits", 2}}, {1, 2, 2},
       {"tj::acc_partial_send<64, 128, 8, 16>(acc, tj::cluster_ptr<float>{", "tj::acc_partial_send<64, 128, 0, 8>(acc, ",
        "tj::acc_partial_add<64, 128, 0, 8, true>(acc, &split_xchg[", "tj::acc_partial_add<64, 128, 8, 16, true>(acc, &split_xchg["}},
      // 4 splits of 128 f32 columns: 32-column shares, 3 received per plane.
      {{{"m", 1024}, {"n", 768}, {"k", 4096}, {"bn", 128}, {"splits", 4}, {"out", 2}}, {1, 1, 4},
       {"tj::acc_partial_send<64, 128, 12, 16>(acc, ", "tj::acc_partial_add<64, 128, 4, 8, true>(acc, &split_xchg["}},
      // 4 splits of 128 bf16 columns (2 chunks of 64): by rows, plane r finishes chunk r % 2 of
      // warpgroup r / 2's rows; each warpgroup sends whole chunks, its plane adds 3.
      {{{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bn", 128}, {"splits", 4}}, {1, 1, 4},
       {"tj::acc_partial_send<64, 128, 0, 8>(acc, ", "tj::acc_partial_send<64, 128, 8, 16>(acc, ",
        "tj::acc_partial_add<64, 128, 0, 8, true>(acc, &split_xchg[", "tj::acc_partial_add<64, 128, 8, 16, true>(acc, &split_xchg["}},
  };
  for (const Case& c : cases) {
    samples::Config cfg = gemm_config(c.params, c.cluster);
    INFO("cluster " << cfg.cluster.str());
    REQUIRE(s->check_config(cfg).empty());
    REQUIRE(samples::gemm_tiling(cfg).split_in_cluster);
    codegen::Lowered l = codegen::lower(s->build(cfg), Target::sm90a());
    for (const std::string& code : c.code) CHECK(contains(l.cuda, code));
    CHECK_FALSE(contains(l.cuda, "atom_add_acq_rel_gpu"));  // no tile counter
    CHECK_FALSE(contains(l.cuda, "acc_partial_store"));     // nothing through global memory
    const rt::CompileResult r = compile_without_spills(l, "cluster " + cfg.cluster.str());
    CHECK(contains(r.ptx, "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32"));
    CHECK(contains(r.ptx, "ld.shared.v4.f32"));
    CHECK_FALSE(contains(r.ptx, "atom.acq_rel.gpu"));
  }
}

// Shares by rows: only the owners of a warpgroup's rows read what it sent, so only they
// arrive on its free barrier. 4 splits of 2 chunks x 2 warpgroups: 2 owners per
// warpgroup's rows (split_free 2, split_free_own 1 where this plane is one of them);
// bn 64 in 2 splits: 1 owner each (split_free 1, no split_free_own: an owner sends
// nothing). A plane that read nothing and arrived anyway could arrive a phase ahead
// (a hang on the H200 with 2 splits). By columns every other plane reads: S - 1.
TEST_CASE("split-K in the cluster: free barriers count the planes that read", "[codegen][splitk][cluster_split]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    std::map<std::string, int64_t> params;
    ir::Dim3 cluster;
    unsigned free_count, own_count;  // own 0: no split_free_own
  };
  const std::vector<Case> cases = {
      {{{"m", 512}, {"n", 1024}, {"k", 8192}, {"bn", 128}, {"splits", 4}}, {1, 1, 4}, 2, 1},
      {{{"m", 2048}, {"n", 2048}, {"k", 1024}, {"bn", 64}, {"splits", 2}}, {1, 2, 2}, 1, 0},
      {{{"m", 1024}, {"n", 1024}, {"k", 8192}, {"bn", 128}, {"splits", 2}}, {1, 2, 2}, 1, 0},  // by columns
      {{{"m", 1024}, {"n", 768}, {"k", 4096}, {"bn", 128}, {"splits", 4}, {"out", 2}}, {1, 1, 4}, 3, 0},  // by columns, f32
  };
  for (const Case& c : cases) {
    samples::Config cfg = gemm_config(c.params, c.cluster);
    cfg.params["split_reduce"] = 2;
    INFO("bn " << c.params.at("bn") << " cluster " << cfg.cluster.str());
    REQUIRE(s->check_config(cfg).empty());
    const ir::Kernel kern = s->build(cfg);
    const ir::SharedBuffer* free_bar = kern.find_shared("split_free");
    REQUIRE(free_bar);
    CHECK(free_bar->arrivals == c.free_count);
    const ir::SharedBuffer* own = kern.find_shared("split_free_own");
    CHECK((own ? own->arrivals : 0u) == c.own_count);
    codegen::Lowered l = codegen::lower(kern, Target::sm90a());
    for (const auto& r : l.races) {
      INFO(codegen::race::to_string(r));
      CHECK(r.outcome != codegen::race::RaceCheck::NotChecked);
    }
  }
}

TEST_CASE("split-K in the cluster: DSL and verifier errors name the user's line", "[codegen][tiles][verifier][splitk][cluster_split]") {
  SECTION("a walk in a cluster without planes along z") {
    KernelBuilder k("no_planes");
    k.threads(128);
    k.cluster(2, 1);
    const unsigned line = __LINE__ + 1;
    auto walk = [&] { for_each_tile_split_in_cluster(static_persistent(), i32(4), i32(4), [](i32, i32, i32) {}); };
    CHECK_THROWS_WITH(walk(), at(line) + ": error: for_each_tile_split_in_cluster in a kernel whose cluster is (2,1,1): a tile's "
                                         "splits are the cluster's planes along z\n"
                                         "  fix: set a cluster with 2 or more CTAs along z first (k.cluster(x, y, splits)), or use "
                                         "for_each_tile with splits");
  }
  SECTION("columns that are not whole groups of 8, a send to this CTA, an add from a peer") {
    KernelBuilder k("sends");
    k.threads(128);
    k.cluster(1, 1, 2);
    SharedTile a = k.shared_tile(ir::Scalar::BF16, "a", 64, 64, 1);
    SharedTile b = k.shared_tile(ir::Scalar::BF16, "b", 64, 64, 1);
    Accumulator acc = k.accumulator("acc", 64, 64);
    Ptr<float> buf = k.dynamic_shared<float>("buf", 64 * 32);
    Ptr<mbarrier_t> bar = k.mbarriers("bar", 1, 1);
    unsigned cols_line = 0, local_line = 0, peer_add_line = 0;
    k.role("math", 1, 0, [&](i32) {
      mma(acc, stage(a, 0), stage(b, 0), boolean(false));
      mma_wait(0);
      // The call on a line of its own: a macro argument's line differs between compilers.
      cols_line = __LINE__ + 1;
      auto odd_columns = [&] { send_accumulator_partial(map_shared_rank(buf, i32(1)), acc, Columns{4, 8}, i32(0), map_shared_rank(bar, i32(1))[0]); };
      CHECK_THROWS_WITH(odd_columns(), at(cols_line) + ": error: send_accumulator_partial of columns 4..12 of accumulator 'acc' (64 columns)\n"
                                                       "  fix: give whole groups of 8 columns inside the accumulator");
      local_line = __LINE__ + 1;
      send_accumulator_partial(buf, acc, Columns{0, 32}, i32(0), bar[0]);
      peer_add_line = __LINE__ + 1;
      add_accumulator_partial(map_shared_rank(buf, i32(1)), acc, Columns{32, 32}, i32(0));
    });
    auto d = lower_errors(k.build());
    REQUIRE(d.size() >= 3);
    CHECK(d[0].str() == at(local_line) + ": error: send_accumulator_partial into buf, a shared f32*; it writes a peer CTA's f32 shared "
                                         "buffer\n  fix: pass map_shared_rank(buffer, rank) of a k.shared<float>(...) buffer");
    CHECK(d[1].str() == at(local_line) + ": error: send_accumulator_partial completes on bar, which is not mapped to the peer\n"
                                         "  fix: pass map_shared_rank(barrier, rank)[i], the barrier of the CTA that receives the partial");
    CHECK(d[2].str().rfind(at(peer_add_line) + ": error: add_accumulator_partial through ", 0) == 0);
    CHECK(d[2].str().find("; it reads global f32 memory or this CTA's f32 shared memory") != std::string::npos);
  }
}

TEST_CASE("stream-K refuses a dynamic schedule: its shares are fixed before the launch", "[codegen][tiles][splitk][streamk]") {
  auto build = [](bool dyn, unsigned* line) {
    KernelBuilder k(dyn ? "sk_dynamic" : "sk_static");
    k.threads(128);
    SharedTile a = k.shared_tile<bf16>("a", 64, 64), b = k.shared_tile<bf16>("b", 64, 64), d = k.shared_tile<float>("d", 64, 64);
    TileMap amap = k.tile_map("A", a, 64), bmap = k.tile_map("B", b, 64), dmap = k.tile_map("D", d, 64);
    auto M = k.param<int32_t>("M"), N = k.param<int32_t>("N"), K = k.param<int32_t>("K");
    auto full = k.mbarriers("full", 1, 1);
    Accumulator acc = k.accumulator("acc", 64, 64);
    SplitK sk(k, 1, 32, 1, 64 * 64, KPartition::StreamK);
    sk.declare_shared(64);
    k.role("main", 1, 0, [&](i32 wg) {
      i32 tm = (M + 63) / 64, tn = (N + 63) / 64, kb = (K + 63) / 64;
      sk.declare_count(tm, tn, kb);
      *line = __LINE__ + 1;
      sk.for_each_unit(dyn ? dynamic(8, 2) : static_persistent(8), tm, tn, kb, [&](i32 m, i32 n, i32 sp, i32 origin, i32 count) {
        for_(0, count, [&](i32 j) {
          if_(thread_idx_x() == 0, [&] {
            arrive_expect_tx(full[0], u32(tile_load_bytes(amap) + tile_load_bytes(bmap)));
            tma_load_tile(stage(a, 0), amap, m * 64, sk.kblock(origin, j) * 64, full[0]);
            tma_load_tile(stage(b, 0), bmap, n * 64, sk.kblock(origin, j) * 64, full[0]);
          });
          wait(full[0]);
          mma(acc, stage(a, 0), stage(b, 0), j > 0);
          mma_wait(0);
          role_sync();
        });
        sk.finish(acc, wg, m, n, sp, tn, [&](Columns) {
          if_(thread_idx_x() == 0, [&] { bulk_wait_read(0); });
          role_sync();
          store_accumulator(stage(d, 0), acc, [&](const Elem& e) { return e.value; });
          fence_proxy_async();
          role_sync();
          if_(thread_idx_x() == 0, [&] {
            tma_store_tile(dmap, m * 64, n * 64, stage(d, 0));
            bulk_commit();
          });
        });
      });
      if_(thread_idx_x() == 0, [&] { bulk_wait(0); });
    });
    return k.build();
  };
  unsigned line = 0;
  CHECK(lower_errors(build(false, &line)).empty());
  std::string got;
  try {
    build(true, &line);
  } catch (const UserError& e) {
    got = e.what();
  }
  CHECK(got == "test_split_k.cpp:" + std::to_string(line) +
                   ": error: stream-K with a dynamic schedule: stream-K fixes each cluster's share of the k-blocks before "
                   "the launch, so no unit is left to claim at run time\n  fix: give stream-K static_persistent(group); "
                   "dynamic(...) takes split-K or whole tiles");
}

// The dynamic tile schedule (for_each_tile(dynamic(...))): its lowering on both targets,
// the claim before the unit's work in program order, the checks seeing its barriers, the
// PTX NVRTC makes of it (sm_100a compile-verified only: no Blackwell GPU runs it here),
// the diagnostics of misuse, and a host model of the sm_90a counter's accounting.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "codegen/prelude.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/dynamic_kernels.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using tj::test::contains;
using tj::test::lower_errors;

namespace {

// Whether `what` appear in `text` in this order (each after the previous one's end).
bool in_order(const std::string& text, const std::vector<std::string>& what, std::string* missing = nullptr) {
  size_t at = 0;
  for (const std::string& w : what) {
    size_t p = text.find(w, at);
    if (p == std::string::npos) {
      if (missing) *missing = w;
      return false;
    }
    at = p + w.size();
  }
  return true;
}

rt::CompileResult compile_for(const codegen::Lowered& l, const Target& t) {
  return rt::compile(samples::compile_request(l, t), nullptr);
}

std::vector<std::string> check_lines(const codegen::Lowered& l) {
  std::vector<std::string> out;
  for (const auto& c : l.races) out.push_back(codegen::race::to_string(c));
  for (const auto& c : l.transactions) out.push_back(codegen::to_string(c));
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& what) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return contains(l, what); });
}

std::string at(unsigned line) { return "test_dynamic.cpp:" + std::to_string(line); }

}  // namespace

TEST_CASE("dynamic on sm_90a: a while loop on the claimed predicate, the claim before the body, a per-launch counter",
          "[codegen][dynamic]") {
  codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(), Target::sm90a());
  const std::string ir = ir::to_string(l.kernel);
  INFO(ir);
  // The counter is a zeroed workspace of one u32; the grid is persistent.
  CHECK(contains(ir, "tj_dyn_counter: global u32* workspace[1l, zeroed]"));
  REQUIRE(l.kernel.schedule_grid);
  CHECK_FALSE(l.kernel.schedule_grid->per_unit);
  CHECK(ir::to_string(l.kernel.schedule_grid->units) == "i64((((tiles_m + 0) / 1) * ((tiles_n + 0) / 1)))");
  CHECK(contains(ir, "shared tj_dyn_answer: u32[8]"));
  CHECK(contains(ir, "shared tj_dyn_full: mbarrier[2] arrivals 1"));
  CHECK(contains(ir, "shared tj_dyn_empty0: mbarrier[2] arrivals 128"));
  std::string missing;
  CHECK(in_order(ir,
                 {"let tj_sched0_unit: i32 = %ctaid.x", "let tj_sched0_valid: bool = (%ctaid.x < tj_sched0_total)",
                  "while tj_sched0_valid units tj_sched0_unit of i64(", "if (%tid.x == 0) {", "if (tj_sched0_k >= 2) {",
                  "wait(tj_dyn_empty0[tj_sched0_slot])",
                  "let tj_sched0_old: u32 = atomic_fetch_add.relaxed.gpu(tj_dyn_counter[0], 1u)",
                  "let tj_sched0_next: i32 = (i32(tj_sched0_old) + %nctaid.x)",
                  "if (i32(tj_sched0_old) == (tj_sched0_total - 1)) {", "tj_dyn_counter[0] = 0u",
                  "tj_dyn_answer[(tj_sched0_slot * 4)] = select((tj_sched0_next < tj_sched0_total), 1u, 0u)",
                  "arrive(tj_dyn_full[tj_sched0_slot])",
                  // the body, after the claim
                  "atomic_add(counts[((tile_m * tiles_n) + tile_n)], 1u)",
                  "wait(tj_dyn_full[tj_sched0_slot])",
                  "tj_sched0_valid = (tj_dyn_answer[((tj_sched0_slot * 4) + 0)] != 0u)", "if tj_sched0_valid {",
                  "tj_sched0_unit = i32(tj_dyn_answer[((tj_sched0_slot * 4) + 1)])",
                  "arrive(tj_dyn_empty0[tj_sched0_slot])", "tj_sched0_k = (tj_sched0_k + 1)"},
                 &missing));
  CHECK(missing == "");
  // Every check sees the claim's barriers.
  const std::vector<std::string> checks = check_lines(l);
  CHECK(has_line(checks, "arrivals on barrier 'tj_dyn_full' in the loop at dynamic_kernels.h:20: verified (1 per phase)"));
  CHECK(has_line(checks, "arrivals on barrier 'tj_dyn_empty0' in the loop at dynamic_kernels.h:20: verified (128 per phase)"));
  CHECK(has_line(checks, "async proxy: verified"));
}

TEST_CASE("dynamic on sm_90a, cluster of 2: answers to the peer by st.async on its full barrier", "[codegen][dynamic]") {
  codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(2), Target::sm90a());
  const std::string ir = ir::to_string(l.kernel);
  INFO(ir);
  std::string missing;
  CHECK(in_order(ir,
                 {"let tj_sched0_unit: i32 = %clusterid.x", "while tj_sched0_valid units tj_sched0_unit of i64(",
                  "if ((%cluster_ctarank == 0) && (%tid.x == 0)) {", "atomic_fetch_add.relaxed.gpu(tj_dyn_counter[0], 1u)",
                  "(i32(tj_sched0_old) + %nclusterid.x)", "arrive(tj_dyn_full[tj_sched0_slot])",
                  "arrive_expect_tx(map_shared_rank(tj_dyn_full, 1)[tj_sched0_slot], 8u)",
                  "st_async(map_shared_rank(tj_dyn_answer, 1)[(tj_sched0_slot * 4)]",
                  "atomic_add(counts[", "wait(tj_dyn_full[tj_sched0_slot])",
                  "arrive(map_shared_rank(tj_dyn_empty0, 0)[tj_sched0_slot])"},
                 &missing));
  CHECK(missing == "");
  CHECK(contains(ir, "shared tj_dyn_empty0: mbarrier[2] arrivals 256"));  // 128 walkers in each of 2 CTAs
  const std::vector<std::string> checks = check_lines(l);
  CHECK(has_line(checks, "barrier 'tj_dyn_full' in the loop at dynamic_kernels.h:20: verified"));
  CHECK(has_line(checks, "cluster epochs: verified"));
  CHECK(has_line(checks, "arrivals on barrier 'tj_dyn_empty0' in the loop at dynamic_kernels.h:20: verified (256 per phase)"));
}

TEST_CASE("dynamic on sm_100a: try_cancel before the body, one cluster per unit, no counter", "[codegen][dynamic][sm100a]") {
  for (unsigned cluster : {1u, 2u, 4u}) {
    CAPTURE(cluster);
    codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(cluster), Target::sm100a());
    const std::string ir = ir::to_string(l.kernel);
    INFO(ir);
    CHECK_FALSE(contains(ir, "tj_dyn_counter"));
    REQUIRE(l.kernel.schedule_grid);
    CHECK(l.kernel.schedule_grid->per_unit);
    const std::string multicast = cluster > 1 ? "clc_try_cancel_multicast(" : "clc_try_cancel(";
    std::string missing;
    CHECK(in_order(ir,
                   {"while tj_sched0_valid units tj_sched0_unit of i64(", cluster > 1 ? "arrive_expect_tx(map_shared_rank(tj_dyn_full, 0)" : "arrive_expect_tx(tj_dyn_full",
                    multicast + "tj_dyn_answer[(tj_sched0_slot * 4)], tj_dyn_full[tj_sched0_slot])", "atomic_add(counts[",
                    "wait(tj_dyn_full[tj_sched0_slot])", "tj_sched0_valid = clc_is_canceled(tj_sched0_answer)",
                    "if tj_sched0_valid {", "tj_sched0_unit = (clc_first_ctaid_x(tj_sched0_answer) / " + std::to_string(cluster) + ")"},
                   &missing));
    CHECK(missing == "");
    const std::vector<std::string> checks = check_lines(l);
    CHECK(has_line(checks, "barrier 'tj_dyn_full' in the loop at dynamic_kernels.h:20: verified"));
    CHECK(has_line(checks, "arrivals on barrier 'tj_dyn_empty0' in the loop at dynamic_kernels.h:20: verified (" +
                               std::to_string(128 * cluster) + " per phase)"));
  }
}

TEST_CASE("dynamic on sm_100a: the PTX asks first (try_cancel before the unit's work), queries after, the ctaid under the predicate",
          "[codegen][dynamic][sm100a][nvrtc]") {
  for (unsigned cluster : {1u, 2u}) {
    CAPTURE(cluster);
    codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(cluster), Target::sm100a());
    rt::CompileResult r = compile_for(l, Target::sm100a());
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    const std::string& ptx = r.ptx;
    INFO(ptx);
    const std::string try_cancel = cluster > 1
        ? "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128"
        : "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128";
    std::string missing;
    // try_cancel, then the body's atomic, then the wait, is_canceled, a branch on it, get_first_ctaid.
    CHECK(in_order(ptx, {try_cancel, "red.add.u32", "mbarrier.try_wait.parity",
                         "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128", "selp.u32", "bra",
                         "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128"},
                   &missing));
    CHECK(missing == "");
    CHECK(test::count(ptx, "clusterlaunchcontrol.try_cancel") == 1);
  }
}

TEST_CASE("dynamic on sm_90a: NVRTC compiles it, and the counter claim precedes the body's work in the PTX",
          "[codegen][dynamic][nvrtc]") {
  for (unsigned cluster : {1u, 2u, 4u}) {
    CAPTURE(cluster);
    codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(cluster), Target::sm90a());
    rt::CompileResult r = compile_for(l, Target::sm90a());
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    std::string missing;
    CHECK(in_order(r.ptx, {"atom.relaxed.gpu.global.add.u32", "red.add.u32", "mbarrier.try_wait.parity"}, &missing));
    CHECK(missing == "");
    CHECK_FALSE(contains(r.ptx, "clusterlaunchcontrol"));
    if (cluster > 1) CHECK(contains(r.ptx, "st.async.shared::cluster.mbarrier::complete_tx::bytes"));
  }
}

TEST_CASE("dynamic: a warp-specialized kernel, each role walking the schedule, passes every check on both targets",
          "[codegen][dynamic][roles]") {
  for (const Target& t : {Target::sm90a(), Target::sm100a()})
    for (unsigned cluster : {1u, 2u, 4u}) {
      CAPTURE(t.arch, cluster);
      codegen::Lowered l = codegen::lower(test::dynamic_roles_kernel(cluster), t);
      const std::string ir = ir::to_string(l.kernel);
      INFO(ir);
      // One scheduler (the producer's thread 0, in rank 0); an empty ring per walk.
      CHECK(test::count(ir, "if (tj_sched0_k >= 2) {") == 1);  // the producer's walk claims
      CHECK_FALSE(contains(ir, "if (tj_sched1_k >= 2) {"));      // the consumers' only receives
      if (cluster > 1) CHECK(test::count(ir, "if ((%cluster_ctarank == 0) && (%tid.x == 0)) {") == 1);
      CHECK(contains(ir, "shared tj_dyn_empty0: mbarrier[2] arrivals " + std::to_string(cluster)));
      CHECK(contains(ir, "shared tj_dyn_empty1: mbarrier[2] arrivals " + std::to_string(128 * cluster)));
      CHECK(contains(ir, "wait(tj_dyn_empty0[tj_sched0_slot])"));
      CHECK(contains(ir, "wait(tj_dyn_empty1[tj_sched0_slot])"));
      const std::vector<std::string> checks = check_lines(l);
      CHECK(has_line(checks, "arrivals on barrier 'tj_dyn_empty1' in the loop at dynamic_kernels.h:57: verified"));
      CHECK(has_line(checks, "arrivals on barrier 'drained' in the loop at dynamic_kernels.h:57: verified (128 per phase)"));
      rt::CompileResult r = compile_for(l, t);
      INFO(r.log);
      CHECK_FALSE(r.cubin.empty());
    }
}

TEST_CASE("dynamic: longest rows first numbers the cluster rows from the last one", "[codegen][dynamic]") {
  codegen::Lowered l = codegen::lower(test::dynamic_count_kernel(1, 2, ir::UnitOrder::LongestRowsFirst), Target::sm90a());
  const std::string ir = ir::to_string(l.kernel);
  // Across a row, then the next row up: the units are handed out in order of cost.
  CHECK(contains(ir, "let tile_m: i32 = ((((tj_sched0_rows - 1) - (tj_sched0_first_row + (tj_sched0_in_group / "
                     "tj_sched0_cols))) * 1) + 0)"));
  CHECK(contains(ir, "let tile_n: i32 = (((tj_sched0_in_group % tj_sched0_cols) * 1) + 0)"));
  CHECK(contains(ir, "for_each_tile") == false);
  CHECK(contains(ir::to_string(test::dynamic_count_kernel(1, 3, ir::UnitOrder::LongestRowsFirst)),
                 "for_each_tile dynamic(group 2, 3 slots, longest rows first)"));
}

TEST_CASE("dynamic: misuse is refused with the user's line", "[codegen][dynamic][verifier]") {
  SECTION("inside a loop") {
    KernelBuilder k("dyn_loop");
    auto out = k.param<uint32_t*>("out");
    unsigned line = 0;
    for_(0, 2, [&](i32) {
      for_each_tile(dynamic(), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); }); line = __LINE__;
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str().rfind(at(line) + ": error: for_each_tile with a dynamic schedule inside a loop at " + at(line - 1) +
                               ": the units it claims are handed out once per launch, so each thread walks it once",
                           0) == 0);
  }
  SECTION("one thread walks it twice") {
    KernelBuilder k("dyn_twice");
    auto out = k.param<uint32_t*>("out");
    for_each_tile(dynamic(), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); }); const unsigned first = __LINE__;
    for_each_tile(dynamic(), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(2u); }); const unsigned second = __LINE__;
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(second) + ": error: thread 0 of CTA rank 0 walks the dynamic schedule here and at " + at(first) +
                            ": each unit is handed to every walker once\n"
                            "  fix: let each thread walk the schedule once: one for_each_tile per role (or per branch)");
  }
  SECTION("under a condition known only at run time") {
    KernelBuilder k("dyn_param");
    auto out = k.param<uint32_t*>("out");
    auto flag = k.param<int32_t>("flag");
    unsigned line = 0;
    if_(flag > 0, [&] {
      for_each_tile(dynamic(), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); }); line = __LINE__;
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(line) + ": error: for_each_tile with a dynamic schedule runs under the condition (flag > 0), "
                                   "which cannot be evaluated before run time\n"
                                   "  fix: walk the dynamic schedule under conditions on the thread and CTA index only "
                                   "(roles, thread_idx_x(), cluster_ctarank()), so that its barriers can count the threads "
                                   "that receive each unit");
  }
  SECTION("two roles walking different grids") {
    KernelBuilder k("dyn_grids");
    k.threads(256);
    auto out = k.param<uint32_t*>("out");
    unsigned first = 0, second = 0;
    k.role("a", 1, 0, [&](i32) {
      for_each_tile(dynamic(), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); }); first = __LINE__;
    });
    k.role("b", 1, 0, [&](i32) {
      for_each_tile(dynamic(), i32(4), i32(8), [&](i32 m, i32 n) { out[m * 8 + n] = u32(1u); }); second = __LINE__;
    });
    std::vector<Diagnostic> d = lower_errors(k.build());
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == at(second) + ": error: for_each_tile walks a dynamic schedule over [4 x 8] with 2 slots, but the one at " +
                            at(first) + " walks [4 x 4] with 2 slots: the roles of a kernel share one dynamic schedule\n"
                            "  fix: pass the same dynamic(...), tile counts and splits to every for_each_tile of the kernel");
  }
  SECTION("0 or 9 slots") {
    KernelBuilder k("dyn_slots");
    auto out = k.param<uint32_t*>("out");
    // The call on a line of its own: clang and GCC give std::source_location different
    // lines inside a macro that spans lines.
    auto zero_slots = [&] {
      for_each_tile(dynamic(8, 0), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); });
    };
    const unsigned line = __LINE__ - 2;
    CHECK_THROWS_WITH(zero_slots(),
                      at(line) + ": error: for_each_tile with a dynamic schedule of 0 slots: no claim could be answered\n"
                                 "  fix: use at least 1 slot (2 lets one role run a unit ahead of another)");
    CHECK_THROWS_WITH(for_each_tile(dynamic(8, 9), i32(4), i32(4), [&](i32 m, i32 n) { out[m * 4 + n] = u32(1u); }),
                      Catch::Contains("slots; at most 8 claims may be in flight"));
  }
}

TEST_CASE("cluster launch control on sm_90a is refused, naming the Hopper alternative", "[codegen][dynamic][verifier]") {
  KernelBuilder k("clc_on_hopper");
  auto out = k.param<uint32_t*>("out");
  auto answer = k.shared<uint32_t>("answer", 4);
  auto full = k.mbarriers("full", 1, 1);
  unsigned l_try = 0, l_query = 0;
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(16u));
    clc_try_cancel(answer[0], full[0]); l_try = __LINE__;
  });
  wait(full[0]);
  u32x4 r = pack_u32x4(answer[0], answer[1], answer[2], answer[3]);
  if_(clc_is_canceled(r), [&] { out[0] = u32(1u); }); l_query = __LINE__;
  ir::Kernel kern = k.build();
  std::vector<Diagnostic> d = lower_errors(kern, Target::sm90a());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == at(l_try) + ": error: try_cancel is cluster launch control (clusterlaunchcontrol), which sm_90a lacks\n"
                                  "  fix: on sm_90a use for_each_tile(dynamic(...), ...): it claims units from an atomic counter "
                                  "in the same ask-first protocol; or compile for sm_100a");
  CHECK(d[1].str().rfind(at(l_query) + ": error: clc_is_canceled is cluster launch control", 0) == 0);
  // The same kernel on sm_100a: verified, and its answer's 16 bytes accounted.
  codegen::Lowered l = codegen::lower(kern, Target::sm100a());
  CHECK(has_line(check_lines(l), "barrier 'full[0]' in the kernel body: verified"));
  rt::CompileResult c = compile_for(l, Target::sm100a());
  INFO(c.log);
  CHECK(contains(c.ptx, "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128"));
}

// The sm_90a counter's accounting, on the host: C clusters (those whose first unit
// exists) claim in any interleaving, each stopping after its first failed claim. Every
// unit runs once, the launch makes exactly `units` claims, and the claim that reads
// units - 1 is the last one (it resets the counter).
TEST_CASE("dynamic on sm_90a: the counter's claims, modelled on the host", "[codegen][dynamic]") {
  std::mt19937 rng(7);
  for (int units : {0, 1, 5, 16, 100})
    for (int clusters : {1, 3, 16, 40}) {
      CAPTURE(units, clusters);
      std::vector<int> runs(size_t(units), 0);
      std::vector<bool> active;
      for (int c = 0; c < clusters; ++c) {
        active.push_back(c < units);
        if (c < units) ++runs[size_t(c)];  // the first unit: the cluster id
      }
      uint32_t counter = 0;
      int claims = 0, reset_at = -1;
      for (;;) {
        std::vector<int> live;
        for (int c = 0; c < clusters; ++c) if (active[size_t(c)]) live.push_back(c);
        if (live.empty()) break;
        const int c = live[rng() % live.size()];
        const uint32_t old = counter++;
        ++claims;
        const int next = int(old) + clusters;
        if (int(old) == units - 1) reset_at = claims, counter = 0;
        if (next < units) ++runs[size_t(next)];
        else active[size_t(c)] = false;
      }
      CHECK(claims == units);
      CHECK(counter == 0);
      if (units > 0) CHECK(reset_at == claims);
      CHECK(std::all_of(runs.begin(), runs.end(), [](int n) { return n == 1; }));
    }
}

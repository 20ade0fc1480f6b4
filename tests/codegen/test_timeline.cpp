// The timeline (LowerOptions::timeline, codegen/passes/insert_timeline.h): which loops
// record, what each record holds, how the host sizes the buffers, and what the host makes
// of the records (generators/timeline.h). CPU only; the GPU half (every unit recorded on
// the H200) is tests/gpu/test_timeline.cpp.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_timeline.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

#include "api/args.h"
#include "api/workspace.h"
#include "codegen/passes/insert_timeline.h"
#include "codegen/prelude.h"
#include "generators/timeline.h"
#include "runtime/compiler.h"

namespace {

// Each unit of a static schedule over tiles_m x tiles_n writes its tile's number.
ir::Kernel tiles_kernel(const ir::TileSchedule& schedule, unsigned cluster = 1) {
  KernelBuilder k("tiles");
  k.threads(128);
  if (cluster > 1) k.cluster(cluster);
  auto out = k.param<int32_t*>("out");
  auto tiles_m = k.param<int32_t>("tiles_m");
  auto tiles_n = k.param<int32_t>("tiles_n");
  for_each_tile(schedule, tiles_m, tiles_n, [&](i32 m, i32 n) {
    if_(thread_idx_x() == 0 && m < tiles_m && n < tiles_n, [&] { out[m * tiles_n + n] = m * tiles_n + n; });
  });
  return k.build();
}

size_t param_index(const ir::Kernel& k, const std::string& name) {
  for (size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].name == name) return i;
  FAIL("no parameter " << name);
  return 0;
}

codegen::Lowered with_timeline(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  codegen::LowerOptions o;
  o.timeline = true;
  return codegen::lower(k, t, o);
}

std::string ptx_of(const codegen::Lowered& l, const Target& t) {
  rt::CompileRequest req;
  req.kernel_name = l.kernel.name;
  req.source = l.cuda;
  req.headers = {{codegen::kPreludeName, std::string(codegen::prelude_source())}};
  req.arch = t.arch;
  rt::CompileResult r = rt::compile(req, nullptr);
  INFO(r.log);
  CHECK_FALSE(r.cubin.empty());
  return r.ptx;
}

}  // namespace

TEST_CASE("timeline: off, the kernel is unchanged, and on, each unit of a schedule's loop is recorded by each warp", "[codegen][timeline]") {
  const ir::Kernel k = tiles_kernel(static_persistent());
  const codegen::Lowered plain = codegen::lower(k, Target::sm90a());
  CHECK_FALSE(contains(plain.cuda, "tj_timeline"));
  CHECK_FALSE(contains(plain.cuda, "warp_leader"));

  const codegen::Lowered timed = with_timeline(k);
  // Two workspace parameters the caller never passes.
  const size_t count = param_index(timed.kernel, codegen::kTimelineCount);
  const size_t records = param_index(timed.kernel, codegen::kTimelineRecords);
  REQUIRE(timed.kernel.params[count].workspace);
  REQUIRE(timed.kernel.params[records].workspace);
  CHECK_FALSE(timed.kernel.params[count].workspace->zeroed);
  CHECK(signature(timed.kernel) == "out: i32*, tiles_m: i32, tiles_n: i32");
  // Sized from the launch: 3 x 5 units, 1 CTA per cluster, 4 warps, 4 words per record.
  const rt::ArgPack pack = bind_args(timed.kernel, {device_ptr<int32_t>(0x1000), 3, 5});
  CHECK(workspace_elements(timed.kernel, count, pack, {132, 1, 1}) == 1);
  CHECK(workspace_elements(timed.kernel, records, pack, {132, 1, 1}) == 3 * 5 * 4 * codegen::kTimelineWords);
  // The start at the top of the loop's body, the record after it by one lane per warp.
  const std::string& cuda = timed.cuda;
  const size_t t0 = cuda.find("tj_tl0_t0 = tj::global_timer()");
  const size_t store = cuda.find("out[");
  const size_t leader = cuda.find("if (tj::warp_leader_of(tj_tl0_mask))");
  REQUIRE(t0 != std::string::npos);
  REQUIRE(store != std::string::npos);
  REQUIRE(leader != std::string::npos);
  CHECK(t0 < store);
  CHECK(store < leader);
  CHECK(contains(cuda, "tj::atom_add_relaxed_gpu(&tj_timeline_count[0], 1u)"));
  // NVRTC: the leader test, the timer, the SM and the claim of a record slot.
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    const std::string ptx = ptx_of(with_timeline(k, t), t);
    CHECK(contains(ptx, "activemask.b32"));
    CHECK(contains(ptx, "bar.warp.sync"));
    CHECK(contains(ptx, "%lanemask_lt"));
    CHECK(contains(ptx, "%globaltimer"));
    CHECK(contains(ptx, "%smid"));
    CHECK(contains(ptx, "atom.relaxed.gpu.global.add.u32"));
  }
}

TEST_CASE("timeline: a cluster's CTAs each record, and a dynamic schedule's loop records the unit it was handed", "[codegen][timeline]") {
  const codegen::Lowered timed = with_timeline(tiles_kernel(dynamic(), 2));
  const size_t records = param_index(timed.kernel, codegen::kTimelineRecords);
  // 4 x 6 tiles: 4 x 3 cluster tiles, 2 CTAs each, 4 warps.
  const rt::ArgPack pack = bind_args(timed.kernel, {device_ptr<int32_t>(0x1000), 4, 6});
  CHECK(workspace_elements(timed.kernel, records, pack, {66, 1, 1}) == 4 * 3 * 2 * 4 * codegen::kTimelineWords);
  // The unit number is read as the iteration starts, before the claim's answer replaces it.
  const std::string& cuda = timed.cuda;
  const size_t unit = cuda.find("tj_tl0_unit = tj_sched0_unit;");
  const size_t next = cuda.rfind("tj_sched0_unit = ");  // the claimed unit's assignment (the first: its declaration)
  REQUIRE(unit != std::string::npos);
  REQUIRE(next != std::string::npos);
  CHECK(unit < next);
}

TEST_CASE("timeline: a kernel without a loop of units records each CTA's whole run", "[codegen][timeline]") {
  KernelBuilder k("flat");
  k.threads(96);
  auto out = k.param<uint32_t*>("out");
  out[block_idx_x() * 96 + thread_idx_x()] = u32(1u);
  const codegen::Lowered timed = with_timeline(k.build());
  const size_t records = param_index(timed.kernel, codegen::kTimelineRecords);
  const rt::ArgPack pack = bind_args(timed.kernel, {device_ptr<uint32_t>(0x1000)});
  // 10 CTAs of 3 warps.
  CHECK(workspace_elements(timed.kernel, records, pack, {10, 1, 1}) == 10 * 3 * codegen::kTimelineWords);
  CHECK(contains(timed.cuda, "tj_tl0_t0 = tj::global_timer()"));
}

TEST_CASE("timeline: stream-K's walk records a unit per share and per whole tile", "[codegen][timeline][streamk]") {
  // A hand-written loop marked with while_units is recorded the same way.
  KernelBuilder k("walk");
  auto out = k.param<int32_t*>("out");
  auto n = k.param<int32_t>("n");
  Var<int32_t> i = var(block_idx_x(), "i");
  while_units(i < n, i, cast<int64_t>(n), [&] {
    out[i] = i;
    i = i + grid_dim_x();
  });
  const codegen::Lowered timed = with_timeline(k.build());
  const size_t records = param_index(timed.kernel, codegen::kTimelineRecords);
  const rt::ArgPack pack = bind_args(timed.kernel, {device_ptr<int32_t>(0x1000), 1000});
  CHECK(workspace_elements(timed.kernel, records, pack, {8, 1, 1}) == 1000 * 4 * codegen::kTimelineWords);
  CHECK(contains(timed.cuda, "tj_tl0_unit = i;"));
}

TEST_CASE("while_units: a unit count the host cannot evaluate is refused at the user's line", "[codegen][timeline][diagnostics]") {
  unsigned line = 0;
  const std::string err = dsl_error_of([&] {
    KernelBuilder k("bad_count");
    auto out = k.param<int32_t*>("out");
    Var<int32_t> i = var(i32(0), "i");
    const i64 count = var(cast<int64_t>(i + 4), "count");
    line = __LINE__ + 1;
    while_units(i < 4, i, count, [&] {
      out[i] = i;
      i = i + 1;
    });
  });
  CHECK(contains(err, at(line) + ": error: while_units: the unit count reads the local 'count', which the host cannot evaluate before a launch"));
  CHECK(contains(err, "fix: build the count from integer parameters, constants, the cluster shape and the grid"));
}

TEST_CASE("timeline records: one per CTA and unit, the last warp's to end it, sorted by start, the unwritten ignored", "[timeline][host]") {
  auto rec = [](uint64_t start, uint64_t end, uint32_t unit, uint32_t sm, uint32_t cta, uint32_t warp) {
    return std::vector<uint64_t>{start, end, uint64_t(unit) | uint64_t(sm) << 32, uint64_t(cta) | uint64_t(warp) << 32};
  };
  std::vector<uint64_t> words;
  for (auto r : {rec(200, 900, 5, 7, 0, 0), rec(150, 800, 5, 7, 0, 3),  // one unit, two warps of CTA 0: 700 ns and 650
                 rec(100, 101, 5, 7, 0, 2),                             // a warp with nothing to do in it
                 rec(10, 340, 6, 7, 0, 1), rec(330, 460, 6, 7, 0, 0),   // a warp waiting 330 ns for the claim; the worker
                 rec(100, 300, 5, 9, 1, 0),                             // the same unit in CTA 1 (a cluster peer)
                 rec(400, 350, 2, 9, 1, 1),                             // an end before its start: a zero-length unit
                 rec(1, 2, 8, 1, 2, 0)})                                // past the count: not written by the launch
    words.insert(words.end(), r.begin(), r.end());
  const std::vector<samples::TimelineUnit> u = samples::merge_timeline_records(words, 7);
  REQUIRE(u.size() == 4);
  CHECK(u[0].cta == 1);
  CHECK(u[0].unit == 5);
  CHECK(u[0].sm == 9);
  CHECK(u[0].start == 100);
  CHECK(u[1].cta == 0);
  CHECK(u[1].unit == 5);
  CHECK(u[1].start == 200);  // the last warp to end it: 200 .. 900, not 100 .. 900
  CHECK(u[1].end == 900);
  CHECK(u[1].sm == 7);
  CHECK(u[2].unit == 6);
  CHECK(u[2].start == 330);  // the worker's 330 .. 460, not the waiting warp's longer span
  CHECK(u[2].end == 460);
  CHECK(u[3].unit == 2);
  CHECK(u[3].start == 400);
  CHECK(u[3].end == 400);
  // A count past what the buffer holds reads only what it holds.
  CHECK(samples::merge_timeline_records(words, 1000).size() == 5);
  CHECK(samples::merge_timeline_records(words, 0).empty());
}

TEST_CASE("timeline slots: the most units running at once on each SM, summed", "[timeline][host]") {
  auto unit = [](uint32_t sm, uint64_t start, uint64_t end) {
    samples::TimelineUnit u;
    u.sm = sm, u.start = start, u.end = end;
    return u;
  };
  CHECK(samples::concurrent_slots({}) == 0);
  // SM 0: one after another (an end and a start at 10 do not overlap); SM 1: three at
  // once at 5..6; SM 2: two.
  CHECK(samples::concurrent_slots({unit(0, 0, 10), unit(0, 10, 20), unit(1, 0, 10), unit(1, 2, 6), unit(1, 5, 9), unit(2, 0, 4),
                                   unit(2, 1, 3)}) == 1 + 3 + 2);
}

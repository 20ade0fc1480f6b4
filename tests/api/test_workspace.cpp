// Workspace parameters (KernelBuilder::workspace): the caller never passes them; the
// runtime evaluates each one's size from the launch's scalar arguments and grid before
// the launch (api/workspace.h). CPU only: the sizes, the signature, the errors. The GPU
// half (buffers bound, zeroed, kept per stream) is tests/gpu/test_api.cpp.
#include <catch2/catch.hpp>

#include "api/workspace.h"
#include "codegen/analysis/eval.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "samples/gemm.h"
#include "tests/api/api_kernels.h"
#include "tests/codegen/dynamic_kernels.h"
#include "tests/codegen/gemm_test_support.h"
#include "codegen/lower.h"

using namespace tj;

namespace {

// What JitKernel::launch evaluates for parameter `param`.
uint64_t elements(const ir::Kernel& k, size_t param, const std::vector<Arg>& args, ir::Dim3 grid) {
  return workspace_elements(k, param, bind_args(k, args), grid);
}

size_t param_index(const ir::Kernel& k, const std::string& name) {
  for (size_t i = 0; i < k.params.size(); ++i)
    if (k.params[i].name == name) return i;
  FAIL("no parameter " << name);
  return 0;
}

std::string user_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const tj::UserError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string runtime_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const rt::RuntimeError& e) {
    CHECK(e.kind() == rt::ErrorKind::Usage);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("workspace parameters are not arguments: the signature, the count and binding leave them out", "[api][workspace]") {
  const ir::Kernel k = api_test::workspaces();
  REQUIRE(k.params.size() == 5);
  CHECK(signature(k) == "out: u32*, n: i32, salt: u32");
  CHECK(argument_count(k) == 3);
  CHECK(ir::to_string(k).rfind("kernel api_workspaces(out: global u32*, n: i32, salt: u32, scratch: global u32* workspace[", 0) == 0);
  const rt::ArgPack pack = bind_args(k, {device_ptr<uint32_t>(0x1000), 7, 5u});
  REQUIRE(pack.size() == 5);  // every parameter has its slot; the workspaces' hold null until the launch
  CHECK(pack.bytes_of(3) == sizeof(CUdeviceptr));
  CUdeviceptr p = 1;
  std::memcpy(&p, pack.value(3), sizeof p);
  CHECK(p == 0);
  CHECK(runtime_error([&] { bind_args(k, {device_ptr<uint32_t>(0x1000), 7, 5u, device_ptr<uint32_t>(0), device_ptr<uint32_t>(0)}); }) ==
        "kernel 'api_workspaces' takes 3 argument(s) (out: u32*, n: i32, salt: u32) but 5 were given");
}

TEST_CASE("a workspace's size is evaluated per launch from the scalar arguments and the grid", "[api][workspace]") {
  const ir::Kernel k = api_test::workspaces();
  const size_t scratch = param_index(k, "scratch"), counter = param_index(k, "counter");
  CHECK(elements(k, scratch, {device_ptr<uint32_t>(0), 1000, 0u}, {4, 1, 1}) == 1000);
  CHECK(elements(k, scratch, {device_ptr<uint32_t>(0), 0, 0u}, {4, 1, 1}) == 0);
  CHECK(elements(k, counter, {device_ptr<uint32_t>(0), 1000, 0u}, {4, 1, 1}) == 1);
  CHECK(runtime_error([&] { elements(k, scratch, {device_ptr<uint32_t>(0), -5, 0u}, {1, 1, 1}); }).find(
            "workspace 'scratch' (declared at ") != std::string::npos);
  CHECK(runtime_error([&] { elements(k, scratch, {device_ptr<uint32_t>(0), -5, 0u}, {1, 1, 1}); }).find(
            " is -5 elements for this launch") != std::string::npos);
  CHECK_THROWS_AS(workspace_elements(k, 0, bind_args(k, {device_ptr<uint32_t>(0), 1, 0u}), {1, 1, 1}), ir::InternalError);

  // The grid: in clusters (%nclusterid) and in CTAs (%nctaid = clusters x cluster shape).
  dsl::KernelBuilder b("per_cta");
  b.threads(128).cluster(2);
  auto per = b.param<int32_t>("per");
  auto a = b.workspace<float>("a", false);
  auto c = b.workspace<float>("c", false);
  b.size_workspace(a, dsl::cast<int64_t>(dsl::grid_dim_x() * per));
  b.size_workspace(c, dsl::cast<int64_t>(dsl::num_clusters_x() * dsl::num_clusters_y() + dsl::cluster_nctarank()));
  a[dsl::block_idx_x()] = 1.0f;
  c[dsl::block_idx_x()] = 1.0f;
  const ir::Kernel g = b.build();
  CHECK(elements(g, 1, {3}, {5, 2, 1}) == 5 * 2 * 3);
  CHECK(elements(g, 2, {3}, {5, 2, 1}) == 5 * 2 + 2);
}

TEST_CASE("a workspace size the host cannot evaluate is refused at the user's line", "[api][workspace][errors]") {
  using namespace tj::dsl;
  auto build = [](int which) {
    KernelBuilder k("bad_size");
    k.threads(128);
    auto n = k.param<int32_t>("n");
    auto f = k.param<float>("f");
    auto w = k.workspace<uint32_t>("w", true);
    i32 local = var(n * 2, "local");
    if (which == 0) k.size_workspace(w, cast<int64_t>(thread_idx_x()));
    if (which == 1) k.size_workspace(w, cast<int64_t>(local));
    if (which == 2) k.size_workspace(w, cast<int64_t>(f));
    if (which == 3) k.size_workspace(k.param<uint32_t*>("plain"), i64(int64_t(4)));
  };
  for (int which = 0; which < 4; ++which) {
    CAPTURE(which);
    const std::string at = "test_workspace.cpp:";
    const std::string e = user_error([&] { build(which); });
    CHECK(e.find(at) != std::string::npos);
    if (which == 0) CHECK(e.find("workspace 'w': its size reads thread_idx_x() (it differs between threads or CTAs), which the host cannot evaluate before a launch") != std::string::npos);
    if (which == 1) CHECK(e.find("its size reads the local 'local'") != std::string::npos);
    if (which == 2) CHECK(e.find("its size reads the parameter 'f' (not an integer)") != std::string::npos);
    if (which == 3) CHECK(e.find("size_workspace: the buffer is not a workspace") != std::string::npos);
  }
}

TEST_CASE("split-K's workspace is sized by the kernel's own split count, as the host's model of it says", "[api][workspace][split_k]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    int64_t m, n, k, splits;
    ir::Dim3 cluster;
    unsigned sms;
  };
  // 1024^2 x 8192: 32 tiles of 128 x 256. Explicit 4; automatic on 132 SMs (4), 80 SMs (2),
  // a short K (none); ragged tiles in 2x2 clusters (the grid padded to whole clusters).
  const Case cases[] = {{1024, 1024, 8192, 4, {1, 1, 1}, 132}, {1024, 1024, 8192, 0, {1, 1, 1}, 132},
                        {1024, 1024, 8192, 0, {1, 1, 1}, 80},  {1024, 1024, 256, 0, {1, 1, 1}, 132},
                        {1000, 904, 3000, 3, {2, 2, 1}, 132},  {1000, 904, 3000, 0, {2, 1, 1}, 132}};
  // Partials in a slot per (tile, split) or, atomic, one slot per tile.
  for (const Case& c : cases)
    for (const samples::GemmSplitReduce reduce : {samples::GemmSplitReduce::Workspace, samples::GemmSplitReduce::Atomic}) {
      CAPTURE(c.m, c.n, c.k, c.splits, c.cluster.x, c.cluster.y, c.sms, int(reduce));
      const samples::Config cfg = test::gemm_config(
          {{"m", c.m}, {"n", c.n}, {"k", c.k}, {"splits", c.splits}, {"split_reduce", int64_t(reduce)}}, c.cluster);
      for (const samples::ConfigProblem& p : s->check_config(cfg)) FAIL(p.field << ": " << p.message);
      const ir::Kernel k = s->build(cfg);
      const samples::GemmShape shape = samples::gemm_shape(cfg);
      const samples::GemmTiling t = samples::gemm_tiling(cfg);
      const samples::GemmWorkspace want = samples::gemm_workspace(shape, t, int(c.sms));
      // One CTA per SM, as persistent_grid launches it: sms / cluster size clusters.
      const ir::Dim3 grid{c.sms / c.cluster.count(), 1, 1};
      std::vector<Arg> args;
      for (int i = 0; i < 4; ++i) args.push_back(Arg::encoded(std::vector<unsigned char>(sizeof(CUtensorMap)).data(), sizeof(CUtensorMap)));
      args.insert(args.end(), {Arg(int32_t(c.m)), Arg(int32_t(c.n)), Arg(int32_t(c.k)), Arg(1.0f), Arg(0.0f)});
      CHECK(elements(k, param_index(k, "workspace"), args, grid) == (want.splits > 1 ? want.workspace_floats : 0));
      CHECK(elements(k, param_index(k, "counters"), args, grid) == (want.splits > 1 ? want.counters : 0));
    }
}

TEST_CASE("stream-K's workspace is sized for the launched clusters, as the host's model of it says", "[api][workspace][stream_k]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  struct Case {
    int64_t m, n, k;
    ir::Dim3 cluster;
    unsigned sms;
  };
  // 32 tiles on 132 SMs (all stream-K); 289 cluster tiles on 66 clusters (4 waves + 25);
  // 4096 x 2048 (256 tiles: a wave and 124, all stream-K); 2048 x 4096 on 128 SMs (256
  // tiles: two whole waves, no stream-K tile and no workspace); ragged tiles in 2x2 clusters.
  const Case cases[] = {{1024, 1024, 8192, {1, 1, 1}, 132}, {4224, 4224, 4096, {1, 2, 1}, 132}, {4096, 2048, 1024, {1, 1, 1}, 132},
                        {2048, 4096, 4096, {1, 1, 1}, 128}, {1000, 904, 3000, {2, 2, 1}, 132}};
  // stream_k_tail 1 too: the last wave's tiles alone where they split in two or more ranges
  // (1024^2 x 8192: 32 tiles on 132 CTAs, 4 ranges each; 4224^2: 25 past 4 waves of 66, 2
  // each), else the hybrid's (4096 x 2048: a wave and 124, under two each).
  for (const Case& c : cases)
    for (const samples::GemmSplitReduce reduce : {samples::GemmSplitReduce::Workspace, samples::GemmSplitReduce::Atomic})
      for (const int64_t tail : {0, 1}) {
        CAPTURE(c.m, c.n, c.k, c.cluster.x, c.cluster.y, c.sms, int(reduce), tail);
        const samples::Config cfg = test::gemm_config(
            {{"m", c.m}, {"n", c.n}, {"k", c.k}, {"schedule", 2}, {"split_reduce", int64_t(reduce)}, {"stream_k_tail", tail}}, c.cluster);
        for (const samples::ConfigProblem& p : s->check_config(cfg)) FAIL(p.field << ": " << p.message);
        const ir::Kernel k = s->build(cfg);
        const samples::GemmWorkspace want = samples::gemm_workspace(samples::gemm_shape(cfg), samples::gemm_tiling(cfg), int(c.sms));
        const ir::Dim3 grid{c.sms / c.cluster.count(), 1, 1};
        std::vector<Arg> args;
        for (int i = 0; i < 4; ++i) args.push_back(Arg::encoded(std::vector<unsigned char>(sizeof(CUtensorMap)).data(), sizeof(CUtensorMap)));
        args.insert(args.end(), {Arg(int32_t(c.m)), Arg(int32_t(c.n)), Arg(int32_t(c.k)), Arg(1.0f), Arg(0.0f)});
        CHECK(elements(k, param_index(k, "workspace"), args, grid) == want.workspace_floats);
        CHECK(elements(k, param_index(k, "counters"), args, grid) == want.counters);
        // Whole waves: nothing to share.
        CHECK((want.counters == 0) == (c.sms == 128));
        // The stream-K tiles the counters say (one per tile, CTA and MMA warpgroup).
        const uint64_t per_tile = c.cluster.count() * samples::gemm_tiling(cfg).tile_groups();
        if (c.m == 1024) CHECK(want.counters == 32 * per_tile);  // all 32 tiles either way
        if (c.m == 4224) CHECK(want.counters == (tail ? 25 : 91) * per_tile);
        if (c.m == 4096) CHECK(want.counters == 256 * per_tile);  // 124 left: one range each, the hybrid
      }
}

TEST_CASE("a dynamic schedule's launch must have the schedule's grid where a wrong one loses or repeats units", "[api][workspace][dynamic]") {
  // sm_100a: cluster launch control, one cluster per unit (3 x 5 tiles in clusters of 1: 15 units).
  const ir::Kernel clc = codegen::lower(test::dynamic_count_kernel(1), codegen::Target::sm100a()).kernel;
  const rt::ArgPack args = bind_args(clc, {device_ptr<uint32_t>(0x1000), 3, 5});
  CHECK(runtime_error([&] { check_schedule_launch(clc, args, {15, 1, 1}); }) == "(no error)");
  CHECK(runtime_error([&] { check_schedule_launch(clc, args, {14, 1, 1}); }) ==
        "kernel 'dynamic_count' claims its units with cluster launch control, one cluster per unit: this launch has 15 "
        "units and a grid of (14, 1, 1) clusters, so the last units would never run; launch the grid "
        "JitKernel::schedule_grid gives (15, 1, 1)");
  CHECK(runtime_error([&] { check_schedule_launch(clc, args, {16, 1, 1}); }) ==
        "kernel 'dynamic_count' claims its units with cluster launch control, one cluster per unit: this launch has 15 "
        "units and a grid of (16, 1, 1) clusters, so clusters past the last unit would run tiles outside the grid; launch "
        "the grid JitKernel::schedule_grid gives (15, 1, 1)");
  // sm_90a: a persistent grid of any size claims every unit once, but along x only.
  const ir::Kernel atomic = codegen::lower(test::dynamic_count_kernel(2), codegen::Target::sm90a()).kernel;
  const rt::ArgPack args90 = bind_args(atomic, {device_ptr<uint32_t>(0x1000), 3, 5});
  CHECK(runtime_error([&] { check_schedule_launch(atomic, args90, {7, 1, 1}); }) == "(no error)");
  CHECK(runtime_error([&] { check_schedule_launch(atomic, args90, {200, 1, 1}); }) == "(no error)");
  CHECK(runtime_error([&] { check_schedule_launch(atomic, args90, {7, 2, 1}); }) ==
        "kernel 'dynamic_count' walks a dynamic schedule, whose units follow the grid's x only: a grid of (7, 2, 1) "
        "clusters would run each unit 2 times; launch the grid JitKernel::schedule_grid gives (N, 1, 1)");
  // Other kernels: the caller's grid.
  const ir::Kernel plain = api_test::workspaces();
  CHECK(runtime_error([&] { check_schedule_launch(plain, bind_args(plain, {device_ptr<uint32_t>(0x1000), 7, 5u}), {3, 4, 5}); }) ==
        "(no error)");
}

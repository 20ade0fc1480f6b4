// Programmatic dependent launch (KernelBuilder::dependent_launch): where the wait and the
// trigger go in the emitted CUDA (after the prologue, before the body, in every thread),
// the PTX for both targets, the launch config the API derives, and the GEMM's `pdl`.
#include <catch2/catch.hpp>

#include "api/jit.h"
#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "samples/builtin.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;

namespace {

// A cluster of two with a barrier and a peer read: the prologue has barrier init and the
// entry cluster barrier.
ir::Kernel peer_kernel(bool dependent) {
  KernelBuilder k("pdl_peer");
  k.threads(128).cluster(2).dependent_launch(dependent);
  auto out = k.param<uint32_t*>("out");
  auto buf = k.shared<uint32_t>("buf", 128);
  auto bar = k.mbarriers("bar", 1, 1);
  buf[thread_idx_x()] = cast<uint32_t>(thread_idx_x());
  if_(thread_idx_x() == 0, [&] { arrive(bar[0]); });
  wait(bar[0]);
  cluster_sync();
  auto peer = map_shared_rank(buf, cluster_ctarank() ^ i32(1));
  out[block_idx_x() * 128 + thread_idx_x()] = peer[thread_idx_x()];
  cluster_sync();
  return k.build();
}

size_t find_after(const std::string& s, const std::string& what, size_t from) {
  const size_t p = s.find(what, from);
  INFO("looking for '" << what << "' after offset " << from << " in\n" << s);
  REQUIRE(p != std::string::npos);
  return p;
}

}  // namespace

TEST_CASE("dependent launch: the wait and the trigger follow the prologue and precede the body",
          "[codegen][dependent_launch]") {
  const ir::Kernel k = peer_kernel(true);
  CHECK(ir::to_string(k).find(" dependent_launch {\n") != std::string::npos);
  const std::string cuda = codegen::lower(k, Target::sm90a()).cuda;
  size_t p = find_after(cuda, "tj::mbar_init(", 0);
  p = find_after(cuda, "tj::fence_mbarrier_init();", p);
  p = find_after(cuda, "tj::grid_dependency_wait();", p);
  const size_t trigger = find_after(cuda, "tj::launch_dependents();", p);
  // Nothing between the two, and the body's first store after them.
  CHECK(cuda.substr(p, trigger - p).find(';') == std::string("tj::grid_dependency_wait()").size());
  CHECK(cuda.find("buf[(int)threadIdx.x] = ") > trigger);
  CHECK(cuda.find("tj::grid_dependency_wait();", p + 1) == std::string::npos);  // once

  const std::string plain = codegen::lower(peer_kernel(false), Target::sm90a()).cuda;
  CHECK(plain.find("grid_dependency_wait();") == std::string::npos);
  CHECK(plain.find("launch_dependents();") == std::string::npos);
}

TEST_CASE("dependent launch: griddepcontrol in the PTX for sm_90a and sm_100a", "[codegen][dependent_launch][nvrtc]") {
  for (const Target& t : {Target::sm90a(), Target::sm100a()}) {
    INFO(t.arch);
    codegen::Lowered l = codegen::lower(peer_kernel(true), t);
    rt::CompileResult r = rt::compile(samples::compile_request(l, t), nullptr);
    REQUIRE(r.cubin.compare(0, 4, "\x7f" "ELF") == 0);
    const size_t wait = r.ptx.find("griddepcontrol.wait;");
    REQUIRE(wait != std::string::npos);
    CHECK(r.ptx.find("griddepcontrol.launch_dependents;", wait) != std::string::npos);
    CHECK(r.ptx.rfind("barrier.cluster.wait", wait) != std::string::npos);  // the entry barrier first
  }
}

TEST_CASE("dependent launch: the API launches with it only when the kernel asks", "[codegen][dependent_launch][nvrtc]") {
  CompileOptions opts;
  opts.arch = "sm_90a";
  opts.cache = false;
  CHECK(launch_config(compile(peer_kernel(true), opts), Grid(4)).dependent_launch);
  CHECK_FALSE(launch_config(compile(peer_kernel(false), opts), Grid(4)).dependent_launch);
}

TEST_CASE("dependent launch: the GEMM asks for it unless its config says pdl 0", "[codegen][dependent_launch][gemm]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  CHECK(s->build(test::gemm_config({})).dependent_launch);
  CHECK_FALSE(s->build(test::gemm_config({{"pdl", 0}})).dependent_launch);
  const std::string cuda = codegen::lower(s->build(test::gemm_config({}, {2, 1, 1})), Target::sm90a()).cuda;
  const size_t wait = cuda.find("tj::grid_dependency_wait();");
  REQUIRE(wait != std::string::npos);
  // Before the roles split: every thread waits before the producer's first TMA load.
  CHECK(cuda.find("tj::setmaxnreg", wait) != std::string::npos);
  CHECK(cuda.rfind("tj::setmaxnreg", wait) == std::string::npos);
  CHECK(cuda.rfind("tma_load", wait) == std::string::npos);
}

// TILEJIT_DEBUG_HANGS: a wait that can never complete traps after the bound,
// naming the barrier and the CTA, instead of hanging the GPU. The trap ruins
// the CUDA context, so the kernel runs in a child process.
#include <unistd.h>

#include <cstdio>

#include "dsl/dsl.h"
#include "runtime/error.h"
#include "tests/gpu/gpu_fixture.h"

namespace {

using namespace tj;

// A barrier expecting one arrival that never comes. The verifier cannot see
// it: the arrival is skipped by a run-time parameter.
ir::Kernel stuck_kernel() {
  using namespace tj::dsl;
  KernelBuilder k("stuck");
  k.threads(32);
  auto skip = k.param<int32_t>("skip");
  auto bar = k.mbarriers("gate", 2, 1);
  if_(thread_idx_x() == 0 && skip == 0, [&] { arrive(bar[1]); });
  if_(thread_idx_x() == 0, [&] { wait(bar[1]); });
  return k.build();
}

}  // namespace

TEST_CASE("hang guard (child process)", "[.][gpu-hang-child]") {
  codegen::LowerOptions opts;
  opts.debug_hangs = true;
  codegen::Lowered lowered = codegen::lower(stuck_kernel(), gpu_test::target(), opts);
  REQUIRE(lowered.cuda.find("tj::mbar_wait_guarded(") != std::string::npos);
  rt::CompileResult c = rt::compile(samples::compile_request(lowered, gpu_test::target()), nullptr);
  rt::Module m = rt::Module::load(gpu_test::context(), c.cubin, "stuck");
  rt::LaunchConfig lc;
  lc.block = {32, 1, 1};
  rt::ArgPack args;
  args.push(int32_t(1));
  rt::launch(m, lc, args);
  try {
    rt::synchronize(m);
    FAIL("the guarded wait must trap");
  } catch (const rt::RuntimeError& e) {
    INFO(e.what());
    CHECK(e.kind() == rt::ErrorKind::Device);
    CHECK(std::string(e.what()).find("'stuck'") != std::string::npos);
  }
}

TEST_CASE("a deadlocked barrier is reported by name, not hung [gpu]", "[gpu][hang]") {
  char self[4096] = {};
  REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
  std::FILE* child = popen(("'" + std::string(self) + "' '[gpu-hang-child]' 2>&1").c_str(), "r");
  REQUIRE(child);
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, child)) > 0) output.append(buf, n);
  int status = pclose(child);
  INFO(output);
  CHECK(status == 0);
  CHECK(output.find("tilejit: hang guard: barrier gate[1] never completed phase parity 0 in CTA (0,0,0)") != std::string::npos);
  CHECK(output.find("All tests passed") != std::string::npos);
}

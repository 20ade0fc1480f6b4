// tj::compile on a machine with no GPU: the kernel's CUDA and PTX, both targets, the
// cache, DSL mistakes and bad targets; tj::jit and tj::Tensor say plainly that they need
// a GPU.
#include <catch2/catch.hpp>

#include "tests/api/api_kernels.h"
#include "tests/runtime/test_support.h"

using tj::rt::test::contains;
using tj::rt::test::report_skipped;
using tj::rt::test::TempDir;

TEST_CASE("tj::compile gives a cluster kernel's CUDA and PTX for sm_90a and sm_100a", "[api]") {
  const std::string arch = GENERATE(std::string("sm_90a"), std::string("sm_100a"));
  CAPTURE(arch);
  TempDir dir;
  tj::CompileOptions opts;
  opts.arch = arch;
  opts.cache_dir = dir.path();
  tj::CompiledKernel c = tj::compile(tj::api_test::ring(4, 1024), opts);
  CHECK(c.name() == "api_ring");
  CHECK(c.target.arch == arch);
  CHECK(c.result.from_cache == false);
  CHECK(c.lowered.dynamic_smem == 4096);
  CHECK(contains(c.cuda(), "#include \"tilejit/prelude.cuh\""));
  CHECK(contains(c.cuda(), "api_kernels.h:"));  // the DSL line above each statement
  CHECK(contains(c.ptx(), ".target " + arch));
  CHECK(contains(c.ptx(), "mapa.shared::cluster.u32"));
  CHECK(contains(c.ptx(), "st.shared::cluster.u32"));
  CHECK(contains(c.ptx(), "barrier.cluster.wait"));
  CHECK(c.cubin().substr(0, 4) == "\x7f" "ELF");
  CHECK(c.times.lower > 0);
  CHECK(c.times.compile > 0);
  CHECK(c.times.build == 0);

  // The same kernel again: a disk-cache hit with the same PTX.
  tj::CompiledKernel again = tj::compile(tj::api_test::ring(4, 1024), opts);
  CHECK(again.result.from_cache);
  CHECK(again.ptx() == c.ptx());
}

TEST_CASE("tj::compile with the cache off compiles every time", "[api]") {
  tj::CompileOptions opts;
  opts.arch = "sm_90a";
  opts.cache = false;
  CHECK_FALSE(tj::compile(tj::api_test::ring(2, 64), opts).result.from_cache);
  CHECK_FALSE(tj::compile(tj::api_test::ring(2, 64), opts).result.from_cache);
}

TEST_CASE("tj::compile compiles a kernel with a TMA view", "[api]") {
  tj::CompileOptions opts;
  opts.arch = "sm_90a";
  opts.cache = false;
  tj::CompiledKernel c = tj::compile(tj::api_test::tma_scale(), opts);
  CHECK(contains(c.ptx(), "cp.async.bulk.tensor.2d.shared::cluster.global"));
  REQUIRE(c.kernel().tensor_maps.size() == 1);
  CHECK(c.kernel().tensor_maps[0].box == std::vector<unsigned>{32, 8});
}

TEST_CASE("tj::compile reports a DSL mistake as a UserError naming the user's line", "[api]") {
  const unsigned line = __LINE__ + 3;
  auto build = [] {
    tj::dsl::KernelBuilder k("too_big");
    k.threads(128).cluster(9);
    auto out = k.param<uint32_t*>("out");
    out[tj::dsl::thread_idx_x()] = tj::dsl::cast<uint32_t>(tj::dsl::cluster_ctarank());
    return k.build();
  };
  tj::CompileOptions opts;
  opts.arch = "sm_90a";
  opts.cache = false;
  try {
    tj::compile(build(), opts);
    FAIL("a cluster of 9 without the non-portable opt-in must be refused");
  } catch (const tj::UserError& e) {
    CHECK(contains(e.what(), "test_compile.cpp:" + std::to_string(line)));
    CHECK(contains(e.what(), "allow_non_portable_cluster"));
  }
}

TEST_CASE("tj::compile refuses a target tilejit does not generate code for", "[api]") {
  tj::CompileOptions opts;
  opts.arch = "sm_80";
  try {
    tj::compile(tj::api_test::ring(2, 64), opts);
    FAIL("sm_80 must be refused");
  } catch (const tj::RuntimeError& e) {
    CHECK(e.kind() == tj::ErrorKind::Usage);
    CHECK(std::string(e.what()) == "unsupported architecture 'sm_80'; tilejit generates code for sm_90a or sm_100a");
  }
}

TEST_CASE("tj::jit and tj::Tensor need a GPU, and say so", "[api]") {
  std::string why;
  if (tj::gpu_available(&why)) {
    report_skipped("this machine has a GPU; the no-GPU errors are not reachable (tilejit_gpu_tests covers jit)");
    return;
  }
  CHECK_FALSE(why.empty());
  tj::rt::test::ScopedEnv no_arch("TILEJIT_ARCH", std::nullopt);
  try {
    tj::jit(tj::api_test::ring(2, 64));
    FAIL("jit without a GPU must throw");
  } catch (const tj::RuntimeError& e) {
    CHECK(e.kind() == tj::ErrorKind::NoDriver);
  }
  try {
    tj::Tensor t = tj::Tensor::empty<float>({4, 4});
    FAIL("a tensor without a GPU must throw");
  } catch (const tj::RuntimeError& e) {
    CHECK(e.kind() == tj::ErrorKind::NoDriver);
  }
}

TEST_CASE("tj::version is the project's", "[api]") {
  CHECK(std::string(tj::version()) == "0.1.0");
}

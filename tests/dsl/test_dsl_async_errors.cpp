// The DSL's own errors for mbarriers and aligned dynamic shared buffers (thrown at the
// call, before any pass), with the exact diagnostic.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_dsl_async_errors.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

// ---- DSL errors ------------------------------------------------------------------------------

TEST_CASE("mbarriers need 1 to 2^20 - 1 arrivals per phase", "[dsl][errors][mbarrier]") {
  KernelBuilder k("arrivals");
  unsigned line = 0;
  std::string got;
  got = dsl_error_of([&] { line = __LINE__; k.mbarriers("none", 1, 0); });
  CHECK(got ==
        diag(line, "mbarrier 'none' expects 0 arrivals per phase; its phases could never complete",
             "give the number of threads (or CTAs) that arrive each phase, at least 1"));
  got = dsl_error_of([&] { line = __LINE__; k.mbarriers("many", 1, 1u << 20); });
  CHECK(got ==
        diag(line, "mbarrier 'many' expects 1048576 arrivals per phase; an mbarrier counts at most 2^20 - 1",
             "arrive once per warp or per CTA instead of once per thread"));
  // The refused names were not claimed; the limits themselves are accepted.
  CHECK(dsl_error_of([&] { k.mbarriers("none", 1, 1); }) == "no error");
  CHECK(dsl_error_of([&] { k.mbarriers("many", 1, (1u << 20) - 1); }) == "no error");
  ir::Kernel kern = k.build();
  REQUIRE(kern.shared.size() == 2);
  CHECK(kern.shared[1].arrivals == (1u << 20) - 1);
  CHECK(kern.shared[1].elem == ir::Scalar::MBarrier);
  CHECK_FALSE(kern.shared[1].dynamic);
}

TEST_CASE("dynamic_shared alignment is a power of two from 16 to 1024", "[dsl][errors][smem]") {
  const std::string fix = "use a power of two from 16 to 1024";
  KernelBuilder k("aligns");
  unsigned line = 0;
  std::string got;
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a8", 4, 8); });
  CHECK(got == diag(line, "shared buffer 'a8' asks for alignment 8", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a3000", 4, 3000); });
  CHECK(got == diag(line, "shared buffer 'a3000' asks for alignment 3000", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a48", 4, 48); });
  CHECK(got == diag(line, "shared buffer 'a48' asks for alignment 48", fix));
  got = dsl_error_of([&] { line = __LINE__; k.dynamic_shared<float>("a2048", 4, 2048); });
  CHECK(got == diag(line, "shared buffer 'a2048' asks for alignment 2048", fix));
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("a16", 4, 16); }) == "no error");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("a1024", 4, 1024); }) == "no error");
}

// builder.h dynamic_shared() calls add_shared() before set_align() checks the
// alignment: a refused declaration still adds the buffer (and claims its name)
// to the kernel, unlike mbarriers(), which checks before adding. Declaring it
// again with a valid alignment then fails with "declared twice".
TEST_CASE("a refused dynamic_shared alignment leaves no buffer behind", "[dsl][errors][smem]") {
  KernelBuilder k("align_retry");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("tile", 4, 8); }) != "no error");
  CHECK(dsl_error_of([&] { k.dynamic_shared<float>("tile", 4, 16); }) == "no error");
  ir::Kernel kern = k.build();
  CHECK(kern.shared.size() == 1);
}

TEST_CASE("tma_load and tma_store take one coordinate per dimension of the map", "[dsl][errors][tma]") {
  KernelBuilder k("coords");
  TensorMap map = k.tensor_map<float>("src", {32, 8});
  auto buf = k.dynamic_shared<float>("buf", 256, 128);
  auto bar = k.mbarriers("bar", 1, 1);
  const std::string fix = "give one coordinate per dimension, innermost first";
  unsigned line = 0;
  std::string got = dsl_error_of([&] { line = __LINE__; tma_load(buf[0], map, {0, 0, 0, 0, 0, 0}, bar[0]); });
  CHECK(got == diag(line, "tensor map 'src' has rank 2 but 6 coordinates were given", fix));
  got = dsl_error_of([&] { line = __LINE__; tma_load(buf[0], map, {}, bar[0]); });
  CHECK(got == diag(line, "tensor map 'src' has rank 2 but 0 coordinates were given", fix));
  got = dsl_error_of([&] { line = __LINE__; tma_store(map, {0}, buf[0]); });
  CHECK(got == diag(line, "tensor map 'src' has rank 2 but 1 coordinates were given", fix));
  CHECK(dsl_error_of([&] { tma_load(buf[0], map, {0, 0}, bar[0]); }) == "no error");
}

TEST_CASE("the cluster is set before mask_col builds a mask from it", "[dsl][errors][multicast]") {
  KernelBuilder k("late_cluster");
  k.threads(128);
  unsigned mask_line = __LINE__ + 1;
  u32 col = mask_col();
  (void)col;
  unsigned line = 0;
  const std::string got = dsl_error_of([&] { line = __LINE__; k.cluster(2, 2); });
  CHECK(got == diag(line,
                    "k.cluster(2, 2, 1) after mask_col() at " + std::string(kFile) + ":" + std::to_string(mask_line) +
                        ", which was built for the cluster (1,1,1) set then",
                    "set the cluster before mask_col()"));
  // The same shape again changes nothing; mask_row reads the shape at run time.
  CHECK(dsl_error_of([&] { k.cluster(1, 1); }) == "no error");
  KernelBuilder r("row_first");
  r.threads(128);
  u32 row = mask_row();
  (void)row;
  CHECK(dsl_error_of([&] { r.cluster(2, 2); }) == "no error");
}

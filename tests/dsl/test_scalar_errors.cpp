// Misuse of the scalar layer (bitcast, lanes, pointer reinterpretation, shuffles,
// warp reductions, min_blocks_per_sm): a tj::UserError naming the user's line, what
// is wrong and the fix. The whole message is checked.
#include <catch2/catch.hpp>

namespace {
constexpr const char* kFile = "test_scalar_errors.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

TEST_CASE("bitcast between types of different sizes names the sizes", "[dsl][errors][scalar]") {
  KernelBuilder k("bits");
  auto p = k.param<float*>("p");
  unsigned line = 0;
  std::string got = dsl_error_of([&] { line = __LINE__; (void)bitcast<uint64_t>(f32(p[0])); });
  CHECK(got == diag(line, "bitcast from f32 (4 bytes) to u64 (8 bytes): the sizes differ",
                    "bitcast to a type of the same size, or convert with cast<T>()"));
  got = dsl_error_of([&] { line = __LINE__; (void)bitcast<f32x4_t>(pack(f32(p[0]), f32(p[1]))); });
  CHECK(got == diag(line, "bitcast from f32x2 (8 bytes) to f32x4 (16 bytes): the sizes differ",
                    "bitcast to a type of the same size, or convert with cast<T>()"));
  got = dsl_error_of([&] { line = __LINE__; (void)bitcast<uint8_t>(boolean(true)); });
  CHECK(got == diag(line, "bitcast from bool to u8: bool, mbarrier and tensor_map have no bits to reinterpret",
                    "bitcast between number or packed types"));
  CHECK(dsl_error_of([&] { (void)bitcast<int32_t>(f32(p[0])); }) == "no error");
  CHECK(dsl_error_of([&] { (void)bitcast<uint64_t>(pack(f32(p[0]), f32(p[1]))); }) == "no error");
}

TEST_CASE("a lane past the packed type's last is refused", "[dsl][errors][scalar]") {
  KernelBuilder k("lanes");
  auto p = k.param<float*>("p");
  unsigned line = 0;
  f32x2 v = pack(f32(p[0]), f32(p[1]));
  std::string got = dsl_error_of([&] { line = __LINE__; (void)lane(v, 2); });
  CHECK(got == diag(line, "lane 2 of a f32x2, which has 2 lanes", "use a lane from 0 to 1"));
  CHECK(dsl_error_of([&] { (void)lane(v, 1); }) == "no error");
}

TEST_CASE("as<P>() reinterprets global buffers only", "[dsl][errors][scalar]") {
  KernelBuilder k("reinterpret");
  auto s = k.shared<float>("s", 64);
  unsigned line = 0;
  std::string got = dsl_error_of([&] { line = __LINE__; (void)s.as<f32x4_t>(); });
  CHECK(got == diag(line, "as<f32x4>() on a pointer into shared memory: only global buffers can be reinterpreted",
                    "declare the shared buffer with the packed element type (k.shared<f32x4_t>(...))"));
}

TEST_CASE("shuffles check their width, mask and constant lane operands", "[dsl][errors][scalar]") {
  KernelBuilder k("shuffles");
  auto p = k.param<float*>("p");
  f32 x = p[0];
  unsigned line = 0;
  std::string got = dsl_error_of([&] { line = __LINE__; (void)shfl_xor(x, 1, 0xffffffffu, 12); });
  CHECK(got == diag(line, "shfl_xor width 12 is not a power of two from 1 to 32", "use a width of 1, 2, 4, 8, 16 or 32 lanes"));
  got = dsl_error_of([&] { line = __LINE__; (void)shfl_idx(x, 0, 0u); });
  CHECK(got == diag(line, "shfl_idx with an empty lane mask", "name the lanes that take part, e.g. 0xffffffff for the whole warp"));
  got = dsl_error_of([&] { line = __LINE__; (void)shfl_down(x, 16, 0xffffu, 16); });
  CHECK(got == diag(line, "shfl_down lane operand 16 is outside the group of 16 lanes", "use a value from 0 to 15"));
  got = dsl_error_of([&] { line = __LINE__; (void)warp_sum(x, 0u); });
  CHECK(got == diag(line, "warp_sum with an empty lane mask", "name the lanes that take part, e.g. 0xffffffff for the whole warp"));
  // A lane operand known only at run time is the user's to keep in range.
  CHECK(dsl_error_of([&] { (void)shfl_idx(x, lane_id() + 1); }) == "no error");
}

TEST_CASE("min_blocks_per_sm must fit the SM", "[dsl][errors][scalar]") {
  unsigned line = 0;
  {
    KernelBuilder k("zero_ctas");
    std::string got = dsl_error_of([&] { line = __LINE__; k.min_blocks_per_sm(0); });
    CHECK(got == diag(line, "min_blocks_per_sm(0) on kernel 'zero_ctas': at least one CTA must fit on an SM",
                      "ask for 1 or more CTAs per SM, or leave it unset"));
  }
  auto lowered_error = [](ir::Kernel kern) {
    return dsl_error_of([&] { codegen::lower(kern, codegen::Target::sm90a()); });
  };
  {
    KernelBuilder k("too_many_threads");
    line = __LINE__; k.threads(512).min_blocks_per_sm(5);
    CHECK(lowered_error(k.build()) ==
          diag(line, "min_blocks_per_sm(5) on kernel 'too_many_threads': 5 CTAs of 512 threads are 2560 threads; an SM of sm_90a holds at most 2048",
               "ask for at most 4 CTAs per SM, or use fewer threads per CTA"));
  }
  {
    KernelBuilder k("too_many_ctas");
    line = __LINE__; k.threads(32).min_blocks_per_sm(33);
    CHECK(lowered_error(k.build()) == diag(line, "min_blocks_per_sm(33) on kernel 'too_many_ctas': sm_90a holds at most 32 CTAs per SM",
                                           "ask for at most 32 CTAs per SM"));
  }
  {
    // 8 CTAs of 64 KiB of shared memory: with the 1 KiB the system keeps per CTA, 3 fit in 228 KiB.
    KernelBuilder k("too_much_shared");
    line = __LINE__; k.threads(128).min_blocks_per_sm(8);
    auto buf = k.dynamic_shared<float>("buf", 16384);
    buf[thread_idx_x()] = 1.0f;
    CHECK(lowered_error(k.build()) ==
          diag(line, "min_blocks_per_sm(8) on kernel 'too_much_shared': 8 CTAs of 65536 bytes of shared memory (plus 1024 the "
                     "system keeps per CTA) are 532480 bytes; an SM of sm_90a has 233472",
               "ask for at most 3 CTAs per SM, or use less shared memory per CTA"));
    KernelBuilder fits("three_fit");
    fits.threads(128).min_blocks_per_sm(3);
    auto b2 = fits.dynamic_shared<float>("buf", 16384);
    b2[thread_idx_x()] = 1.0f;
    CHECK(lowered_error(fits.build()) == "no error");
  }
  {
    KernelBuilder k("with_roles");
    k.threads(256);
    line = __LINE__; k.min_blocks_per_sm(2);
    k.role("a", 1, 0, [](i32) { role_sync(); });
    k.role("b", 1, 0, [](i32) { role_sync(); });
    CHECK(lowered_error(k.build()) ==
          diag(line, "min_blocks_per_sm(2) on kernel 'with_roles': a kernel with warpgroup roles runs one CTA per SM (setmaxnreg shares its registers)",
               "drop min_blocks_per_sm, or ask for 1"));
  }
  {
    KernelBuilder k("fits");
    k.threads(256).min_blocks_per_sm(8);
    CHECK(lowered_error(k.build()) == "no error");
  }
}

// Integer division by zero and out-of-range shifts known before run time (verify_arithmetic).
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

TEST_CASE("an integer division or remainder by a known zero is refused at its line", "[codegen][verify][arithmetic]") {
  KernelBuilder k("div_zero");
  k.threads(32);
  auto out = k.param<int32_t*>("out");
  auto n = k.param<int32_t>("n");
  const int32_t rows = 0;  // a host constant that came out as zero
  const i32 per_row = i32(rows) * 4;
  const unsigned line = __LINE__ + 1;
  out[thread_idx_x()] = n / per_row;
  out[thread_idx_x() + 32] = n % i32(0);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 2);
  CHECK(d[0].str() == "test_verify_arithmetic.cpp:" + std::to_string(line) +
                          ": error: integer division by zero: n / (0 * 4) divides by 0 (the result is undefined; the GPU does not trap)\n"
                          "  fix: divide by a value that is not 0, or test the divisor with if_ or select before dividing");
  CHECK(d[1].str() == "test_verify_arithmetic.cpp:" + std::to_string(line + 1) +
                          ": error: integer remainder by zero: n % 0 divides by 0 (the result is undefined; the GPU does not trap)\n"
                          "  fix: divide by a value that is not 0, or test the divisor with if_ or select before dividing");
}

TEST_CASE("a shift by the operand's width or more is refused", "[codegen][verify][arithmetic]") {
  KernelBuilder k("wide_shift");
  k.threads(32);
  auto out = k.param<uint32_t*>("out");
  const unsigned line = __LINE__ + 1;
  out[thread_idx_x()] = u32(1) << u32(32);
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == "test_verify_arithmetic.cpp:" + std::to_string(line) +
                          ": error: shift by 32: 1u << 32u shifts a 32-bit value, outside 0..31 (the result is undefined)\n"
                          "  fix: shift by 0 to 31 bits, or widen the operand first");
}

TEST_CASE("divisors and shifts known only at run time, or in range, pass", "[codegen][verify][arithmetic]") {
  KernelBuilder k("fine");
  k.threads(32);
  auto out = k.param<int32_t*>("out");
  auto n = k.param<int32_t>("n");
  out[thread_idx_x()] = (thread_idx_x() + 1) / n + (n % 7) + (n << 31) + (n >> (thread_idx_x() % 32));
  CHECK(lower_errors(k.build()).empty());
}

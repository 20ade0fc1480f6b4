// tj::compare and tj::MismatchLog: what they count and report.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <tilejit/tilejit.h>

TEST_CASE("tj::compare: integers exactly, naming the first mismatches", "[api][check]") {
  std::vector<uint32_t> want = {1, 2, 3, 4};
  tj::Check ok = tj::compare(std::vector<uint32_t>{1, 2, 3, 4}, want);
  CHECK(ok.ok);
  CHECK(static_cast<bool>(ok));
  CHECK(ok.detail == "values: all 4 match");
  tj::Check bad = tj::compare(std::vector<uint32_t>{1, 9, 3, 7}, want, {}, "ring");
  CHECK_FALSE(bad.ok);
  CHECK(bad.detail == "ring: 2 of 4 differ; elem 1: got 9, want 2; elem 3: got 7, want 4");
  // Mixed signedness compares values, not bits.
  CHECK_FALSE(tj::compare(std::vector<int32_t>{-1}, std::vector<uint32_t>{UINT32_MAX}).ok);
  CHECK(tj::compare(std::vector<int64_t>{5}, std::vector<uint8_t>{5}).ok);
}

TEST_CASE("tj::compare: a tolerance for floating point, and NaN never passes", "[api][check]") {
  std::vector<float> want = {1.0f, 100.0f};
  CHECK(tj::compare(std::vector<float>{1.0005f, 100.05f}, want, {.abs = 1e-3, .rel = 1e-3}).ok);
  tj::Check bad = tj::compare(std::vector<float>{1.01f, 100.0f}, want, {.abs = 1e-3});
  CHECK_FALSE(bad.ok);
  CHECK(bad.detail.rfind("values: 1 of 2 differ; elem 0: got 1.00999999, want 1 (tolerance 0.001)", 0) == 0);
  CHECK_FALSE(tj::compare(std::vector<float>{std::nanf("")}, std::vector<float>{0.0f}, {.abs = 1e30}).ok);
}

TEST_CASE("tj::compare: different sizes fail without comparing elements", "[api][check]") {
  tj::Check c = tj::compare(std::vector<float>{1, 2}, std::vector<double>{1, 2, 3});
  CHECK_FALSE(c.ok);
  CHECK(c.detail == "values: sizes differ: got 2 values, want 3");
}

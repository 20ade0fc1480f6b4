// skip_phases: a thread lets phases of a barrier ring pass without waiting (ping-pong
// consumers over one producer's stages). The prelude's bit arithmetic against a
// barrier-by-barrier model, the emitted code, and the refusal on a peer's ring.
#include <catch2/catch.hpp>

#include <cstdint>

namespace {
constexpr const char* kFile = "test_skip_phases.cpp";
}  // namespace

#include "tests/codegen/async_test_support.h"

#include "dsl/ir/printer.h"

// The prelude's plain-C++ part, compiled for the host.
namespace tj {
typedef unsigned int u32;
typedef unsigned long long u64;
#include "codegen/prelude/phase_bits.cuh"
}  // namespace tj

TEST_CASE("skipped_phase_bits flips each barrier's bit once per phase that passes it", "[codegen][mbarrier][skip]") {
  for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 16u, 31u, 32u})
    for (uint32_t first : {0u, 1u, n - 1, n, 3 * n + 2, 1000003u})
      for (uint32_t count = 0; count < 3 * n + 5; ++count) {
        uint64_t model = 0;
        for (uint32_t i = 0; i < count; ++i) model ^= uint64_t(1) << ((first + i) % n);
        INFO("ring " << n << ", first " << first << ", count " << count);
        CHECK(tj::skipped_phase_bits(first, count, n) == uint32_t(model));
      }
}

TEST_CASE("skip_phases emits the flip of the ring's phase bits, which a wait then reads", "[codegen][mbarrier][skip]") {
  KernelBuilder k("skip");
  auto full = k.mbarriers("full", 5, 1);
  auto p = k.param<int32_t>("first");
  auto c = k.param<int32_t>("count");
  skip_phases(full, p, c);
  if_(thread_idx_x() == 0, [&] { arrive(full[p % 5]); });
  wait(full[p % 5]);
  const ir::Kernel kern = k.build();
  const std::string cuda = lowered_cuda(kern);
  CHECK(contains(cuda, "unsigned tj_phase_full = 0u;"));
  CHECK(contains(cuda, "tj_phase_full ^= tj::skipped_phase_bits(unsigned(first), unsigned(count), 5u);"));
  // The printed IR names it.
  CHECK(contains(tj::ir::to_string(kern), "skip_phases(full, first, count)"));

  // A thread that only skips still has the ring's phase bits.
  KernelBuilder only("skip_only");
  auto ring = only.mbarriers("ring", 3, 1);
  skip_phases(ring, i32(0), i32(2));
  CHECK(contains(lowered_cuda(only.build()), "tj_phase_ring ^= tj::skipped_phase_bits(unsigned(0), unsigned(2), 3u);"));
}

TEST_CASE("skip_phases only on this CTA's own ring", "[codegen][verify][async][mbarrier][skip]") {
  KernelBuilder k("skip_peer");
  k.cluster(2);
  auto full = k.mbarriers("full", 2, 1);
  skip_phases(map_shared_rank(full, 1), i32(0), i32(1)); const unsigned line = __LINE__;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == diag(line, "skip_phases() on 'full' of a peer CTA: a thread tracks phases of its own CTA's barriers only",
                           "skip phases of the local barriers"));
}

TEST_CASE("skip_phases with a negative count is refused at the user's line", "[codegen][async][mbarrier][skip]") {
  KernelBuilder k("skip_negative");
  k.threads(128);
  auto b = k.mbarriers("b", 2, 128);
  const unsigned line = __LINE__ + 1;
  auto skip = [&] { skip_phases(b, i32(0), i32(-1)); };
  CHECK_THROWS_WITH(skip(), diag(line, "skip_phases with a count of -1",
                                 "give the number of phases this thread lets pass without waiting: 0 or more"));
  skip_phases(b, i32(0), i32(0));  // nothing to let pass: allowed
}

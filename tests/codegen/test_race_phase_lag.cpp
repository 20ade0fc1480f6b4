// The arrival check's phase lag (race_phase_lag.cpp): each thread takes every phase of a
// ring's barriers once, at a fixed distance from the iteration that completes it.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// How the warpgroup that does not own an iteration lets its phase of 'full' pass.
enum class Skip { Right, None, Two, NextBarrier };

// Ping-pong over one ring of three stages: consumer warpgroup w takes the iterations with
// it % 2 == w and lets the other's phases of 'full' pass with skip_phases.
ir::Kernel pingpong(Skip skip, Marks& marks) {
  KernelBuilder k("pingpong");
  k.threads(384);
  TensorMap src = k.tensor_map<float>("src", {32, 32});
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  auto buf = k.dynamic_shared<float>("buf", 3 * 1024, 128);
  auto full = k.mbarriers("full", 3, 1);
  auto empty = k.mbarriers("empty", 3, 128);
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        i32 s = it % 3;
        if_(it >= 3, [&] { wait(empty[s]); });
        arrive_expect_tx(full[s], u32(4096));
        tma_load(buf[s * 1024], src, {i32(0), it * 32}, full[s]);
      });
    });
  });
  k.role("consumer", 2, 0, [&](i32 wg) {
    i32 t = (thread_idx_x() - 128) % 128;
    MARK("loop"); for_(0, n, [&](i32 it) {
      i32 s = it % 3;
      if_(it % 2 == wg, [&] {
        MARK("wait"); wait(full[s]);
        for_(t, 1024, 128, [&](i32 i) { out[it * 1024 + i] = buf[s * 1024 + i]; });
        arrive(empty[s]);
      }).else_([&] {
        MARK("skip");
        if (skip == Skip::Right) skip_phases(full, it, i32(1));
        if (skip == Skip::Two) skip_phases(full, it, i32(2));
        if (skip == Skip::NextBarrier) skip_phases(full, it + 1, i32(1));
      });
    });
  });
  return k.build();
}

std::string refusal(Skip skip) {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(pingpong(skip, marks));
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE(d.size() == 1);
  return d[0].str();
}

}  // namespace

TEST_CASE("racy: a ping-pong warpgroup that does not skip the other's phases", "[codegen][verify][races]") {
  Marks marks;
  pingpong(Skip::None, marks);
  CHECK(refusal(Skip::None) ==
        expand("test_race_phase_lag.cpp:{wait}: error: thread 128 (CTA rank 0) takes the phases of barrier full[0] out of step "
               "with the arrivals that complete them: it takes phase 0 in iteration 0 of the loop at "
               "test_race_phase_lag.cpp:{loop} (at test_race_phase_lag.cpp:{wait}), completed in iteration 0, but phase 1 in "
               "iteration 6 (at test_race_phase_lag.cpp:{wait}), completed in iteration 3: its distance behind the arrivals "
               "goes from 0 to 3 iterations, so its waits from there return on another iteration's phase or hang (counting "
               "from the loop's first iteration, 0)\n"
               "  fix: take every phase once, in step: a wait, or skip_phases(full, first, count) for exactly the phases this "
               "thread does not wait for (the barriers of the iterations it leaves to others)",
               marks));
}

TEST_CASE("racy: skip_phases with a count or a first barrier out of step", "[codegen][verify][races]") {
  Marks marks;
  pingpong(Skip::Two, marks);
  CHECK(contains(refusal(Skip::Two), "its distance behind the arrivals goes from 0 to -1 iterations"));
  CHECK(contains(refusal(Skip::NextBarrier), "its distance behind the arrivals goes from 0 to 2 iterations"));
}

TEST_CASE("corrected: the other warpgroup's phase skipped, one per iteration", "[codegen][verify][races]") {
  Marks marks;
  CHECK(lower_errors(pingpong(Skip::Right, marks)).empty());
}

namespace {

// A producer thread and a consumer warpgroup over a ring of `stages`: the producer waits
// on 'empty' from its second round on (corrected), or from its first iteration (racy:
// nothing has been released yet, so it and the consumer, which waits on 'full' before it
// arrives on 'empty', wait for each other).
ir::Kernel first_round(bool racy, Marks& marks, unsigned stages) {
  KernelBuilder k("first_round");
  k.threads(256);
  TensorMap src = k.tensor_map<float>("src", {32, 32});
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  auto buf = k.dynamic_shared<float>("buf", stages * 1024, 128);
  auto full = k.mbarriers("full", stages, 1);
  auto empty = k.mbarriers("empty", stages, 128);
  if_(thread_idx_x() == 0, [&] {
    MARK("producer"); for_(0, n, [&](i32 it) {
      i32 s = it % int32_t(stages);
      if (racy) {
        MARK("empty"); wait(empty[s]);
      } else {
        if_(it >= int32_t(stages), [&] { wait(empty[s]); });
      }
      MARK("expect"); arrive_expect_tx(full[s], u32(4096));
      tma_load(buf[s * 1024], src, {i32(0), it * 32}, full[s]);
    });
  });
  if_(thread_idx_x() >= 128, [&] {
    i32 t = thread_idx_x() - 128;
    MARK("consumer"); for_(0, n, [&](i32 it) {
      i32 s = it % int32_t(stages);
      MARK("full"); wait(full[s]);
      for_(t, 1024, 128, [&](i32 i) { out[it * 1024 + i] = buf[s * 1024 + i]; });
      MARK("release"); arrive(empty[s]);
    });
  });
  return k.build();
}

}  // namespace

TEST_CASE("racy: a producer waits on 'empty' in its first round, as the consumer waits on 'full' (a deadlock)",
          "[codegen][verify][races][arrivals]") {
  for (unsigned stages : {1u, 2u, 4u}) {
    INFO(stages);
    refused([&](bool r, Marks& m) { return first_round(r, m, stages); },
            "@{empty}: error: the wait on 'empty' at @{empty} and the wait on 'full' at @{full} wait for each other: in the "
            "loop at @{producer} the wait takes the phase that the arrive at @{release} completes 0 iteration(s) earlier in the "
            "loop at @{consumer}, and there the wait takes the phase that the arrive at @{expect} completes 0 iteration(s) "
            "earlier; each loop waits before it arrives, so neither passes its first wait (a deadlock)\n"
            "  fix: let the first round pass: a producer waits on its 'empty' ring only from its second round on "
            "(if_(it >= stages), as Pipeline::acquire does), since no stage has been released before",
            "test_race_phase_lag.cpp");
    lowers([&](bool r, Marks& m) { return first_round(r, m, stages); });
  }
}

// The race check's corpus for waits out of step with the phases: two waits of one
// thread on one barrier in one pass, where the arrivals bring one phase per pass.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "dsl/pipeline.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

constexpr uint32_t kBoxBytes = 32 * 4 * 4;

// A producer thread loads a box per iteration into a two-stage pipeline; a consumer
// thread stores it back out. `twice`: which call the racy form makes twice.
enum class Twice { Acquire, WaitFull };

ir::Kernel pipeline(bool racy, Marks& marks, Twice twice) {
  KernelBuilder k("steps");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    MARK("producer"); for_(0, n, [&](i32 it) {
      MARK("acquire"); pipe.acquire(it);
      if (racy && twice == Twice::Acquire) { MARK("again"); pipe.acquire(it); }
      MARK("expect"); arrive_expect_tx(pipe.full(it), u32(kBoxBytes));
      tma_load(stage[pipe.slot(it) * 128], src, {i32(0), it * 4}, pipe.full(it));
    });
  });
  if_(thread_idx_x() == 32, [&] {
    MARK("consumer"); for_(0, n, [&](i32 it) {
      MARK("wait"); pipe.wait_full(it);
      if (racy && twice == Twice::WaitFull) { MARK("again"); pipe.wait_full(it); }
      tma_store(dst, {i32(0), it * 4}, stage[pipe.slot(it) * 128]);
      bulk_commit();
      bulk_wait_read(0);
      MARK("release"); pipe.release(it);
    });
    bulk_wait(0);
  });
  return k.build();
}

// Thread 0 arrives once; every thread waits (racy: twice).
ir::Kernel body_waits(bool racy, Marks& marks) {
  KernelBuilder k("body_waits");
  k.threads(64);
  auto bar = k.mbarriers("bar", 1, 1);
  MARK("arrive"); if_(thread_idx_x() == 0, [&] { arrive(bar[0]); });
  MARK("wait"); wait(bar[0]);
  if (racy) { MARK("again"); wait(bar[0]); }
  return k.build();
}

// A barrier every thread arrives on and waits for twice per iteration: two phases per
// pass, each taken once.
ir::Kernel two_phases_per_iteration(bool, Marks&) {
  KernelBuilder k("two_phases");
  k.threads(64);
  auto bar = k.mbarriers("bar", 1, 64);
  auto buf = k.shared<float>("buf", 64);
  auto n = k.param<int32_t>("n");
  for_(0, n, [&](i32) {
    buf[thread_idx_x()] = 1.0f;
    arrive(bar[0]);
    wait(bar[0]);
    arrive(bar[0]);
    wait(bar[0]);
  });
  return k.build();
}

}  // namespace

TEST_CASE("racy: Pipeline::acquire twice in one iteration", "[codegen][verify][races]") {
  refused([](bool r, Marks& m) { return pipeline(r, m, Twice::Acquire); },
          "@{again}: error: the wait at @{again} on barrier 'pipe_empty' takes a second phase of the barrier the wait at "
          "@{acquire} took, in one iteration of the loop at @{producer} and in the same thread (CTA rank 0), with no "
          "arrival or skip_phases between; the arrivals at @{release} complete one phase of it per iteration: from here the "
          "thread waits a phase ahead of the arrivals (the kernel hangs, or a wait returns before its data)\n"
          "  fix: wait once per phase: remove the wait at line {again} or the one at line {acquire} (Pipeline::acquire and "
          "wait_full each take one phase per iteration)",
          "test_race_wait_steps.cpp");
}

TEST_CASE("racy: Pipeline::wait_full twice in one iteration", "[codegen][verify][races]") {
  refused([](bool r, Marks& m) { return pipeline(r, m, Twice::WaitFull); },
          "@{again}: error: the wait at @{again} on barrier 'pipe_full' takes a second phase of the barrier the wait at "
          "@{wait} took, in one iteration of the loop at @{consumer} and in the same thread (CTA rank 0), with no "
          "arrival or skip_phases between; the arrivals at @{expect} complete one phase of it per iteration: from here the "
          "thread waits a phase ahead of the arrivals (the kernel hangs, or a wait returns before its data)\n"
          "  fix: wait once per phase: remove the wait at line {again} or the one at line {wait} (Pipeline::acquire and "
          "wait_full each take one phase per iteration)",
          "test_race_wait_steps.cpp");
}

TEST_CASE("corrected: one acquire and one wait_full per iteration", "[codegen][verify][races]") {
  lowers([](bool r, Marks& m) { return pipeline(r, m, Twice::Acquire); });
}

TEST_CASE("racy: two waits on one phase in the kernel body", "[codegen][verify][races]") {
  refused(body_waits,
          "@{again}: error: the wait at @{again} on barrier 'bar' takes a second phase of the barrier the wait at @{wait} "
          "took, in the kernel body and in the same thread (CTA rank 0), with no arrival or skip_phases between; the "
          "arrivals at @{arrive} complete one phase of it per run: from here the thread waits a phase ahead of the "
          "arrivals (the kernel hangs, or a wait returns before its data)\n"
          "  fix: wait once per phase: remove the wait at line {again} or the one at line {wait} (Pipeline::acquire and "
          "wait_full each take one phase per iteration)",
          "test_race_wait_steps.cpp");
}

TEST_CASE("corrected: one wait in the kernel body", "[codegen][verify][races]") { lowers(body_waits); }

TEST_CASE("two phases per iteration, each waited for once, pass the wait-step check", "[codegen][verify][races]") {
  lowers(two_phases_per_iteration);
}

TEST_CASE("waits whose phases come from a loop of another trip count are reported as not checked",
          "[codegen][verify][races]") {
  // The consumer takes two phases of bar[0] per iteration of a loop half as long as the
  // producer's: whether that matches is not known before run time.
  KernelBuilder k("halves");
  k.threads(64);
  auto bar = k.mbarriers("bar", 1, 1);
  auto n = k.param<int32_t>("n");
  const unsigned producer = __LINE__ + 1;
  if_(thread_idx_x() == 0, [&] { for_(0, n * 2, [&](i32) { arrive(bar[0]); }); });
  const unsigned line = __LINE__ + 2;
  if_(thread_idx_x() == 32, [&] {
    for_(0, n, [&](i32) {
      wait(bar[0]);
      wait(bar[0]);
    });
  });
  codegen::Lowered l = codegen::lower(k.build(), codegen::Target::sm90a());
  bool found = false;
  for (const codegen::race::RaceCheck& c : l.races) {
    UNSCOPED_INFO(to_string(c));
    found |= to_string(c) == "waits on barrier 'bar' in the loop at test_race_wait_steps.cpp:" + std::to_string(line) +
                                 ": not checked: the waits at test_race_wait_steps.cpp:" + std::to_string(line + 1) +
                                 " and test_race_wait_steps.cpp:" + std::to_string(line + 2) +
                                 " take two phases of one barrier in one iteration of the loop at test_race_wait_steps.cpp:" +
                                 std::to_string(line) + ", and whether that many complete is not known: its arrivals are in the loop at test_race_wait_steps.cpp:" +
                                 std::to_string(producer) + ", whose trip count is not known to equal this loop's";
  }
  CHECK(found);
}

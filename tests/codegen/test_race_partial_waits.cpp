// The race check's corpus for waits made by some threads only: a thread that reads what
// a copy filled must have waited on its barrier itself, or met a thread that did at a
// barrier (sync_threads, role_sync, warpgroup_sync) after that thread's wait.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// How the corrected form of one_waiter orders the reads after the wait.
enum class Order { AllWait, SyncThreads, NestedReaders };

// Thread 0 loads a box and waits for it; then all 128 threads read it. Racy: nothing
// between the wait and the reads. Corrected: every thread waits; or a sync_threads()
// follows thread 0's wait; or the first 64 threads wait and the first 32 read.
ir::Kernel one_waiter(bool racy, Marks& marks, Order order) {
  KernelBuilder k("one_waiter");
  k.threads(128);
  TensorMap src = k.tensor_map<float>("src", {32, 32});
  auto out = k.param<float*>("out");
  auto buf = k.dynamic_shared<float>("buf", 32 * 32, 128);
  auto full = k.mbarriers("full", 1, 1);
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(32 * 32 * 4));
    MARK("load"); tma_load(buf[0], src, {i32(0), block_idx_x() * 32}, full[0]);
    if (racy || order == Order::SyncThreads) { MARK("wait"); wait(full[0]); }
  });
  const bool nested = !racy && order == Order::NestedReaders;
  if (!racy && order == Order::AllWait) wait(full[0]);
  if (!racy && order == Order::SyncThreads) sync_threads();
  if (nested) if_(thread_idx_x() < 64, [&] { wait(full[0]); });
  if_(thread_idx_x() < (nested ? 32 : 128), [&] {
    for_(thread_idx_x(), 32 * 32, nested ? 32 : 128, [&](i32 i) {
      MARK("read"); out[block_idx_x() * 1024 + i] = buf[i];
    });
  });
  return k.build();
}

// A producer thread fills a ring; in the consumer warpgroup only lane 0 of each warp waits.
// Racy: the warps then read the stage with no barrier among their threads. Corrected:
// a warpgroup_sync() after the waits (which orders each reader after its warp's lane 0).
ir::Kernel leader_waits(bool racy, Marks& marks) {
  KernelBuilder k("leader_waits");
  k.threads(256);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  auto out = k.param<float*>("out");
  Pipeline pipe(k, "pipe", 2, 128);
  auto n = k.param<int32_t>("n");
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        pipe.acquire(it);
        arrive_expect_tx(pipe.full(it), u32(512));
        MARK("load"); tma_load(stage[pipe.slot(it) * 128], src, {i32(0), it * 4}, pipe.full(it));
      });
    });
  });
  k.role("consumer", 1, 0, [&](i32) {
    const i32 t = thread_idx_x() - 128;
    for_(0, n, [&](i32 it) {
      if_(lane_id() == 0, [&] { MARK("wait"); pipe.wait_full(it); });
      if (!racy) warpgroup_sync(i32(0));
      MARK("read"); out[it * 128 + t] = stage[pipe.slot(it) * 128 + t];
      pipe.release(it);
    });
  });
  return k.build();
}

}  // namespace

TEST_CASE("racy: one thread waits for a TMA load and every thread reads it", "[codegen][verify][races]") {
  refused([](bool r, Marks& m) { return one_waiter(r, m, Order::SyncThreads); },
          "@{read}: error: the load at @{read} reads shared buffer 'buf', which the TMA load at @{load} fills: the wait on "
          "barrier 'full' at @{wait} runs only in the threads where (%tid.x == 0), and thread 31 reads without waiting or "
          "meeting them at a barrier after it\n"
          "  fix: wait on 'full' in every thread that reads it, or let the readers meet the waiting threads (sync_threads, "
          "role_sync or warpgroup_sync) between line {wait} and line {read}",
          "test_race_partial_waits.cpp");
}

TEST_CASE("corrected: every reader waits, meets the waiting thread at sync_threads, or is among the waiters", "[codegen][verify][races]") {
  for (Order order : {Order::AllWait, Order::SyncThreads, Order::NestedReaders})
    lowers([&](bool r, Marks& m) { return one_waiter(r, m, order); });
}

TEST_CASE("racy: lane 0 waits for a ring stage and its warpgroup reads it", "[codegen][verify][races]") {
  refused(leader_waits,
          "@{read}: error: the load at @{read} reads shared buffer 'stage', which the TMA load at @{load} fills: the wait "
          "on barrier 'pipe_full' at @{wait} runs only in the threads where (%laneid == 0), and thread 159 reads without "
          "waiting or meeting them at a barrier after it\n"
          "  fix: wait on 'pipe_full' in every thread that reads it, or let the readers meet the waiting threads "
          "(sync_threads, role_sync or warpgroup_sync) between line {wait} and line {read}",
          "test_race_partial_waits.cpp");
}

TEST_CASE("corrected: a warpgroup_sync after lane 0's wait", "[codegen][verify][races]") {
  lowers(leader_waits);
}

namespace {

// Two consumer warpgroups read each stage of a ring, each its half. Racy: 'empty' counts one
// arrival, warpgroup 0's first thread's, after a warpgroup_sync of its own warpgroup only, so
// warpgroup 1 may still be reading when the producer refills the stage. Corrected: a
// role_sync (both warpgroups) before that arrival.
ir::Kernel one_releaser(bool racy, Marks& marks) {
  KernelBuilder k("one_releaser");
  k.threads(384);
  TensorMap src = k.tensor_map<float>("src", {32, 32});
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  auto buf = k.dynamic_shared<float>("buf", 2 * 1024, 128);
  auto full = k.mbarriers("full", 2, 1);
  auto empty = k.mbarriers("empty", 2, 1);
  k.role("producer", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      for_(0, n, [&](i32 it) {
        i32 s = it % 2;
        if_(it >= 2, [&] { wait(empty[s]); });
        arrive_expect_tx(full[s], u32(4096));
        MARK("load"); tma_load(buf[s * 1024], src, {i32(0), it * 32}, full[s]);
      });
    });
  });
  k.role("consumer", 2, 0, [&](i32 wg) {
    i32 t = (thread_idx_x() - 128) % 128;
    for_(0, n, [&](i32 it) {
      i32 s = it % 2;
      wait(full[s]);
      for_(t, 512, 128, [&](i32 i) {
        MARK("read"); out[(it * 2 + wg) * 512 + i] = buf[s * 1024 + wg * 512 + i];
      });
      if (racy) warpgroup_sync(wg);
      else role_sync();
      if_(wg == 0 && t == 0, [&] { MARK("arrive"); arrive(empty[s]); });
    });
  });
  return k.build();
}

}  // namespace

TEST_CASE("racy: one warpgroup gives back a stage that two warpgroups read", "[codegen][verify][races]") {
  refused(one_releaser,
          "@{arrive}: error: the arrive at @{arrive} gives shared buffer 'buf' back to its producer while other threads may "
          "still be reading it: thread 256 reads it at @{read}, and no arriving thread (thread 128) arrives after a barrier "
          "that both meet: the TMA load at @{load} may refill it mid-read\n"
          "  fix: let every thread that reads the stage arrive on 'empty' (counted in its arrivals), or let the readers meet "
          "the arriving threads (role_sync, warpgroup_sync or sync_threads) between line {read} and line {arrive}",
          "test_race_partial_waits.cpp");
}

TEST_CASE("corrected: a role_sync before the one arrival", "[codegen][verify][races]") {
  lowers(one_releaser);
}

// The race check's corpus: racy kernels written with the DSL, one per case (cluster
// epochs, the async proxy, mbarrier arrivals; straight-line code, loops and
// conditionals; 1-D and 2-D clusters), each refused with its exact diagnostic, and
// the same kernel corrected, which must lower. Statement lines are marked with
// MARK so that the expected text names them.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

struct Case {
  const char* name;
  Builder build;
  const char* expected;  // Diagnostic::str() of the one error, with {marks}
};

// ---- cluster epochs --------------------------------------------------------------

// The kernel: each CTA zeroes its counters, peers add into them.
ir::Kernel zero_then_peer_add(bool racy, Marks& marks) {
  KernelBuilder k("zero_then_add");
  k.threads(64).cluster(4);
  auto acc = k.shared<uint32_t>("acc", 64);
  auto out = k.param<uint32_t*>("out");
  i32 tid = thread_idx_x();
  MARK("zero"); acc[tid] = 0u;
  if (!racy) cluster_sync();
  MARK("add"); atomic_add(map_shared_rank(acc, (cluster_ctarank() + 1) % 4)[tid], 1u);
  cluster_sync();
  out[block_idx_x() * 64 + tid] = acc[tid];
  return k.build();
}

ir::Kernel peer_store_local_read(bool racy, Marks& marks) {
  KernelBuilder k("store_read");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto out = k.param<float*>("out");
  MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 1.0f;
  if (!racy) cluster_sync();
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// 2-D cluster: the CTA across the row writes, this one reads.
ir::Kernel cluster_2d_row(bool racy, Marks& marks) {
  KernelBuilder k("row_2d");
  k.threads(32).cluster(2, 2);
  auto buf = k.shared<int32_t>("buf", 32);
  auto out = k.param<int32_t*>("out");
  i32 across = cluster_ctaid_y() * 2 + (1 - cluster_ctaid_x());
  MARK("store"); map_shared_rank(buf, across)[thread_idx_x()] = cluster_ctarank();
  if (!racy) cluster_sync();
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// A ring in a loop with the barrier in the middle: round r + 1's store meets round r's read.
ir::Kernel ring_loop_back_edge(bool racy, Marks& marks) {
  KernelBuilder k("ring_loop");
  k.threads(32).cluster(4);
  auto buf = k.shared<uint32_t>("buf", 32);
  auto out = k.param<uint32_t*>("out");
  auto rounds = k.param<int32_t>("rounds");
  MARK("loop"); for_(0, rounds, [&](i32 r) {
    MARK("store"); map_shared_rank(buf, (cluster_ctarank() + 1) % 4)[thread_idx_x()] = cast<uint32_t>(r);
    cluster_sync();
    MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
    if (!racy) cluster_sync();
  });
  return k.build();
}

// The same ring in a while loop (a trip count that is data): its body is walked as
// iteration i and i + 1 like any loop's.
ir::Kernel ring_while_back_edge(bool racy, Marks& marks) {
  KernelBuilder k("ring_while");
  k.threads(32).cluster(4);
  auto buf = k.shared<uint32_t>("buf", 32);
  auto out = k.param<uint32_t*>("out");
  auto rounds = k.param<int32_t>("rounds");
  auto r = var(i32(0), "r");
  MARK("loop"); while_(r < rounds, [&] {
    MARK("store"); map_shared_rank(buf, (cluster_ctarank() + 1) % 4)[thread_idx_x()] = cast<uint32_t>(r);
    cluster_sync();
    MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
    if (!racy) cluster_sync();
    r = r + 1;
  });
  return k.build();
}

// A peer store between cluster_arrive and cluster_wait.
ir::Kernel split_barrier(bool racy, Marks& marks) {
  KernelBuilder k("split");
  k.threads(32).cluster(2);
  auto buf = k.shared<uint32_t>("buf", 32);
  auto out = k.param<uint32_t*>("out");
  MARK("zero"); buf[thread_idx_x()] = 0u;
  MARK("arrive"); cluster_arrive();
  if (racy) {
    MARK("add"); atomic_add(map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()], 1u);
    cluster_wait();
  } else {
    cluster_wait();
    atomic_add(map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()], 1u);
  }
  cluster_sync();
  out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// Only rank 1 writes into rank 0, under an if_.
ir::Kernel conditional_peer_write(bool racy, Marks& marks) {
  KernelBuilder k("cond_peer");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto out = k.param<float*>("out");
  if_(cluster_ctarank() == 1, [&] { MARK("store"); map_shared_rank(buf, 0)[thread_idx_x()] = 2.0f; });
  if (!racy) cluster_sync();
  if_(cluster_ctarank() == 0, [&] { MARK("read"); out[thread_idx_x()] = buf[thread_idx_x()]; });
  return k.build();
}

// A relaxed arrive publishes nothing.
ir::Kernel relaxed_arrive(bool racy, Marks& marks) {
  KernelBuilder k("relaxed");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto out = k.param<float*>("out");
  MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 3.0f;
  MARK("relaxed"); if (racy) cluster_arrive_relaxed();
  else cluster_arrive();
  cluster_wait();
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// A rank from a parameter: any CTA, this one included.
ir::Kernel unknown_rank(bool racy, Marks& marks) {
  KernelBuilder k("any_rank");
  k.threads(32).cluster(4);
  auto buf = k.shared<int32_t>("buf", 32);
  auto who = k.param<int32_t>("who");
  MARK("local"); buf[thread_idx_x()] = 0;
  if (!racy) cluster_sync();
  if_(cluster_ctarank() == 0, [&] { MARK("peer"); map_shared_rank(buf, who)[thread_idx_x()] = 1; });
  return k.build();
}

// 2-D cluster in a loop: every CTA of a cluster row adds into the row's first CTA,
// which reads the sum; the next round's adds must wait for that read.
ir::Kernel cluster_2d_loop(bool racy, Marks& marks) {
  KernelBuilder k("row_loop");
  k.threads(32).cluster(2, 2);
  auto sum = k.shared<float>("sum", 32);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  sum[thread_idx_x()] = 0.0f;
  cluster_sync();
  MARK("loop"); for_(0, n, [&](i32 r) {
    MARK("add"); atomic_add(map_shared_rank(sum, cluster_ctaid_y() * 2)[thread_idx_x()], 1.0f);
    cluster_sync();
    MARK("read"); out[(block_idx_x() * n + r) * 32 + thread_idx_x()] = sum[thread_idx_x()];
    if (!racy) cluster_sync();
  });
  return k.build();
}

// A peer's stores handed over through an mbarrier: the owner must wait at cluster
// scope (wait), not CTA scope (wait_local), to see them.
ir::Kernel mbarrier_handoff(bool racy, Marks& marks) {
  KernelBuilder k("handoff");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto bar = k.mbarriers("bar", 1, 32);
  auto out = k.param<float*>("out");
  if_(cluster_ctarank() == 1, [&] {
    MARK("store"); map_shared_rank(buf, 0)[thread_idx_x()] = 4.0f;
    arrive(map_shared_rank(bar, 0)[0]);
  });
  if_(cluster_ctarank() == 0, [&] {
    MARK("wait"); if (racy) wait_local(bar[0]);
    else wait(bar[0]);
    MARK("read"); out[thread_idx_x()] = buf[thread_idx_x()];
  });
  return k.build();
}

// ---- the async proxy -------------------------------------------------------------

constexpr uint32_t kBoxBytes = 32 * 4 * 4;  // a 32 x 4 f32 box

// One thread loads a box and reads it before waiting.
ir::Kernel read_before_wait(bool racy, Marks& marks) {
  KernelBuilder k("early_read");
  k.threads(32);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxBytes));
    MARK("load"); tma_load(tile[0], src, {i32(0), i32(0)}, full[0]);
    if (!racy) wait(full[0]);
    MARK("read"); out[0] = tile[5];
    if (racy) wait(full[0]);
  });
  return k.build();
}

// A consumer thread reads what a producer thread loads, without waiting.
ir::Kernel consumer_skips_wait(bool racy, Marks& marks) {
  KernelBuilder k("no_wait");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxBytes));
    MARK("load"); tma_load(tile[0], src, {i32(0), i32(0)}, full[0]);
  });
  if_(thread_idx_x() >= 32, [&] {
    if (!racy) wait(full[0]);
    MARK("read"); out[thread_idx_x()] = tile[thread_idx_x()];
  });
  return k.build();
}

// A two-stage ring whose consumer releases the previous stage through an inner
// loop (over cluster ranks in a real kernel) between its wait and its read: the
// inner loop touches neither the stage nor 'full', so the wait still holds after
// it. Racy: no wait at all.
ir::Kernel release_loop_before_read(bool racy, Marks& marks) {
  KernelBuilder k("release_loop");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 256, 128);
  auto full = k.mbarriers("full", 2, 1);
  auto empty = k.mbarriers("empty", 2, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 i) {
      if_(i >= 2, [&] { wait(empty[i % 2]); });
      arrive_expect_tx(full[i % 2], u32(kBoxBytes));
      MARK("load"); tma_load(tile[(i % 2) * 128], src, {i32(0), i * 4}, full[i % 2]);
    });
  });
  if_(thread_idx_x() >= 32, [&] {
    for_(0, n, [&](i32 i) {
      if (!racy) wait(full[i % 2]);
      if_(i > 0, [&] { for_(0, 1, [&](i32) { if_(lane_id() == 0, [&] { arrive(empty[(i + 1) % 2]); }); }); });
      MARK("read"); out[i * 32 + thread_idx_x() - 32] = tile[(i % 2) * 128 + thread_idx_x() - 32];
    });
  });
  return k.build();
}

// A loop whose wait comes after the read.
ir::Kernel loop_wait_after_read(bool racy, Marks& marks) {
  KernelBuilder k("late_wait");
  k.threads(32);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 i) {
      arrive_expect_tx(full[0], u32(kBoxBytes));
      MARK("load"); tma_load(tile[0], src, {i32(0), i * 4}, full[0]);
      if (!racy) wait(full[0]);
      MARK("read"); out[i] = tile[0];
      if (racy) wait(full[0]);
    });
  });
  return k.build();
}

// A TMA store's source overwritten before bulk_wait_read.
ir::Kernel store_source_overwritten(bool racy, Marks& marks) {
  KernelBuilder k("reuse_src");
  k.threads(32);
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  if_(thread_idx_x() == 0, [&] {
    tile[0] = 1.0f;
    fence_proxy_async();
    MARK("store"); tma_store(dst, {i32(0), i32(0)}, tile[0]);
    bulk_commit();
    if (!racy) bulk_wait_read(0);
    MARK("write"); tile[0] = 2.0f;
    fence_proxy_async();
    tma_store(dst, {i32(0), i32(4)}, tile[0]);
    bulk_commit();
    bulk_wait(0);
  });
  return k.build();
}

// In a loop: one buffer stored every iteration, waited with one group still allowed in flight.
ir::Kernel store_source_loop(bool racy, Marks& marks) {
  KernelBuilder k("reuse_loop");
  k.threads(32);
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 i) {
      MARK("wait"); bulk_wait_read(racy ? 1 : 0);
      MARK("write"); tile[0] = cast<float>(i);
      fence_proxy_async();
      MARK("store"); tma_store(dst, {i32(0), i * 4}, tile[0]);
      bulk_commit();
    });
    bulk_wait(0);
  });
  return k.build();
}

// Ordinary writes read by a TMA store with no proxy fence.
ir::Kernel store_without_fence(bool racy, Marks& marks) {
  KernelBuilder k("no_fence");
  k.threads(32);
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  MARK("write"); tile[thread_idx_x()] = 1.0f;
  if (!racy) fence_proxy_async();
  sync_threads();
  if_(thread_idx_x() == 0, [&] {
    MARK("store"); tma_store(dst, {i32(0), i32(0)}, tile[0]);
    bulk_commit();
    bulk_wait(0);
  });
  return k.build();
}

// The write is conditional; the fence only sits in the other branch.
ir::Kernel fence_in_one_branch(bool racy, Marks& marks) {
  KernelBuilder k("half_fence");
  k.threads(32);
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto flag = k.param<int32_t>("flag");
  if_(flag != 0, [&] {
    MARK("write"); tile[thread_idx_x()] = 1.0f;
    if (!racy) fence_proxy_async();
  }).else_([&] { fence_proxy_async(); });
  sync_threads();
  if_(thread_idx_x() == 0, [&] {
    MARK("store"); tma_store(dst, {i32(0), i32(0)}, tile[0]);
    bulk_commit();
    bulk_wait(0);
  });
  return k.build();
}

// A producer refills pipeline stages without waiting for the consumer's release.
ir::Kernel producer_skips_acquire(bool racy, Marks& marks) {
  KernelBuilder k("no_acquire");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  TensorMap dst = k.tensor_map<float>("dst", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", 2 * 128, 128);
  Pipeline pipe(k, "pipe", 2, 1);
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 it) {
      if (!racy) pipe.acquire(it);
      arrive_expect_tx(pipe.full(it), u32(kBoxBytes));
      MARK("load"); tma_load(stage[pipe.slot(it) * 128], src, {i32(0), it * 4}, pipe.full(it));
    });
  });
  if_(thread_idx_x() == 32, [&] {
    for_(0, n, [&](i32 it) {
      pipe.wait_full(it);
      MARK("store"); tma_store(dst, {i32(0), it * 4}, stage[pipe.slot(it) * 128]);
      bulk_commit();
      bulk_wait_read(0);
      pipe.release(it);
    });
    bulk_wait(0);
  });
  return k.build();
}

// ---- mbarrier arrivals -----------------------------------------------------------

// Every thread arrives on a barrier that expects one arrival.
ir::Kernel every_thread_arrives(bool racy, Marks& marks) {
  KernelBuilder k("all_arrive");
  k.threads(64);
  MARK("decl"); auto bar = k.mbarriers("bar", 1, 1);
  if (racy) {
    MARK("arrive"); arrive(bar[0]);
  } else {
    if_(thread_idx_x() == 0, [&] { arrive(bar[0]); });
  }
  wait(bar[0]);
  return k.build();
}

// Two arrivals expected, one comes: the wait hangs.
ir::Kernel too_few_arrivals(bool racy, Marks& marks) {
  KernelBuilder k("few_arrive");
  k.threads(64);
  MARK("decl"); auto bar = k.mbarriers("bar", 1, 2);
  MARK("arrive"); if_(racy ? thread_idx_x() == 0 : thread_idx_x() % 32 == 0, [&] { arrive(bar[0]); });
  wait(bar[0]);
  return k.build();
}

// 2-D cluster: every CTA arrives on rank 0's barrier, declared for one CTA fewer.
ir::Kernel peer_arrivals_2d(bool racy, Marks& marks) {
  KernelBuilder k("peer_arrive");
  k.threads(32).cluster(2, 2);
  MARK("decl"); auto bar = k.mbarriers("bar", 1, racy ? 3 : 4);
  MARK("arrive"); if_(thread_idx_x() == 0, [&] { arrive(map_shared_rank(bar, 0)[0]); });
  if_(cluster_ctarank() == 0, [&] { wait(bar[0]); });
  cluster_sync();
  return k.build();
}

// Only rank 0 arrives, every rank waits.
ir::Kernel wait_without_arrival(bool racy, Marks& marks) {
  KernelBuilder k("no_arrival");
  k.threads(32).cluster(2);
  auto bar = k.mbarriers("bar", 1, 1);
  if_(thread_idx_x() == 0 && (racy ? cluster_ctarank() == 0 : cluster_ctarank() >= 0), [&] { arrive(bar[0]); });
  MARK("wait"); wait(bar[0]);
  return k.build();
}

// In a loop, two warps' leaders arrive per iteration on a barrier of one arrival.
ir::Kernel loop_arrivals(bool racy, Marks& marks) {
  KernelBuilder k("loop_arrive");
  k.threads(64);
  MARK("decl"); auto bar = k.mbarriers("bar", 1, 1);
  auto n = k.param<int32_t>("n");
  MARK("loop"); for_(0, n, [&](i32) {
    MARK("arrive"); if_(racy ? thread_idx_x() % 32 == 0 : thread_idx_x() == 0, [&] { arrive(bar[0]); });
    wait(bar[0]);
  });
  return k.build();
}

const std::vector<Case>& corpus();

}  // namespace

TEST_CASE("the race corpus: every racy kernel is refused with its exact diagnostic", "[codegen][verify][races]") {
  for (const Case& c : corpus()) {
    INFO(c.name);
    Marks marks;
    std::vector<Diagnostic> d = lower_errors(c.build(true, marks));
    REQUIRE(d.size() == 1);
    CHECK(d[0].str() == expand(c.expected, marks));
  }
  CHECK(corpus().size() >= 20);
}

TEST_CASE("the race corpus: every corrected kernel lowers", "[codegen][verify][races]") {
  for (const Case& c : corpus()) {
    INFO(c.name);
    Marks marks;
    std::vector<Diagnostic> d = lower_errors(c.build(false, marks));
    CHECK(d.empty());
    if (!d.empty()) CHECK(d[0].str() == "");
  }
}

namespace {
const std::vector<Case>& corpus() {
  static const std::vector<Case> cases = {
      {"zero_then_peer_add", zero_then_peer_add,
       "test_races.cpp:{add}: error: race on shared buffer 'acc' of CTA rank 0: the store at test_races.cpp:{zero} by CTA rank 0 and the atomic_add at test_races.cpp:{add} by CTA rank 3 through map_shared_rank(acc, ((%cluster_ctarank + 1) % 4)) may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() between line {zero} and line {add} (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)"},
      {"peer_store_local_read", peer_store_local_read,
       "test_races.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_races.cpp:{store} by CTA rank 0 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) and the load at test_races.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() between line {store} and line {read} (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)"},
      {"cluster_2d_row", cluster_2d_row,
       "test_races.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_races.cpp:{store} by CTA rank 0 through map_shared_rank(buf, ((%cluster_ctaid.y * 2) + (1 - %cluster_ctaid.x))) and the load at test_races.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() between line {store} and line {read} (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)"},
      {"ring_loop_back_edge", ring_loop_back_edge,
       "test_races.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_races.cpp:{read} by CTA rank 0 and the store at test_races.cpp:{store} by CTA rank 3 through map_shared_rank(buf, ((%cluster_ctarank + 1) % 4)) may run at the same time (iteration i of the loop at test_races.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_races.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one"},
      {"ring_while_back_edge", ring_while_back_edge,
       "test_races.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_races.cpp:{read} by CTA rank 0 and the store at test_races.cpp:{store} by CTA rank 3 through map_shared_rank(buf, ((%cluster_ctarank + 1) % 4)) may run at the same time (iteration i of the loop at test_races.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_races.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one"},
      {"split_barrier", split_barrier,
       "test_races.cpp:{add}: error: race on shared buffer 'buf' of CTA rank 0: the store at test_races.cpp:{zero} by CTA rank 0 and the atomic_add at test_races.cpp:{add} by CTA rank 1 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) may run at the same time (line {add} lies between cluster_arrive() at test_races.cpp:{arrive} and its cluster_wait())\n  fix: move line {add} before the cluster_arrive() at line {arrive} or after its cluster_wait(), or use cluster_sync()"},
      {"conditional_peer_write", conditional_peer_write,
       "test_races.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 0: the store at test_races.cpp:{store} by CTA rank 1 through map_shared_rank(buf, 0) and the load at test_races.cpp:{read} by CTA rank 0 may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() between line {store} and line {read} (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)"},
      {"relaxed_arrive", relaxed_arrive,
       "test_races.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_races.cpp:{store} by CTA rank 0 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) and the load at test_races.cpp:{read} by CTA rank 1 may run at the same time (the cluster_arrive_relaxed() at test_races.cpp:{relaxed} between them publishes nothing)\n  fix: use cluster_arrive() (release) instead of cluster_arrive_relaxed() at line {relaxed}, or cluster_sync()"},
      {"unknown_rank", unknown_rank,
       "test_races.cpp:{peer}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_races.cpp:{local} by CTA rank 1 and the store at test_races.cpp:{peer} by CTA rank 0 through map_shared_rank(buf, who) (into any CTA of the cluster, this one included: the rank is not known before run time) may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() between line {local} and line {peer} (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)"},
      {"cluster_2d_loop", cluster_2d_loop,
       "test_races.cpp:{add}: error: race on shared buffer 'sum' of CTA rank 0: the load at test_races.cpp:{read} by CTA rank 0 and the atomic_add at test_races.cpp:{add} by CTA rank 1 through map_shared_rank(sum, (%cluster_ctaid.y * 2)) may run at the same time (iteration i of the loop at test_races.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_races.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one"},
      {"mbarrier_handoff", mbarrier_handoff,
       "test_races.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 0: the store at test_races.cpp:{store} by CTA rank 1 through map_shared_rank(buf, 0) and the load at test_races.cpp:{read} by CTA rank 0 may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the wait_local at test_races.cpp:{wait} on 'bar' acquires at CTA scope only: the peer's stores that its arrive releases are not made visible to this CTA)\n  fix: use wait() instead of wait_local() at line {wait} (a cluster-scope acquire) (or add cluster_sync() between line {store} and line {read})"},
      {"read_before_wait", read_before_wait,
       "test_races.cpp:{read}: error: the load at test_races.cpp:{read} reads shared buffer 'tile' while the TMA load at test_races.cpp:{load} into it may still be landing: no wait on barrier 'full' between them\n  fix: wait on 'full' (wait or wait_local) between line {load} and line {read}"},
      {"consumer_skips_wait", consumer_skips_wait,
       "test_races.cpp:{read}: error: the load at test_races.cpp:{read} reads shared buffer 'tile' while the TMA load at test_races.cpp:{load} into it may still be landing: no wait on barrier 'full' between them\n  fix: wait on 'full' (wait or wait_local) between line {load} and line {read}"},
      {"release_loop_before_read", release_loop_before_read,
       "test_races.cpp:{read}: error: the load at test_races.cpp:{read} reads shared buffer 'tile' while the TMA load at test_races.cpp:{load} into it may still be landing: no wait on barrier 'full' between them\n  fix: wait on 'full' (wait or wait_local) between line {load} and line {read}"},
      {"loop_wait_after_read", loop_wait_after_read,
       "test_races.cpp:{read}: error: the load at test_races.cpp:{read} reads shared buffer 'tile' while the TMA load at test_races.cpp:{load} into it may still be landing: no wait on barrier 'full' between them\n  fix: wait on 'full' (wait or wait_local) between line {load} and line {read}"},
      {"store_source_overwritten", store_source_overwritten,
       "test_races.cpp:{write}: error: the store at test_races.cpp:{write} overwrites shared buffer 'tile' while the TMA store at test_races.cpp:{store} may still be reading it\n  fix: call bulk_commit() after the store and bulk_wait_read(n) between line {store} and line {write}, n at most the store groups committed since"},
      {"store_source_loop", store_source_loop,
       "test_races.cpp:{write}: error: the store at test_races.cpp:{write} overwrites shared buffer 'tile' while the TMA store at test_races.cpp:{store} may still be reading it: the bulk_wait_read(1) at test_races.cpp:{wait} lets its group stay in flight\n  fix: use bulk_wait_read(0) at line {wait}, so that it waits until the TMA store at line {store} has read its source"},
      {"store_without_fence", store_without_fence,
       "test_races.cpp:{store}: error: the TMA store at test_races.cpp:{store} reads shared buffer 'tile' written by the store at test_races.cpp:{write} with no fence_proxy_async() between: the copy engine may read old data\n  fix: add fence_proxy_async() (and a barrier among the writing threads) between line {write} and line {store}"},
      {"fence_in_one_branch", fence_in_one_branch,
       "test_races.cpp:{store}: error: the TMA store at test_races.cpp:{store} reads shared buffer 'tile' written by the store at test_races.cpp:{write} with no fence_proxy_async() between: the copy engine may read old data\n  fix: add fence_proxy_async() (and a barrier among the writing threads) between line {write} and line {store}"},
      {"producer_skips_acquire", producer_skips_acquire,
       "test_races.cpp:{load}: error: the TMA load at test_races.cpp:{load} refills shared buffer 'stage', which the TMA store at test_races.cpp:{store} (other threads) reads, without waiting for the readers to release it (they arrive on 'pipe_empty')\n  fix: wait on 'pipe_empty' before line {load} (Pipeline::acquire does this)"},
      {"every_thread_arrives", every_thread_arrives,
       "test_races.cpp:{arrive}: error: barrier 'bar[0]' receives 64 arrivals per phase in CTA rank 0 in the kernel body, but it completes a phase after 1 (mbarriers at test_races.cpp:{decl}): the extra arrivals complete the next phase early, releasing its waiters before their data\n  fix: make one phase receive exactly 1 arrivals in every CTA: declare 'bar' with 64 arrivals, or change which threads arrive (64 arrivals reach it in CTA rank 0 now)"},
      {"too_few_arrivals", too_few_arrivals,
       "test_races.cpp:{arrive}: error: barrier 'bar[0]' receives 1 arrivals per phase in CTA rank 0 in the kernel body, but it completes a phase after 2 (mbarriers at test_races.cpp:{decl}): a wait on that phase never completes (the kernel hangs)\n  fix: make one phase receive exactly 2 arrivals in every CTA: declare 'bar' with 1 arrivals, or change which threads arrive (1 arrivals reach it in CTA rank 0 now)"},
      {"peer_arrivals_2d", peer_arrivals_2d,
       "test_races.cpp:{arrive}: error: barrier 'bar[0]' receives 4 arrivals per phase in CTA rank 0 in the kernel body, but it completes a phase after 3 (mbarriers at test_races.cpp:{decl}): the extra arrivals complete the next phase early, releasing its waiters before their data\n  fix: make one phase receive exactly 3 arrivals in every CTA: declare 'bar' with 4 arrivals, or change which threads arrive (4 arrivals reach it in CTA rank 0 now)"},
      {"wait_without_arrival", wait_without_arrival,
       "test_races.cpp:{wait}: error: the wait at test_races.cpp:{wait} on barrier 'bar' never completes in CTA rank 1: nothing arrives on 'bar' in that CTA (copies complete bytes, not arrivals)\n  fix: arrive on it (arrive or arrive_expect_tx) in CTA rank 1, or do not wait there"},
      {"loop_arrivals", loop_arrivals,
       "test_races.cpp:{arrive}: error: barrier 'bar[0]' receives 2 arrivals per phase in CTA rank 0 in the loop at test_races.cpp:{loop}, but it completes a phase after 1 (mbarriers at test_races.cpp:{decl}): the extra arrivals complete the next phase early, releasing its waiters before their data\n  fix: make one phase receive exactly 1 arrivals in every CTA: declare 'bar' with 2 arrivals, or change which threads arrive (2 arrivals reach it in CTA rank 0 now)"},
  };
  return cases;
}
}  // namespace

TEST_CASE("allow_race lets one racy statement through, says so in the CUDA and in the report", "[codegen][verify][races]") {
  KernelBuilder k("allowed");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto out = k.param<float*>("out");
  buf[thread_idx_x()] = 0.0f;
  const unsigned line = __LINE__ + 1;
  allow_race("demo: peers add while the owner zeroes", [&] { atomic_add(map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()], 1.0f); });
  cluster_sync();
  out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  codegen::Lowered l = codegen::lower(k.build(), codegen::Target::sm90a());
  CHECK(l.cuda.find("// allow_race(\"demo: peers add while the owner zeroes\") at test_races.cpp:" + std::to_string(line) +
                    ": the race check does not refuse hazards of this statement") != std::string::npos);
  // No barrier was inserted: one cluster barrier written by the user, plus the entry and exit ones.
  size_t barriers = 0;
  for (size_t p = 0; (p = l.cuda.find("tj::cluster_sync()", p)) != std::string::npos; ++p) ++barriers;
  CHECK(barriers <= 3);
  REQUIRE(l.races.size() >= 1);
  CHECK(to_string(l.races[0]).rfind("cluster epochs: allowed: test_races.cpp:" + std::to_string(line) + ": race on shared buffer 'buf'", 0) == 0);
  CHECK(to_string(l.races[0]).find("[allow_race at test_races.cpp:" + std::to_string(line) + ": \"demo: peers add while the owner zeroes\"]") != std::string::npos);
}

TEST_CASE("allow_race needs a reason", "[codegen][verify][races]") {
  KernelBuilder k("no_reason");
  try {
    allow_race("  ", [&] {});
    FAIL("allow_race with a blank reason was accepted");
  } catch (const UserError& e) {
    CHECK(e.diagnostics()[0].message == "allow_race needs a reason");
  }
}

TEST_CASE("what the race check cannot decide is reported as not checked", "[codegen][verify][races]") {
  // Arrivals under a condition on a value loaded per thread: may differ between threads.
  KernelBuilder k("data_dependent");
  k.threads(32);
  auto bar = k.mbarriers("bar", 1, 1);
  auto flags = k.param<int32_t*>("flags");
  const unsigned line = __LINE__ + 1;
  if_(flags[thread_idx_x()] != 0, [&] { arrive(bar[0]); });
  codegen::Lowered l = codegen::lower(k.build(), codegen::Target::sm90a());
  bool found = false;
  for (const codegen::race::RaceCheck& c : l.races)
    found |= to_string(c) == "arrivals on barrier 'bar' in the kernel body: not checked: the condition (flags[%tid.x] != 0) of the arrive at test_races.cpp:" +
                                 std::to_string(line) + " cannot be evaluated before run time and may differ between threads";
  CHECK(found);
  // The cluster epochs when the branches of an if_ pass different numbers of cluster barriers.
  KernelBuilder k2("uneven");
  k2.threads(32).cluster(2);
  auto buf = k2.shared<float>("buf", 32);
  auto n = k2.param<int32_t>("n");
  map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 1.0f;
  const unsigned if_line = __LINE__ + 1;
  if_(n > 0, [&] { cluster_sync(); });
  codegen::Lowered l2 = codegen::lower(k2.build(), codegen::Target::sm90a());
  REQUIRE(!l2.races.empty());
  CHECK(to_string(l2.races[0]) == "cluster epochs: not checked: the two branches of the if_ at test_races.cpp:" + std::to_string(if_line) +
                                      " pass different numbers of cluster barriers");
}

TEST_CASE("a peer's access to what a multicast TMA load wrote is reported as not checked", "[codegen][verify][races]") {
  KernelBuilder k("multicast_peer");
  k.threads(32).cluster(2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 128, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  unsigned line = 0;
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(32 * 4 * 4));
    if_(cluster_ctarank() == 0, [&] { line = __LINE__; tma_load_multicast(tile[0], src, {0, 0}, full[0], mask_all()); });
  });
  wait(full[0]);
  cluster_sync();
  out[block_idx_x() * 32 + thread_idx_x()] = map_shared_rank(tile, cluster_ctarank() ^ 1)[thread_idx_x()];
  cluster_sync();
  codegen::Lowered l = codegen::lower(k.build(), codegen::Target::sm90a());
  bool found = false;
  for (const codegen::race::RaceCheck& c : l.races)
    found |= to_string(c) == "cluster epochs: not checked: the multicast TMA load at test_races.cpp:" + std::to_string(line) +
                                 " writes shared buffer 'tile', which a peer reaches through map_shared_rank: when it lands in each CTA of "
                                 "its mask is not ordered against the peers' accesses";
  INFO(l.races.size());
  CHECK(found);
}

// A loop of run-time trips is compared for trips 0 to 15: exact when the indices repeat
// within 8 trips ((it % 2) double buffering), reported as not checked beyond trip 15 when
// they do not (a slot per trip, it % 20).
TEST_CASE("indices compared for the first trips of a loop only are reported as not checked", "[codegen][verify][races]") {
  auto build = [](int slots, unsigned& loop_line) {
    KernelBuilder k("slots");
    k.threads(32).cluster(2);
    auto buf = k.shared<float>("buf", 64 * 32);
    auto out = k.param<float*>("out");
    auto n = k.param<int32_t>("n");
    loop_line = __LINE__ + 1;
    for_(0, n, [&](i32 it) {
      i32 slot = slots > 0 ? (it % slots) * 32 : it * 32;
      map_shared_rank(buf, cluster_ctarank() ^ 1)[slot + thread_idx_x()] = 1.0f;
      cluster_sync();
      out[(block_idx_x() * n + it) * 32 + thread_idx_x()] = buf[slot + thread_idx_x()];
    });
    return codegen::lower(k.build(), codegen::Target::sm90a());
  };
  unsigned line = 0;
  for (int slots : {2, 4, 8}) {
    codegen::Lowered l = build(slots, line);
    INFO("slots " << slots);
    bool verified = false;
    for (const codegen::race::RaceCheck& c : l.races) verified |= to_string(c).rfind("cluster epochs: verified", 0) == 0;
    CHECK(verified);
  }
  for (int slots : {20, 0}) {
    codegen::Lowered l = build(slots, line);
    INFO("slots " << slots);
    bool noted = false;
    for (const codegen::race::RaceCheck& c : l.races)
      noted |= to_string(c) == "cluster epochs: not checked: indices that change with the trip of the loop at test_races.cpp:" +
                                   std::to_string(line) + " were compared for trips 0 to 15 only (its trip count is not a constant): "
                                   "a collision in a later trip is not seen";
    CHECK(noted);
  }
}

// Every CTA stores into the peer `shift` ranks to its right, then reads its own buffer
// after cluster_sync: a rotation by a parameter names a different peer in every CTA.
// Rotated by a per-thread value instead, two CTAs may reach one peer: refused.
TEST_CASE("a rotation of the cluster by a uniform offset reaches distinct peers, by a per-thread one it may not",
          "[codegen][verify][races]") {
  auto build = [](bool per_thread) {
    KernelBuilder k("rotate");
    k.threads(64).cluster(4);
    auto buf = k.shared<float>("buf", 64);
    auto out = k.param<float*>("out");
    auto shift = k.param<int32_t>("shift");
    i32 offset = per_thread ? thread_idx_x() % 2 : shift;
    for_(thread_idx_x(), 64, block_dim_x(), [&](i32 i) {
      map_shared_rank(buf, (cluster_ctarank() + offset) % cluster_nctarank())[i] = 1.0f;
    });
    cluster_sync();
    out[block_idx_x() * 64 + thread_idx_x()] = buf[thread_idx_x()];
    return k.build();
  };
  CHECK(lower_errors(build(false)).empty());
  std::vector<Diagnostic> d = lower_errors(build(true));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str().find("race on shared buffer 'buf'") != std::string::npos);
  CHECK(d[0].str().find("through map_shared_rank(buf, ((%cluster_ctarank + (%tid.x % 2)) % %cluster_nctarank))") != std::string::npos);
}

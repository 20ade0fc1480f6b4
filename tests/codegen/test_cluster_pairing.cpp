// Each thread's cluster_arrive and cluster_wait alternate (verify_cluster_barriers),
// and the exit barrier keeps them alternating.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "codegen/passes/insert_exit_barrier.h"
#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

const char* kFile = "test_cluster_pairing.cpp";

// Racy: a cluster_wait whose thread never arrived.
ir::Kernel wait_without_arrive(bool racy, Marks& marks) {
  KernelBuilder k("wait_alone");
  k.threads(64).cluster(2);
  auto out = k.param<float*>("out");
  if (!racy) cluster_arrive();
  out[thread_idx_x()] = 1.0f;
  MARK("wait"); cluster_wait();
  return k.build();
}

// Racy: a second arrive before the wait.
ir::Kernel arrive_twice(bool racy, Marks& marks) {
  KernelBuilder k("arrive_twice");
  k.threads(64).cluster(2);
  MARK("first"); cluster_arrive_relaxed();
  if (!racy) cluster_wait();
  MARK("second"); cluster_arrive();
  cluster_wait();
  return k.build();
}

// Racy: cluster_sync while an arrive is pending.
ir::Kernel sync_after_arrive(bool racy, Marks& marks) {
  KernelBuilder k("sync_pending");
  k.threads(64).cluster(2);
  MARK("arrive"); cluster_arrive();
  if (racy) {
    MARK("sync"); cluster_sync();
  } else {
    cluster_wait();
  }
  return k.build();
}

// Racy: a loop that arrives every iteration and never waits.
ir::Kernel loop_arrives(bool racy, Marks& marks) {
  KernelBuilder k("loop_arrives");
  k.threads(64).cluster(2);
  auto n = k.param<int32_t>("n");
  MARK("loop"); for_(0, n, [&](i32) {
    MARK("arrive"); cluster_arrive();
    if (!racy) cluster_wait();
  });
  if (racy) cluster_wait();
  return k.build();
}

// Correct: arrive early (relaxed), work, wait; then, per iteration, arrive and wait
// around per-thread work; a branch that arrives in one arm only claims nothing here.
ir::Kernel split_barriers(bool, Marks&) {
  KernelBuilder k("split");
  k.threads(64).cluster(2);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  cluster_arrive_relaxed();
  out[thread_idx_x()] = 0.0f;
  cluster_wait();
  for_(0, n, [&](i32 i) {
    cluster_arrive();
    out[thread_idx_x() + i * 64] = 2.0f;
    cluster_wait();
  });
  for_(0, 2, [&](i32) { cluster_sync(); });
  return k.build();
}

}  // namespace

TEST_CASE("racy: cluster_wait with no cluster_arrive before it", "[codegen][verify][cluster_pairing]") {
  refused(wait_without_arrive,
          "@{wait}: error: cluster_wait() at @{wait} waits for a cluster barrier phase this thread has not arrived on: no "
          "cluster_arrive() since its last cluster_wait() or cluster_sync(), so the phase never completes (the kernel hangs)\n"
          "  fix: call cluster_arrive() (or cluster_arrive_relaxed()) before line {wait}, or use cluster_sync()",
          kFile);
  lowers(wait_without_arrive);
}

TEST_CASE("racy: cluster_arrive twice before its cluster_wait", "[codegen][verify][cluster_pairing]") {
  refused(arrive_twice,
          "@{second}: error: cluster_arrive() at @{second} arrives on the cluster barrier phase the cluster_arrive at "
          "@{first} already arrived on, with no cluster_wait() between: a thread arrives once per phase, and the second "
          "arrival counts toward the next phase (a hang, or peers released early)\n"
          "  fix: call cluster_wait() between line {first} and line {second}",
          kFile);
  lowers(arrive_twice);
}

TEST_CASE("racy: cluster_sync while a cluster_arrive is pending", "[codegen][verify][cluster_pairing]") {
  refused(sync_after_arrive,
          "@{sync}: error: cluster_sync() at @{sync} arrives on the cluster barrier phase the cluster_arrive at @{arrive} "
          "already arrived on, with no cluster_wait() between: a thread arrives once per phase, and the second arrival "
          "counts toward the next phase (a hang, or peers released early)\n"
          "  fix: call cluster_wait() instead at line {sync}, or call cluster_wait() between line {arrive} and line {sync}",
          kFile);
  lowers(sync_after_arrive);
}

TEST_CASE("racy: a loop that arrives every iteration and waits after it", "[codegen][verify][cluster_pairing]") {
  refused(loop_arrives,
          "@{arrive}: error: cluster_arrive() at @{arrive} arrives on the cluster barrier phase the cluster_arrive at "
          "@{arrive} already arrived on (in iteration 2 of the loop at @{loop}), with no cluster_wait() between: a thread "
          "arrives once per phase, and the second arrival counts toward the next phase (a hang, or peers released early)\n"
          "  fix: call cluster_wait() between line {arrive} and line {arrive}",
          kFile);
  lowers(loop_arrives);
}

TEST_CASE("split cluster barriers, per-iteration pairs and constant loops of cluster_sync lower",
          "[codegen][verify][cluster_pairing]") {
  lowers(split_barriers);
}

TEST_CASE("an arrive in one branch only is left to the race check's 'not checked'", "[codegen][verify][cluster_pairing]") {
  KernelBuilder k("one_branch");
  k.threads(64).cluster(2);
  auto n = k.param<int32_t>("n");
  if_(n > 0, [&] { cluster_arrive(); });
  cluster_wait();
  CHECK(lower_errors(k.build()).empty());
}

TEST_CASE("the exit barrier waits for a pending cluster_arrive before its own barrier", "[codegen][exit_barrier]") {
  auto last_ops = [](const ir::Kernel& kern) {
    std::vector<ir::ClusterBarrierOp> ops;
    for (const ir::Stmt& s : kern.body->as<ir::Block>()->body)
      if (const ir::ClusterBarrier* b = s->as<ir::ClusterBarrier>()) ops.push_back(b->op);
    return ops;
  };
  using Op = ir::ClusterBarrierOp;
  {
    // The store comes after the arrive: its wait, then a full barrier for the store.
    KernelBuilder k("store_after_arrive");
    k.threads(32).cluster(2);
    auto buf = k.shared<float>("buf", 4);
    cluster_arrive();
    atomic_add(map_shared_rank(buf, 0)[0], 1.0f);
    ir::Kernel out = codegen::insert_exit_barrier(k.build());
    CHECK(last_ops(out) == std::vector<Op>{Op::Arrive, Op::Wait, Op::Sync});
  }
}

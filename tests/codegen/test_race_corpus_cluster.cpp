// The race check's cluster corpus: hand-overs through the wrong CTA's barrier or the
// wrong phase, DSMEM stores before the kernel's exit, double buffers and per-rank
// slices, full/empty exchanges across a loop's back edge, and TMA loads spread over a
// loop of constant trips. Each racy kernel is refused with its exact diagnostic, each
// corrected or race-free one lowers. Statement lines are marked with MARK.
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

void refused(const Builder& build, const std::string& expected) {
  tj::test::refused(build, expected, "test_race_corpus_cluster.cpp");
}

// ---- 1. hand-overs through the wrong CTA's barrier, index or phase ------------------

// 2x2: every CTA stores into its row-mate's buffer and arrives on a barrier; racy: the
// column-mate's barrier (each CTA still receives one arrival per phase).
ir::Kernel row_mate_2x2(bool racy, Marks& marks) {
  KernelBuilder k("row_mate");
  k.threads(32).cluster(2, 2);
  auto buf = k.shared<float>("buf", 32);
  auto bar = k.mbarriers("bar", 1, 32);
  auto out = k.param<float*>("out");
  i32 row_mate = cluster_ctarank() ^ 1;
  MARK("store"); map_shared_rank(buf, row_mate)[thread_idx_x()] = 1.0f;
  MARK("arrive"); arrive(map_shared_rank(bar, racy ? cluster_ctarank() ^ 2 : row_mate)[0]);
  MARK("wait"); wait(bar[0]);
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// 4x1 ring: each CTA fills the next one's buffer; racy: it signals the previous CTA.
ir::Kernel ring_previous_4x1(bool racy, Marks& marks) {
  KernelBuilder k("ring_prev");
  k.threads(32).cluster(4);
  auto buf = k.shared<uint32_t>("buf", 32);
  auto bar = k.mbarriers("bar", 1, 32);
  auto out = k.param<uint32_t*>("out");
  MARK("store"); map_shared_rank(buf, (cluster_ctarank() + 1) % 4)[thread_idx_x()] = cast<uint32_t>(cluster_ctarank());
  MARK("arrive"); arrive(map_shared_rank(bar, (cluster_ctarank() + (racy ? 3 : 1)) % 4)[0]);
  MARK("wait"); wait(bar[0]);
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// 2x1: racy, the writer arrives on its own (local) barrier.
ir::Kernel own_barrier_2x1(bool racy, Marks& marks) {
  KernelBuilder k("own_bar");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto bar = k.mbarriers("bar", 1, 32);
  auto out = k.param<float*>("out");
  MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 2.0f;
  if (racy) {
    MARK("arrive"); arrive(bar[0]);
  } else {
    arrive(map_shared_rank(bar, cluster_ctarank() ^ 1)[0]);
  }
  MARK("wait"); wait(bar[0]);
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  return k.build();
}

// 2x1 with roles: warp 0 writes the peer's buffer, warp 1 of the peer reads its own;
// racy: the writer arrives on barrier 1 of the array, the reader waits on barrier 0.
ir::Kernel wrong_index_roles(bool racy, Marks& marks) {
  KernelBuilder k("wrong_index");
  k.threads(64).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto bar = k.mbarriers("bar", 2, 32);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() < 32, [&] {
    MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 3.0f;
    MARK("arrive"); arrive(map_shared_rank(bar, cluster_ctarank() ^ 1)[racy ? 1 : 0]);
  });
  if_(thread_idx_x() >= 32, [&] {
    MARK("wait"); wait(bar[0]);
    MARK("read"); out[block_idx_x() * 32 + thread_idx_x() - 32] = buf[thread_idx_x() - 32];
  });
  return k.build();
}

// 2x1: the reader waits for phase 0; racy: the writer completes phase 0 before its
// store and phase 1 after it (the reader waits on phase 1 only after reading).
ir::Kernel wrong_phase_2x1(bool racy, Marks& marks) {
  KernelBuilder k("wrong_phase");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto bar = k.mbarriers("bar", 1, 32);
  auto out = k.param<float*>("out");
  if_(cluster_ctarank() == 0, [&] {
    MARK("wait"); wait(bar[0]);
    MARK("read"); out[thread_idx_x()] = buf[thread_idx_x()];
    wait(bar[0]);
  });
  if_(cluster_ctarank() == 1, [&] {
    if (racy) arrive(map_shared_rank(bar, 0)[0]);
    MARK("store"); map_shared_rank(buf, 0)[thread_idx_x()] = 4.0f;
    MARK("arrive"); arrive(map_shared_rank(bar, 0)[0]);
    if (!racy) arrive(map_shared_rank(bar, 0)[0]);
  });
  cluster_sync();
  return k.build();
}

}  // namespace

TEST_CASE("racy: 2x2, the writer arrives on its column-mate's barrier, not the row-mate's it wrote", "[races][corpus]") {
  refused(row_mate_2x2,
          "test_race_corpus_cluster.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) and the load at test_race_corpus_cluster.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the arrive at test_race_corpus_cluster.cpp:{arrive} by CTA rank 0 reaches barrier 'bar' of CTA rank 2, but CTA rank 1 waits at test_race_corpus_cluster.cpp:{wait} on its own 'bar')\n  fix: arrive on the waiting CTA's barrier at line {arrive}: map_shared_rank(bar, <rank of the CTA that waits>), here CTA rank 1 (or add cluster_sync() between line {store} and line {read})");
}
TEST_CASE("corrected: 2x2, the writer arrives on the row-mate's barrier", "[races][corpus]") { lowers(row_mate_2x2); }

TEST_CASE("racy: 4x1 ring, the writer signals the previous CTA", "[races][corpus]") {
  refused(ring_previous_4x1,
          "test_race_corpus_cluster.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(buf, ((%cluster_ctarank + 1) % 4)) and the load at test_race_corpus_cluster.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the arrive at test_race_corpus_cluster.cpp:{arrive} by CTA rank 0 reaches barrier 'bar' of CTA rank 3, but CTA rank 1 waits at test_race_corpus_cluster.cpp:{wait} on its own 'bar')\n  fix: arrive on the waiting CTA's barrier at line {arrive}: map_shared_rank(bar, <rank of the CTA that waits>), here CTA rank 1 (or add cluster_sync() between line {store} and line {read})");
}
TEST_CASE("corrected: 4x1 ring, the writer signals the CTA it wrote", "[races][corpus]") { lowers(ring_previous_4x1); }

TEST_CASE("racy: 2x1, the writer arrives on its own barrier", "[races][corpus]") {
  refused(own_barrier_2x1,
          "test_race_corpus_cluster.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) and the load at test_race_corpus_cluster.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the arrive at test_race_corpus_cluster.cpp:{arrive} by CTA rank 0 reaches barrier 'bar' of CTA rank 0, but CTA rank 1 waits at test_race_corpus_cluster.cpp:{wait} on its own 'bar')\n  fix: arrive on the waiting CTA's barrier at line {arrive}: map_shared_rank(bar, <rank of the CTA that waits>), here CTA rank 1 (or add cluster_sync() between line {store} and line {read})");
}
TEST_CASE("corrected: 2x1, the writer arrives on the peer's barrier", "[races][corpus]") { lowers(own_barrier_2x1); }

TEST_CASE("racy: 2x1 roles, the writer arrives on another barrier of the array", "[races][corpus]") {
  refused(wrong_index_roles,
          "test_race_corpus_cluster.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 1: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) and the load at test_race_corpus_cluster.cpp:{read} by CTA rank 1 may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the arrive at test_race_corpus_cluster.cpp:{arrive} reaches 'bar[1]', the wait at test_race_corpus_cluster.cpp:{wait} is on 'bar[0]')\n  fix: arrive at line {arrive} on the barrier that the wait at line {wait} waits on (or add cluster_sync() between line {store} and line {read})");
}
TEST_CASE("corrected: 2x1 roles, the writer arrives on the barrier the reader waits on", "[races][corpus]") { lowers(wrong_index_roles); }

TEST_CASE("racy: 2x1, the store's arrive completes a later phase than the one the reader waits for", "[races][corpus]") {
  refused(wrong_phase_2x1,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, 0) may run at the same time (no cluster barrier between them; the mbarrier hand-over does not order them: the arrive at test_race_corpus_cluster.cpp:{arrive} and the wait at test_race_corpus_cluster.cpp:{wait} on 'bar' are not the same phase (a thread's k-th wait on a barrier waits for its k-th phase))\n  fix: arrive on 'bar' once per phase, after line {arrive}'s access, in the phase that the wait at line {wait} waits for (or add cluster_sync() between line {read} and line {store})");
}
TEST_CASE("corrected: 2x1, the store's arrive completes the phase the reader waits for", "[races][corpus]") { lowers(wrong_phase_2x1); }

// ---- 2. the last DSMEM access between the final cluster_arrive and cluster_wait ----
// Nothing reads it, so it is no race the check refuses; the exit barrier covers it
// instead: the wait whose arrive came before the access does not keep the peer alive.

namespace {

// The kernel's CUDA after its last cluster_wait.
std::string after_last_wait(const ir::Kernel& k) {
  const std::string cuda = codegen::lower(k, codegen::Target::sm90a()).cuda;
  const size_t at = cuda.rfind("tj::cluster_wait_acquire();");
  REQUIRE(at != std::string::npos);
  return cuda.substr(at);
}

ir::Kernel flag_after_arrive(unsigned x, unsigned y, bool atomic) {
  KernelBuilder k("late_flag");
  k.threads(32).cluster(x, y);
  auto flag = k.shared<uint32_t>("flag", 32);
  auto out = k.param<uint32_t*>("out");
  flag[thread_idx_x()] = 0u;
  cluster_sync();
  out[block_idx_x() * 32 + thread_idx_x()] = flag[thread_idx_x()];
  cluster_sync();
  cluster_arrive();
  auto peer = map_shared_rank(flag, (cluster_ctarank() + 1) % int32_t(x * y));
  if (atomic) atomic_add(peer[thread_idx_x()], 1u);
  else peer[thread_idx_x()] = 1u;
  cluster_wait();
  return k.build();
}

}  // namespace

TEST_CASE("corrected: 2x1, a DSMEM store between the final cluster_arrive and cluster_wait gets an exit barrier",
          "[races][corpus]") {
  CHECK(lower_errors(flag_after_arrive(2, 1, false)).empty());
  CHECK(after_last_wait(flag_after_arrive(2, 1, false)).find("tj::cluster_sync();") != std::string::npos);
}
TEST_CASE("corrected: 4x1, a DSMEM atomic_add between the final cluster_arrive and cluster_wait gets an exit barrier",
          "[races][corpus]") {
  CHECK(lower_errors(flag_after_arrive(4, 1, true)).empty());
  CHECK(after_last_wait(flag_after_arrive(4, 1, true)).find("tj::cluster_sync();") != std::string::npos);
}
TEST_CASE("corrected: 2x2, a DSMEM store between the final cluster_arrive and cluster_wait gets an exit barrier",
          "[races][corpus]") {
  CHECK(after_last_wait(flag_after_arrive(2, 2, false)).find("tj::cluster_sync();") != std::string::npos);
}
TEST_CASE("race-free: a DSMEM store before the final cluster_arrive needs no second exit barrier", "[races][corpus]") {
  KernelBuilder k("early_flag");
  k.threads(32).cluster(2);
  auto flag = k.shared<uint32_t>("flag", 32);
  map_shared_rank(flag, cluster_ctarank() ^ 1)[thread_idx_x()] = 1u;
  cluster_arrive();
  cluster_wait();
  CHECK(after_last_wait(k.build()).find("tj::cluster_sync();") == std::string::npos);
}

// ---- 3. double buffering in one buffer, one cluster_sync per iteration ------------

namespace {

// 2x1: iteration it writes half it % 2 of the peer's buffer and reads its own; racy: one half.
ir::Kernel double_buffer_2x1(bool racy, Marks& marks) {
  KernelBuilder k("double_buffer");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 64);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  MARK("loop"); for_(0, n, [&](i32 it) {
    i32 half = racy ? i32(0) : (it % 2) * 32;
    MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[half + thread_idx_x()] = cast<float>(it);
    cluster_sync();
    MARK("read"); out[(block_idx_x() * n + it) * 32 + thread_idx_x()] = buf[half + thread_idx_x()];
  });
  return k.build();
}

// 4x1 ring, one thread per CTA, an inbox of two slots and a constant trip count.
ir::Kernel inbox_4x1(bool racy, Marks& marks) {
  KernelBuilder k("inbox_ring");
  k.threads(32).cluster(4);
  auto inbox = k.shared<int32_t>("inbox", 2);
  auto out = k.param<int32_t*>("out");
  MARK("loop"); for_(0, 8, [&](i32 it) {
    if_(thread_idx_x() == 0, [&] {
      MARK("store"); map_shared_rank(inbox, (cluster_ctarank() + 1) % 4)[racy ? i32(0) : it % 2] = it;
    });
    cluster_sync();
    if_(thread_idx_x() == 0, [&] { MARK("read"); out[block_idx_x() * 8 + it] = inbox[racy ? i32(0) : it % 2]; });
  });
  return k.build();
}

// 2x2 with 64 threads, each moving two elements a trip; racy: halves of 64 for 128 elements.
ir::Kernel double_buffer_2x2(bool racy, Marks& marks) {
  KernelBuilder k("double_2x2");
  k.threads(64).cluster(2, 2);
  auto buf = k.shared<float>("buf", 256);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  const int32_t half = racy ? 64 : 128;
  MARK("loop"); for_(0, n, [&](i32 it) {
    for_(thread_idx_x(), 128, block_dim_x(), [&](i32 i) {
      MARK("store"); map_shared_rank(buf, cluster_ctaid_y() * 2 + (1 - cluster_ctaid_x()))[(it % 2) * half + i] = 1.0f;
    });
    cluster_sync();
    MARK("read"); out[(block_idx_x() * n + it) * 64 + thread_idx_x()] = buf[(it % 2) * half + thread_idx_x()];
  });
  return k.build();
}

}  // namespace

TEST_CASE("racy: 2x1, one buffer rewritten every iteration with one cluster_sync", "[races][corpus]") {
  refused(double_buffer_2x1,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) may run at the same time (iteration i of the loop at test_race_corpus_cluster.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_race_corpus_cluster.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one");
}
TEST_CASE("race-free: 2x1, double buffering in one buffer ((it % 2) * 32) with one cluster_sync", "[races][corpus]") {
  lowers(double_buffer_2x1);
}
TEST_CASE("racy: 4x1 ring, one inbox slot rewritten every iteration", "[races][corpus]") {
  refused(inbox_4x1,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'inbox' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 3 through map_shared_rank(inbox, ((%cluster_ctarank + 1) % 4)) may run at the same time (iteration i of the loop at test_race_corpus_cluster.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_race_corpus_cluster.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one");
}
TEST_CASE("race-free: 4x1 ring, inbox[it % 2] with a constant trip count and one cluster_sync", "[races][corpus]") {
  lowers(inbox_4x1);
}
TEST_CASE("racy: 2x2, double-buffer halves smaller than what a trip writes", "[races][corpus]") {
  refused(double_buffer_2x2,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, ((%cluster_ctaid.y * 2) + (1 - %cluster_ctaid.x))) may run at the same time (iteration i of the loop at test_race_corpus_cluster.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_race_corpus_cluster.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one");
}
TEST_CASE("race-free: 2x2, double buffering with a strided loop and one cluster_sync", "[races][corpus]") {
  lowers(double_buffer_2x2);
}

// ---- 4. disjoint per-rank slices ----------------------------------------------------

namespace {

// Every CTA writes its slice of rank 0's gather buffer; racy: slices of 16 for 32 threads.
ir::Kernel gather_4x1(bool racy, Marks& marks) {
  KernelBuilder k("gather_4x1");
  k.threads(32).cluster(4);
  auto gather = k.shared<float>("gather", 128);
  auto out = k.param<float*>("out");
  MARK("store"); map_shared_rank(gather, 0)[cluster_ctarank() * (racy ? 16 : 32) + thread_idx_x()] = 1.0f;
  cluster_sync();
  if_(cluster_ctarank() == 0, [&] {
    for_(thread_idx_x(), 128, block_dim_x(), [&](i32 i) { out[block_idx_x() * 128 + i] = gather[i]; });
  });
  return k.build();
}

// 2x2: the slice is named by the CTA's coordinates; racy: by its column only.
ir::Kernel gather_2x2(bool racy, Marks& marks) {
  KernelBuilder k("gather_2d");
  k.threads(64).cluster(2, 2);
  auto gather = k.shared<float>("gather", 256);
  auto out = k.param<float*>("out");
  i32 slice = racy ? cluster_ctaid_x() : cluster_ctaid_y() * 2 + cluster_ctaid_x();
  MARK("store"); map_shared_rank(gather, 0)[slice * 64 + thread_idx_x()] = 2.0f;
  cluster_sync();
  if_(cluster_ctarank() == 0, [&] { out[block_idx_x() * 64 + thread_idx_x()] = gather[thread_idx_x()]; });
  return k.build();
}

// 2x1, every thread writes four elements of its CTA's slice in a constant loop; racy:
// the slices are 64 apart but each CTA writes 128.
ir::Kernel gather_loop_2x1(bool racy, Marks& marks) {
  KernelBuilder k("gather_loop");
  k.threads(32).cluster(2);
  auto gather = k.shared<float>("gather", 256);
  auto out = k.param<float*>("out");
  MARK("loop"); for_(0, 4, [&](i32 j) {
    MARK("store"); map_shared_rank(gather, 0)[cluster_ctarank() * (racy ? 64 : 128) + j * 32 + thread_idx_x()] = 3.0f;
  });
  cluster_sync();
  if_(cluster_ctarank() == 0, [&] { out[block_idx_x() * 32 + thread_idx_x()] = gather[thread_idx_x()]; });
  return k.build();
}

}  // namespace

TEST_CASE("racy: 4x1, per-rank slices of rank 0's buffer overlap", "[races][corpus]") {
  refused(gather_4x1,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'gather' of CTA rank 0: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(gather, 0) and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(gather, 0) may run at the same time: its indices overlap across CTAs (both reach element 16)\n  fix: give each CTA its own elements at line {store} (an index that differs per CTA rank, e.g. cluster_ctarank() * <elements per CTA> + thread_idx_x()), or use atomic_add");
}
TEST_CASE("race-free: 4x1, disjoint per-rank slices gather[rank * 32 + tid]", "[races][corpus]") { lowers(gather_4x1); }
TEST_CASE("racy: 2x2, slices named by the column only", "[races][corpus]") {
  refused(gather_2x2,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'gather' of CTA rank 0: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(gather, 0) and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 2 through map_shared_rank(gather, 0) may run at the same time: its indices overlap across CTAs (both reach element 0)\n  fix: give each CTA its own elements at line {store} (an index that differs per CTA rank, e.g. cluster_ctarank() * <elements per CTA> + thread_idx_x()), or use atomic_add");
}
TEST_CASE("race-free: 2x2, slices named by the CTA's coordinates", "[races][corpus]") { lowers(gather_2x2); }
TEST_CASE("racy: 2x1, slices in a constant loop overlap", "[races][corpus]") {
  refused(gather_loop_2x1,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'gather' of CTA rank 0: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(gather, 0) and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 0 through map_shared_rank(gather, 0) may run at the same time: its indices overlap across CTAs (both reach element 64, in iterations 2 apart of the loop at test_race_corpus_cluster.cpp:{loop})\n  fix: give each CTA its own elements at line {store} (an index that differs per CTA rank, e.g. cluster_ctarank() * <elements per CTA> + thread_idx_x()), or use atomic_add");
}
TEST_CASE("race-free: 2x1, disjoint slices written in a constant loop", "[races][corpus]") { lowers(gather_loop_2x1); }

// ---- 5. full/empty exchanges across a loop's back edge ------------------------------

namespace {

// Rank 1 fills rank 0's buffer each iteration; rank 0 reads it and hands it back.
// One loop with a branch per rank. Racy: the producer does not wait on 'empty'.
ir::Kernel full_empty_one_loop(bool racy, Marks& marks) {
  KernelBuilder k("full_empty");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto full = k.mbarriers("full", 1, 32);
  auto empty = k.mbarriers("empty", 1, 32);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  MARK("loop"); for_(0, n, [&](i32 it) {
    if_(cluster_ctarank() == 1, [&] {
      if (!racy) if_(it > 0, [&] { wait(empty[0]); });
      MARK("store"); map_shared_rank(buf, 0)[thread_idx_x()] = cast<float>(it);
      arrive(map_shared_rank(full, 0)[0]);
    });
    if_(cluster_ctarank() == 0, [&] {
      wait(full[0]);
      MARK("read"); out[it * 32 + thread_idx_x()] = buf[thread_idx_x()];
      arrive(map_shared_rank(empty, 1)[0]);
    });
  });
  cluster_sync();
  return k.build();
}

// The same with a loop per rank; racy: the consumer hands the buffer back before reading it.
ir::Kernel full_empty_two_loops(bool racy, Marks& marks) {
  KernelBuilder k("full_empty_2");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto full = k.mbarriers("full", 1, 32);
  auto empty = k.mbarriers("empty", 1, 32);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  if_(cluster_ctarank() == 1, [&] {
    MARK("ploop"); for_(0, n, [&](i32 it) {
      if_(it >= 1, [&] { wait(empty[0]); });
      MARK("store"); map_shared_rank(buf, 0)[thread_idx_x()] = cast<float>(it);
      arrive(map_shared_rank(full, 0)[0]);
    });
  });
  if_(cluster_ctarank() == 0, [&] {
    MARK("cloop"); for_(0, n, [&](i32 it) {
      wait(full[0]);
      if (racy) arrive(map_shared_rank(empty, 1)[0]);
      MARK("read"); out[it * 32 + thread_idx_x()] = buf[thread_idx_x()];
      if (!racy) arrive(map_shared_rank(empty, 1)[0]);
    });
  });
  cluster_sync();
  return k.build();
}

// 4x1 ring: every CTA fills the next one's buffer and hands back the previous one's.
ir::Kernel full_empty_ring(bool racy, Marks& marks) {
  KernelBuilder k("full_empty_ring");
  k.threads(32).cluster(4);
  auto buf = k.shared<float>("buf", 32);
  auto full = k.mbarriers("full", 1, 32);
  auto empty = k.mbarriers("empty", 1, 32);
  auto out = k.param<float*>("out");
  i32 next = (cluster_ctarank() + 1) % 4, prev = (cluster_ctarank() + 3) % 4;
  MARK("loop"); for_(0, 16, [&](i32 it) {
    if (!racy) if_(it > 0, [&] { wait(empty[0]); });
    MARK("store"); map_shared_rank(buf, next)[thread_idx_x()] = cast<float>(it);
    arrive(map_shared_rank(full, next)[0]);
    wait(full[0]);
    MARK("read"); out[(block_idx_x() * 16 + it) * 32 + thread_idx_x()] = buf[thread_idx_x()];
    arrive(map_shared_rank(empty, prev)[0]);
  });
  cluster_sync();
  return k.build();
}

}  // namespace

TEST_CASE("racy: 2x1, the producer refills without waiting on 'empty'", "[races][corpus]") {
  refused(full_empty_one_loop,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, 0) may run at the same time (iteration i of the loop at test_race_corpus_cluster.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_race_corpus_cluster.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one");
}
TEST_CASE("race-free: 2x1, a full/empty exchange across the back edge of one loop", "[races][corpus]") {
  lowers(full_empty_one_loop);
}
TEST_CASE("racy: 2x1 loops per rank, the consumer releases before it reads", "[races][corpus]") {
  refused(full_empty_two_loops,
          "test_race_corpus_cluster.cpp:{read}: error: race on shared buffer 'buf' of CTA rank 0: the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, 0) and the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 may run at the same time (the loops at test_race_corpus_cluster.cpp:{ploop} and test_race_corpus_cluster.cpp:{cloop} meet in iterations 1 apart)\n  fix: hand over through mbarriers of the CTA that accesses second: arrive after line {store}, wait() before line {read}, and back again before the next overwrite");
}
TEST_CASE("race-free: 2x1, a full/empty exchange between a loop per rank", "[races][corpus]") { lowers(full_empty_two_loops); }
TEST_CASE("racy: 4x1 ring, the producer refills without waiting on 'empty'", "[races][corpus]") {
  refused(full_empty_ring,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 3 through map_shared_rank(buf, ((%cluster_ctarank + 1) % 4)) may run at the same time (iteration i of the loop at test_race_corpus_cluster.cpp:{loop} and iteration i + 1)\n  fix: add cluster_sync() at the end of the loop body at test_race_corpus_cluster.cpp:{loop} (after line {read}), so that no CTA starts the next iteration while a peer is still in this one");
}
TEST_CASE("race-free: 4x1 ring, a full/empty exchange across the back edge", "[races][corpus]") { lowers(full_empty_ring); }

// ---- messages -----------------------------------------------------------------------

namespace {

// The load runs before the helper's store, though the helper is written above it.
ir::Kernel helper_above(bool racy, Marks& marks) {
  KernelBuilder k("helper");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  auto out = k.param<float*>("out");
  auto publish = [&] { MARK("store"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = 1.0f; };
  buf[thread_idx_x()] = 0.0f;
  cluster_sync();
  MARK("read"); out[block_idx_x() * 32 + thread_idx_x()] = buf[thread_idx_x()];
  if (!racy) cluster_sync();
  publish();
  cluster_sync();
  return k.build();
}

// A statement that loads its own buffer and stores the peer's: it races with itself.
ir::Kernel self_race(bool racy, Marks& marks) {
  KernelBuilder k("self");
  k.threads(32).cluster(2);
  auto buf = k.shared<float>("buf", 32);
  buf[thread_idx_x()] = 1.0f;
  cluster_sync();
  if (racy) {
    MARK("both"); map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = buf[thread_idx_x()] + 1.0f;
  } else {
    auto v = var(buf[thread_idx_x()] + 1.0f, "v");
    cluster_sync();
    map_shared_rank(buf, cluster_ctarank() ^ 1)[thread_idx_x()] = v;
  }
  cluster_sync();
  return k.build();
}

}  // namespace

TEST_CASE("racy: a store in a helper written above the load it must follow names the lines in program order",
          "[races][corpus]") {
  refused(helper_above,
          "test_race_corpus_cluster.cpp:{store}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{read} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{store} by CTA rank 1 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) may run at the same time (no cluster barrier between them)\n  fix: add cluster_sync() after line {read} (the load) and before line {store} (the store) (or hand over with an mbarrier of the reading CTA: arrive after the first, wait() before the second)");
}
TEST_CASE("corrected: a cluster_sync after the load, before the helper's store", "[races][corpus]") { lowers(helper_above); }
TEST_CASE("racy: a statement racing with itself across CTAs", "[races][corpus]") {
  refused(self_race,
          "test_race_corpus_cluster.cpp:{both}: error: race on shared buffer 'buf' of CTA rank 0: the load at test_race_corpus_cluster.cpp:{both} by CTA rank 0 and the store at test_race_corpus_cluster.cpp:{both} by CTA rank 1 through map_shared_rank(buf, (%cluster_ctarank ^ 1)) may run at the same time: its indices overlap across CTAs (both reach element 0)\n  fix: split line {both} into the load into a local, cluster_sync(), and the store, or give each CTA its own elements");
}
TEST_CASE("corrected: the statement split into a load, cluster_sync and the store", "[races][corpus]") { lowers(self_race); }

// ---- transaction accounting: a phase spread over a loop of TMA loads ---------------

namespace {

constexpr uint32_t kBox = 32 * 4 * 4;  // a 32 x 4 f32 box

// One arrive_expect_tx for four boxes, loaded in a loop; refused when the trip count
// is a parameter (each trip is a phase of its own then).
ir::Kernel tma_loop(bool racy, Marks& marks) {
  KernelBuilder k("tma_loop");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 512, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    MARK("expect"); arrive_expect_tx(full[0], u32(4 * kBox));
    MARK("loop"); for_(0, racy ? i32(n) : i32(4), [&](i32 j) {
      MARK("load"); tma_load(tile[j * 128], src, {i32(0), j * 4}, full[0]);
    });
  });
  wait(full[0]);
  out[thread_idx_x()] = tile[thread_idx_x()];
  return k.build();
}

// 2x1: each CTA's first thread loads two boxes per phase in a constant loop.
ir::Kernel tma_loop_cluster(Marks&) {
  KernelBuilder k("tma_loop_cluster");
  k.threads(64).cluster(2);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto tile = k.dynamic_shared<float>("tile", 256, 128);
  auto full = k.mbarriers("full", 1, 1);
  auto out = k.param<float*>("out");
  if_(thread_idx_x() == 0, [&] {
    arrive_expect_tx(full[0], u32(2 * kBox));
    for_(0, 2, [&](i32 j) { tma_load(tile[j * 128], src, {i32(0), j * 4 + cluster_ctarank() * 8}, full[0]); });
  });
  wait(full[0]);
  out[block_idx_x() * 64 + thread_idx_x()] = tile[thread_idx_x()];
  return k.build();
}

}  // namespace

TEST_CASE("racy: one arrive_expect_tx before a loop of TMA loads whose trip count is a parameter", "[races][corpus]") {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(tma_loop(true, marks));
  REQUIRE(d.size() == 2);
  // The kernel body's phase receives nothing, and each trip is a phase that announces nothing.
  CHECK(d[0].str() == expand("test_race_corpus_cluster.cpp:{expect}: error: transaction bytes of barrier 'full[0]' do not match in CTA rank 0: 2048 bytes announced with expect_tx (arrive_expect_tx at test_race_corpus_cluster.cpp:{expect}), 0 bytes delivered by the copies completing on it\n  fix: announce exactly the bytes that land in this CTA per phase, or add the missing copies", marks));
  CHECK(d[1].str() == expand("test_race_corpus_cluster.cpp:{load}: error: transaction bytes of barrier 'full[0]' do not match in CTA rank 0: the loop at test_race_corpus_cluster.cpp:{loop} delivers 512 bytes per iteration (first copy at test_race_corpus_cluster.cpp:{load}) and announces none: each iteration of a loop is a phase of its own, unless the loop has a constant trip count (under 64) and no arrive or wait inside, which makes it part of the phase around it\n  fix: announce the bytes inside the loop (arrive_expect_tx each iteration), or give the loop a constant trip count so that the expect_tx before it covers every trip", marks));
}
TEST_CASE("corrected: one arrive_expect_tx before a loop of four TMA loads", "[races][corpus]") { lowers(tma_loop); }
TEST_CASE("race-free: 2x1, one arrive_expect_tx per CTA before a constant loop of two TMA loads", "[races][corpus]") {
  lowers([](bool, Marks& m) { return tma_loop_cluster(m); });
}

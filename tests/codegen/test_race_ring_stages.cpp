// The race check's corpus for rings of stages: a consumer reads the stage whose
// barrier it waited on in that iteration, not another one.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "dsl/pipeline.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// A producer thread fills a ring of `stages` stages of 128 floats; a consumer warp
// waits for iteration it's stage, reads a stage and gives one back. The racy forms
// (`racy` and the mistake named) read the next iteration's stage (Mistake::ReadAhead),
// give back the next iteration's stage (ReleaseNext: release(it + 1)) or fill slot(it)
// after acquiring the previous iteration's (AcquirePrevious: acquire(it - 1)). The
// corrected forms read, release and acquire iteration it's stage; `masked` names the
// stage read with a different but equal expression (it & 1 for it % 2), and ReleaseNext's
// corrected form gives the previous stage back once the next wait is done (release(it - 1)
// from the second trip on).
enum class Mistake { ReadAhead, ReleaseNext, AcquirePrevious };
ir::Kernel ring_form(bool racy, Marks& marks, unsigned stages, Mistake mistake, bool masked = false) {
  KernelBuilder k("ring");
  k.threads(64);
  TensorMap src = k.tensor_map<float>("src", {32, 4});
  auto stage = k.dynamic_shared<float>("stage", stages * 128, 128);
  auto out = k.param<float*>("out");
  Pipeline pipe(k, "pipe", stages, 32);
  auto n = k.param<int32_t>("n");
  if_(thread_idx_x() == 0, [&] {
    for_(0, n, [&](i32 it) {
      MARK("acquire"); pipe.acquire(racy && mistake == Mistake::AcquirePrevious ? it - 1 : it);
      arrive_expect_tx(pipe.full(it), u32(512));
      MARK("load"); tma_load(stage[pipe.slot(it) * 128], src, {i32(0), it * 4}, pipe.full(it));
    });
  });
  if_(thread_idx_x() >= 32, [&] {
    for_(0, n, [&](i32 it) {
      MARK("wait"); pipe.wait_full(it);
      const i32 s = racy && mistake == Mistake::ReadAhead ? pipe.slot(it + 1) : masked ? (it & int32_t(stages - 1)) : pipe.slot(it);
      MARK("read"); out[it * 32 + thread_idx_x() - 32] = stage[s * 128 + thread_idx_x() - 32];
      if (mistake != Mistake::ReleaseNext) {
        pipe.release(it);
      } else if (racy) {
        MARK("release"); pipe.release(it + 1);
      } else {
        if_(it >= 1, [&] { pipe.release(it - 1); });
      }
    });
  });
  return k.build();
}

ir::Kernel ring(bool racy, Marks& marks, unsigned stages, bool masked) {
  return ring_form(racy, marks, stages, Mistake::ReadAhead, masked);
}

}  // namespace

TEST_CASE("racy: a consumer reads the next iteration's stage after waiting for this one's", "[codegen][verify][races]") {
  refused([](bool r, Marks& m) { return ring(r, m, 2, false); },
          "@{read}: error: the load at @{read} reads shared buffer 'stage' where another stage's copy may still be landing: "
          "the TMA load at @{load} fills the part it reads (stage[(((((i0 + 1) % 2) * 128) + %tid.x) - 32)]) and completes "
          "on pipe_full[(i % 2)], but this iteration waited on pipe_full[(i0 % 2)] at @{wait}: in some iterations these are "
          "different barriers\n"
          "  fix: read the part whose barrier this iteration waited on (a Pipeline's slot(it) with wait_full(it)), or wait on "
          "the barrier of the part it reads",
          "test_race_ring_stages.cpp");
}

TEST_CASE("corrected: the consumer reads the stage it waited for, however the index is written", "[codegen][verify][races]") {
  for (unsigned stages : {1u, 2u, 4u}) {
    INFO(stages);
    lowers([&](bool r, Marks& m) { return ring(r, m, stages, false); });
    lowers([&](bool r, Marks& m) { return ring(r, m, stages, true); });
  }
}

TEST_CASE("racy: with four stages, reading two ahead", "[codegen][verify][races]") {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(ring(true, marks, 4, false));
  REQUIRE(d.size() == 1);
  CHECK(d[0].str().find("another stage's copy may still be landing") != std::string::npos);
}

TEST_CASE("racy: a consumer gives back the next iteration's stage, which it then reads", "[codegen][verify][races]") {
  for (unsigned stages : {2u, 4u}) {
    INFO(stages);
    refused([&](bool r, Marks& m) { return ring_form(r, m, stages, Mistake::ReleaseNext); },
            "@{read}: error: the load at @{read} reads shared buffer 'stage' after the arrive at @{release} gave it back to its "
            "producer before these threads had waited for its fill (the arrive gives back a stage that a later iteration "
            "reads): the TMA load at @{load} may already be refilling it\n"
            "  fix: give back the stage this iteration waited for and read (a Pipeline's release(it) after wait_full(it)), "
            "after its last read",
            "test_race_ring_stages.cpp");
    lowers([&](bool r, Marks& m) { return ring_form(r, m, stages, Mistake::ReleaseNext); });
  }
}

TEST_CASE("racy: a producer fills slot(it) after acquiring the previous iteration's stage", "[codegen][verify][races]") {
  refused([&](bool r, Marks& m) { return ring_form(r, m, 2, Mistake::AcquirePrevious); },
          "@{load}: error: the TMA load at @{load} refills shared buffer 'stage', which the load at @{read} (other threads) "
          "reads, after waiting on pipe_empty[0] at @{acquire} for another stage's release: in trip 3 of its loop it fills "
          "stage[128..256), which no wait of that trip gives back\n"
          "  fix: wait for the release of the stage it fills (a Pipeline's acquire(it) before filling its slot(it)) before "
          "line {load}",
          "test_race_ring_stages.cpp");
  for (unsigned stages : {1u, 2u, 4u}) lowers([&](bool r, Marks& m) { return ring_form(r, m, stages, Mistake::AcquirePrevious); });
}

namespace {

// Double-buffered TMA-store staging: each iteration writes buffer u % 2 (u a local
// stepped by one), stores it and keeps one store group in flight. Racy: no
// bulk_wait_read, so the buffer is rewritten while the store two iterations back may
// still read it.
ir::Kernel store_staging(bool racy, Marks& marks) {
  KernelBuilder k("store_staging");
  k.threads(128);
  auto dst = k.tensor_map<float>("dst", {32, 32});
  auto in = k.param<float*>("in");
  auto n = k.param<int32_t>("n");
  auto staging = k.shared<float>("staging", 2 * 1024);
  auto u = var(i32(0), "u");
  for_(0, n, [&](i32 t) {
    const i32 b = i32(u) % 2;
    if (!racy) if_(thread_idx_x() == 0, [&] { bulk_wait_read(1); });
    sync_threads();
    MARK("write"); for (int j = 0; j < 8; ++j) staging[b * 1024 + j * 128 + thread_idx_x()] = in[t * 1024 + j * 128 + thread_idx_x()];
    fence_proxy_async();
    sync_threads();
    if_(thread_idx_x() == 0, [&] {
      MARK("store"); tma_store(dst, {i32(0), t * 32}, staging[b * 1024]);
      bulk_commit();
    });
    u = u + 1;
  });
  if_(thread_idx_x() == 0, [&] { bulk_wait(0); });
  return k.build();
}

}  // namespace

TEST_CASE("racy: double-buffered store staging by a stepped local, with no bulk_wait_read", "[codegen][verify][races]") {
  refused(store_staging,
          "@{write}: error: the store at @{write} overwrites shared buffer 'staging' while the TMA store at @{store} may "
          "still be reading it\n"
          "  fix: call bulk_commit() after the store and bulk_wait_read(n) between line {store} and line {write}, n at most "
          "the store groups committed since",
          "test_race_ring_stages.cpp");
}

TEST_CASE("corrected: double-buffered store staging by a stepped local keeps one group in flight", "[codegen][verify][races]") {
  lowers(store_staging);
}

TEST_CASE("racy: a TMA store still reading shared memory when the CTA exits", "[codegen][verify][races]") {
  auto build = [](bool racy, Marks& marks) {
    KernelBuilder k("store_then_exit");
    k.threads(128);
    auto dst = k.tensor_map<float>("dst", {32, 32});
    auto staging = k.shared<float>("staging", 1024);
    for (int j = 0; j < 8; ++j) staging[j * 128 + thread_idx_x()] = 1.0f;
    fence_proxy_async();
    sync_threads();
    if_(thread_idx_x() == 0, [&] {
      MARK("store"); tma_store(dst, {i32(0), i32(0)}, staging[0]);
      bulk_commit();
      if (!racy) bulk_wait_read(0);
    });
    return k.build();
  };
  refused(build,
          "@{store}: error: the TMA store at @{store} may still be reading shared buffer 'staging' when the CTA exits: no "
          "bulk_wait_read(0) or bulk_wait(0) follows its bulk_commit() on some path to the end; the CTA's shared memory is "
          "released at exit while the copy engine reads it\n"
          "  fix: call bulk_wait_read(0) (or bulk_wait(0), which also waits for the global writes) in the issuing thread "
          "after line {store}, before the kernel ends",
          "test_race_ring_stages.cpp");
  lowers(build);
}

TEST_CASE("racy: an MMA operand overwritten in the next iteration names the mma_wait it needs", "[codegen][verify][races]") {
  auto build = [](bool racy, Marks& marks) {
    KernelBuilder k("operand_rewrite");
    k.threads(128);
    SharedTile a = k.shared_tile<bf16>("a", 64, 64), b = k.shared_tile<bf16>("b", 64, 64);
    Accumulator acc = k.accumulator("acc", 64, 64);
    auto x = k.param<bf16*>("x");
    auto n = k.param<int32_t>("n");
    k.role("math", 1, 0, [&](i32) {
      for_(0, n, [&](i32 it) {
        MARK("write"); for_(0, 32, [&](i32 j) { Ptr<bf16>(a.ref)[j * 128 + thread_idx_x()] = x[(it * 32 + j) * 128 + thread_idx_x()]; });
        fence_proxy_async();
        role_sync();
        MARK("mma"); mma(acc, stage(a, 0), stage(b, 0), it > 0);
        if (!racy) mma_wait(0);
      });
      mma_wait(0);
    });
    return k.build();
  };
  refused(build,
          "@{write}: error: the store at @{write} overwrites shared buffer 'a' while the mma at @{mma} may still be reading it\n"
          "  fix: call mma_wait(0) after line {mma} and before line {write} of the next iteration",
          "test_race_ring_stages.cpp");
  lowers(build);
}

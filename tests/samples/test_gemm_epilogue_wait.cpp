// GEMM epilogue_wait: which TMA store an epilogue chunk waits for before its buffer is
// written. 1 (the default): after the write, for the chunk before it; 2: before the write,
// for every store but the last (two in flight). Both pass the race check, whose async-proxy
// part sees a store's source overwritten before its read completed; 2 adds a barrier a
// chunk. No GPU needed (the GPU runs them in tests/gpu/test_gemm.cpp, "[epilogue_wait]").
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "samples/gemm.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;

TEST_CASE("gemm epilogue_wait: 1 unless named", "[samples][gemm][epilogue_wait]") {
  const std::map<std::string, int64_t> base = {{"m", 4362}, {"n", 2968}, {"k", 1824}, {"bm", 192}, {"bn", 176}, {"consumers", 3}};
  CHECK(samples::gemm_tiling(test::gemm_config(base)).epilogue_lag == 1);
  std::map<std::string, int64_t> two = base;
  two["epilogue_wait"] = 2;
  CHECK(samples::gemm_tiling(test::gemm_config(two)).epilogue_lag == 2);
}

TEST_CASE("gemm epilogue_wait 2: each chunk waits before its write for all stores but the last, and passes the race check",
          "[samples][gemm][epilogue_wait]") {
  struct Case {
    std::map<std::string, int64_t> params;
    size_t chunks;     // epilogue chunks per warpgroup and tile, the tail included
    size_t after_last;  // of them, chunks whose buffer the store just before read (a wait for every store)
  };
  for (const Case& w : std::vector<Case>{
           {{{"bm", 192}, {"bn", 176}, {"consumers", 3}}, 6, 0},  // 64-byte chunks: 5 and a tail of 16
           {{{"bn", 208}}, 4, 0},                                  // 128-byte chunks: 3 and a tail
           {{{"bn", 256}}, 4, 0},
           {{{"bn", 256}, {"epilogue_buffers", 1}}, 4, 4},          // one buffer: every chunk after the one before
           {{{"swap", 1}, {"bn", 192}}, 3, 1},                      // 3 chunks: a tile's first after the last one's buffer
       }) {
    std::string what;
    for (auto& [key, v] : w.params) what += key + "=" + std::to_string(v) + " ";
    INFO(what);
    std::map<std::string, int64_t> p = w.params;
    p.insert({{"m", 3000}, {"n", 3000}, {"k", 1024}});
    const samples::Config one = test::gemm_config(p);
    p["epilogue_wait"] = 2;
    const samples::Config two = test::gemm_config(p);
    REQUIRE(test::gemm_problems(two).empty());
    const codegen::Lowered l1 = codegen::lower(test::gemm_sample().build(one), codegen::Target::sm90a());
    const codegen::Lowered l2 = codegen::lower(test::gemm_sample().build(two), codegen::Target::sm90a());
    CHECK(test::race_verified(l1, "async proxy"));
    CHECK(test::race_verified(l2, "async proxy"));
    // Lag 1: after each chunk's write, a wait for every store, then the chunk's barrier;
    // before the write too where its buffer is the previous chunk's.
    CHECK(test::occurrences(l1.cuda, "tj::bulk_wait_read<0>();") == w.chunks + w.after_last);
    CHECK(test::occurrences(l1.cuda, "tj::bulk_wait_read<1>();") == 0);
    CHECK(test::occurrences(l1.cuda, "named_barrier_sync(") == w.chunks + w.after_last);
    // Lag 2: one wait per chunk, before its write: for all but the last store, or for every
    // store where the last one read this buffer; a barrier before and after the write.
    CHECK(test::occurrences(l2.cuda, "tj::bulk_wait_read<0>();") == w.after_last);
    CHECK(test::occurrences(l2.cuda, "tj::bulk_wait_read<1>();") == w.chunks - w.after_last);
    CHECK(test::occurrences(l2.cuda, "named_barrier_sync(") == 2 * w.chunks);
    test::compile_without_spills(l2, what);
  }
}

// GEMM tiles whose width is not a whole number of epilogue chunks, on the GPU against cuBLAS:
// any multiple of 16 columns, and odd multiples of 8 (wgmma's N step: tails of an odd count
// of n8 groups, stored in pairs), through the tail's buffer and maps, with multicast slices,
// C, f32 out, the fused epilogue, stream-K, split-K, ping-pong and the swapped tile.
#include "tests/gpu/gemm_check.h"
#include "tests/gpu/gpu_fixture.h"

#include "samples/gemm.h"

namespace {

using tj::gpu_test::check;
using tj::gpu_test::GemmCase;

}  // namespace

TEST_CASE("gemm: tile widths of any multiple of 16 against cuBLAS [gpu]", "[gpu][gemm][widths]") {
  const int64_t off = int64_t(tj::samples::GemmMulticast::Off);
  const std::vector<GemmCase> cases = {
      {1000, 1000, 1000, {{"bn", 80}}},                                           // tail 16 (32 bytes)
      {777, 1304, 520, {{"bn", 144}}, {1, 2, 1}},                                 // B's 144 rows as two 72-row slices
      {600, 1000, 3000, {{"bn", 208}, {"multicast", off}}},                       // tail 16, unaligned rows
      {1024, 1000, 1024, {{"bn", 240}}, {2, 1, 1}},                               // tail 48 (96 bytes, plain)
      {1024, 1000, 1024, {{"bn", 160}}, {2, 1, 1}},                               // tail 32 (64 bytes)
      {300, 200, 264, {{"bn", 48}}},                                              // the tail is the whole tile
      {513, 700, 264, {{"bn", 112}, {"out", 2}}},                                 // f32: tail 16 (64 bytes)
      {1000, 1000, 1000, {{"bn", 176}}, {1, 1, 1}, 1.5, -0.75},                   // C through C_tail
      {1000, 1000, 1000, {{"bn", 176}, {"out", 1}}, {1, 2, 1}, 1.0, 1.0},         // f16 out with C
      {1000, 1000, 3000, {{"bn", 144}, {"bias", 1}, {"act", 2}, {"residual", 1}}},  // fused epilogue + R
      {1024, 1120, 4096, {{"bn", 80}, {"schedule", 2}}},                          // stream-K
      {512, 720, 8192, {{"bn", 144}, {"schedule", 3}, {"splits", 4}, {"split_reduce", 1}}},  // split-K, workspace
      {1024, 1000, 1024, {{"bn", 144}, {"pingpong", 1}, {"schedule", 1}}},        // ping-pong
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 900 + i);
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {4608, 1536, 1024, {}, pair, 1.0, 0.0, true, {{"bn", 144}}},
           {3072, 2304, 512, {}, pair, 1.0, 0.0, true, {{"bn", 144}}},
           {1000, 1280, 4096, {}, pair, 1.0, 0.0, true, {{"bn", 80}}},
           {1000, 1280, 16384, {}, pair, 1.0, 0.0, true, {{"bn", 160}, {"splits", 2}}},  // the long-K split
           {8192, 1280, 1000, {}, pair, 1.0, 0.0, true, {{"bn", 320}}, "(1,2,1)"},  // the wide tile (kGemmWideBn), in a pair
       })
    check(g, 4343);
}

TEST_CASE("gemm: tile widths of odd multiples of 8 against cuBLAS [gpu]", "[gpu][gemm][widths][widths8]") {
  const int64_t on = int64_t(tj::samples::GemmMulticast::On);
  const std::vector<GemmCase> cases = {
      {1000, 1000, 1000, {{"bn", 88}}},                                        // tail 24 (48 bytes, plain)
      {1000, 1000, 1000, {{"bn", 8}}},                                         // one n8 group: the tail is the tile
      {300, 200, 264, {{"bn", 40}}},                                           // the tail is the whole tile
      {777, 1304, 520, {{"bn", 88}, {"multicast", on}}, {1, 2, 1}},            // B's 88 rows as two 44-row slices
      {1000, 1000, 2000, {{"bn", 88}, {"multicast", on}}, {1, 4, 1}},          // four 22-row slices
      {1100, 330, 1000, {{"bn", 88}, {"bk", 32}, {"multicast", on}}, {1, 2, 1}},  // 64-byte rows: even slices
      {1917, 680, 4096, {{"bn", 88}, {"multicast", on}}, {4, 1, 1}},           // A shared by four column tiles
      {513, 700, 264, {{"bn", 104}, {"out", 2}}},                              // f32: tail 8 (32 bytes)
      {1000, 1000, 1000, {{"bn", 72}}, {1, 1, 1}, 1.5, -0.75},                 // C through C_tail
      {1000, 1000, 3000, {{"bn", 120}, {"bias", 1}, {"act", 2}, {"residual", 1}}},  // fused epilogue + R
      {1000, 1000, 1000, {{"bn", 88}, {"epilogue_chunk", 64}, {"epilogue_buffers", 1}, {"stages", 7}}},
      {1024, 1120, 4096, {{"bn", 88}, {"schedule", 2}}},                       // stream-K
      {512, 720, 8192, {{"bn", 72}, {"schedule", 3}, {"splits", 4}, {"split_reduce", 1}}},  // split-K, workspace
      {1024, 1000, 1024, {{"bn", 88}, {"pingpong", 1}, {"schedule", 1}}},      // ping-pong
      {188, 1408, 1608, {{"bm", 64}, {"consumers", 1}, {"bn", 40}, {"swap", 1}}, {2, 2, 1}},  // swapped
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1700 + i);
}

// Split-K's pair fitted to N on the default path (kGemmSplitFit), as `tilejit run` decides it for
// this GPU: two tiles of half of N in 2x1 (338 x 192, 400 x 160: 80 columns), one of N's width in
// 1x2 sharing B (350 x 96, 461 x 104), with f32 out, alpha and beta, and the fused epilogue.
TEST_CASE("gemm: split-K's pair fitted to N on the default path against cuBLAS [gpu]", "[gpu][gemm][widths][split_fit]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const int64_t split_k = int64_t(tj::samples::GemmSchedule::SplitK);
  for (const GemmCase& g : std::vector<GemmCase>{
           {338, 192, 18144, {}, pair, 1.0, 0.0, true, {{"bn", 96}, {"schedule", split_k}}, "(2,1,1)"},
           {400, 160, 16000, {}, pair, 1.0, 0.0, true, {{"bn", 80}, {"schedule", split_k}}, "(2,1,1)"},
           {350, 96, 20000, {}, pair, 1.0, 0.0, true, {{"bn", 96}, {"schedule", split_k}}, "(1,2,1)"},
           {461, 104, 12464, {}, pair, 1.0, 0.0, true, {{"bn", 104}, {"schedule", split_k}}, "(1,2,1)"},
           {338, 192, 18144, {{"out", 2}}, pair, 1.5, -0.5, true, {{"bn", 96}}, "(2,1,1)"},
           {300, 200, 16384, {{"bias", 1}, {"act", 2}, {"residual", 1}}, pair, 1.0, 0.0, true, {{"bn", 104}}, "(2,1,1)"},
       })
    check(g, 4545);
}

// The GEMM sample on the GPU against cuBLAS (the instance's check: cuBLAS on
// the same device inputs, an f32 reference and a per-element bound): shapes
// with ragged edges, tiles, clusters, both B layouts, input and output types,
// alpha and beta.
#include "tests/gpu/gemm_check.h"
#include "tests/gpu/gpu_fixture.h"

#include "samples/builtin.h"
#include "samples/gemm.h"
#include "samples/gemm_host.h"
#include "runtime/error.h"

namespace {

using tj::gpu_test::check;
using tj::gpu_test::GemmCase;

}  // namespace

TEST_CASE("gemm: tile shapes and ragged edges against cuBLAS [gpu]", "[gpu][gemm]") {
  const std::vector<GemmCase> cases = {
      {512, 512, 512, {}},
      {1000, 1000, 1000, {}},                       // ragged in M, N and K
      {129, 264, 72, {}},                           // one row and a few columns past a tile; K of one ragged block
      {1, 8, 8, {}},                                // smaller than any tile
      {777, 520, 4104, {{"bm", 256}, {"bn", 128}}},
      {640, 384, 256, {{"bm", 128}, {"bn", 128}}},
      {300, 200, 264, {{"bn", 192}}},
      {256, 256, 512, {{"bk", 128}, {"bn", 128}, {"stages", 2}}},
      {384, 128, 320, {{"consumers", 1}, {"bm", 64}, {"bn", 128}}},
      {2048, 2048, 2048, {{"group", 1}}},
      {1000, 1000, 1000, {{"bk", 32}}},                          // 64-byte-swizzled K rows, 8 stages
      {777, 520, 4104, {{"bk", 32}, {"bm", 256}, {"bn", 128}, {"stages", 5}}},
      {300, 264, 80, {{"bk", 32}, {"warp_specialized", 0}, {"bn", 128}, {"stages", 3}}},
      // Pipelines deeper than stages 0 picks: 15 and 12 stages of the small tile in clusters of 8, 16 of bk 32.
      {188, 1408, 1608, {{"bm", 64}, {"consumers", 1}, {"bn", 48}, {"swap", 1}, {"stages", 15}}, {2, 4, 1}},
      {308, 816, 2680, {{"bm", 64}, {"consumers", 1}, {"bn", 48}, {"stages", 12}}, {4, 2, 1}},
      {777, 520, 4104, {{"bk", 32}, {"bm", 64}, {"consumers", 1}, {"bn", 64}, {"stages", 16}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 100 + i);
}

// mma_depth: each consumer keeps that many k-blocks of MMAs in flight and gives a stage
// back that many k-blocks late (its last ones after the loop). Units with fewer k-blocks
// than the depth, ragged K, several units per CTA, split-K (by workspace and in the
// cluster), stream-K, ping-pong and multicast clusters.
TEST_CASE("gemm: MMA groups in flight (mma_depth) against cuBLAS [gpu]", "[gpu][gemm][mma_depth]") {
  const std::vector<GemmCase> cases = {
      {1024, 1024, 2048, {{"bn", 64}, {"mma_depth", 2}, {"schedule", 1}}, {1, 2, 1}},
      {1000, 1032, 1000, {{"bn", 64}, {"mma_depth", 3}, {"schedule", 1}}, {2, 1, 1}},
      {777, 520, 136, {{"mma_depth", 4}, {"bn", 128}}},                 // 3 k-blocks per tile: fewer than the depth
      {2048, 2048, 520, {{"mma_depth", 2}, {"group", 1}}},              // several tiles per CTA
      {1024, 1024, 4096, {{"mma_depth", 2}, {"bn", 128}, {"splits", 2}, {"schedule", 3}, {"split_reduce", 1}}},
      {1024, 1024, 4096, {{"mma_depth", 3}, {"bn", 128}, {"splits", 2}, {"schedule", 3}, {"split_reduce", 2}}, {1, 1, 2}},
      {1024, 1024, 200, {{"mma_depth", 2}, {"bn", 128}, {"splits", 4}, {"schedule", 3}, {"split_reduce", 2}}, {1, 1, 4}},
      {5120, 5120, 1024, {{"mma_depth", 2}, {"schedule", 2}}, {1, 2, 1}},  // stream-K
      {3000, 2600, 512, {{"mma_depth", 2}, {"pingpong", 1}, {"bm", 64}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 260 + i);
}

TEST_CASE("gemm: cluster shapes with TMA multicast against cuBLAS [gpu]", "[gpu][gemm][multicast]") {
  const std::vector<GemmCase> cases = {
      {1024, 1024, 1024, {}, {2, 1, 1}},
      {1024, 1024, 1024, {}, {1, 2, 1}},
      {1024, 1024, 1024, {}, {2, 2, 1}},
      {1024, 1024, 1024, {{"multicast", 0}}, {2, 1, 1}},  // a cluster whose CTAs each load their own tiles
      {999, 1000, 520, {}, {2, 1, 1}},             // ragged, with an odd number of tiles per cluster row
      {1100, 704, 600, {{"bn", 128}}, {2, 2, 1}},
      {520, 2056, 1000, {{"bm", 256}, {"bn", 128}}, {1, 2, 1}},
      {1000, 1104, 1000, {{"bk", 32}}, {2, 2, 1}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 200 + i);
}

// Multicast slices that start inside the 8-row swizzle atom: B's 112 rows as 4 slices of 28
// (128-byte rows, and 64-byte rows with bk 32), 208 as 4 of 52, 80 as 4 of 20 in 2x4; ragged
// M and N, beta, f32 out; and the default path taking four along M, with the fused epilogue.
TEST_CASE("gemm: multicast slices off the 8-row swizzle atom against cuBLAS [gpu]", "[gpu][gemm][multicast][slices]") {
  const std::vector<GemmCase> cases = {
      {1000, 336, 2000, {{"bn", 112}, {"multicast", 1}}, {1, 4, 1}},
      {1100, 330, 1000, {{"bn", 112}, {"bk", 32}, {"multicast", 1}}, {1, 4, 1}},
      {900, 620, 700, {{"bn", 208}, {"multicast", 1}}, {1, 4, 1}, 1.0, 1.0},
      {1024, 400, 1000, {{"bn", 80}, {"multicast", 1}, {"out", 2}}, {2, 4, 1}},
      // The default path's four along M (kGemmQuadAlongMPairs): 80 columns, slices of 20.
      {3000, 330, 4096, {}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 80}}, "(1,4,1)"},
      {3000, 330, 4096, {{"bias", 1}, {"act", 2}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 80}}, "(1,4,1)"},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 4747 + i);
}

// Consumers that split the tile's columns (coop cols): each warpgroup all bm rows by its
// share of bn, through chunk buffers of its own (one or two), the tail at each share's end;
// 192- and 256-row tiles, 128 x 320 in two m64n160 from shared memory, three consumers;
// multicast, C, the fused epilogue and R, f32 out, stream-K, split-K and dynamic.
TEST_CASE("gemm: consumers that split the tile's columns (coop cols) against cuBLAS [gpu]", "[gpu][gemm][coop]") {
  const int64_t cols = 1, gelu = int64_t(tj::samples::GemmAct::Gelu);
  const std::vector<GemmCase> cases = {
      {1000, 1000, 1000, {{"bm", 192}, {"bn", 208}, {"coop", cols}}},                               // shares of 104: tail 8
      {4362, 2968, 1824, {{"bm", 192}, {"bn", 176}, {"coop", cols}}},                               // one buffer, 4 stages
      {1000, 1000, 1000, {{"bm", 192}, {"bn", 192}, {"coop", cols}, {"epilogue_buffers", 2}, {"stages", 3}}, {2, 1, 1}, 1.5, -0.75},
      {777, 1304, 520, {{"bm", 256}, {"bn", 192}, {"coop", cols}}, {1, 2, 1}},                      // B's slices of 96
      {1024, 1000, 1024, {{"bm", 128}, {"bn", 320}, {"coop", cols}}, {1, 2, 1}},
      {1000, 1000, 3000, {{"bm", 192}, {"bn", 208}, {"coop", cols}, {"bias", 1}, {"act", gelu}, {"residual", 1}}},
      {1024, 1120, 4096, {{"bm", 192}, {"bn", 192}, {"coop", cols}, {"schedule", 2}}},              // stream-K
      {512, 720, 8192, {{"bm", 192}, {"bn", 144}, {"coop", cols}, {"schedule", 3}, {"splits", 4}, {"split_reduce", 1}}},
      {1000, 1000, 1000, {{"bm", 192}, {"bn", 160}, {"coop", cols}, {"out", 2}}, {1, 1, 1}, 2.0, 0.5},  // f32: tail 16
      {1000, 1000, 1000, {{"bm", 128}, {"bn", 192}, {"consumers", 3}, {"coop", cols}}},
      {2048, 2048, 1024, {{"bm", 192}, {"bn", 192}, {"coop", cols}, {"schedule", 4}}},              // dynamic
      {3000, 3000, 3000, {{"bm", 192}, {"bn", 192}, {"coop", cols}}, {2, 1, 1}},                    // several tiles per CTA
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 5151 + i);
}

// Epilogue chunks that wait, before the write, for the store two chunks back (epilogue_wait
// 2: two stores in flight): tails after an odd and an even count of whole chunks (176, 208,
// 320 columns), one buffer, several tiles per CTA (a tile's first chunk after the last
// one's buffer), swapped, ping-pong, coop cols, the fused epilogue, f32 out, split-K in the
// cluster, stream-K and the C path (beta, which waits so already).
TEST_CASE("gemm: epilogue chunks waiting for the store two chunks back against cuBLAS [gpu]", "[gpu][gemm][epilogue_wait]") {
  const int64_t cols = 1, gelu = int64_t(tj::samples::GemmAct::Gelu);
  const std::vector<GemmCase> cases = {
      {4362, 2968, 1824, {{"bm", 192}, {"bn", 176}, {"consumers", 3}, {"epilogue_wait", 2}}},  // 64-byte chunks, tail 16
      {3000, 3000, 3000, {{"bn", 208}, {"epilogue_wait", 2}}, {2, 1, 1}},                        // 3 chunks + tail 16
      {3000, 2000, 1000, {{"bn", 192}, {"epilogue_wait", 2}}},                                     // 3 chunks: odd, no tail
      {4096, 4096, 1024, {{"bn", 256}, {"epilogue_wait", 2}}, {2, 1, 1}},
      {2048, 2048, 1024, {{"bn", 256}, {"epilogue_wait", 2}, {"epilogue_buffers", 1}}},
      {2000, 2000, 2048, {{"bn", 320}, {"stages", 3}, {"epilogue_wait", 2}}, {1, 2, 1}},
      {2000, 3000, 1000, {{"swap", 1}, {"bn", 192}, {"epilogue_wait", 2}}},
      {3000, 3000, 1024, {{"pingpong", 1}, {"bm", 128}, {"bn", 128}, {"epilogue_wait", 2}}},
      {3000, 3000, 3000, {{"bm", 192}, {"bn", 192}, {"coop", cols}, {"epilogue_wait", 2}}, {2, 1, 1}},
      {3000, 2000, 1000, {{"bn", 176}, {"bias", 1}, {"act", gelu}, {"residual", 1}, {"epilogue_wait", 2}}},
      {2000, 2000, 1000, {{"bn", 160}, {"out", 2}, {"epilogue_wait", 2}}, {1, 1, 1}, 2.0, 0.0},
      {1024, 1024, 8192, {{"bn", 128}, {"schedule", 3}, {"splits", 2}, {"epilogue_wait", 2}}, {1, 1, 2}},
      {2000, 7000, 4096, {{"schedule", 2}, {"epilogue_wait", 2}}},
      {1000, 1000, 1000, {{"bn", 208}, {"epilogue_wait", 2}}, {1, 1, 1}, 1.5, -0.75},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 6262 + i);
}

// Consumers that wait for each k-block's MMAs and give its stage back before the next
// k-block's data (stage_release 2): cooperative with two and three consumers, ping-pong, one
// consumer, coop cols, multicast in clusters, split-K (in the cluster and through the
// workspace), stream-K and dynamic, swapped, the fused epilogue and C.
TEST_CASE("gemm: stages given back as soon as their MMAs complete against cuBLAS [gpu]", "[gpu][gemm][stage_release]") {
  const int64_t cols = 1, gelu = int64_t(tj::samples::GemmAct::Gelu);
  const std::vector<GemmCase> cases = {
      {4362, 2968, 1824, {{"bm", 192}, {"bn", 176}, {"consumers", 3}, {"stage_release", 2}}},
      {3000, 3000, 3000, {{"bn", 256}, {"stage_release", 2}}, {2, 1, 1}},
      {2000, 3000, 1000, {{"bn", 192}, {"multicast", 1}, {"stage_release", 2}}, {2, 2, 1}},
      {3000, 3000, 1024, {{"pingpong", 1}, {"bm", 128}, {"bn", 128}, {"stage_release", 2}}},
      {1000, 1000, 2048, {{"bm", 64}, {"bn", 128}, {"consumers", 1}, {"stage_release", 2}}, {1, 2, 1}},
      {3000, 3000, 3000, {{"bm", 192}, {"bn", 192}, {"coop", cols}, {"stage_release", 2}}, {2, 1, 1}},
      {1024, 1024, 8192, {{"bn", 128}, {"schedule", 3}, {"splits", 2}, {"stage_release", 2}}, {1, 1, 2}},
      {512, 720, 8192, {{"bn", 144}, {"schedule", 3}, {"splits", 4}, {"stage_release", 2}}},
      {2000, 7000, 4096, {{"bn", 256}, {"schedule", 2}, {"stage_release", 2}}, {1, 2, 1}},
      {2048, 2048, 1024, {{"bn", 192}, {"schedule", 4}, {"stage_release", 2}}},
      {2000, 3000, 1000, {{"swap", 1}, {"bn", 192}, {"stage_release", 2}}},
      {3000, 2000, 1000, {{"bn", 176}, {"bias", 1}, {"act", gelu}, {"residual", 1}, {"stage_release", 2}}},
      {1000, 1000, 1000, {{"bn", 208}, {"stage_release", 2}}, {1, 1, 1}, 1.5, -0.75},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 7373 + i);
}

TEST_CASE("gemm: layouts, element types, alpha and beta against cuBLAS [gpu]", "[gpu][gemm]") {
  const std::vector<GemmCase> cases = {
      {1024, 1024, 1024, {{"layout", 1}}},                        // nn: B read N-major
      {1000, 1000, 1000, {{"layout", 1}}, {2, 1, 1}},
      {777, 1032, 520, {{"layout", 1}, {"bn", 128}}, {2, 2, 1}},
      {1024, 768, 512, {{"dtype", 1}}},                           // f16 in
      {1024, 768, 512, {{"out", 2}, {"bn", 128}}},                // f32 out
      {1000, 760, 512, {{"dtype", 1}, {"out", 1}}},               // f16 in, f16 out
      {1024, 1024, 1024, {}, {1, 1, 1}, 0.5, 0.0},
      {1000, 1000, 1000, {}, {1, 1, 1}, 1.5, -0.75},              // beta reads C
      {1024, 1024, 512, {{"layout", 1}, {"out", 2}, {"bn", 128}}, {2, 1, 1}, 2.0, 1.0},
      {1000, 1032, 1000, {{"layout", 1}, {"bk", 32}}, {1, 2, 1}},  // nn with bk 32: A 64-byte-, B 128-byte-swizzled
      {1024, 768, 520, {{"dtype", 1}, {"bk", 32}}, {1, 1, 1}, 1.5, -0.75},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 300 + i);
}

TEST_CASE("gemm: tiles wider than one wgmma (128x320: two m64n160, or m64n192 + m64n128 nn) against cuBLAS [gpu]",
          "[gpu][gemm]") {
  const std::vector<GemmCase> cases = {
      {1000, 1272, 1000, {{"bn", 320}, {"stages", 3}}, {1, 2, 1}},                    // B in two boxes per CTA
      {777, 1000, 520, {{"bn", 320}, {"stages", 3}, {"layout", 1}}, {1, 1, 1}},       // nn: panels 0-2, then 3-4
      {1024, 1280, 768, {{"bn", 320}, {"stages", 3}, {"out", 2}}, {2, 1, 1}, 2.0, 0.5},  // f32 out, beta reads C
      {1000, 1024, 768, {{"bn", 320}, {"stages", 3}, {"layout", 1}}, {2, 2, 1}, 1.0, -1.5},
      {2048, 2048, 2048, {{"bn", 320}, {"bk", 32}}, {1, 2, 1}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 400 + i);
}

// The persistent kernel with more tiles than CTAs (132 SMs: every case has 160 to 726
// tiles), so CTAs go on to a second and later tile: the pipeline's stage and phase carried
// over, the epilogue's chunk buffers reused (bn 192 and 320 end on an odd chunk, the
// bulk_wait_read branches), C read per tile, and the decisions made for this device.
TEST_CASE("gemm: several tiles per CTA in the persistent kernel against cuBLAS [gpu]", "[gpu][gemm][persistent]") {
  const std::vector<GemmCase> cases = {
      {3000, 2600, 512, {}},                                                   // bn 256: 24 x 11 tiles, ragged
      {4096, 3072, 256, {{"bn", 192}}},                                        // 32 x 16 tiles, odd chunk count
      {2048, 3200, 320, {{"bn", 320}, {"stages", 3}}, {1, 2, 1}},              // 16 x 10 tiles
      {3000, 2600, 512, {}, {1, 1, 1}, 1.5, -0.75},                            // beta reads C tile after tile
      {2000, 3000, 520, {{"bn", 192}}, {2, 1, 1}, 0.5, 2.0},                   // bn 192, beta, cluster 2x1
      {2048, 4096, 256, {{"out", 2}, {"bn", 128}}},                            // f32 out: 16 x 32 tiles
      {3000, 2600, 520, {{"layout", 1}}, {2, 1, 1}},                           // nn
      {3000, 2600, 512, {{"split_issue", 0}}, {1, 2, 1}},                      // the wgmma issued whole
      {2048, 3072, 512, {{"bn", 320}, {"stages", 3}, {"out", 2}}, {1, 1, 1}, 1.0, 1.0},
      {4224, 4224, 512, {}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 192}}},         // bn 0 -> 192 on 132 SMs
      {1024, 1024, 8192, {{"splits", 0}}, {1, 1, 1}, 1.0, 0.0, true, {{"splits", 4}}},  // splits 0 -> 4
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 600 + i);
}

// Ping-pong: the two consumers take alternate tiles of the persistent schedule, each
// with a whole 128x128 or 64x256 accumulator, and issue their main loops in turns.
// Odd and even tile counts per CTA (the last turn of consumer 0 never waited for), one
// tile per CTA (consumer 1 idle), clusters with multicast, both layouts, C read per tile,
// the fused epilogues with and without the residual, f32 out.
TEST_CASE("gemm: ping-pong consumers against cuBLAS [gpu]", "[gpu][gemm][pingpong]") {
  const std::map<std::string, int64_t> p128 = {{"pingpong", 1}, {"bm", 128}, {"bn", 128}};
  const std::map<std::string, int64_t> p64 = {{"pingpong", 1}, {"bm", 64}, {"bn", 256}};
  auto with = [](std::map<std::string, int64_t> p, std::map<std::string, int64_t> more) {
    for (auto& [k, v] : more) p[k] = v;
    return p;
  };
  const std::vector<GemmCase> cases = {
      {512, 512, 512, p128},                                                              // 16 tiles: one per CTA
      {3000, 2600, 512, p128},                                                            // 24 x 21 tiles, ragged
      {3000, 2600, 520, p64, {1, 2, 1}},                                                  // 47 x 11, cluster 1x2
      {4096, 4096, 1024, p128, {2, 1, 1}},                                                // 1024 tiles, 2x1
      {2000, 3000, 520, with(p128, {{"layout", 1}}), {2, 2, 1}},                          // nn, 2x2
      {3000, 2600, 512, p128, {1, 1, 1}, 1.5, -0.75},                                     // beta reads C tile after tile
      {3000, 2600, 512, with(p128, {{"bias", 1}, {"act", 2}})},                           // gelu(x + bias)
      {2048, 3000, 256, with(p64, {{"col_scale", 1}, {"act", 3}, {"residual", 1}}), {1, 2, 1}, 0.5},
      {2048, 4096, 256, with(p128, {{"out", 2}, {"bias", 1}, {"act", 1}})},               // relu, f32 out
      {1000, 1032, 4104, with(p64, {{"bk", 32}})},                                        // long K, bk 32
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 650 + i);
}

// The fused epilogue (GemmEpilogue): a column scale, a bias and an activation after
// alpha * A * B, against cuBLAS's f32 product with the epilogue applied in double on the
// host. Ragged N (the vectors are read clamped), both layouts, f32 and bf16 out, several
// tiles per CTA, split-K (the fix-up runs the same epilogue), one warpgroup.
TEST_CASE("gemm: fused epilogues (scale, bias, relu, gelu, silu) against cuBLAS [gpu]", "[gpu][gemm][epilogue]") {
  const std::vector<GemmCase> cases = {
      {3000, 2600, 512, {{"bias", 1}, {"act", 2}}},                                         // gelu(x + bias), bf16
      {3000, 2600, 520, {{"bias", 1}, {"act", 1}, {"out", 2}, {"bn", 128}}, {1, 2, 1}},     // relu, f32 out
      {2048, 3000, 256, {{"col_scale", 1}, {"bias", 1}, {"act", 3}}, {2, 1, 1}, 0.5},       // silu, alpha 0.5
      {1000, 1032, 512, {{"act", 2}, {"layout", 1}}},                                       // gelu alone, nn
      {4096, 4096, 512, {{"bias", 1}, {"act", 2}, {"bn", 192}}},                            // odd chunk count
      {1024, 1024, 4096, {{"bias", 1}, {"act", 2}, {"splits", 4}}},                         // split-K's fix-up
      {500, 712, 320, {{"col_scale", 1}, {"warp_specialized", 0}, {"bn", 128}}},            // one warpgroup
      // GELU works on x / 2: halves staged in both vectors (alpha 0.5), or read from global memory.
      {2048, 3000, 256, {{"col_scale", 1}, {"bias", 1}, {"act", 2}}, {2, 1, 1}, 0.5},
      {500, 712, 320, {{"col_scale", 1}, {"bias", 1}, {"act", 2}, {"warp_specialized", 0}, {"bn", 128}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 700 + i);
}

// The residual add: D = act(alpha * A * B * scale + bias) + R, R (M x N in D's type)
// loaded by TMA through the map C chunk by chunk and read by the epilogue function at
// each element (e[tile]). Ragged M and N (R's rows and columns past the edge come in as
// zeros, and D's are dropped), every output type, an odd chunk count, split-K's fix-up,
// one warpgroup, a cluster with multicast.
TEST_CASE("gemm: fused epilogues with a residual add against cuBLAS [gpu]", "[gpu][gemm][epilogue]") {
  const std::vector<GemmCase> cases = {
      {3000, 2600, 512, {{"bias", 1}, {"act", 2}, {"residual", 1}}},                             // gelu(x + bias) + R, bf16
      {1000, 1032, 520, {{"residual", 1}, {"out", 2}, {"bn", 128}}, {1, 2, 1}},                  // x + R alone, f32 out
      {2048, 3000, 256, {{"col_scale", 1}, {"act", 3}, {"residual", 1}, {"out", 1}}, {2, 1, 1}, 0.5},  // silu, f16, alpha 0.5
      {4096, 4096, 512, {{"bias", 1}, {"act", 2}, {"residual", 1}, {"bn", 192}}},                 // odd chunk count
      {1024, 1024, 4096, {{"bias", 1}, {"act", 1}, {"residual", 1}, {"splits", 4}}},              // split-K's fix-up
      {500, 712, 320, {{"residual", 1}, {"act", 1}, {"warp_specialized", 0}, {"bn", 128}}},       // one warpgroup
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 750 + i);
}

// swap 1: the MMA computes D^T = B A^T (the kernel's A is B, its m the problem's n) and
// each chunk goes out transposed (store_accumulator_transposed, stmatrix.trans). Ragged M and
// N on both sides of the tile, a tail chunk (bn 176, 208), every output type, alpha and
// beta, the fused epilogue with its vectors along the tile's rows, the residual, multicast
// clusters both ways, the edge's moved tiles, split-K, stream-K, one warpgroup, coop cols.
TEST_CASE("gemm: swapped operands (D^T = B A^T, stored transposed) against cuBLAS [gpu]", "[gpu][gemm][swap]") {
  const std::vector<GemmCase> cases = {
      {820, 5904, 688, {{"swap", 1}, {"bn", 208}}},                                              // 4 tile columns of 208
      {1000, 1000, 1000, {{"swap", 1}}},                                                         // ragged everywhere
      {129, 264, 72, {{"swap", 1}, {"bn", 128}}},
      {700, 3000, 512, {{"swap", 1}, {"bn", 176}, {"out", 2}}, {1, 2, 1}},                       // f32 out, tail, 1x2
      {3000, 2600, 512, {{"swap", 1}, {"bias", 1}, {"act", 2}}, {2, 1, 1}},                      // gelu(x + bias), 2x1
      {2048, 3000, 256, {{"swap", 1}, {"col_scale", 1}, {"bias", 1}, {"act", 3}, {"out", 1}}, {1, 1, 1}, 0.5},
      {1000, 1032, 520, {{"swap", 1}, {"residual", 1}, {"bn", 128}}},                            // x + R
      {1000, 1032, 520, {{"swap", 1}, {"bn", 192}}, {1, 1, 1}, 0.75, 0.5},                       // alpha, beta: C read
      {900, 4100, 1024, {{"swap", 1}, {"bn", 160}, {"edge", 1}}},                                // the edge's tiles moved
      {512, 1024, 8192, {{"swap", 1}, {"splits", 4}, {"bn", 128}}},                               // split-K's fix-up
      {1500, 2600, 2048, {{"swap", 1}, {"schedule", 2}}},                                        // stream-K
      {500, 712, 320, {{"swap", 1}, {"warp_specialized", 0}, {"bn", 128}}},                      // one warpgroup
      {2000, 3000, 1000, {{"swap", 1}, {"bm", 192}, {"consumers", 3}, {"bn", 176}}},             // 192-row tiles
      // coop cols swapped: each consumer all bm of B's rows (three 64-row blocks, D's columns)
      // by its share of A's (D's rows), a tail chunk of 40 in each share of 104 (cuBLAS's tile
      // at 820 x 5904 x 688), 128 x 256 in 2x1, f32 out, beta, the fused epilogue, split-K.
      {820, 5904, 688, {{"swap", 1}, {"bm", 192}, {"bn", 208}, {"coop", 1}}, {1, 2, 1}},
      {1000, 1032, 520, {{"swap", 1}, {"bm", 128}, {"bn", 256}, {"coop", 1}}, {2, 1, 1}},
      {777, 1304, 520, {{"swap", 1}, {"bm", 192}, {"bn", 208}, {"coop", 1}, {"out", 2}}, {1, 1, 1}, 0.5, 0.0},
      {1000, 1032, 520, {{"swap", 1}, {"bm", 192}, {"bn", 192}, {"coop", 1}}, {1, 1, 1}, 0.75, 0.5},
      {820, 5904, 688, {{"swap", 1}, {"bm", 192}, {"bn", 208}, {"coop", 1}, {"bias", 1}, {"act", 2}}, {1, 2, 1}},
      {512, 1024, 8192, {{"swap", 1}, {"bm", 192}, {"bn", 128}, {"coop", 1}, {"splits", 4}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1900 + i);
}

// Split-K: each tile's K cut into `splits` ranges run by different CTAs, the last to
// finish adding the f32 partials (samples/gemm_kernel.cpp). Shapes with few tiles and
// a long K (the case it is for), ragged K, more splits than k-blocks (the kernel runs
// min(splits, k-blocks)), beta != 0, f32 out, clusters with multicast, both layouts,
// one warpgroup, non-persistent, and splits 0 (chosen at run time from the grid).
TEST_CASE("gemm: split-K against cuBLAS [gpu]", "[gpu][gemm][splitk]") {
  const std::vector<GemmCase> cases = {
      {1024, 1024, 8192, {{"splits", 4}}},                               // the bench's shape: 32 tiles x 4
      {1000, 1000, 3000, {{"splits", 3}}},                               // ragged M, N and K (47 k-blocks)
      {1024, 1024, 128, {{"splits", 8}}},                                // 2 k-blocks: 2 splits run
      {256, 256, 64, {{"splits", 32}}},                                  // 1 k-block: no split runs twice
      {1000, 1000, 3000, {{"splits", 3}}, {1, 1, 1}, 1.5, -0.75},        // beta reads C in the last CTA only
      {1024, 768, 4096, {{"splits", 4}, {"out", 2}, {"bn", 128}}},        // f32 out
      {1024, 1024, 4096, {{"splits", 4}}, {1, 2, 1}},                    // cluster 1x2, B multicast
      {1000, 1104, 2000, {{"splits", 2}, {"bn", 128}}, {2, 2, 1}},       // 2x2, ragged, padded cluster tiles
      {1024, 1024, 4096, {{"splits", 4}, {"layout", 1}}, {2, 1, 1}},     // nn
      {384, 128, 2048, {{"splits", 4}, {"consumers", 1}, {"bm", 64}, {"bn", 128}}},
      {300, 264, 1000, {{"splits", 3}, {"warp_specialized", 0}, {"bn", 128}, {"stages", 3}}},
      {512, 512, 8192, {{"splits", 8}, {"persistent", 0}}},              // one cluster per unit
      {1024, 1024, 8192, {{"splits", 0}}},                               // automatic: 132 SMs / 32 tiles = 4 on the H200
      {1000, 1000, 3000, {{"splits", 0}}, {1, 2, 1}, 1.5, -0.75},        // automatic, cluster 1x2, beta
      {4096, 4096, 1024, {{"splits", 0}}},                               // automatic: 512 tiles fill the GPU, S = 1 at run time
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 400 + i);
  // The default path's narrow tile in splits of K (64 x 128 of one warpgroup, 1x2 without
  // multicast, the workspace): 12 pairs in 5 splits, 16 in 4, beta reading C in the last one.
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {384, 512, 8192, {}, pair, 1.0, 0.0, true, {{"bm", 64}, {"splits", 5}}},
           {256, 1024, 8192, {}, pair, 1.0, 0.0, true, {{"bm", 64}, {"splits", 4}}},
           {384, 512, 8192, {}, pair, 1.5, -0.75, true, {{"bm", 64}, {"splits", 5}}},
           // Narrow pairs that would fill at most 2/3 of the wave give way to 128 x 128 tiles in
           // 3 splits (kGemmNarrowYieldSplits): 36 narrow pairs, 18 cluster tiles of 128 rows.
           {768, 768, 8192, {}, pair, 1.0, 0.0, true, {{"bm", 128}, {"consumers", 2}, {"splits", 3}}},
           {2304, 256, 8192, {}, pair, 1.0, -0.5, true, {{"bm", 128}, {"splits", 3}}},
       })
    check(g, 4444);
}

// Split-K in the cluster (split_reduce, dsl/split_k.h's KPartition::Cluster): a tile's
// splits are the cluster's planes along z, which send each other their partials' shares
// through distributed shared memory. Splits 2 and 4, planes of 1, 2 and 4 CTAs (with
// multicast inside a plane), ragged M, N and K, a split without k-blocks (K of one
// k-block), f32 out (32-column shares), beta, a fused epilogue, several tiles per cluster
// (each CTA sends again only after its peers read its last partials), nn, one warpgroup,
// non-persistent, and auto picking it (the default path too).
TEST_CASE("gemm: split-K in the cluster against cuBLAS [gpu]", "[gpu][gemm][splitk][cluster_split]") {
  const int64_t cluster = 2;
  const std::vector<GemmCase> cases = {
      {1024, 1024, 8192, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 2}},  // the bench's shape
      {1024, 1024, 8192, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 1, 2}},  // planes of one CTA
      {1024, 1024, 8192, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {2, 1, 2}},  // A multicast
      {1000, 1000, 3000, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 2}},  // ragged M, N and K
      {1024, 1024, 64, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 2}},    // split 1 has no k-block
      {1000, 1000, 3000, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 2}, 1.5, -0.75},  // beta
      {1024, 768, 4096, {{"splits", 4}, {"bn", 128}, {"out", 2}, {"split_reduce", cluster}}, {1, 1, 4}},  // f32, 4 splits
      {1000, 1104, 2000, {{"splits", 2}, {"bn", 256}, {"stages", 2}, {"split_reduce", cluster}}, {2, 2, 2}},  // 8 CTAs
      {1024, 1024, 4096, {{"splits", 2}, {"bn", 128}, {"bias", 1}, {"act", 2}, {"split_reduce", cluster}}, {1, 2, 2}},
      {2048, 2048, 1024, {{"splits", 2}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 2}},  // 4 cluster tiles per cluster
      {1024, 1024, 4096, {{"splits", 2}, {"bn", 128}, {"layout", 1}, {"split_reduce", cluster}}, {2, 1, 2}},  // nn
      {300, 264, 1000, {{"splits", 2}, {"warp_specialized", 0}, {"bn", 128}, {"stages", 3}, {"split_reduce", cluster}}, {1, 1, 2}},
      {512, 512, 8192, {{"splits", 2}, {"bn", 128}, {"persistent", 0}, {"split_reduce", cluster}}, {1, 2, 2}},
      {1024, 1024, 8192, {{"splits", 2}, {"bn", 128}}, {1, 2, 2}},  // split_reduce auto: in the cluster
      // Shares by rows: bn 128 in 4 splits (bf16: 2 chunks of 64), each plane one chunk of one
      // warpgroup's rows; bn 64 in 2. Ragged, 8 CTAs with multicast, a split without k-blocks,
      // alpha, bias + GELU, several cluster tiles per cluster.
      {512, 1024, 8192, {{"splits", 4}, {"bn", 128}, {"split_reduce", cluster}}, {1, 1, 4}},
      {1000, 1000, 3000, {{"splits", 4}, {"bn", 128}, {"split_reduce", cluster}}, {1, 2, 4}},
      {1024, 1024, 128, {{"splits", 4}, {"bn", 128}, {"split_reduce", cluster}}, {1, 1, 4}},
      {1000, 1000, 3000, {{"splits", 4}, {"bn", 128}, {"split_reduce", cluster}}, {1, 1, 4}, 1.5},  // alpha
      {1024, 1024, 4096, {{"splits", 4}, {"bn", 128}, {"bias", 1}, {"act", 2}, {"split_reduce", cluster}}, {1, 1, 4}},
      {2048, 2048, 1024, {{"splits", 2}, {"bn", 64}, {"split_reduce", cluster}}, {1, 2, 2}},
      {4096, 2048, 1024, {{"splits", 4}, {"bn", 128}, {"split_reduce", cluster}}, {2, 1, 4}},
      // The default path: with the tile's rows named (else the narrow tile takes it), auto
      // picks 128 columns and 2 splits for this shape on the H200, and puts them in a cluster
      // of their own (1x1x2).
      {1024, 1024, 8192, {{"bn", 0}, {"bm", 128}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 128}, {"splits", 2}}},
      // The narrow tile (kGemmNarrowRows): 64 x 128 of one MMA warpgroup, pairs in 1x2 without
      // multicast, all of K: long and short K, ragged M (an odd count of 64-row tiles: the
      // pair's second CTA has no rows in the last cluster tile) and N.
      {1024, 1024, 8192, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 128}, {"bm", 64}, {"consumers", 1}, {"splits", 1}, {"multicast", 0}}},
      {1024, 1024, 2048, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 128}, {"bm", 64}, {"consumers", 1}, {"splits", 1}, {"multicast", 0}}},
      {960, 1000, 4096, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 128}, {"bm", 64}, {"consumers", 1}, {"splits", 1}}},
      {2048, 512, 1024, {{"bn", 0}, {"out", 2}}, {1, 1, 1}, 1.5, 0.0, true, {{"bm", 64}, {"consumers", 1}}},  // f32 out, alpha
      {512, 2048, 4096, {{"bn", 0}, {"bias", 1}, {"act", 2}}, {1, 2, 1}, 1.0, 0.0, true, {{"bm", 64}, {"consumers", 1}}},  // bias + GELU
      {1024, 1024, 4096, {{"bn", 0}}, {1, 2, 1}, 1.0, -0.5, true, {{"bm", 64}, {"consumers", 1}}},  // beta reads C
      // Short K with unaligned rows (K 1000: 2000-byte rows): 64 columns unsplit
      // (kGemmNarrowMaxKblocks), the pair along N with multicast.
      {1000, 1000, 1000, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 64}, {"splits", 1}, {"multicast", 1}}},
      {2048, 2048, 1024, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 256}, {"splits", 1}, {"multicast", 0}}},
      // Stream-K on the default path keeps a pair with multicast: the spec's where B has fewer
      // than kGemmStreamKPairMinN rows; with more, 256 columns in 1x2 (from the 2x1 pair too;
      // ragged M), static where their waves end full enough (5187 x 3736, its rows named:
      // else the square below takes it); over kGemmStreamKSquareMinKblocks k-blocks or more,
      // 192 x 192 coop cols in 2x1 where the wave model's time by area says so (static where
      // its waves end full: 2392 x 5744), not at 4608 x 2304 x 8192 (est. above the pair's).
      {8576, 512, 8192, {{"bn", 0}}, {1, 2, 1}, 1.0, 0.0, true, {{"bn", 256}, {"schedule", 2}, {"multicast", 1}}},
      {4608, 2304, 8128, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 256}, {"schedule", 2}, {"multicast", 1}}, "(1,2,1)"},
      {2392, 5744, 8128, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 256}, {"schedule", 2}, {"multicast", 1}}, "(1,2,1)"},
      {4981, 1512, 10496, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 192}, {"schedule", 2}, {"multicast", 1}}, "(2,1,1)"},
      {5187, 3736, 12288, {{"bn", 0}, {"bm", 128}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 256}, {"schedule", 1}, {"multicast", 1}}, "(1,2,1)"},
      {4608, 2304, 8192, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bn", 256}, {"schedule", 2}, {"multicast", 1}}, "(1,2,1)"},
      {2392, 5744, 8192, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bm", 192}, {"bn", 192}, {"coop", 1}, {"schedule", 1}, {"multicast", 1}}, "(2,1,1)"},
      {5187, 3736, 12288, {{"bn", 0}}, {2, 1, 1}, 1.0, 0.0, true, {{"bm", 192}, {"bn", 192}, {"coop", 1}, {"schedule", 2}, {"multicast", 1}}, "(2,1,1)"},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 450 + i);
}

// split_reduce auto keeps the requested 1x2 as each plane (1x2x2) where the clusters of 4
// all fit at once: the probe's count (an empty kernel with a whole SM's shared memory per
// CTA) must be the compiled GEMM's own, and the kernel it picks must verify.
TEST_CASE("gemm: the occupancy probe counts the GEMM's clusters, and auto's 1x2x2 verifies [gpu]", "[gpu][gemm][splitk][cluster_split]") {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  const samples::Sample::DeviceFacts facts = samples::device_facts(gpu_test::device());
  const int fit4 = facts.clusters_that_fit(4).value_or(0), fit2 = facts.clusters_that_fit(2).value_or(0);
  INFO("clusters of 4 that fit: " << fit4 << ", of 2: " << fit2);
  CHECK(fit4 > 0);
  CHECK(fit4 <= gpu_test::device().info().sm_count / 4);
  CHECK(fit2 >= 2 * fit4);
  for (int64_t m : {768, 1024}) {
    DYNAMIC_SECTION(m << " x 1024 x 8192") {
      samples::Config c = samples::default_config(*s);
      c.cluster = {1, 2, 1};
      c.grid_clusters = {1, 1, 1};
      c.params["m"] = m, c.params["n"] = 1024, c.params["k"] = 8192;
      c.named.insert("params.bm");  // else the narrow tile (64 x 128, unsplit) takes these shapes
      std::optional<samples::Sample::DeviceChoice> d = s->for_device(c, facts);
      REQUIRE(d.has_value());
      INFO(d->line);
      // 128-column tiles in 2 splits: m / 128 x 8 tiles, in clusters of 1x2 planes.
      const int64_t clusters = m / 128 / 2 * 8;
      const bool planes = clusters <= fit4;
      CHECK(d->config.cluster.str() == (planes ? ir::Dim3{1, 2, 2} : ir::Dim3{1, 1, 2}).str());
      samples::Compiled compiled = samples::compile_sample(*s, d->config, gpu_test::target(), nullptr);
      samples::RunOptions opts;
      opts.iters = 0;
      opts.seed = 77;
      const samples::RunReport r = samples::run_sample(*s, d->config, compiled, gpu_test::device(), opts);
      REQUIRE(r.verified);
      INFO(r.check.detail);
      CHECK(r.check.ok);
      CHECK(r.max_active_clusters == (planes ? fit4 : fit2));
    }
  }
}

// Packing on the default path (bn 0, no cluster named: the spec's default pair 2x1), as
// `tilejit run` decides it for this GPU: one wave of 256 columns unclustered, one wave of 128,
// and unaligned rows (K 3000) in 2x2 clusters where this GPU runs enough of them, or the wide
// tile (128 x 320) in 1x2; also with alpha, beta and f32 out.
TEST_CASE("gemm: packing's width and cluster on the default path against cuBLAS [gpu]", "[gpu][gemm][packing]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const int64_t off = int64_t(tj::samples::GemmMulticast::Off);
  for (const GemmCase& g : std::vector<GemmCase>{
           {1152, 3584, 4096, {}, pair, 1.0, 0.0, true, {{"bn", 256}, {"multicast", off}}},
           {2304, 896, 2048, {}, pair, 1.0, 0.0, true, {{"bn", 128}, {"multicast", off}}},
           {1536, 1000, 3000, {}, pair, 1.0, 0.0, true, {{"bn", 128}}},
           {512, 3584, 3000, {}, pair, 1.0, 0.0, true, {{"bn", 128}}},
           {2048, 2560, 3000, {}, pair, 1.0, 0.0, true, {{"bn", 320}}, "(1,2,1)"},  // the wide tile in 1x2
           {1536, 1000, 3000, {{"out", 2}}, pair, 1.5, 0.5, true, {{"bn", 128}}},
       })
    check(g, 4242);
}

// The narrow tile (64 rows, one MMA warpgroup, 1x2 without multicast) narrowed on the default
// path where its pairs of 128 columns leave clusters idle: 80 columns at 256 x 2560, 96 at
// 2000 x 384 and at 384 x 2048 (the last tile column moved back inside B), 96 at 1536 x 384 x 8192.
TEST_CASE("gemm: the narrow tile's narrower widths on the default path against cuBLAS [gpu]", "[gpu][gemm][narrow]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {256, 2560, 3072, {}, pair, 1.0, 0.0, true, {{"bn", 80}, {"bm", 64}}},
           {2000, 384, 3072, {}, pair, 1.0, 0.0, true, {{"bn", 96}, {"bm", 64}}},
           {384, 2048, 4096, {}, pair, 1.0, 0.0, true, {{"bn", 96}, {"bm", 64}}},
           {1536, 384, 8192, {}, pair, 1.0, 0.0, true, {{"bn", 96}, {"bm", 64}}},
           {256, 2560, 3072, {{"out", 2}, {"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, {{"bn", 80}, {"bm", 64}}},
       })
    check(g, 4343);
}

// The small tile on the default path (kGemmSmallTile): 64 rows of one MMA warpgroup in 2x2
// clusters with multicast, static where its clusters fill the wave (unaligned rows, odd tile
// counts at both edges), split-K where they leave most of it idle; aligned rows; 48 columns
// under the square tile's schedule, swapped (D^T = B A^T) where that reads fewer operand rows in
// all (M of 188, 172, 150 and 64: partial tiles of A's rows), else unswapped (308, 100); square
// where its schedule splits K and theirs would not (347); f32 out, beta, and the fused epilogue.
TEST_CASE("gemm: the small tile (64 rows, one warpgroup, 2x2, 48 columns either way round) on the default path against cuBLAS [gpu]",
          "[gpu][gemm][small_tile]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const int64_t split_k = int64_t(tj::samples::GemmSchedule::SplitK), static_ = int64_t(tj::samples::GemmSchedule::Static);
  auto with = [&](std::map<std::string, int64_t> m, int64_t bn = 64, int64_t swap = 0) {
    m.insert({{"bm", 64}, {"bn", bn}, {"consumers", 1}, {"swap", swap}});
    return m;
  };
  auto swapped = [&](std::map<std::string, int64_t> m) { return with(std::move(m), 48, 1); };
  for (const GemmCase& g : std::vector<GemmCase>{
           {188, 1408, 1608, {}, pair, 1.0, 0.0, true, swapped({{"schedule", static_}}), "(2,2,1)"},
           {308, 816, 2680, {}, pair, 1.0, 0.0, true, with({}, 48), "(2,2,1)"},
           {347, 523, 3696, {}, pair, 1.0, 0.0, true, with({{"schedule", split_k}}), "(2,2,1)"},
           {172, 568, 1000, {}, pair, 1.0, 0.0, true, swapped({{"schedule", split_k}}), "(2,2,1)"},
           {128, 3072, 2048, {}, pair, 1.0, 0.0, true, with({}), "(2,2,1)"},
           {150, 1800, 1200, {}, pair, 1.0, 0.0, true, swapped({{"schedule", static_}}), "(2,2,1)"},
           {64, 1200, 2000, {}, pair, 1.0, 0.0, true, swapped({}), "(2,2,1)"},
           {188, 1408, 1608, {{"out", 2}}, pair, 0.5, 0.0, true, swapped({}), "(2,2,1)"},
           {188, 1408, 1608, {}, pair, 1.0, -0.5, true, swapped({}), "(2,2,1)"},
           {308, 816, 2680, {}, pair, 1.0, 1.0, true, with({}, 48), "(2,2,1)"},
           {188, 1408, 1608, {{"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, swapped({}), "(2,2,1)"},
           {308, 816, 2680, {{"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, with({}, 48), "(2,2,1)"},
           {100, 2000, 1500, {}, pair, 1.0, 0.0, true, with({}, 48), "(2,2,1)"},
       })
    check(g, 4545);
}

// Small M over a long B on the default path (choose_small_m_swap): the swapped product in 2x1
// pairs covering all of M, B's tiles multicast; ragged M (a 144-column half past m), beta, f32
// out and the fused epilogue (its vectors along the swapped tile's rows); rows 32 bytes apart.
TEST_CASE("gemm: small M swapped into pairs covering M on the default path against cuBLAS [gpu]", "[gpu][gemm][swap][small_m]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {320, 7168, 12288, {}, pair, 1.0, 0.0, true, {{"swap", 1}, {"bm", 128}, {"bn", 160}}, "(2,1,1)"},
           {273, 7072, 15360, {}, pair, 1.0, 0.0, true, {{"swap", 1}, {"bm", 128}, {"bn", 144}}, "(2,1,1)"},
           {256, 8192, 8192, {{"out", 2}}, pair, 0.5, 0.0, true, {{"swap", 1}, {"bn", 128}}, "(2,1,1)"},
           {320, 7168, 8192, {}, pair, 1.0, 1.0, true, {{"swap", 1}, {"bn", 160}}, "(2,1,1)"},
           {320, 7168, 8192, {{"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, {{"swap", 1}, {"bn", 160}}, "(2,1,1)"},
           // Rows 32 bytes apart, not 128 (K 9056): halves up to 160 columns.
           {283, 7992, 9056, {}, pair, 1.0, 0.0, true, {{"swap", 1}, {"bm", 128}, {"bn", 144}}, "(2,1,1)"},
       })
    check(g, 4646);
}

// Packing's narrow width over a long K giving way to a wider tile in 2 splits (kGemmLongSplit)
// on the default path: 160 columns at 1000 x 1280 x 8192 (split-K in the cluster or the
// workspace, as choose_split_plane decides), 176 at 1200 x 1000 x 16384 (workspace; the edge's
// tiles moved); and with the fused epilogue.
TEST_CASE("gemm: the long-K split of a wider tile on the default path against cuBLAS [gpu]", "[gpu][gemm][splitk][long_split]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const int64_t split_k = int64_t(tj::samples::GemmSchedule::SplitK);
  for (const GemmCase& g : std::vector<GemmCase>{
           {1000, 1280, 8192, {}, pair, 1.0, 0.0, true, {{"bn", 160}, {"splits", 2}, {"schedule", split_k}}},
           {1200, 1000, 16384, {}, pair, 1.0, 0.0, true, {{"bn", 176}, {"splits", 2}, {"schedule", split_k}}},
           {1000, 1280, 8192, {{"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, {{"bn", 160}, {"splits", 2}}},
           // Split-K with B 4 tile columns wide: one 4x1 cluster spans them (kGemmSplitQuadCols).
           {896, 512, 12000, {}, pair, 1.0, 0.0, true, {{"bn", 128}, {"splits", 4}, {"schedule", split_k}}, "(4,1,1)"},
           // 128 columns would run stream-K in less than one wave (23 tile rows, odd; unaligned rows).
           {2867, 432, 19480, {}, pair, 1.0, 0.0, true, {{"bn", 224}, {"splits", 2}, {"schedule", split_k}}},
       })
    check(g, 4444);
}

// The narrow pair (kGemmNarrowPair) and one column tile in 1x2 pairs split along K
// (kGemmNarrowOneTile) on the default path over a long K, rows unaligned or (3182 x 384 x 13440)
// 128-byte multiples; the one tile with the fused epilogue too.
TEST_CASE("gemm: the narrow pair and the narrow one tile on the default path against cuBLAS [gpu]", "[gpu][gemm][narrow_pair]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const int64_t split_k = int64_t(tj::samples::GemmSchedule::SplitK);
  for (const GemmCase& g : std::vector<GemmCase>{
           {3870, 412, 6640, {}, pair, 1.0, 0.0, true, {{"bn", 208}, {"bm", 128}, {"schedule", split_k}}, "(2,1,1)"},
           {5013, 224, 12720, {}, pair, 1.0, 0.0, true, {{"bn", 224}, {"splits", 3}, {"schedule", split_k}}, "(1,2,1)"},
           {4790, 168, 7136, {{"bias", 1}, {"act", 2}}, pair, 1.0, 0.0, true, {{"bn", 176}, {"splits", 3}}, "(1,2,1)"},
           {3182, 384, 13440, {}, pair, 1.0, 0.0, true, {{"bn", 192}, {"multicast", int64_t(tj::samples::GemmMulticast::On)}}, "(2,1,1)"},
       })
    check(g, 4848);
}

// Tile widths of any multiple of 16 (tn): the last epilogue chunk narrower than 128 bytes
// of D goes through its own buffer and maps (D_tail, C_tail): 32- and 64-byte rows swizzled,
// 96-byte rows plain; a tail that is the whole tile (48 columns); f32 out (16-column tail of
// 64 bytes); beta and the residual reading C through C_tail; the fused epilogue; multicast of
// B slices of 72 rows; stream-K, split-K and ping-pong; and the default path where packing
// takes such a width on this GPU.
// Tiles of 192 rows in three consumer warpgroups, their epilogue in chunks of 64 bytes
// (a fourth pipeline stage): ragged and unaligned shapes, clusters along either side with
// multicast (A's 192 rows as 96-row slices), widths with a tail, C, f32 out, the fused
// epilogue with the residual, stream-K and split-K's fix-ups; 64-byte chunks on 128-row
// tiles; and the default path where packing takes them on this GPU.
TEST_CASE("gemm: tiles of 192 rows in three consumer warpgroups against cuBLAS [gpu]", "[gpu][gemm][tall]") {
  const std::map<std::string, int64_t> tall = {{"bm", 192}, {"consumers", 3}, {"bn", 192}};
  auto with = [&](std::map<std::string, int64_t> more) {
    more.insert(tall.begin(), tall.end());
    return more;
  };
  const std::vector<GemmCase> cases = {
      {3000, 3000, 3000, with({}), {2, 1, 1}},
      {1000, 1000, 1000, with({}), {1, 2, 1}},
      {777, 1304, 520, with({{"bn", 144}}), {1, 1, 1}},                               // tail 16
      {1000, 1000, 3000, with({{"bn", 128}}), {2, 2, 1}, 1.5, -0.75},                 // C in 64-byte chunks
      {513, 700, 264, with({{"bn", 96}, {"out", 2}}), {2, 1, 1}},                     // f32 out
      {1000, 1000, 3000, with({{"bias", 1}, {"act", 2}, {"residual", 1}}), {1, 2, 1}},  // fused epilogue + R
      {2000, 2000, 4096, with({{"schedule", 2}}), {1, 1, 1}},                         // stream-K
      {512, 576, 8192, with({{"schedule", 3}, {"splits", 4}, {"split_reduce", 1}})},  // split-K, workspace
      {1024, 1000, 1024, {{"bn", 240}, {"epilogue_chunk", 64}}, {2, 1, 1}},           // 128 rows, 64-byte chunks
      {1000, 1000, 1000, {{"bm", 256}, {"bn", 128}}, {1, 1, 1}, 1.0, 0.5},            // 256x128: 64-byte chunks chosen
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1100 + i);
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {3000, 3000, 3000, {}, pair, 1.0, 0.0, true, {{"bm", 192}, {"consumers", 3}, {"bn", 192}}},
           {4189, 1656, 4448, {}, pair, 1.0, 0.0, true, {{"bm", 192}, {"consumers", 3}, {"bn", 144}}},
       })
    check(g, 4444);
}

// Clusters of 4 along M (1x4): four tiles sharing B, each CTA multicasting a 64-row slice
// of it. Tile rows not a multiple of 4 (clusters padded past M), ragged N and K, C, f32 out,
// the fused epilogue, stream-K; and the default path where packing takes 1x4 on this GPU.
TEST_CASE("gemm: clusters of 4 along M against cuBLAS [gpu]", "[gpu][gemm][quads]") {
  const tj::ir::Dim3 quad{1, 4, 1};
  const std::vector<GemmCase> cases = {
      {1000, 1000, 1000, {{"bn", 256}}, quad},                                       // 8 tile rows, ragged
      {1300, 704, 3000, {{"bn", 256}}, quad, 1.5, -0.75},                            // 11 tile rows: a padded cluster; C
      {640, 520, 264, {{"bn", 256}, {"out", 2}}, quad},                              // f32 out
      {1000, 1000, 3000, {{"bn", 256}, {"bias", 1}, {"act", 2}, {"residual", 1}}, quad},  // fused epilogue + R
      {2000, 2000, 2000, {{"bn", 256}, {"schedule", 2}}, quad},                       // stream-K
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1200 + i);
  const tj::ir::Dim3 pair{2, 1, 1};
  for (const GemmCase& g : std::vector<GemmCase>{
           {7564, 1000, 2328, {}, pair, 1.0, 0.0, true, {{"bn", 256}, {"bm", 128}}, quad.str()},
           {10000, 3000, 3000, {}, pair, 1.0, 0.0, true, {{"bn", 256}, {"bm", 128}}, quad.str()},
       })
    check(g, 4545);
}

// The edge's tiles moved back to end at m and n (row_origin: no TMA box past the operands,
// the overlap stored twice with the same values): a last tile row of 4 valid rows and a last
// column of 56, pairs along M whose second CTA is past m, the fused epilogue's vectors at the
// moved columns, split-K in the workspace and in the cluster, dynamic tiles, nn, ping-pong,
// fewer rows than a tile; beta (no move: C is read) and stream-K (no move) beside them.
TEST_CASE("gemm: the edge's tiles moved inside the operands against cuBLAS [gpu]", "[gpu][gemm][edge]") {
  const std::vector<GemmCase> cases = {
      {900, 1400, 3000, {{"bn", 96}}, {1, 2, 1}},                                      // 4 rows, 56 columns; unaligned K
      {896, 1400, 2048, {{"bn", 96}}, {1, 2, 1}},                                      // the 4th pair's 2nd CTA past m
      {900, 1400, 2048, {{"bn", 96}, {"bias", 1}, {"col_scale", 1}, {"act", 2}}, {2, 1, 1}},  // vectors at moved columns
      {900, 1000, 8192, {{"bn", 128}, {"splits", 3}, {"split_reduce", 1}}},           // split-K, workspace
      {900, 1000, 4096, {{"bn", 128}, {"splits", 2}, {"split_reduce", 2}}, {1, 1, 2}},  // split-K in the cluster
      {900, 1400, 2048, {{"bn", 128}, {"schedule", 4}}, {2, 1, 1}},                   // dynamic
      {900, 1000, 1024, {{"layout", 1}}, {2, 1, 1}},                                   // nn: B's columns moved
      {900, 1400, 1024, {{"pingpong", 1}, {"bn", 128}}, {1, 2, 1}},                    // ping-pong
      {100, 1000, 1024, {{"bn", 128}}},                                                // m < bm: no move
      {900, 1400, 2048, {{"bn", 96}}, {1, 2, 1}, 1.5, -0.75},                          // beta: not moved
      {900, 1400, 2048, {{"bn", 96}, {"schedule", 2}}, {1, 1, 1}},                     // stream-K: not moved
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1400 + i);
}

// Any M, N and K: rows that are not a multiple of 16 bytes stored padded (lda, ldb, ldd),
// which cuBLAS reads with the same leading dimensions; verify() also checks that D's
// padding keeps its bytes. The default path for this GPU, both layouts, f16 and f32,
// beta, the fused epilogue with the residual, split-K, stream-K, dynamic, the edge's moved
// tiles at an odd n, and pitches wider than the padding needs.
TEST_CASE("gemm: any m, n, k, rows padded to 16 bytes, against cuBLAS [gpu]", "[gpu][gemm][pitch]") {
  const tj::ir::Dim3 pair{2, 1, 1};
  const std::vector<GemmCase> cases = {
      {1000, 1001, 999, {}, pair, 1.0, 0.0, true},                                         // default path
      {257, 333, 77, {}, pair, 1.0, 0.0, true},                                            // one k-block, a sliver
      {3001, 2999, 3001, {}, pair, 1.0, 0.0, true},                                        // several waves
      {7, 9, 3, {}, pair, 1.0, 0.0, true},                                                 // smaller than every box
      {1001, 1003, 1005, {{"out", 2}}, pair, 1.5, 0.0, true},                              // f32 out: 4-element steps
      {999, 1001, 1000, {{"layout", 1}}, pair},                                            // nn: B's rows hold n
      {513, 771, 1003, {{"dtype", 1}, {"out", 1}, {"layout", 1}}, {1, 2, 1}},              // f16, nn
      {1000, 1001, 1000, {}, pair, 1.5, -0.75},                                            // beta: C padded like D
      {1000, 1001, 2000, {{"bias", 1}, {"act", 2}, {"residual", 1}}, pair},                // fused epilogue + R
      {1000, 1001, 8191, {{"bn", 128}, {"schedule", 3}, {"splits", 3}, {"split_reduce", 1}}},  // split-K, workspace
      {1000, 1001, 4097, {{"bn", 128}, {"schedule", 3}, {"splits", 2}, {"split_reduce", 2}}, {1, 1, 2}},  // in the cluster
      {2001, 1999, 3001, {{"schedule", 2}}, {1, 1, 1}},                                    // stream-K
      {1001, 1999, 2001, {{"schedule", 4}}, pair},                                         // dynamic
      {900, 1401, 2049, {{"bn", 96}}, {1, 2, 1}},                                          // edge moved, odd n
      {257, 333, 77, {{"bn", 80}}, {1, 1, 1}},                           // moved columns' origin 253 rounded up to 256
      {257, 333, 200, {{"layout", 1}, {"bn", 64}}, pair},                // nn: B's moved columns rounded up too
      {1000, 1000, 1000, {{"lda", 1064}, {"ldb", 1032}, {"ldd", 1096}}, pair},             // wider pitches
      {1000, 1001, 1000, {{"ldd", 1024}, {"bias", 1}, {"act", 1}}, pair},                  // padding past the 16 bytes
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1500 + i);
}

// Tiles of 128 rows held by one MMA warpgroup (two 64-row accumulators): widths with a tail,
// ragged shapes, clusters along either side with multicast, C, f32 out, the fused epilogue
// with the residual, split-K in the cluster and in the workspace, stream-K.
TEST_CASE("gemm: 128-row tiles of one MMA warpgroup against cuBLAS [gpu]", "[gpu][gemm][one_warpgroup]") {
  auto one = [](std::map<std::string, int64_t> more) {
    more.insert({{"bm", 128}, {"consumers", 1}});
    return more;
  };
  const std::vector<GemmCase> cases = {
      {1000, 1280, 8192, one({{"bn", 80}}), {2, 1, 1}},                                      // cuBLAS's own tile there
      {900, 1400, 3000, one({{"bn", 96}}), {1, 2, 1}, 1.5, -0.75},                           // ragged, unaligned K; C
      {1024, 1024, 8192, one({{"bn", 128}, {"splits", 2}, {"split_reduce", 2}}), {1, 1, 2}},  // split-K in the cluster
      {777, 1304, 520, one({{"bn", 192}, {"out", 2}}), {1, 1, 1}},                            // 192 columns, f32 out
      {1000, 1000, 3000, one({{"bn", 128}, {"bias", 1}, {"act", 2}, {"residual", 1}}), {2, 1, 1}},  // fused epilogue + R
      {640, 512, 12288, one({{"bn", 128}, {"schedule", 3}, {"splits", 6}, {"split_reduce", 1}}), {2, 1, 1}},  // workspace
      {2000, 2000, 2000, one({{"bn", 128}, {"schedule", 2}}), {1, 1, 1}},                    // stream-K
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 1300 + i);
}

// Stream-K (dsl/split_k.h) on the H200's 132 SMs: the tail's tiles shared between
// every cluster. Few tiles (all stream-K, several clusters per tile), waves plus a tail
// (the last full wave joins the tail), ragged M, N and K, k-blocks fewer than a share's
// minimum (one cluster takes them), clusters with multicast (2x2 padded tiles), beta,
// f32 out, nn, one warpgroup, a fused epilogue, and the deterministic order.
TEST_CASE("gemm: stream-K against cuBLAS [gpu]", "[gpu][gemm][streamk]") {
  const std::vector<GemmCase> cases = {
      {1024, 1024, 8192, {{"schedule", 2}}},                              // 32 tiles: all stream-K, ~4 clusters each
      {1000, 1000, 3000, {{"schedule", 2}}},                              // ragged, 47 k-blocks
      {256, 256, 64, {{"schedule", 2}}},                                  // 1 k-block per tile: one cluster takes both
      {4224, 4224, 4096, {{"schedule", 2}}, {1, 2, 1}},                   // 289 cluster tiles on 66 clusters: 4 waves + 25
      {5120, 5120, 1024, {{"schedule", 2}}, {2, 1, 1}},                   // 400 cluster tiles: 6 waves + 4
      {4096, 4096, 1024, {{"schedule", 2}}, {1, 2, 1}},                   // 256 cluster tiles: 3 waves + 58 (124 shared)
      {2112, 4224, 512, {{"schedule", 2}, {"bn", 128}}, {1, 1, 1}},       // 17 x 33 = 561 tiles on 132
      {1000, 1104, 2000, {{"schedule", 2}, {"bn", 128}}, {2, 2, 1}},      // 2x2, ragged, padded cluster tiles
      {1000, 1000, 3000, {{"schedule", 2}}, {1, 2, 1}, 1.5, -0.75},       // beta reads C in the last contributor
      {1024, 768, 4096, {{"schedule", 2}, {"out", 2}, {"bn", 128}}},       // f32 out
      {1024, 1024, 4096, {{"schedule", 2}, {"layout", 1}}, {2, 1, 1}},     // nn
      {300, 264, 1000, {{"schedule", 2}, {"warp_specialized", 0}, {"bn", 128}, {"stages", 3}}},
      {1024, 1024, 4096, {{"schedule", 2}, {"bias", 1}, {"act", 2}}, {1, 2, 1}},  // bias + GELU after the fix-up
      {1024, 1024, 8192, {{"schedule", 2}, {"deterministic", 1}}},
      {1000, 1000, 3000, {{"splits", 3}, {"deterministic", 1}}},          // split-K's fixed order
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 700 + i);
}

namespace {

// Config c compiled once and launched `launches` times on the same buffers (no memset
// between: counters must be reset by the kernel), D poisoned (NaN) before each launch and
// verified whole after it.
void launch_in_a_row(const tj::samples::Sample& s, const tj::samples::Config& c, uint64_t seed, int launches) {
  using namespace tj;
  JitKernel kernel = tj::load(samples::compile_sample(s, c, gpu_test::target(), nullptr), gpu_test::device());
  std::unique_ptr<samples::Instance> inst = s.instantiate(c, seed);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(s, c, kernel, args);
  for (int launch = 0; launch < launches; ++launch) {
    INFO("launch " << launch);
    inst->poison();
    kernel.launch(plan.grid, args);
    kernel.synchronize();
    const samples::Check check = inst->verify();
    INFO(check.detail);
    CHECK(check.ok);
  }
}

}  // namespace

// The dynamic schedule (schedule 4): whole tiles, each cluster claiming its next one from
// the launch's counter (sm_90a). A tail of 2 cluster tiles past a wave, ragged edges,
// clusters 1x2 and 2x1 with multicast, more tiles than a wave holds many times, beta,
// a fused epilogue, nn; then five launches in a row on the same buffers (the counter
// is reset by the schedule, no memset between).
TEST_CASE("gemm: the dynamic schedule against cuBLAS [gpu]", "[gpu][gemm][dynamic]") {
  const std::vector<GemmCase> cases = {
      {8576, 512, 8192, {{"schedule", 4}, {"bn", 256}}, {2, 1, 1}},                      // 68 cluster tiles on 66 clusters
      {1000, 1000, 3000, {{"schedule", 4}}},                                             // ragged M, N and K
      {4224, 4224, 1024, {{"schedule", 4}, {"bn", 192}}, {1, 2, 1}},                     // many waves
      {1000, 1104, 2000, {{"schedule", 4}, {"bn", 128}}, {2, 2, 1}},                     // 2x2, padded cluster tiles
      {1000, 1000, 3000, {{"schedule", 4}}, {1, 2, 1}, 1.5, -0.75},                      // beta
      {1024, 1024, 4096, {{"schedule", 4}, {"bias", 1}, {"act", 2}}, {1, 2, 1}},         // bias + GELU
      {1024, 1024, 4096, {{"schedule", 4}, {"layout", 1}}, {2, 1, 1}},                   // nn
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 900 + i);
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = samples::default_config(*s);
  c.cluster = {2, 1, 1};
  c.grid_clusters = {1, 1, 1};
  c.params["m"] = 8576, c.params["n"] = 512, c.params["k"] = 2048, c.params["bn"] = 256, c.params["schedule"] = 4;
  launch_in_a_row(*s, c, 950, 5);
}

// Stream-K with the split tail (stream_k_tail 1): the last wave's tiles alone, each in
// clusters / tiles equal K ranges. All tiles under one wave (32 tiles, 4 ranges each), 25
// past 4 waves of 66 pairs (2 each), the default path's 256 in 1x2 at 2392 x 5744 (32 past 3
// waves, 2 each), ragged tiles in 2x2 clusters, beta, atomic partials, the fixed order, and a
// tail too wide to split (124 past a wave: the hybrid); then three launches in a row on the
// same buffers (the counters left at 0 by the kernel).
TEST_CASE("gemm: stream-K with the last wave split along K against cuBLAS [gpu]", "[gpu][gemm][streamk][stream_k_tail]") {
  const int64_t atomic = int64_t(tj::samples::GemmSplitReduce::Atomic);
  const std::vector<GemmCase> cases = {
      {1024, 1024, 8192, {{"schedule", 2}, {"stream_k_tail", 1}}},
      {4224, 4224, 4096, {{"schedule", 2}, {"stream_k_tail", 1}}, {1, 2, 1}},
      {2392, 5744, 8192, {{"schedule", 2}, {"stream_k_tail", 1}, {"bn", 256}, {"multicast", 1}}, {1, 2, 1}},
      {1000, 1104, 2000, {{"schedule", 2}, {"stream_k_tail", 1}, {"bn", 128}}, {2, 2, 1}},
      {1000, 1000, 3000, {{"schedule", 2}, {"stream_k_tail", 1}}, {1, 2, 1}, 1.5, -0.75},
      {4224, 4224, 4096, {{"schedule", 2}, {"stream_k_tail", 1}, {"split_reduce", atomic}}, {1, 2, 1}},
      {1024, 1024, 8192, {{"schedule", 2}, {"stream_k_tail", 1}, {"deterministic", 1}}},
      {4096, 2048, 1024, {{"schedule", 2}, {"stream_k_tail", 1}}},
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 980 + i);
  const tj::samples::Sample* s = tj::samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  tj::samples::Config c = tj::gpu_test::config_of(cases[1]);
  launch_in_a_row(*s, c, 990, 3);
}

// Deterministic: the same inputs give the same bits from launch to launch, whichever
// cluster finishes a shared tile last (without it, the order of the f32 adds varies).
TEST_CASE("gemm: stream-K and split-K with deterministic 1 give bitwise equal results [gpu]", "[gpu][gemm][streamk]") {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  for (auto [stream_k, splits] : {std::pair{1, 1}, std::pair{0, 4}}) {
    DYNAMIC_SECTION("stream_k " << stream_k << " splits " << splits) {
      samples::Config c = samples::default_config(*s);
      c.grid_clusters = {1, 1, 1};
      c.params["m"] = 1024, c.params["n"] = 1024, c.params["k"] = 8192;
      // schedule 2: stream_k; 3: split_k.
      c.params["schedule"] = stream_k ? 2 : 3, c.params["splits"] = splits, c.params["deterministic"] = 1;
      JitKernel kernel = tj::load(samples::compile_sample(*s, c, gpu_test::target(), nullptr), gpu_test::device());
      std::unique_ptr<samples::Instance> inst = s->instantiate(c, 800);
      auto* gemm = dynamic_cast<samples::GemmInstance*>(inst.get());
      REQUIRE(gemm != nullptr);
      BoundArgs args = samples::bind_instance(kernel, *inst);
      const samples::LaunchPlan plan = samples::plan_launch(*s, c, kernel, args);
      std::vector<unsigned char> first;
      for (int launch = 0; launch < 20; ++launch) {
        inst->poison();
        kernel.launch(plan.grid, args);
        kernel.synchronize();
        if (launch == 0) {
          const samples::Check check = inst->verify();
          INFO(check.detail);
          REQUIRE(check.ok);
          first = gemm->output_bytes();
          continue;
        }
        INFO("launch " << launch);
        CHECK(gemm->output_bytes() == first);
      }
    }
  }
}

// The last CTA of each tile puts its counter back to 0: a second launch on the same
// buffers (no memset between) must be right too. D is poisoned (NaN) before each
// launch, so a tile whose epilogue did not run shows.
TEST_CASE("gemm: split-K and stream-K three times in a row, the counters reset by the kernel [gpu]", "[gpu][gemm][splitk][streamk]") {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  // splits 1: stream-K (schedule 2) instead.
  for (auto [splits, cluster] : {std::pair{4, ir::Dim3{1, 1, 1}}, std::pair{3, ir::Dim3{1, 2, 1}}, std::pair{1, ir::Dim3{1, 1, 1}},
                                 std::pair{1, ir::Dim3{2, 1, 1}}}) {
    DYNAMIC_SECTION("splits " << splits << " cluster " << cluster.str() << (splits == 1 ? " stream-K" : "")) {
      samples::Config c = samples::default_config(*s);
      c.cluster = cluster;
      c.grid_clusters = {1, 1, 1};
      c.params["m"] = 1024, c.params["n"] = 1024, c.params["k"] = 6144, c.params["splits"] = splits;
      c.params["schedule"] = splits == 1 ? 2 : 3;
      c.reals["beta"] = 0.5;
      launch_in_a_row(*s, c, 500 + uint64_t(splits), 3);
    }
  }
}

namespace {

// The GEMM sample 1024 x 1024 x k with `params` set (m and n among them where given), compiled, launched once and verified
// whole; then `then` breaks the result some way (the checks below must see it).
void with_verified_gemm(int64_t k, const std::map<std::string, int64_t>& params, uint64_t seed,
                        const std::function<void(tj::JitKernel&, const tj::samples::LaunchPlan&, tj::samples::Instance&,
                                                 tj::BoundArgs&)>& then) {
  using namespace tj;
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s != nullptr);
  samples::Config c = samples::default_config(*s);
  c.grid_clusters = {1, 1, 1};
  c.params["m"] = 1024, c.params["n"] = 1024, c.params["k"] = k;
  for (const auto& [key, v] : params) c.params[key] = v;
  JitKernel kernel = tj::load(samples::compile_sample(*s, c, gpu_test::target(), nullptr), gpu_test::device());
  std::unique_ptr<samples::Instance> inst = s->instantiate(c, seed);
  BoundArgs args = samples::bind_instance(kernel, *inst);
  const samples::LaunchPlan plan = samples::plan_launch(*s, c, kernel, args);
  kernel.launch(plan.grid, args);
  kernel.synchronize();
  const samples::Check whole = inst->verify();
  INFO(whole.detail);
  REQUIRE(whole.ok);
  then(kernel, plan, *inst, args);
}

}  // namespace

// The check must be able to fail on a subtle error: the kernel run with k one k-block
// short (its A and B maps unchanged) leaves out 64 of K's products from every element.
TEST_CASE("gemm: verify() rejects a result missing one k-block [gpu]", "[gpu][gemm][tolerance]") {
  for (int64_t k : {int64_t(1024), int64_t(8192)}) {
    DYNAMIC_SECTION("k " << k) {
      with_verified_gemm(k, {}, 700 + uint64_t(k), [&](tj::JitKernel& kernel, const tj::samples::LaunchPlan& plan,
                                                      tj::samples::Instance& inst, tj::BoundArgs& args) {
        const int32_t short_k = int32_t(k - 64);
        args.pack().overwrite(6, &short_k, sizeof short_k);  // parameter 6 is k (samples/gemm.h)
        inst.poison();
        kernel.launch(plan.grid, args);
        kernel.synchronize();
        const tj::samples::Check dropped = inst.verify();
        INFO(dropped.detail);
        CHECK_FALSE(dropped.ok);
      });
    }
  }
}

// ... and on a write into D's row padding past the 16-byte boundary that TMA's stores reach
// (n = 1001, rows 1016 apart: columns 1001..1007 are stored in the last 16 bytes, 1008..1015
// must keep their bytes).
TEST_CASE("gemm: verify() rejects a write into D's row padding past the 16-byte boundary [gpu]", "[gpu][gemm][tolerance][pitch]") {
  with_verified_gemm(999, {{"m", 1000}, {"n", 1001}, {"ldd", 1016}}, 900, [&](tj::JitKernel&, const tj::samples::LaunchPlan&,
                                                                              tj::samples::Instance& inst, tj::BoundArgs&) {
    const tj::samples::Check whole = inst.verify();
    INFO(whole.detail);
    CHECK(whole.detail.find("D's row padding (columns 1008..1015) untouched") != std::string::npos);
    auto* g = dynamic_cast<tj::samples::GemmInstance*>(&inst);
    REQUIRE(g != nullptr);
    g->perturb_output(517, 1004, 1);  // inside the last 16 bytes: TMA's to write
    CHECK(inst.verify().ok);
    g->perturb_output(517, 1010, 1);
    const tj::samples::Check written = inst.verify();
    INFO(written.detail);
    CHECK_FALSE(written.ok);
    CHECK(written.detail.find("D's row padding was written: 1 element(s), the first D[517, 1010] (past column 1007)") != std::string::npos);
    CHECK_THROWS_AS(g->perturb_output(517, 1016, 1), tj::rt::RuntimeError);
  });
}

// ... and on an error of two units in the last place of one element of a 16-bit D (f32
// out is compared within the accumulation-order bound, which is wider than 2 ulps of f32).
TEST_CASE("gemm: verify() rejects one element of D two ulps off [gpu]", "[gpu][gemm][tolerance]") {
  for (int64_t out : {int64_t(0), int64_t(1)}) {  // bf16, f16
    DYNAMIC_SECTION("out " << out) {
      with_verified_gemm(1024, {{"out", out}}, 800 + uint64_t(out), [&](tj::JitKernel&, const tj::samples::LaunchPlan&,
                                                                      tj::samples::Instance& inst, tj::BoundArgs&) {
        auto* g = dynamic_cast<tj::samples::GemmInstance*>(&inst);
        REQUIRE(g != nullptr);
        for (int ulps : {2, -2}) {
          g->perturb_output(517, 333, ulps);
          const tj::samples::Check off = inst.verify();
          INFO(ulps << " ulps: " << off.detail);
          CHECK_FALSE(off.ok);
          CHECK(off.detail.find("D[517, 333]") != std::string::npos);
          g->perturb_output(517, 333, -ulps);
          CHECK(inst.verify().ok);
        }
      });
    }
  }
}

// Random problems on the default path, as a user's specs would come: any m, n and k (small,
// ragged, aligned, long-K), both layouts and input types, every output type, alpha and beta
// or a fused epilogue, now and then wider pitches. Each is made concrete for this GPU (bn 0,
// splits 0, schedule and cluster auto) and checked against cuBLAS. TILEJIT_FUZZ_CASES sets
// how many (default 24), TILEJIT_FUZZ_SEED the first seed (default 1); a failing section
// names its problem, so it can be run again as a spec.
TEST_CASE("gemm: random problems on the default path against cuBLAS [gpu]", "[gpu][gemm][fuzz]") {
  tj::gpu_test::FuzzDraws draws(24, 0);
  const uint64_t count = draws.count, seed = draws.seed;
  auto pick = [&](uint64_t n) { return draws.pick(n); };
  // A dimension: a few elements, a ragged size, a multiple of 64 or 128, or a long one.
  auto dim = [&](int64_t cap) -> int64_t {
    switch (pick(5)) {
      case 0: return 1 + pick(96);
      case 1: return 64 * (1 + pick(cap / 64));
      case 2: return 128 * (1 + pick(cap / 128));
      default: return 1 + pick(cap);
    }
  };
  for (uint64_t i = 0; i < count; ++i) {
    GemmCase g{dim(6000), dim(6000), pick(8) == 0 ? 8192 + pick(8192) : dim(5000), {}, {2, 1, 1}, 1.0, 0.0, true};
    g.params["layout"] = pick(2), g.params["dtype"] = pick(2), g.params["out"] = pick(3);
    if (pick(2) == 0) {
      g.alpha = pick(2) == 0 ? 1.0 : 0.5 + 0.25 * double(pick(5));
      g.beta = pick(2) == 0 ? 0.0 : -0.75 + 0.5 * double(pick(4));
    } else {
      g.params["bias"] = pick(2), g.params["col_scale"] = pick(2), g.params["act"] = pick(4), g.params["residual"] = pick(2);
    }
    // Wider pitches than the 16-byte rounding, in whole 16-byte steps (8 elements of 2 bytes,
    // 4 of f32 out).
    if (pick(6) == 0) {
      const int64_t b_row = g.params["layout"] == 0 ? g.k : g.n, out_step = g.params["out"] == 2 ? 4 : 8;
      g.params["lda"] = (g.k + 7) / 8 * 8 + 8 * pick(4);
      g.params["ldb"] = (b_row + 7) / 8 * 8 + 8 * pick(4);
      g.params["ldd"] = (g.n + out_step - 1) / out_step * out_step + out_step * pick(4);
    }
    check(g, seed * 1000 + i);
  }
}

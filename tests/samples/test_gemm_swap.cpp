// The GEMM with swapped operands (swap 1: the MMA computes D^T = B A^T, each chunk stored
// transposed into D): the problem the kernel runs, its buffers, maps and stores, ptxas's
// view of it, the device decisions in its frame, and the configs it refuses by field. No GPU
// needed (the GPU runs it in tests/gpu/test_gemm.cpp, "[swap]").
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "codegen/lower.h"
#include "samples/builtin.h"
#include "samples/gemm.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/gemm_test_support.h"

using namespace tj;
using tj::test::contains;
using tj::test::count;

namespace {
samples::Config swapped(std::map<std::string, int64_t> params, ir::Dim3 cluster = {1, 1, 1}) {
  params.insert({{"m", 820}, {"n", 5904}, {"k", 688}, {"swap", 1}});
  samples::Config c = test::gemm_config(params, cluster);
  for (auto& [key, v] : params) c.named.insert("params." + key);
  return c;
}
}  // namespace

TEST_CASE("gemm swap: the kernel runs the transposed problem, and D keeps its own shape and pitch", "[samples][gemm][swap]") {
  samples::Config c = swapped({{"lda", 696}, {"ldb", 704}, {"ldd", 5912}});
  const samples::GemmShape p = samples::gemm_shape(c), k = samples::gemm_kernel_shape(c);
  CHECK((p.m == 820 && p.n == 5904 && p.lda == 696 && p.ldb == 704 && p.ldd == 5912));
  CHECK((k.m == 5904 && k.n == 820 && k.k == 688 && k.lda == 704 && k.ldb == 696 && k.ldd == 5912));
  c.params["swap"] = 0;
  CHECK(samples::gemm_kernel_shape(c).m == 820);
}

TEST_CASE("gemm swap: chunks of D's rows by each warpgroup's 64 columns, stored transposed with D's columns innermost",
          "[samples][gemm][swap]") {
  const samples::Config c = swapped({{"bn", 208}});
  REQUIRE(test::gemm_sample().check_config(c).empty());
  const ir::Kernel k = test::gemm_sample().build(c);
  // d: two warpgroups' 64 rows of D each (the chunk's accumulator columns) by 64 columns;
  // D's and C's boxes are a chunk's rows; the tail (208 = 3 x 64 + 16) has 16 rows each.
  const ir::SharedBuffer* d = k.find_shared("d");
  REQUIRE((d && d->tile));
  CHECK((d->tile->rows == 128 && d->tile->cols == 64));
  const ir::SharedBuffer* tail = k.find_shared("d_tail");
  REQUIRE((tail && tail->tile));
  CHECK((tail->tile->rows == 32 && tail->tile->cols == 64));
  for (const char* name : {"D", "C", "D_tail", "C_tail"}) {
    const ir::TensorMapDecl* map = k.find_tensor_map(name);
    REQUIRE(map);
    INFO(name);
    CHECK(map->box[0] == 64);
    CHECK(map->box[1] == (name[1] == '_' ? 16u : 64u));
  }
  const std::string cuda = codegen::lower(k, codegen::Target::sm90a()).cuda;
  CHECK(count(cuda, "tj::stmatrix_x4_trans_tile<64, 16384, 128>(tj_dst, ") == 3);  // the whole chunks
  CHECK(count(cuda, "tj::stmatrix_x4_trans_tile<64, 4096, 128>(tj_dst, ") == 1);   // the tail's 16 columns
  CHECK(!contains(cuda, "tj::stmatrix_x4_tile<"));
  // The tile's row origin is D's innermost coordinate: moved at the edge, it stays 16-byte aligned.
  CHECK(contains(cuda, "((((m - 128) + 7) / 8) * 8)"));
}

TEST_CASE("gemm swap: bf16 with a tail and f32 with the fused epilogue and the residual compile without spills",
          "[samples][gemm][swap][ptx]") {
  for (const samples::Config& c : {swapped({{"bn", 208}}, {1, 2, 1}),
                                   swapped({{"bn", 176}, {"out", 2}, {"bias", 1}, {"col_scale", 1}, {"act", 2}, {"residual", 1}})}) {
    REQUIRE(test::gemm_sample().check_config(c).empty());
    const codegen::Lowered l = codegen::lower(test::gemm_sample().build(c), codegen::Target::sm90a());
    const rt::CompileResult r = test::compile_without_spills(l, "swapped gemm");
    CHECK(contains(r.ptx, c.params.at("out") == 2 ? "st.shared.f32" : "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  }
}

TEST_CASE("gemm swap: the device decisions run in the kernel's frame", "[samples][gemm][swap]") {
  const samples::Sample& s = test::gemm_sample();
  samples::Config c = swapped({});
  c.params["bn"] = 0;
  c.named.erase("params.bn");
  const samples::Sample::DeviceFacts h200(132, [](unsigned ctas) { return ctas == 4 ? 30 : ctas == 2 ? 66 : 132; });
  const std::optional<samples::Sample::DeviceChoice> d = s.for_device(c, h200);
  REQUIRE(d.has_value());
  INFO(d->line);
  CHECK(d->config.param("swap") == 1);
  CHECK(d->config.param("bn") % 16 == 0);
  CHECK(d->config.param("bn") <= 256);
  CHECK(s.check_config(d->config).empty());
  // Its cluster tiles count the kernel's 5904 rows: the width fits the problem's 820 columns.
  CHECK(contains(d->line, "bn 0 -> "));
}

TEST_CASE("gemm swap: refused with layout nn, pingpong and split-K in the cluster, at the spec's field", "[samples][gemm][swap]") {
  const samples::Sample& s = test::gemm_sample();
  auto first = [&](const samples::Config& c) {
    const std::vector<samples::ConfigProblem> p = s.check_config(c);
    REQUIRE(!p.empty());
    return p[0];
  };
  const samples::ConfigProblem nn = first(swapped({{"layout", 1}, {"bn", 128}}));
  CHECK(nn.field == "params.swap");
  CHECK(nn.message == "swap runs B A^T with both operands K-major (layout tn); with nn B's rows are N-major: use layout tn, or swap 0");
  const samples::ConfigProblem pp = first(swapped({{"pingpong", 1}, {"bm", 64}, {"bn", 128}}));
  CHECK(pp.field == "params.swap");
  const samples::ConfigProblem split = first(swapped({{"schedule", 3}, {"splits", 2}, {"split_reduce", 2}}, {1, 1, 2}));
  CHECK(split.field == "params.split_reduce");
  CHECK(contains(split.message, "swap stores each warpgroup's chunks transposed, whole"));
}

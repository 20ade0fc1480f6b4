// cuBLASLt without a GPU: opening the library (never linked), the epilogues' names, the
// bias type, and the arguments CublasLt::matmul refuses before anything reaches the GPU.
#include <algorithm>
#include <catch2/catch.hpp>

#include "runtime/cublaslt.h"
#include "runtime/error.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;

TEST_CASE("cuBLASLt's epilogues are named, and the bias ones known", "[runtime][cublaslt]") {
  const std::vector<std::tuple<LtEpilogue, std::string, bool>> all = {
      {LtEpilogue::None, "none", false}, {LtEpilogue::Bias, "bias", true},
      {LtEpilogue::Relu, "relu", false}, {LtEpilogue::ReluBias, "relu+bias", true},
      {LtEpilogue::Gelu, "gelu", false}, {LtEpilogue::GeluBias, "gelu+bias", true}};
  for (const auto& [e, name, bias] : all) {
    CHECK(lt_epilogue_name(e) == name);
    CHECK(lt_epilogue_has_bias(e) == bias);
  }
}

TEST_CASE("cuBLASLt's bias has D's type", "[runtime][cublaslt]") {
  RowMajorGemm g;
  g.out = BlasType::F32;
  CHECK(lt_bias_type(g) == BlasType::F32);
  g.out = BlasType::BF16;
  CHECK(lt_bias_type(g) == BlasType::BF16);
  g.in = g.out = BlasType::F16;
  CHECK(lt_bias_type(g) == BlasType::F16);
}

TEST_CASE("cuBLASLt is opened by name, TILEJIT_CUBLASLT first", "[runtime][cublaslt]") {
  {
    test::ScopedEnv unset("TILEJIT_CUBLASLT", std::nullopt);
    CHECK(cublaslt_library_names() == std::vector<std::string>{"libcublasLt.so.13", "libcublasLt.so.12",
                                                               "/usr/local/cuda/lib64/libcublasLt.so.13",
                                                               "/usr/local/cuda/lib64/libcublasLt.so.12"});
  }
  {
    test::ScopedEnv empty("TILEJIT_CUBLASLT", "");
    CHECK(cublaslt_library_names().size() == 4);
  }
  test::ScopedEnv forced("TILEJIT_CUBLASLT", "/nonexistent/libcublasLt.so.99");
  CHECK(cublaslt_library_names() == std::vector<std::string>{"/nonexistent/libcublasLt.so.99"});
}

TEST_CASE("a missing cuBLASLt is a NoDriver error that says what was tried", "[runtime][cublaslt]") {
  try {
    find_cublaslt({"/nonexistent/libcublasLt.so.99", "libm.so.6"});
    FAIL("find_cublaslt found a library that does not exist");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::NoDriver);
    const std::string what = e.what();
    CHECK_THAT(what, Catch::StartsWith("cuBLASLt is not available (dlopen(/nonexistent/libcublasLt.so.99) failed: "));
    CHECK_THAT(what, Catch::Contains("No such file or directory; "));
    // A library that opens but is not cuBLASLt: every missing entry point is named.
    CHECK_THAT(what,
               Catch::Contains("; libm.so.6 lacks cublasLtCreate, cublasLtDestroy, cublasLtGetStatusName, "
                               "cublasLtGetStatusString, cublasLtGetProperty, cublasLtMatmulDescCreate, "
                               "cublasLtMatmulDescDestroy, cublasLtMatmulDescSetAttribute, cublasLtMatrixLayoutCreate, "
                               "cublasLtMatrixLayoutDestroy, cublasLtMatmulPreferenceCreate, "
                               "cublasLtMatmulPreferenceDestroy, cublasLtMatmulPreferenceSetAttribute, "
                               "cublasLtMatmulAlgoGetHeuristic, cublasLtMatmul); "));
    CHECK_THAT(what, Catch::EndsWith("set TILEJIT_CUBLASLT to the library's path"));
  }
  CHECK_THROWS_WITH(find_cublaslt({}), Catch::StartsWith("cuBLASLt is not available (no library names to try); "));
}

TEST_CASE("the toolkit's cuBLASLt opens with every entry point tilejit calls", "[runtime][cublaslt]") {
  test::ScopedEnv unset("TILEJIT_CUBLASLT", std::nullopt);
  std::string found;
  try {
    found = find_cublaslt(cublaslt_library_names());
  } catch (const RuntimeError& e) {
    return test::report_skipped(std::string("no cuBLASLt on this machine: ") + e.what());
  }
  const std::vector<std::string> names = cublaslt_library_names();
  CHECK(std::find(names.begin(), names.end(), found) != names.end());
  // Its version needs no GPU either: "13.1.0" with CUDA 13.1's.
  const std::string version = CublasLt::version();
  INFO(version);
  CHECK(std::count(version.begin(), version.end(), '.') == 2);
  CHECK((found.find(".so." + version.substr(0, version.find('.'))) != std::string::npos));
}

TEST_CASE("lt_problems names what CublasLt::matmul refuses, before anything reaches the GPU", "[runtime][cublaslt]") {
  RowMajorGemm g;
  g.m = 256, g.n = 384, g.k = 512, g.out = BlasType::F32;
  const CUdeviceptr bias = 0x7f0000000000;
  for (LtEpilogue e : {LtEpilogue::Bias, LtEpilogue::ReluBias, LtEpilogue::GeluBias}) {
    CHECK(lt_problems(g, e, bias).empty());
    CHECK(lt_problems(g, e, 0) == std::vector<std::string>{std::string("epilogue ") + lt_epilogue_name(e) +
                                                           " needs a bias: a device pointer to N = 384 f32 values, "
                                                           "not 0"});
  }
  for (LtEpilogue e : {LtEpilogue::None, LtEpilogue::Relu, LtEpilogue::Gelu}) {
    CHECK(lt_problems(g, e, 0).empty());
    CHECK(lt_problems(g, e, bias) ==
          std::vector<std::string>{std::string("epilogue ") + lt_epilogue_name(e) +
                                   " adds no bias, yet a bias pointer was given: pass 0, or a bias epilogue"});
  }
  g.out = BlasType::BF16;
  CHECK(lt_problems(g, LtEpilogue::GeluBias, 0) ==
        std::vector<std::string>{"epilogue gelu+bias needs a bias: a device pointer to N = 384 bf16 values, not 0"});

  g.beta = 0.5f;
  CHECK(lt_problems(g, LtEpilogue::Gelu, 0) ==
        std::vector<std::string>{"beta = 0.500000: the cuBLASLt reference computes D with beta 0 (D is written, "
                                 "never read); set beta to 0"});
  // Every problem at once, gemm_problems()' first.
  g.m = 0;
  g.in = BlasType::F32;
  CHECK(lt_problems(g, LtEpilogue::Bias, 0) ==
        std::vector<std::string>{"M = 0 is outside cuBLAS's range 1..2^31-1", "inputs must be bf16 or f16, not f32",
                                 "beta = 0.500000: the cuBLASLt reference computes D with beta 0 (D is written, "
                                 "never read); set beta to 0",
                                 "epilogue bias needs a bias: a device pointer to N = 384 bf16 values, not 0"});
}

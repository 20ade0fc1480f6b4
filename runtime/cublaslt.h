// cuBLASLt, opened at run time like cuBLAS (never linked): the reference for GEMMs with a
// fused epilogue (bias, ReLU, GELU) that samples check against and benchmarks compare
// with. It runs in the context current on the calling thread.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/buffer.h"
#include "runtime/cublas_layout.h"

struct cublasLtContext;  // cublasLtHandle_t points to one

namespace tj::rt {

// The epilogue cuBLASLt fuses after alpha * A * B (row-major D, M x N): a bias of N values
// (one per column of D) added, then an activation.
enum class LtEpilogue : uint8_t { None, Bias, Relu, ReluBias, Gelu, GeluBias };  // Gelu: cuBLASLt's GELU (tanh form)
const char* lt_epilogue_name(LtEpilogue e);  // "none", "bias", "relu", "relu+bias", "gelu", "gelu+bias"
bool lt_epilogue_has_bias(LtEpilogue e);

// The type of the bias vector: D's type. cublasLt.h documents bias elements as "the same
// type as the elements of output matrix (Dtype)", the only exceptions being int8 (IMMA)
// and fp8 kernels; a bf16 or f16 D with an f32 bias is not among them. So with f32 D the
// bias is f32; with bf16 (f16) D it is bf16 (f16), and a caller holding f32 values
// converts them first.
BlasType lt_bias_type(const RowMajorGemm& g);

// The libraries tried, in order: only $TILEJIT_CUBLASLT when it is set; else
// libcublasLt.so.13, libcublasLt.so.12, then both under /usr/local/cuda/lib64/.
std::vector<std::string> cublaslt_library_names();

// The first of `names` that dlopen()s and has every entry point tilejit calls (it needs
// no GPU). None: RuntimeError(NoDriver) naming each library tried and why it failed.
std::string find_cublaslt(const std::vector<std::string>& names);

// What CublasLt::matmul cannot take, as sentences (empty when it can): what
// gemm_problems() refuses, a beta other than 0, a bias epilogue without a bias pointer,
// a bias pointer for an epilogue that has none.
std::vector<std::string> lt_problems(const RowMajorGemm& g, LtEpilogue e, CUdeviceptr bias);

// A cuBLASLt handle in the current context, with a 32 MiB workspace there.
class CublasLt {
 public:
  // cublasLtCreate. Throws RuntimeError(NoDriver) when cuBLASLt cannot be opened.
  CublasLt();
  ~CublasLt();
  CublasLt(CublasLt&& other) noexcept;
  CublasLt& operator=(CublasLt&&) = delete;
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  // D = epilogue(alpha * A * B (+ bias)) on `stream`, asynchronously, with fp32 compute
  // and beta 0 (see column_major() for the operand swap). a, b and d are device pointers
  // of g's shapes and types; bias is g.n values of lt_bias_type(g), or 0 when the epilogue
  // has none. The descriptors, layouts and the heuristic's algorithm are made on the first
  // call for (g, e, the pointers' alignments) and cached, so that later calls only launch.
  // What lt_problems() refuses is RuntimeError(Usage).
  void matmul(const RowMajorGemm& g, LtEpilogue e, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d, CUdeviceptr bias,
              CUstream stream);

  // cuBLASLt's version, "13.1.0" (cublasLtGetProperty).
  static std::string version();

 private:
  struct Plan;  // a matmul descriptor, the layouts and an algorithm
  // What a plan depends on: the problem and how aligned (in bytes, up to 256) each pointer is.
  struct PlanKey {
    int64_t m, n, k;
    GemmLayout layout;
    BlasType in, out;
    LtEpilogue epilogue;
    unsigned align_a, align_b, align_d, align_bias;
    bool operator<(const PlanKey& other) const;
  };
  Plan& plan(const RowMajorGemm& g, const PlanKey& key, CUdeviceptr bias);

  cublasLtContext* handle_ = nullptr;
  DeviceBuffer workspace_;
  std::map<PlanKey, std::unique_ptr<Plan>> plans_;
};

}  // namespace tj::rt

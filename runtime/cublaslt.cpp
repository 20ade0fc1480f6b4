#include "runtime/cublaslt.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "runtime/blas_library.h"
#include "runtime/error.h"

namespace tj::rt {

namespace {

// Every cuBLASLt entry point tilejit calls, by its exported name, with its type.
#define TJ_CUBLASLT_FUNCTIONS(X)                                                             \
  X(cublasLtCreate, decltype(&::cublasLtCreate))                                             \
  X(cublasLtDestroy, decltype(&::cublasLtDestroy))                                           \
  X(cublasLtGetStatusName, decltype(&::cublasLtGetStatusName))                               \
  X(cublasLtGetStatusString, decltype(&::cublasLtGetStatusString))                           \
  X(cublasLtGetProperty, decltype(&::cublasLtGetProperty))                                   \
  X(cublasLtMatmulDescCreate, decltype(&::cublasLtMatmulDescCreate))                         \
  X(cublasLtMatmulDescDestroy, decltype(&::cublasLtMatmulDescDestroy))                       \
  X(cublasLtMatmulDescSetAttribute, decltype(&::cublasLtMatmulDescSetAttribute))             \
  X(cublasLtMatrixLayoutCreate, decltype(&::cublasLtMatrixLayoutCreate))                     \
  X(cublasLtMatrixLayoutDestroy, decltype(&::cublasLtMatrixLayoutDestroy))                   \
  X(cublasLtMatmulPreferenceCreate, decltype(&::cublasLtMatmulPreferenceCreate))             \
  X(cublasLtMatmulPreferenceDestroy, decltype(&::cublasLtMatmulPreferenceDestroy))           \
  X(cublasLtMatmulPreferenceSetAttribute, decltype(&::cublasLtMatmulPreferenceSetAttribute)) \
  X(cublasLtMatmulAlgoGetHeuristic, decltype(&::cublasLtMatmulAlgoGetHeuristic))             \
  X(cublasLtMatmul, decltype(&::cublasLtMatmul))

struct Api {
#define TJ_CUBLASLT_MEMBER(name, type) type name = nullptr;
  TJ_CUBLASLT_FUNCTIONS(TJ_CUBLASLT_MEMBER)
#undef TJ_CUBLASLT_MEMBER
};

using Library = BlasLibrary<Api>;

void resolve(void* handle, Api& api) {
#define TJ_CUBLASLT_RESOLVE(fn, type) api.fn = reinterpret_cast<type>(dlsym(handle, #fn));
  TJ_CUBLASLT_FUNCTIONS(TJ_CUBLASLT_RESOLVE)
#undef TJ_CUBLASLT_RESOLVE
}

Library open_first(const std::vector<std::string>& names) {
#define TJ_CUBLASLT_NAME(fn, type) #fn,
  return open_blas_library<Api>(
      names, {TJ_CUBLASLT_FUNCTIONS(TJ_CUBLASLT_NAME)}, resolve, "cuBLASLt",
      "the fused-epilogue GEMM reference needs the CUDA toolkit's libcublasLt: put its folder "
      "on LD_LIBRARY_PATH or set TILEJIT_CUBLASLT to the library's path");
#undef TJ_CUBLASLT_NAME
}

// Opened once, on first use (thread-safe); never closed, as function pointers into it
// live as long as the process.
const Api& api() {
  static const Library opened = open_first(cublaslt_library_names());
  if (!opened.handle) throw RuntimeError(ErrorKind::NoDriver, opened.error);
  return opened.api;
}

// The one checking helper for cuBLASLt calls: "<call> failed: CUBLAS_STATUS_... (n): <text>".
void check(cublasStatus_t status, const std::string& call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_blas_error(status, call, api().cublasLtGetStatusName(status), api().cublasLtGetStatusString(status));
}

cublasLtEpilogue_t lt_epilogue(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::None: return CUBLASLT_EPILOGUE_DEFAULT;
    case LtEpilogue::Bias: return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogue::Relu: return CUBLASLT_EPILOGUE_RELU;
    case LtEpilogue::ReluBias: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogue::Gelu: return CUBLASLT_EPILOGUE_GELU;
    case LtEpilogue::GeluBias: return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

// The largest power of two up to 256 (cuBLASLt's default and largest assumption) that
// divides the address; 0 (no pointer) counts as aligned.
unsigned alignment_of(CUdeviceptr p) { return p == 0 ? 256u : unsigned(std::min<CUdeviceptr>(256, p & (~p + 1))); }

constexpr size_t kWorkspaceBytes = size_t(32) << 20;

template <class T>
void set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value, const char* name) {
  check(api().cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof(T)),
        std::string("cublasLtMatmulDescSetAttribute(") + name + ")");
}

template <class T>
void set(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attribute, const T& value,
         const char* name) {
  check(api().cublasLtMatmulPreferenceSetAttribute(pref, attribute, &value, sizeof(T)),
        std::string("cublasLtMatmulPreferenceSetAttribute(") + name + ")");
}

std::string call_name(const RowMajorGemm& g, LtEpilogue e) {
  return "cublasLtMatmul(" + g.str() + ", " + lt_epilogue_name(e) + ")";
}

}  // namespace

const char* lt_epilogue_name(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::None: return "none";
    case LtEpilogue::Bias: return "bias";
    case LtEpilogue::Relu: return "relu";
    case LtEpilogue::ReluBias: return "relu+bias";
    case LtEpilogue::Gelu: return "gelu";
    case LtEpilogue::GeluBias: return "gelu+bias";
  }
  return "?";
}

bool lt_epilogue_has_bias(LtEpilogue e) {
  return e == LtEpilogue::Bias || e == LtEpilogue::ReluBias || e == LtEpilogue::GeluBias;
}

BlasType lt_bias_type(const RowMajorGemm& g) { return g.out; }

std::vector<std::string> cublaslt_library_names() {
  return library_names("TILEJIT_CUBLASLT", {"libcublasLt.so.13", "libcublasLt.so.12"});
}

std::string find_cublaslt(const std::vector<std::string>& names) {
  const Library l = open_first(names);
  if (!l.handle) throw RuntimeError(ErrorKind::NoDriver, l.error);
  // Never dlclose it (like cuBLAS): unloading drops the static allocations its C++ runtime
  // made at load, which LeakSanitizer then reports from an unknown module.
  return l.name;
}

std::vector<std::string> lt_problems(const RowMajorGemm& g, LtEpilogue e, CUdeviceptr bias) {
  std::vector<std::string> out = gemm_problems(g);
  if (g.beta != 0)
    out.push_back("beta = " + std::to_string(g.beta) +
                  ": the cuBLASLt reference computes D with beta 0 (D is written, never read); set beta to 0");
  if (lt_epilogue_has_bias(e) && bias == 0)
    out.push_back(std::string("epilogue ") + lt_epilogue_name(e) + " needs a bias: a device pointer to N = " +
                  std::to_string(g.n) + " " + blas_type_name(lt_bias_type(g)) + " values, not 0");
  if (!lt_epilogue_has_bias(e) && bias != 0)
    out.push_back(std::string("epilogue ") + lt_epilogue_name(e) +
                  " adds no bias, yet a bias pointer was given: pass 0, or a bias epilogue");
  return out;
}

// cuBLASLt's names: its A is our B and its B our A (see column_major()); C is D, unread.
struct CublasLt::Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  cublasLtMatmulAlgo_t algo{};
  CUdeviceptr bias = 0;  // the pointer desc holds

  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {  // a Plan exists only once cuBLASLt opened, so api() does not throw here
    const Api& f = api();
    if (out) f.cublasLtMatrixLayoutDestroy(out);
    if (second) f.cublasLtMatrixLayoutDestroy(second);
    if (first) f.cublasLtMatrixLayoutDestroy(first);
    if (desc) f.cublasLtMatmulDescDestroy(desc);
  }
};

CublasLt::CublasLt() {
  const Api& f = api();  // NoDriver before anything is allocated on the GPU
  workspace_ = DeviceBuffer(kWorkspaceBytes);
  cublasLtHandle_t handle = nullptr;
  check(f.cublasLtCreate(&handle), "cublasLtCreate");
  handle_ = handle;
}

CublasLt::~CublasLt() {
  plans_.clear();
  if (handle_) api().cublasLtDestroy(handle_);  // destructors do not throw
}

CublasLt::CublasLt(CublasLt&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      workspace_(std::move(other.workspace_)),
      plans_(std::move(other.plans_)) {}

bool CublasLt::PlanKey::operator<(const PlanKey& o) const {
  return std::tie(m, n, k, layout, in, out, epilogue, align_a, align_b, align_d, align_bias) <
         std::tie(o.m, o.n, o.k, o.layout, o.in, o.out, o.epilogue, o.align_a, o.align_b, o.align_d, o.align_bias);
}

CublasLt::Plan& CublasLt::plan(const RowMajorGemm& g, const PlanKey& key, CUdeviceptr bias) {
  if (auto it = plans_.find(key); it != plans_.end()) return *it->second;
  const LtEpilogue e = key.epilogue;
  const Api& f = api();
  const ColumnMajorGemm c = column_major(g);
  auto p = std::make_unique<Plan>();
  check(f.cublasLtMatmulDescCreate(&p->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const int32_t trans_first = c.transpose_first ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int32_t trans_second = c.transpose_second ? CUBLAS_OP_T : CUBLAS_OP_N;
  set(p->desc, CUBLASLT_MATMUL_DESC_TRANSA, trans_first, "TRANSA");
  set(p->desc, CUBLASLT_MATMUL_DESC_TRANSB, trans_second, "TRANSB");
  set(p->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t(lt_epilogue(e)), "EPILOGUE");
  if (lt_epilogue_has_bias(e)) {
    // cublasLt.h: "Bias vector length must match matrix D rows count", broadcast to all
    // its columns. Its D is our D^T (c.m = N rows), so that is one value per column of ours.
    set(p->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, int32_t(cuda_data_type(lt_bias_type(g))), "BIAS_DATA_TYPE");
    set(p->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(device_pointer(bias)), "BIAS_POINTER");
    p->bias = bias;
  }
  // A layout is of the matrix as stored, before its op: rows x cols, column-major.
  check(f.cublasLtMatrixLayoutCreate(&p->first, cuda_data_type(g.in), uint64_t(c.transpose_first ? c.k : c.m),
                                     uint64_t(c.transpose_first ? c.m : c.k), c.ld_first),
        "cublasLtMatrixLayoutCreate(B)");
  check(f.cublasLtMatrixLayoutCreate(&p->second, cuda_data_type(g.in), uint64_t(c.transpose_second ? c.n : c.k),
                                     uint64_t(c.transpose_second ? c.k : c.n), c.ld_second),
        "cublasLtMatrixLayoutCreate(A)");
  check(f.cublasLtMatrixLayoutCreate(&p->out, cuda_data_type(g.out), uint64_t(c.m), uint64_t(c.n), c.ld_out),
        "cublasLtMatrixLayoutCreate(D)");

  cublasLtMatmulPreference_t pref = nullptr;
  check(f.cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  try {
    set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t(kWorkspaceBytes), "MAX_WORKSPACE_BYTES");
    // cuBLASLt's A is our B, its B our A; its C is D.
    set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, uint32_t(key.align_b), "MIN_ALIGNMENT_A_BYTES");
    set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, uint32_t(key.align_a), "MIN_ALIGNMENT_B_BYTES");
    set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, uint32_t(key.align_d), "MIN_ALIGNMENT_C_BYTES");
    set(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, uint32_t(key.align_d), "MIN_ALIGNMENT_D_BYTES");
    check(f.cublasLtMatmulAlgoGetHeuristic(handle_, p->desc, p->first, p->second, p->out, p->out, pref, 1, &result,
                                           &found),
          "cublasLtMatmulAlgoGetHeuristic for " + call_name(g, e));
  } catch (...) {
    f.cublasLtMatmulPreferenceDestroy(pref);
    throw;
  }
  f.cublasLtMatmulPreferenceDestroy(pref);
  if (found < 1)
    throw RuntimeError(ErrorKind::Launch, "cublasLtMatmulAlgoGetHeuristic found no algorithm for " + call_name(g, e) +
                                              " within a 32 MiB workspace (pointers aligned to a " +
                                              std::to_string(key.align_a) + ", b " + std::to_string(key.align_b) +
                                              ", d " + std::to_string(key.align_d) + ", bias " +
                                              std::to_string(key.align_bias) + " bytes)");
  p->algo = result.algo;
  return *plans_.emplace(key, std::move(p)).first->second;
}

void CublasLt::matmul(const RowMajorGemm& g, LtEpilogue e, CUdeviceptr a, CUdeviceptr b, CUdeviceptr d,
                      CUdeviceptr bias, CUstream stream) {
  // Benchmarks call this back to back: past the checks, a cached plan only launches.
  if (std::vector<std::string> problems = lt_problems(g, e, bias); !problems.empty()) {
    std::string msg = call_name(g, e) + ": ";
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    throw RuntimeError(ErrorKind::Usage, msg);
  }
  const PlanKey key{
      g.m, g.n, g.k, g.layout, g.in, g.out, e, alignment_of(a), alignment_of(b), alignment_of(d), alignment_of(bias)};
  Plan& p = plan(g, key, bias);
  if (bias != p.bias) {  // another pointer of the same alignment: no new heuristic needed
    set(p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, static_cast<const void*>(device_pointer(bias)), "BIAS_POINTER");
    p.bias = bias;
  }
  const float alpha = g.alpha, beta = 0;
  const cublasStatus_t status = api().cublasLtMatmul(
      handle_, p.desc, &alpha, device_pointer(b), p.first, device_pointer(a), p.second, &beta, device_pointer(d), p.out,
      device_pointer(d), p.out, &p.algo, device_pointer(workspace_.ptr()), kWorkspaceBytes, stream);
  if (status != CUBLAS_STATUS_SUCCESS) check(status, call_name(g, e));
}

std::string CublasLt::version() { return blas_version(api().cublasLtGetProperty, "cublasLtGetProperty", check); }

}  // namespace tj::rt

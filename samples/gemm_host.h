// The GEMM sample's host side (samples/gemm.h declares make_gemm_instance): what the
// benchmark needs beyond the Instance interface, and the checks on the kernel it feeds.
#pragma once

#include <string>
#include <vector>

#include "runtime/cublas.h"
#include "samples/gemm.h"

namespace tj::samples {

// What make_gemm_instance() returns.
class GemmInstance : public Instance {
 public:
  virtual const GemmShape& shape() const = 0;
  // Moves D[row, col] on the device by `ulps` units in the last place of the output type
  // (its bit pattern plus ulps): an error of known size, for tests that verify() can fail.
  // col may be past n, up to the rows' pitch: the padding, which verify() checks is untouched.
  virtual void perturb_output(int64_t row, int64_t col, int ulps) = 0;
  // D as the device holds it now, its bytes (m rows of d_pitch() elements of the output
  // type, row-major, padding included).
  virtual std::vector<unsigned char> output_bytes() const = 0;
  // The same problem by cuBLAS on this instance's device buffers, queued on `stream`
  // (asynchronous): D = alpha*A*B + beta*C, where cuBLAS's C is D itself, so with beta
  // != 0 C is first copied into D on the stream (refresh_c). It overwrites D, so verify()
  // the kernel before; verify() after it checks cuBLAS's result. For timing, refresh_c
  // false leaves the copy out: cuBLAS then reads D as its C (beta*D), the same reads and
  // writes as with C, but D's values drift from one call to the next.
  // With a fused epilogue (bias, relu, gelu) it is cuBLASLt's matmul with the same
  // epilogue, on a handle the instance keeps; a column scale or silu has no cuBLASLt
  // epilogue: RuntimeError(Usage).
  virtual void run_cublas(rt::Cublas& blas, CUstream stream, bool refresh_c = true) = 0;
  // What run_cublas runs: "cuBLAS", or "cuBLASLt gelu+bias".
  virtual std::string reference_name() const = 0;
};

// Every way `kernel` differs from what the host passes (samples/gemm.h): its parameters
// must be tensor maps A, B, D, C then i32 m, n, k, f32 alpha, beta, then the workspace
// parameters f32* workspace and u32* counters (the runtime binds them), in that order; the
// maps 2-D, A and B of the input type, D and C of the output type. Sentences; empty when
// it matches. Needs no GPU.
std::vector<std::string> gemm_kernel_problems(const GemmShape& s, const ir::Kernel& kernel);

}  // namespace tj::samples

#include "samples/gemm_reference.h"

#include <cmath>

#include "dsl/ir/ir.h"
#include "runtime/driver.h"

namespace tj::samples {

namespace {

rt::BlasType blas_type(ir::Scalar t) {
  switch (t) {
    case ir::Scalar::BF16: return rt::BlasType::BF16;
    case ir::Scalar::F16: return rt::BlasType::F16;
    case ir::Scalar::F32: return rt::BlasType::F32;
    default: ir::internal_error("a GEMM type must be bf16, f16 or f32, not " + std::string(ir::scalar_name(t)));
  }
}

rt::DeviceBuffer upload(const HostMatrix& m) {
  rt::DeviceBuffer d(m.bytes.size());
  d.upload(m.bytes);
  return d;
}

}  // namespace

rt::RowMajorGemm blas_problem(const GemmShape& s, ir::Scalar out) {
  rt::RowMajorGemm g;
  g.m = s.m, g.n = s.n, g.k = s.k;
  g.layout = s.layout == GemmLayout::TN ? rt::GemmLayout::TN : rt::GemmLayout::NN;
  g.in = blas_type(s.in);
  g.out = blas_type(out);
  g.alpha = float(s.alpha);
  g.beta = float(s.beta);
  g.lda = s.a_pitch(), g.ldb = s.b_pitch(), g.ldd = s.d_pitch();
  return g;
}

GemmReference cublas_reference(rt::Cublas& blas, const GemmShape& s, const GemmInputs& in) {
  const size_t elems = size_t(s.m) * size_t(s.d_pitch());  // D's pitch: the padding is never written
  rt::DeviceBuffer value(elems * 4), abs_product(elems * 4);
  // cuBLAS's C is its output: start from C in f32 (exact), or zeros when beta is 0.
  if (in.c) value.upload(in.c->to_f32());
  else value.fill_u8(0);
  blas.gemm(blas_problem(s, ir::Scalar::F32), in.a_device, in.b_device, value.ptr(), nullptr);

  rt::RowMajorGemm magnitudes = blas_problem(s, ir::Scalar::F32);
  magnitudes.alpha = std::fabs(magnitudes.alpha);
  magnitudes.beta = 0;
  rt::DeviceBuffer abs_a = upload(in.a->absolute()), abs_b = upload(in.b->absolute());
  blas.gemm(magnitudes, abs_a.ptr(), abs_b.ptr(), abs_product.ptr(), nullptr);
  rt::check(rt::driver().cuCtxSynchronize(), "cuCtxSynchronize (after the cuBLAS reference)");

  GemmReference r;
  r.value = value.download_as<float>();
  r.abs_product = abs_product.download_as<float>();
  return r;
}

HostElement host_element(const GemmShape& s, const GemmInputs& in, int64_t row, int64_t col) {
  double sum = 0, abs_sum = 0;
  for (int64_t p = 0; p < s.k; ++p) {
    const double a = in.a->at(row, p);
    const double b = s.layout == GemmLayout::TN ? in.b->at(col, p) : in.b->at(p, col);
    sum += a * b;
    abs_sum += std::fabs(a * b);
  }
  HostElement e;
  e.value = s.alpha * sum + (in.c ? s.beta * in.c->at(row, col) : 0.0);
  e.abs_product = std::fabs(s.alpha) * abs_sum;
  return e;
}

}  // namespace tj::samples

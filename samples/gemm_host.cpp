#include "samples/gemm_host.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "api/tensor.h"
#include "generators/compare.h"
#include "generators/float16.h"
#include "generators/host_matrix.h"
#include "runtime/buffer.h"
#include "runtime/cublaslt.h"
#include "runtime/driver.h"
#include "runtime/error.h"
#include "samples/gemm_reference.h"
#include "samples/gemm_tolerance.h"

namespace tj::samples {

namespace {

// The kernel's parameters, in order (samples/gemm.h): those the host passes, then
// split-K's workspace parameters (global pointers the runtime binds).
struct Expected {
  std::string name;
  ir::Scalar type;
  bool workspace = false;
};
// A kernel whose tiles have a tail chunk (gemm_tail_cols) declares the maps D_tail and C_tail
// right after C.
bool has_tail_maps(const ir::Kernel& k) { return k.find_tensor_map("D_tail") != nullptr; }
std::vector<Expected> expected_params(const GemmShape& s, bool tail) {
  std::vector<Expected> out = {{"A", ir::Scalar::TensorMap}, {"B", ir::Scalar::TensorMap}, {"D", ir::Scalar::TensorMap},
                               {"C", ir::Scalar::TensorMap}};
  if (tail) out.insert(out.end(), {{"D_tail", ir::Scalar::TensorMap}, {"C_tail", ir::Scalar::TensorMap}});
  out.insert(out.end(), {{"m", ir::Scalar::I32}, {"n", ir::Scalar::I32}, {"k", ir::Scalar::I32}, {"alpha", ir::Scalar::F32},
                         {"beta", ir::Scalar::F32}});
  if (s.epilogue.col_scale) out.push_back({"col_scale", ir::Scalar::F32});
  if (s.epilogue.bias) out.push_back({"bias", ir::Scalar::F32});
  out.push_back({"workspace", ir::Scalar::F32, true});
  out.push_back({"counters", ir::Scalar::U32, true});
  return out;
}

bool is_half(ir::Scalar t) { return t == ir::Scalar::BF16 || t == ir::Scalar::F16; }

// The tensor map `name` with the kernel's box and swizzle over the rows x cols matrix at
// `address` whose rows start `pitch` elements apart.
CUtensorMap encode(const ir::Kernel& k, const std::string& name, CUdeviceptr address, uint64_t rows, uint64_t cols, uint64_t pitch) {
  const ir::TensorMapDecl& d = *k.find_tensor_map(name);  // gemm_kernel_problems() checked it exists
  return tj::encode_tensor_map(tj::TensorView{address, d.dtype, {rows, cols}, pitch}, d);
}

rt::DeviceBuffer upload(const HostMatrix& m) {
  rt::DeviceBuffer d(m.bytes.size());
  d.upload(m.bytes);
  return d;
}

// An epilogue vector of n f32 in [lo, hi) (empty when `used` is false), each value one
// that bf16 and f16 hold exactly: cuBLASLt takes the bias in D's type, and the reference
// it is checked against then adds the same values.
std::vector<float> random_vector(bool used, int64_t n, uint64_t seed, double lo, double hi) {
  std::vector<float> v;
  if (!used) return v;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < n; ++i) {
    const float x = float(u(rng));
    v.push_back(std::abs(x) < 0x1p-12f ? 0.0f : from_bf16_bits(to_bf16_bits(x)));  // f16 holds bf16's values above 2^-14
  }
  return v;
}

// The cuBLASLt epilogue that computes `e`, if there is one: none scales columns, computes
// silu, or adds a matrix after the activation (its C is added before it).
std::optional<rt::LtEpilogue> lt_epilogue(const GemmEpilogue& e) {
  if (e.col_scale || e.residual || e.act == GemmAct::Silu) return std::nullopt;
  switch (e.act) {
    case GemmAct::None: return e.bias ? rt::LtEpilogue::Bias : rt::LtEpilogue::None;
    case GemmAct::Relu: return e.bias ? rt::LtEpilogue::ReluBias : rt::LtEpilogue::Relu;
    case GemmAct::Gelu: return e.bias ? rt::LtEpilogue::GeluBias : rt::LtEpilogue::Gelu;
    case GemmAct::Silu: break;
  }
  return std::nullopt;
}

// The values as `type` (f32, or bf16 / f16 bits: exact for random_vector's values).
std::vector<uint8_t> vector_bytes(const std::vector<float>& v, ir::Scalar type) {
  std::vector<uint8_t> out;
  for (float f : v) {
    uint32_t bits = 0;
    if (type == ir::Scalar::F32) std::memcpy(&bits, &f, 4);
    else bits = type == ir::Scalar::BF16 ? to_bf16_bits(f) : to_f16_bits(f);
    for (unsigned b = 0; b < ir::scalar_bytes(type); ++b) out.push_back(uint8_t(bits >> (8 * b)));
  }
  return out;
}
rt::DeviceBuffer upload(const std::vector<float>& v) {
  rt::DeviceBuffer d(std::max<size_t>(v.size(), 1) * 4);
  if (!v.empty()) d.upload(v);
  return d;
}

std::string type_name(ir::Scalar t) { return std::string(ir::scalar_name(t)); }

// What cuBLASLt cannot fuse of `e` (lt_epilogue() is empty), in words.
std::string lt_missing(const GemmEpilogue& e) {
  return e.col_scale ? "per-column scale" : e.residual ? "residual add after the activation" : "silu";
}

// The kernel reads the map C: C itself (beta != 0) or the residual R, both M x N in D's type.
bool reads_c(const GemmShape& s) { return s.beta != 0 || s.epilogue.residual; }

class GemmHost final : public GemmInstance {
 public:
  GemmHost(const GemmShape& s, const ir::Kernel& kernel, uint64_t seed, bool swapped)
      : shape_(s),
        seed_(seed),
        swapped_(swapped),
        a_(random_matrix(s.in, s.m, s.k, seed, 0xA, s.a_pitch())),
        b_(s.layout == GemmLayout::TN ? random_matrix(s.in, s.n, s.k, seed, 0xB, s.b_pitch())
                                      : random_matrix(s.in, s.k, s.n, seed, 0xB, s.b_pitch())),
        c_(reads_c(s) ? random_matrix(s.out, s.m, s.n, seed, 0xC, s.d_pitch()) : HostMatrix()),
        col_scale_(random_vector(s.epilogue.col_scale, s.n, seed ^ 0x5C, 0.5, 1.5)),
        bias_(random_vector(s.epilogue.bias, s.n, seed ^ 0xB1, -1.0, 1.0)),
        a_dev_(upload(a_)),
        b_dev_(upload(b_)),
        c_dev_(upload(c_)),
        d_dev_(size_t(s.m) * size_t(s.d_pitch()) * ir::scalar_bytes(s.out)),
        col_scale_dev_(upload(col_scale_)),
        bias_dev_(upload(bias_)) {
    const uint64_t m = uint64_t(s.m), n = uint64_t(s.n), k = uint64_t(s.k), ldd = uint64_t(s.d_pitch());
    // D's padding (columns n .. ldd - 1) holds all-ones bytes, as C's does: verify() checks
    // that the kernel never writes there.
    d_dev_.fill_u8(0xFF);
    if (swapped) {  // D^T = B A^T: the kernel's A is B (n x k), its B is A
      maps_[0] = encode(kernel, "A", b_dev_.ptr(), n, k, uint64_t(s.b_pitch()));
      maps_[1] = encode(kernel, "B", a_dev_.ptr(), m, k, uint64_t(s.a_pitch()));
    } else {
      maps_[0] = encode(kernel, "A", a_dev_.ptr(), m, k, uint64_t(s.a_pitch()));
      maps_[1] = s.layout == GemmLayout::TN ? encode(kernel, "B", b_dev_.ptr(), n, k, uint64_t(s.b_pitch()))
                                            : encode(kernel, "B", b_dev_.ptr(), k, n, uint64_t(s.b_pitch()));
    }
    maps_[2] = encode(kernel, "D", d_dev_.ptr(), m, n, ldd);
    // The residual R is read through the map C; with neither it nor beta the kernel does
    // not read C: its map may point at D.
    maps_[3] = encode(kernel, "C", reads_c(s) ? c_dev_.ptr() : d_dev_.ptr(), m, n, ldd);
    // The tail chunk's maps: the same matrices, boxes as narrow as the tail.
    if (has_tail_maps(kernel)) {
      maps_.push_back(encode(kernel, "D_tail", d_dev_.ptr(), m, n, ldd));
      maps_.push_back(encode(kernel, "C_tail", reads_c(s) ? c_dev_.ptr() : d_dev_.ptr(), m, n, ldd));
    }
  }

  rt::ArgPack args() override {
    rt::ArgPack a;
    for (const CUtensorMap& map : maps_) a.push(map);
    // The kernel's m and n: swapped, its rows run along the problem's n.
    a.push(int32_t(swapped_ ? shape_.n : shape_.m)).push(int32_t(swapped_ ? shape_.m : shape_.n)).push(int32_t(shape_.k));
    a.push(float(shape_.alpha)).push(float(shape_.beta));
    if (shape_.epilogue.col_scale) a.push(col_scale_dev_.ptr());
    if (shape_.epilogue.bias) a.push(bias_dev_.ptr());
    return a;  // split-K's workspace and counters: the runtime binds them at launch
  }

  void poison() override { d_dev_.fill_u8(0xFF); }  // NaN in bf16, f16 and f32 (the padding's bytes too)

  void perturb_output(int64_t row, int64_t col, int ulps) override {
    // Columns n .. ldd - 1 are the rows' padding: a test may write there too.
    if (row < 0 || row >= shape_.m || col < 0 || col >= shape_.d_pitch())
      throw rt::RuntimeError(rt::ErrorKind::Usage, "perturb_output: D[" + std::to_string(row) + ", " + std::to_string(col) +
                                                       "] is outside D (" + std::to_string(shape_.m) + " x " + std::to_string(shape_.n) +
                                                       ", rows " + std::to_string(shape_.d_pitch()) + " apart)");
    const size_t bytes = ir::scalar_bytes(shape_.out);
    const CUdeviceptr at = d_dev_.ptr() + (size_t(row) * size_t(shape_.d_pitch()) + size_t(col)) * bytes;
    uint32_t bits = 0;  // little-endian: a 2-byte element is the low half
    rt::check(rt::driver().cuMemcpyDtoH(&bits, at, bytes), "cuMemcpyDtoH (perturb_output)");
    bits += uint32_t(ulps);
    rt::check(rt::driver().cuMemcpyHtoD(at, &bits, bytes), "cuMemcpyHtoD (perturb_output)");
  }

  std::vector<unsigned char> output_bytes() const override {
    std::vector<unsigned char> out(d_dev_.bytes());
    rt::check(rt::driver().cuMemcpyDtoH(out.data(), d_dev_.ptr(), out.size()), "cuMemcpyDtoH (output_bytes)");
    return out;
  }

  Check verify() override;

  double bytes_per_launch() const override {
    // The matrices' elements, not their padding.
    const double in = double(ir::scalar_bytes(shape_.in)), out = double(ir::scalar_bytes(shape_.out));
    const double mn = double(shape_.m) * double(shape_.n);
    return in * double(shape_.k) * double(shape_.m + shape_.n) + out * mn * (reads_c(shape_) ? 2 : 1);
  }
  double flops_per_launch() const override { return shape_.flops(); }
  const GemmShape& shape() const override { return shape_; }

  std::string reference_name() const override {
    if (!shape_.epilogue.any()) return "cuBLAS";
    const std::optional<rt::LtEpilogue> e = lt_epilogue(shape_.epilogue);
    return e ? std::string("cuBLASLt ") + rt::lt_epilogue_name(*e)
             : "none (cuBLASLt fuses no " + lt_missing(shape_.epilogue) + ")";
  }

  void run_cublas(rt::Cublas& blas, CUstream stream, bool refresh_c) override {
    if (shape_.epilogue.any()) {
      const std::optional<rt::LtEpilogue> e = lt_epilogue(shape_.epilogue);
      if (!e)
        throw rt::RuntimeError(rt::ErrorKind::Usage, "run_cublas: cuBLASLt fuses no " + lt_missing(shape_.epilogue) +
                                                         ": there is no reference epilogue to run");
      if (!lt_) lt_.emplace();
      if (shape_.epilogue.bias && !lt_bias_) {
        const std::vector<uint8_t> bytes = vector_bytes(bias_, shape_.out);
        lt_bias_.emplace(bytes.size());
        lt_bias_->upload(bytes);
      }
      lt_->matmul(blas_problem(shape_, shape_.out), *e, a_dev_.ptr(), b_dev_.ptr(), d_dev_.ptr(),
                  shape_.epilogue.bias ? lt_bias_->ptr() : 0, stream);
      return;
    }
    if (shape_.beta != 0 && refresh_c)
      rt::check(rt::driver().cuMemcpyDtoDAsync(d_dev_.ptr(), c_dev_.ptr(), d_dev_.bytes(), stream),
                "cuMemcpyDtoDAsync (C into D, cuBLAS's C)");
    blas.gemm(blas_problem(shape_, shape_.out), a_dev_.ptr(), b_dev_.ptr(), d_dev_.ptr(), stream);
  }

 private:
  GemmInputs inputs() const {
    GemmInputs in;
    in.a = &a_, in.b = &b_, in.c = shape_.beta != 0 ? &c_ : nullptr;
    in.a_device = a_dev_.ptr(), in.b_device = b_dev_.ptr();
    return in;
  }
  double beta_c(size_t i) const { return shape_.beta != 0 ? shape_.beta * c_.at(i) : 0.0; }

  GemmShape shape_;
  uint64_t seed_;
  bool swapped_;  // the kernel computes D^T = B A^T
  HostMatrix a_, b_, c_;
  std::vector<float> col_scale_, bias_;
  rt::DeviceBuffer a_dev_, b_dev_, c_dev_, d_dev_, col_scale_dev_, bias_dev_;
  std::vector<CUtensorMap> maps_ = std::vector<CUtensorMap>(4);
  std::optional<rt::Cublas> blas_;  // made on the first verify()
  std::optional<rt::CublasLt> lt_;  // made on the first run_cublas with an epilogue
  std::optional<rt::DeviceBuffer> lt_bias_;  // the bias in D's type, as cuBLASLt takes it
};

Check GemmHost::verify() {
  if (!blas_) blas_.emplace();
  const GemmInputs in = inputs();
  const GemmReference ref = cublas_reference(*blas_, shape_, in);
  const int64_t n = shape_.n, ldd = shape_.d_pitch();
  // D, C and the reference share D's pitch: element (row, col) is at row * ldd + col.
  auto at = [&](int64_t row, int64_t col) { return size_t(row) * size_t(ldd) + size_t(col); };

  // The reference itself, at 64 random elements, against the host in double: a wrong
  // transposition in the cuBLAS call would show here, not as a kernel bug.
  MismatchLog ref_log;
  std::mt19937_64 rng(seed_ ^ 0x7e57ull);
  for (int i = 0; i < 64; ++i) {
    const int64_t row = int64_t(rng() % uint64_t(shape_.m)), col = int64_t(rng() % uint64_t(n));
    const HostElement want = host_element(shape_, in, row, col);
    ref_log.compare_close(ref.value[at(row, col)], want.value,
                          gemm_tolerance(shape_.out, want.value, want.abs_product, beta_c(at(row, col))),
                          [&] { return "reference[" + std::to_string(row) + ", " + std::to_string(col) + "]"; });
  }

  HostMatrix d(shape_.out, shape_.m, n, ldd);
  d_dev_.download(d.bytes.data(), d.bytes.size());
  MismatchLog log;
  const GemmEpilogue& e = shape_.epilogue;
  const size_t eb = ir::scalar_bytes(shape_.out);
  // TMA stores D in whole 16 bytes: with rows that are not a multiple of 16 bytes, each row's
  // padding up to that boundary (columns n .. granule_end - 1) is written too (seen on the
  // H200); the padding past it (a wider ldd) must keep its bytes.
  const int64_t per16 = int64_t(16 / eb), granule_end = std::min(ldd, (n + per16 - 1) / per16 * per16);
  int64_t padding_written = 0, granule_written = 0, first_row = -1, first_col = -1;
  // An element outside the tolerance of cuBLAS's f32 sum gets a second opinion: the host's
  // sum in double at that element (cuBLAS's own rounding over a long K can take it past the
  // bound). It passes only within the bound of that exact value; at most kSecondOpinions.
  constexpr uint64_t kSecondOpinions = 4096;
  uint64_t second_opinions = 0, settled = 0;
  double cublas_off = 0;  // the most cuBLAS's sum was off the host's, among the settled
  for (int64_t row = 0; row < shape_.m; ++row) {
    for (int64_t col = 0; col < n; ++col) {
      const size_t i = at(row, col);
      const double scale = e.col_scale ? col_scale_[size_t(col)] : 1.0, bias = e.bias ? bias_[size_t(col)] : 0.0;
      const double residual = e.residual ? c_.at(i) : 0.0;
      // What D[row, col] should be from the sum `v` whose |A||B| is `abs_product`, and how close.
      auto expect = [&](double v, double abs_product) -> std::pair<double, double> {
        if (!e.any()) return {v, gemm_tolerance(shape_.out, v, abs_product, beta_c(i))};
        // The epilogue on the reference, within samples/gemm_tolerance.h's bound for it.
        const double w = gemm_epilogue_apply(e, v, scale, bias, residual);
        return {w, gemm_epilogue_tolerance(shape_.out, e, w, v * scale + bias, scale, bias, abs_product, residual)};
      };
      auto [want, tol] = expect(ref.value[i], ref.abs_product[i]);
      const double got = d.at(i);
      if (!(std::isfinite(got) && std::fabs(got - want) <= tol) && second_opinions < kSecondOpinions) {
        ++second_opinions;
        const HostElement h = host_element(shape_, in, row, col);
        const auto [exact, exact_tol] = expect(h.value, h.abs_product);
        if (std::isfinite(got) && std::fabs(got - exact) <= exact_tol) {
          ++settled, cublas_off = std::max(cublas_off, std::fabs(ref.value[i] - h.value));
          want = exact, tol = exact_tol;
        }
      }
      log.compare_close(got, want, tol, [&] { return "D[" + std::to_string(row) + ", " + std::to_string(col) + "]"; });
    }
    // The padding after the row keeps the all-ones bytes it was given, past granule_end.
    for (int64_t col = n; col < ldd; ++col) {
      const uint8_t* b = &d.bytes[at(row, col) * eb];
      if (std::all_of(b, b + eb, [](uint8_t x) { return x == 0xFF; })) continue;
      if (col < granule_end) ++granule_written;
      else if (padding_written++ == 0) first_row = row, first_col = col;
    }
  }
  const std::string what = "D (" + std::to_string(shape_.m) + " x " + std::to_string(n) + " " + type_name(shape_.out) +
                           (ldd != n ? ", rows " + std::to_string(ldd) + " apart" : std::string()) + ") vs cuBLAS in f32" +
                           (e.any() ? " with the epilogue applied in double" : "") + ", within " +
                           (e.any() ? kGemmEpilogueToleranceText : kGemmToleranceText) +
                           (e.residual ? " + 2^-23 * (|act(x)| + |R|)" : "");
  const Check main = log.result(what), reference = ref_log.result("cuBLAS's reference vs the host in double at 64 elements");
  std::string notes;
  if (second_opinions > 0) {
    char off[32];
    std::snprintf(off, sizeof off, "%.3g", cublas_off);
    notes = "; outside the tolerance of cuBLAS's sum, checked against the host's sum in double: " +
              std::to_string(second_opinions) + " element(s)" +
              (second_opinions == kSecondOpinions ? " (the most it checks)" : "") + ", " + std::to_string(settled) +
              " within its tolerance" + (settled ? std::string(" (cuBLAS's sum off by up to ") + off + ")" : "");
  }
  if (granule_end != n)
    notes += "; D's padding to the rows' 16-byte boundary (columns " + std::to_string(n) + ".." + std::to_string(granule_end - 1) +
              ", TMA's whole 16 bytes) written at " + std::to_string(granule_written) + " of " +
              std::to_string(shape_.m * (granule_end - n)) + " elements";
  if (ldd != granule_end)
    notes += padding_written == 0 ? "; D's row padding (columns " + std::to_string(granule_end) + ".." + std::to_string(ldd - 1) + ") untouched"
                                    : "; D's row padding was written: " + std::to_string(padding_written) + " element(s), the first D[" +
                                          std::to_string(first_row) + ", " + std::to_string(first_col) + "] (past column " +
                                          std::to_string(granule_end - 1) + ")";
  return {main.ok && reference.ok && padding_written == 0, main.detail + "; " + reference.detail + notes};
}

}  // namespace

std::vector<std::string> gemm_kernel_problems(const GemmShape& s, const ir::Kernel& kernel) {
  std::vector<std::string> out;
  const std::string who = "kernel '" + kernel.name + "'";
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (auto [name, v] : {std::pair{"m", s.m}, std::pair{"n", s.n}, std::pair{"k", s.k}})
    if (v < 1 || v > kMax)
      out.push_back(std::string(name) + " = " + std::to_string(v) + ": the kernel takes it as an i32 from 1 to 2^31 - 1");
  if (!is_half(s.in)) out.push_back("the inputs are " + type_name(s.in) + "; the GEMM takes bf16 or f16");
  if (!is_half(s.out) && s.out != ir::Scalar::F32)
    out.push_back("the output is " + type_name(s.out) + "; the GEMM writes bf16, f16 or f32");

  const std::vector<Expected> want = expected_params(s, has_tail_maps(kernel));
  const size_t count = want.size();
  if (kernel.params.size() != count) {
    std::string names;
    for (const Expected& p : want) names += (names.empty() ? "" : ", ") + p.name;
    out.push_back(who + " has " + std::to_string(kernel.params.size()) + " parameters; the GEMM's are " + std::to_string(count) +
                  ": " + names + " (the host passes all but the workspaces workspace and counters)");
  }
  for (size_t i = 0; i < std::min(count, kernel.params.size()); ++i) {
    const ir::Param& p = kernel.params[i];
    const bool workspace = want[i].workspace, vector = want[i].name == "col_scale" || want[i].name == "bias";
    const ir::Type type = workspace || vector ? ir::Type::pointer(want[i].type, ir::Space::Global) : ir::Type::of(want[i].type);
    if (p.name != want[i].name || p.type != type)
      out.push_back(who + " parameter " + std::to_string(i) + " is '" + p.name + "' (" + p.type.str() + "); the host passes '" +
                    want[i].name + "' (" + type.str() + ") there");
    else if (workspace != p.workspace.has_value())
      out.push_back(who + " parameter " + std::to_string(i) + " '" + p.name + "' " +
                    (workspace ? "is not a workspace; the runtime must bind it (split-K's)" : "is a workspace; the host passes it"));
  }
  std::vector<const char*> maps = {"A", "B", "D", "C"};
  if (has_tail_maps(kernel)) maps.insert(maps.end(), {"D_tail", "C_tail"});
  for (const char* name : maps) {
    const ir::TensorMapDecl* d = kernel.find_tensor_map(name);
    const bool input = name[0] == 'A' || name[0] == 'B';
    const ir::Scalar want = input ? s.in : s.out;
    if (!d) {
      out.push_back(who + " declares no tensor map '" + name + "'");
      continue;
    }
    if (d->rank != 2 || d->box.size() != 2)
      out.push_back(who + " tensor map '" + name + "' is " + std::to_string(d->rank) + "-D; the host encodes 2-D maps (innermost first)");
    if (d->dtype != want)
      out.push_back(who + " tensor map '" + name + "' holds " + type_name(d->dtype) + "; the problem's " +
                    (input ? "inputs are " : "output is ") + type_name(want));
  }
  return out;
}

std::unique_ptr<Instance> make_gemm_instance(const GemmShape& shape, const ir::Kernel& kernel, uint64_t seed, bool swapped) {
  if (std::vector<std::string> problems = gemm_kernel_problems(shape, kernel); !problems.empty()) {
    std::string msg = "gemm host: ";
    for (size_t i = 0; i < problems.size(); ++i) msg += (i ? "; " : "") + problems[i];
    throw rt::RuntimeError(rt::ErrorKind::Usage, msg);
  }
  if (swapped && shape.layout != GemmLayout::TN)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "gemm host: a swapped kernel (D^T = B A^T) reads both operands K-major: layout tn");
  return std::make_unique<GemmHost>(shape, kernel, seed, swapped);
}

}  // namespace tj::samples

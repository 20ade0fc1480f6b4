#include "samples/softmax.h"

#include <algorithm>
#include <cmath>

#include "dsl/dsl.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {

constexpr float kLog2e = 1.44269504088896340736f;
std::string str(int64_t v) { return std::to_string(v); }
const char* type_name(ir::Scalar t) { return t == ir::Scalar::BF16 ? "bf16" : "f32"; }

// The widest access of at most 16 bytes whose element count divides cols (so that every
// row starts on a vector boundary).
unsigned vector_width(ir::Scalar dtype, int64_t cols) {
  for (unsigned v : {16u, 8u, 4u}) {
    const unsigned elems = v / (dtype == ir::Scalar::BF16 ? 2 : 4);
    if (cols % elems == 0) return elems;
  }
  return dtype == ir::Scalar::BF16 ? (cols % 2 == 0 ? 2 : 1) : 1;
}

// ---- vector accesses: `vec` elements of E at vector index j, as f32 values ----------------

std::vector<f32> load_values(const Ptr<float>& p, const i32& j, unsigned vec) {
  if (vec == 4) {
    auto v = var(f32x4(p.as<f32x4_t>()[j]), "xv");
    return {lane(v, 0), lane(v, 1), lane(v, 2), lane(v, 3)};
  }
  if (vec == 2) {
    auto v = var(f32x2(p.as<f32x2_t>()[j]), "xv");
    return {lane(v, 0), lane(v, 1)};
  }
  return {f32(p[j])};
}

std::vector<f32> load_values(const Ptr<bf16>& p, const i32& j, unsigned vec) {
  std::vector<bf16x2> pairs;
  if (vec == 8) {
    auto v = var(u32x4(p.as<u32x4_t>()[j]), "xv");
    for (unsigned k = 0; k < 4; ++k) pairs.push_back(bitcast<bf16x2_t>(lane(v, k)));
  } else if (vec == 4) {
    auto v = var(f32x2(p.as<f32x2_t>()[j]), "xv");
    for (unsigned k = 0; k < 2; ++k) pairs.push_back(bitcast<bf16x2_t>(lane(v, k)));
  } else if (vec == 2) {
    pairs.push_back(var(bf16x2(p.as<bf16x2_t>()[j]), "xv"));
  } else {
    return {cast<float>(bf16v(p[j]))};
  }
  std::vector<f32> out;
  for (const bf16x2& two : pairs)
    for (const f32& v : cvt_unpack(two)) out.push_back(v);
  return out;
}

void store_values(const Ptr<float>& p, const i32& j, const std::vector<f32>& v) {
  if (v.size() == 4) p.as<f32x4_t>()[j] = pack(v[0], v[1], v[2], v[3]);
  else if (v.size() == 2) p.as<f32x2_t>()[j] = pack(v[0], v[1]);
  else p[j] = v[0];
}

void store_values(const Ptr<bf16>& p, const i32& j, const std::vector<f32>& v) {
  auto bits = [&](size_t k) { return bitcast<uint32_t>(cvt_pack<bf16x2_t>(v[k], v[k + 1])); };
  if (v.size() == 8) p.as<u32x4_t>()[j] = pack_u32x4(bits(0), bits(2), bits(4), bits(6));
  else if (v.size() == 4) p.as<f32x2_t>()[j] = pack(bitcast<float>(bits(0)), bitcast<float>(bits(2)));
  else if (v.size() == 2) p.as<bf16x2_t>()[j] = cvt_pack<bf16x2_t>(v[0], v[1]);
  else p[j] = cast<bf16>(v[0]);
}

// ---- reductions -----------------------------------------------------------------------

// The values combined pairwise, a balanced tree (independent operations, short chains).
template <class Op>
f32 tree(std::vector<f32> v, Op op) {
  while (v.size() > 1) {
    std::vector<f32> next;
    for (size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(op(v[i], v[i + 1]));
    if (v.size() % 2) next.push_back(v.back());
    v = std::move(next);
  }
  return v[0];
}

// Combines each warp's `v` (the same in all its lanes) over the row's W warps: lane 0 of
// each warp writes it to `name`_parts[warp]; after a CTA barrier lane l reads the value of
// the row's warp l % W, and log2 W butterfly steps within aligned groups of W lanes give
// every lane the combination of all W (the same bits in each: every step is commutative).
template <class Op>
f32 across_warps(KernelBuilder& k, const std::string& name, const f32& v, const SoftmaxPlan& p, Op op) {
  const int32_t w = int32_t(p.warps_per_row);
  auto buf = k.shared<float>(name + "_parts", uint64_t(p.rows_per_cta()) * p.warps_per_row);
  i32 warp = thread_idx_x() / 32, lane = thread_idx_x() % 32;
  if_(lane == 0, [&] { buf[warp] = v; });
  sync_threads();
  f32 acc = var(f32(buf[(warp / w) * w + lane % w]), name + "_part");
  for (int32_t d = w / 2; d >= 1; d /= 2) acc = var(op(acc, shfl_xor(acc, i32(d))), name);  // a var: read twice
  return acc;
}

template <class E>
void softmax_body(KernelBuilder& k, const SoftmaxPlan& p) {
  auto x = k.param<E*>("x");
  auto y = k.param<E*>("y");
  auto rows = k.param<int32_t>("rows");
  const int32_t T = int32_t(p.row_threads()), vectors = int32_t(p.vectors());
  const unsigned n = p.vectors_per_thread();
  auto fmax = [](const f32& a, const f32& b) { return max(a, b); };
  auto add = [](const f32& a, const f32& b) { return a + b; };

  // Thread t of its row's T threads; rows past the last read the last row (every warp
  // reaches the shuffles and barriers) and store nothing.
  i32 t = var(thread_idx_x() % T, "t");
  i32 row = var(block_idx_x() * int32_t(p.rows_per_cta()) + thread_idx_x() / T, "row");
  i32 base = var(min(row, rows - 1) * vectors, "base");  // the row's first vector

  // 1. The row into registers: vector t + i T for i < n. Past the row's end (the last i
  //    only), the load reads the row's last vector and the values count as -inf.
  std::vector<f32> xs;
  for (unsigned i = 0; i < n; ++i) {
    const bool tail = p.ragged() && i + 1 == n;
    i32 j = t + int32_t(i) * T;
    for (const f32& v : load_values(x, base + (tail ? min(j, i32(vectors - 1)) : j), p.vec))
      xs.push_back(var(tail ? select(j < vectors, v, f32(-INFINITY)) : v, "x"));
  }

  // 2. The row's maximum: this thread's, the warp's (shuffles), the row's warps'.
  f32 m = var(warp_max(tree(xs, fmax)), "row_max");
  if (p.warps_per_row > 1) m = across_warps(k, "row_max", m, p, fmax);

  // 3. e = 2^(x log2 e - m log2 e), one fma and one ex2.approx each, and their sum.
  f32 neg_m_log2e = var(-(m * kLog2e), "neg_m_log2e");
  std::vector<f32> es;
  for (const f32& v : xs) es.push_back(var(approx::exp2(fma(v, f32(kLog2e), neg_m_log2e)), "e"));
  f32 sum = var(warp_sum(tree(es, add)), "row_sum");
  if (p.warps_per_row > 1) sum = across_warps(k, "row_sum", sum, p, add);
  f32 inv = var(rcp(sum), "inv_sum");

  // 4. y = e / sum, stored by the rows that exist.
  if_(row < rows, [&] {
    for (unsigned i = 0; i < n; ++i) {
      std::vector<f32> out;
      for (unsigned l = 0; l < p.vec; ++l) out.push_back(es[i * p.vec + l] * inv);
      i32 j = t + int32_t(i) * T;
      if (p.ragged() && i + 1 == n) {
        if_(j < vectors, [&] { store_values(y, base + j, out); });
      } else {
        store_values(y, base + j, out);
      }
    }
  });
}

}  // namespace

std::vector<ParamSpec> Softmax::params() const {
  return {{"rows", 8192, 1, (int64_t(1) << 31) - 1, "rows of x (each one softmax)"},
          {"cols", 4096, 1, int64_t(1) << 16, "columns: the length of each softmax"},
          {"dtype", 0, 0, 1, "element type of x and y: f32, or bf16 (computed in f32)", {"f32", "bf16"}},
          {"warps_per_row", 0, 0, 32,
           "warps that share a row (combining through shared memory when more than 1): a power of two that divides the "
           "CTA's warps. 0: the fewest that leave each thread at most 8 vectors of 16 bytes"}};
}

SoftmaxPlan softmax_plan(const Config& c) {
  SoftmaxPlan p;
  p.rows = c.param("rows"), p.cols = c.param("cols");
  p.dtype = c.param("dtype") == 1 ? ir::Scalar::BF16 : ir::Scalar::F32;
  p.threads = c.threads;
  p.vec = vector_width(p.dtype, p.cols);
  const unsigned warps = std::max(1u, c.threads / 32);
  p.warps_per_row = unsigned(c.param("warps_per_row"));
  if (p.warps_per_row == 0) {  // the fewest warps (a divisor of the CTA's) that keep a thread's share small
    for (p.warps_per_row = 1; warps % (2 * p.warps_per_row) == 0; p.warps_per_row *= 2)
      if (p.vectors_per_thread() <= kSoftmaxTargetVectors && p.values_per_thread() <= p.max_values_per_thread()) break;
  }
  return p;
}

std::vector<ConfigProblem> Softmax::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.count() != 1) out.push_back({"cluster", "softmax runs without clusters: use cluster 1"});
  if (c.threads % 32 != 0) {
    out.push_back({"threads", "softmax needs whole warps: threads a multiple of 32, got " + str(c.threads)});
    return out;
  }
  const int64_t w = c.param("warps_per_row"), warps = c.threads / 32;
  if (w != 0 && (warps % w != 0 || (w & (w - 1)) != 0)) {
    out.push_back({"params.warps_per_row", "warps_per_row = " + str(w) + " must be a power of two that divides the CTA's " +
                                               str(warps) + " warps (threads " + str(c.threads) + ")"});
    return out;
  }
  const SoftmaxPlan p = softmax_plan(c);
  if (p.values_per_thread() > p.max_values_per_thread()) {
    std::string fix = "raise warps_per_row (up to " + str(warps) + ")";
    if (p.warps_per_row == warps) {
      fix = "a CTA holds rows of at most";
      for (unsigned t : {256u, 512u, 1024u}) {
        SoftmaxPlan q = p;
        q.threads = t;
        fix += (t == 256 ? " " : ", ") + str(int64_t(q.max_values_per_thread()) * t) + (t == 256 ? " columns" : "") +
               " with " + str(t) + (t == 256 ? " threads" : "");
      }
    }
    out.push_back({"params.cols", "a row of " + str(p.cols) + " " + type_name(p.dtype) + " over " + str(p.warps_per_row) +
                                      " warps is " + str(p.values_per_thread()) + " values per thread; with " +
                                      str(p.threads) + " threads at most " + str(p.max_values_per_thread()) +
                                      " fit in registers: " + fix});
  }
  const int64_t elems = p.rows * p.cols;
  if (elems > (int64_t(1) << 31) - 1)
    out.push_back({"params.rows", "rows x cols = " + str(elems) + " elements; the kernel's indices are 32-bit: at most 2147483647"});
  return out;
}

ir::Kernel build_softmax_kernel(const SoftmaxPlan& p) {
  KernelBuilder k("softmax");
  k.threads(p.threads);
  if (p.dtype == ir::Scalar::BF16) softmax_body<bf16>(k, p);
  else softmax_body<float>(k, p);
  return k.build();
}

ir::Kernel Softmax::build(const Config& c) const { return build_softmax_kernel(softmax_plan(c)); }

std::unique_ptr<Instance> Softmax::instantiate(const Config& c, uint64_t seed) const {
  return make_softmax_instance(softmax_plan(c), seed);
}

std::optional<ir::Dim3> Softmax::problem_grid(const Config& c) const {
  return ir::Dim3{unsigned(softmax_plan(c).ctas()), 1, 1};
}

double softmax_relative_bound(const SoftmaxPlan& p, double x, double m, double spread) {
  const double u = 0x1p-24;
  auto d = [&](double t) { return 0x1p-22 + u * (2 * t + std::abs(m)) * (1 + 0x1p-20); };
  unsigned h = 5;  // the warp's butterfly
  for (unsigned n = 1; n < p.values_per_thread(); n *= 2) ++h;  // the thread's tree
  for (unsigned w = 1; w < p.warps_per_row; w *= 2) ++h;        // across the row's warps
  const double gamma = h * u / (1 - h * u);
  return d(std::abs(x - m)) + d(spread) + gamma + 2 * u + (p.dtype == ir::Scalar::BF16 ? 0x1p-8 : 0.0);
}

}  // namespace tj::samples

// The attention sample's host side: random bf16 Q, K and V, the device buffers and
// 3-D tensor maps the kernel reads them through, and the check of O and the
// logsumexp against softmax attention computed in double.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "api/tensor.h"
#include "generators/compare.h"
#include "generators/host_matrix.h"
#include "runtime/buffer.h"
#include "runtime/error.h"
#include "samples/attention.h"

namespace tj::samples {

namespace {

// O's bound: the P V MMA reads P rounded to bf16 (relative 2^-9 each, so at most
// 2^-9 sum_j p_j |v_j| / l) and O is rounded to bf16 (2^-9 |O|); both doubled, plus
// the f32 and .approx roundings of the scores, exp2 and 1 / l, far below that.
constexpr double kPvBound = 0x1p-8, kOutBound = 0x1p-8, kAbsFloor = 1e-6;
// The logsumexp: f32 roundings of m c and log2 l (lg2.approx), and of the row sums.
constexpr double kLseBound = 5e-5;
constexpr const char* kToleranceText =
    "O within 2^-8 (sum_j p_j |v_j| / l + |O|) + 1e-6 (P and O rounded to bf16), lse within 5e-5 (1 + |lse|)";

// Rising inputs: key j of each head scaled by 1 + 15 j / seq_k (kept in bf16), so that a
// query's largest score grows from key block to key block.
HostMatrix keys(const AttentionShape& s, uint64_t seed, AttentionInputs inputs) {
  HostMatrix k = random_matrix(ir::Scalar::BF16, s.rows_k(), s.head_dim, seed, 0x52);
  if (inputs == AttentionInputs::Rising)
    for (int64_t r = 0; r < k.rows; ++r) {
      const double f = 1.0 + 15.0 * double(r % s.seq_k) / double(s.seq_k);
      for (int64_t c = 0; c < k.cols; ++c) k.set(k.index(r, c), k.at(r, c) * f);
    }
  return k;
}

rt::DeviceBuffer upload(const HostMatrix& m) {
  rt::DeviceBuffer d(m.bytes.size());
  d.upload(m.bytes);
  return d;
}

class AttentionHost final : public Instance {
 public:
  AttentionHost(const AttentionShape& s, const ir::Kernel& kernel, uint64_t seed, AttentionInputs inputs)
      : s_(s),
        seed_(seed),
        inputs_(inputs),
        q_(random_matrix(ir::Scalar::BF16, s.rows_q(), s.head_dim, seed, 0x51)),
        k_(keys(s, seed, inputs)),
        v_(random_matrix(ir::Scalar::BF16, s.rows_k(), s.head_dim, seed, 0x53)),
        q_dev_(upload(q_)),
        k_dev_(upload(k_)),
        v_dev_(upload(v_)),
        o_dev_(size_t(s.rows_q()) * size_t(s.head_dim) * 2),
        lse_dev_(size_t(s.rows_q()) * 4) {
    const uint64_t d = uint64_t(s.head_dim), bh = uint64_t(s.batch * s.heads);
    auto encode = [&](const char* name, CUdeviceptr at, int64_t seq) {
      const ir::TensorMapDecl* decl = kernel.find_tensor_map(name);
      if (!decl || decl->rank != 3)
        throw rt::RuntimeError(rt::ErrorKind::Usage, std::string("attention host: kernel '") + kernel.name +
                                                         "' has no 3-D tensor map '" + name + "' (d, seq, batch * head)");
      return tj::encode_tensor_map(tj::TensorView{at, ir::Scalar::BF16, {bh, uint64_t(seq), d}}, *decl);
    };
    maps_[0] = encode("Q", q_dev_.ptr(), s.seq_q);
    maps_[1] = encode("K", k_dev_.ptr(), s.seq_k);
    maps_[2] = encode("V", v_dev_.ptr(), s.seq_k);
    maps_[3] = encode("O", o_dev_.ptr(), s.seq_q);
  }

  rt::ArgPack args() override {
    rt::ArgPack a;
    for (const CUtensorMap& map : maps_) a.push(map);
    a.push(lse_dev_.ptr()).push(int32_t(s_.seq_q)).push(int32_t(s_.seq_k)).push(int32_t(s_.batch * s_.heads));
    return a;
  }

  void poison() override {
    o_dev_.fill_u8(0xFF);  // NaN in bf16 and f32
    lse_dev_.fill_u8(0xFF);
  }

  Check verify() override;

  double bytes_per_launch() const override {
    return double(q_.bytes.size() + k_.bytes.size() + v_.bytes.size() + o_dev_.bytes() + lse_dev_.bytes());
  }
  double flops_per_launch() const override { return s_.flops(); }

 private:
  // The (batch, head) pairs checked: the first, the last and one between (a ragged
  // block of the one before a pair would overwrite the pair's first rows).
  std::vector<int64_t> checked_heads() const {
    const int64_t n = s_.batch * s_.heads;
    std::set<int64_t> h = {0, n / 2, n - 1};
    return {h.begin(), h.end()};
  }
  // The query rows checked in a head: all of a short head; else the first 64, the last
  // 130 (the ragged tail and the block before it) and every 37th.
  bool checked_row(int64_t i) const { return s_.seq_q <= 512 || i < 64 || i >= s_.seq_q - 130 || i % 37 == 0; }

  AttentionShape s_;
  uint64_t seed_;
  AttentionInputs inputs_;
  HostMatrix q_, k_, v_;
  rt::DeviceBuffer q_dev_, k_dev_, v_dev_, o_dev_, lse_dev_;
  CUtensorMap maps_[4];
};

Check AttentionHost::verify() {
  const int64_t d = s_.head_dim, sq = s_.seq_q, sk = s_.seq_k;
  HostMatrix o(ir::Scalar::BF16, s_.rows_q(), d);
  o_dev_.download(o.bytes.data(), o.bytes.size());
  std::vector<float> lse(size_t(s_.rows_q()));
  lse_dev_.download(lse.data(), lse.size() * 4);

  const double scale = 1.0 / std::sqrt(double(d));
  MismatchLog olog, llog;
  const size_t dd = static_cast<size_t>(d);
  std::vector<double> kh(static_cast<size_t>(sk) * dd), vh(kh.size()), w(static_cast<size_t>(sk)), qi(dd), out(dd), mag(dd);
  for (int64_t bh : checked_heads()) {
    for (int64_t j = 0; j < sk * d; ++j) {
      kh[size_t(j)] = k_.at(size_t(bh * sk * d + j));
      vh[size_t(j)] = v_.at(size_t(bh * sk * d + j));
    }
    for (int64_t i = 0; i < sq; ++i) {
      if (!checked_row(i)) continue;
      const int64_t row = bh * sq + i, keys = s_.causal ? std::min(sk, i + 1) : sk;
      for (int64_t c = 0; c < d; ++c) qi[size_t(c)] = q_.at(row, c);
      double mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c) dot += qi[size_t(c)] * kh[size_t(j * d + c)];
        w[size_t(j)] = dot * scale;
        mx = std::max(mx, w[size_t(j)]);
      }
      double sum = 0;
      std::fill(out.begin(), out.end(), 0.0), std::fill(mag.begin(), mag.end(), 0.0);
      for (int64_t j = 0; j < keys; ++j) {
        const double p = std::exp(w[size_t(j)] - mx);
        sum += p;
        for (int64_t c = 0; c < d; ++c) {
          out[size_t(c)] += p * vh[size_t(j * d + c)];
          mag[size_t(c)] += p * std::abs(vh[size_t(j * d + c)]);
        }
      }
      const std::string head = std::to_string(bh / s_.heads) + ", " + std::to_string(bh % s_.heads) + ", " + std::to_string(i);
      for (int64_t c = 0; c < d; ++c) {
        const double want = out[size_t(c)] / sum, tol = kPvBound * mag[size_t(c)] / sum + kOutBound * std::abs(want) + kAbsFloor;
        olog.compare_close(o.at(row, c), want, tol, [&] { return "O[" + head + ", " + std::to_string(c) + "]"; });
      }
      const double want_lse = mx + std::log(sum);
      llog.compare_close(lse[size_t(row)], want_lse, kLseBound * (1 + std::abs(want_lse)), [&] { return "lse[" + head + "]"; });
    }
  }
  const std::string what = "attention (" + std::to_string(s_.batch) + " x " + std::to_string(s_.heads) + " heads, " +
                           std::to_string(sq) + " queries, " + std::to_string(sk) + " keys, d " + std::to_string(d) +
                           (s_.causal ? ", causal" : "") + (inputs_ == AttentionInputs::Rising ? ", rising keys" : "") +
                           ") vs softmax in double at 3 heads, " + kToleranceText;
  const Check ocheck = olog.result(what), lcheck = llog.result("logsumexp");
  return {ocheck.ok && lcheck.ok, ocheck.detail + "; " + lcheck.detail};
}

}  // namespace

std::unique_ptr<Instance> make_attention_instance(const AttentionShape& s, const ir::Kernel& kernel, uint64_t seed,
                                                  AttentionInputs inputs) {
  return std::make_unique<AttentionHost>(s, kernel, seed, inputs);
}

}  // namespace tj::samples

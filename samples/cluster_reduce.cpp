#include "samples/cluster_reduce.h"

#include <cmath>
#include <random>

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"

namespace tj::samples {

using namespace tj::dsl;

std::vector<ParamSpec> ClusterReduce::params() const {
  return {{"elems", 8192, 1, int64_t(1) << 26, "f32 inputs each CTA sums"}};
}

std::vector<ConfigProblem> ClusterReduce::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "cluster_reduce takes a 1-D cluster [n, 1, 1]"});
  if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1)
    out.push_back({"clusters", "cluster_reduce takes a 1-D grid of clusters"});
  if (c.threads < 32 || (c.threads & (c.threads - 1)) != 0)
    out.push_back({"threads", "cluster_reduce needs a power of two of at least 32 threads, got " + std::to_string(c.threads)});
  const int64_t total = int64_t(c.num_ctas()) * c.param("elems");
  if (total > (int64_t(1) << 31) - 1)
    out.push_back({"params.elems", "elems x CTAs = " + std::to_string(total) + " inputs, more than 2^31 - 1"});
  return out;
}

ir::Kernel ClusterReduce::build(const Config& c) const {
  const int32_t elems = static_cast<int32_t>(c.param("elems"));
  const int32_t threads = static_cast<int32_t>(c.threads);
  KernelBuilder k("cluster_reduce");
  k.threads(c.threads).cluster(c.cluster.x);
  if (c.non_portable) k.allow_non_portable_cluster();
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  auto partial = k.shared<float>("partial", c.threads);
  auto cluster_total = k.shared<float>("cluster_total", 1);

  i32 tid = thread_idx_x();
  i32 base = block_idx_x() * elems;

  // 1. This thread's share of the slice.
  auto acc = var(f32(0.0f), "acc");
  for_(tid, i32(elems), i32(threads), [&](i32 i) { acc = acc + in[base + i]; });
  partial[tid] = acc;
  if_(tid == 0, [&] { cluster_total[0] = 0.0f; });
  sync_threads();

  // 2. Tree reduction in this CTA's shared memory (unrolled at build time).
  for (int32_t s = threads / 2; s > 0; s /= 2) {
    if_(tid < s, [&] { partial[tid] = partial[tid] + partial[tid + s]; });
    sync_threads();
  }

  // 3. Every CTA adds its sum into rank 0's shared memory. The cluster barrier
  //    first: rank 0 must have zeroed its total before any peer adds to it.
  cluster_sync();
  auto leader_total = map_shared_rank(cluster_total, 0);
  if_(tid == 0, [&] { atomic_add(leader_total[0], partial[0]); });
  cluster_arrive();  // release: our atomic is published
  cluster_wait();    // acquire: everyone's atomics are visible

  // 4. Rank 0 writes the cluster's sum.
  if_(cluster_ctarank() == 0 && tid == 0, [&] { out[cluster_id_x()] = cluster_total[0]; });
  return k.build();
}

ReduceInputs reduce_inputs(const Config& c) {
  const int64_t n = int64_t(c.cluster.x) * c.param("elems");
  ReduceInputs r;
  r.max_units = (int64_t(1) << 24) / n;
  if (r.max_units > 0) {
    while ((int64_t(1) << r.scale_log2) < r.max_units) ++r.scale_log2;
    return r;
  }
  const double u = std::ldexp(1.0, -24);
  int64_t h = (c.param("elems") + c.threads - 1) / c.threads + int64_t(c.cluster.x);
  for (unsigned t = c.threads; t > 1; t /= 2) ++h;
  r.relative_bound = h * u / (1 - h * u) + double(n) * std::ldexp(1.0, -53);
  return r;
}

namespace {

class ReduceInstance final : public Instance {
 public:
  ReduceInstance(const Config& c, uint64_t seed)
      : cfg_(c), elems_(c.param("elems")), inputs_(reduce_inputs(c)), host_(static_cast<size_t>(c.num_ctas() * elems_)),
        in_(host_.size() * sizeof(float)), out_(c.grid_clusters.count() * sizeof(float)) {
    std::mt19937_64 rng(seed);
    if (inputs_.max_units > 0) {
      // k 2^-p, 1 <= |k| <= K: f32 sums them exactly in any order (see ReduceInputs).
      std::uniform_int_distribution<int64_t> units(1, inputs_.max_units);
      for (float& x : host_) x = std::ldexp(float(units(rng)), -inputs_.scale_log2) * (rng() & 1 ? 1.0f : -1.0f);
    } else {
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (float& x : host_) x = dist(rng);
    }
    in_.upload(host_);
  }

  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(in_.ptr()).push(out_.ptr());
    return a;
  }
  void poison() override { out_.fill_u8(0xFF); }  // NaN

  Check verify() override {
    std::vector<float> got = out_.download_as<float>();
    const size_t per_cluster = size_t(cfg_.cluster.x) * elems_;
    MismatchLog log;
    for (size_t cl = 0; cl < got.size(); ++cl) {
      double sum = 0, mag = 0;
      for (size_t i = 0; i < per_cluster; ++i) {
        sum += host_[cl * per_cluster + i];
        mag += std::fabs(host_[cl * per_cluster + i]);
      }
      log.compare_close(got[cl], sum, inputs_.relative_bound * mag, "cluster " + std::to_string(cl));
    }
    const std::string how = inputs_.max_units > 0
                                ? "exactly (inputs k 2^-" + std::to_string(inputs_.scale_log2) + ", |k| <= " +
                                      std::to_string(inputs_.max_units) + ": every f32 partial sum is exact)"
                                : "within " + std::to_string(inputs_.relative_bound) + " x sum|x| (f32 rounding, worst case)";
    return log.result(std::to_string(got.size()) + " cluster sums of " + std::to_string(per_cluster) + " f32, " + how);
  }

  double bytes_per_launch() const override { return double(host_.size()) * sizeof(float); }

 private:
  Config cfg_;
  int64_t elems_;
  ReduceInputs inputs_;
  std::vector<float> host_;
  rt::DeviceBuffer in_, out_;
};

}  // namespace

std::unique_ptr<Instance> ClusterReduce::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<ReduceInstance>(c, seed);
}

}  // namespace tj::samples

// An example plugin: one kernel generator, `cluster_exchange`, in a shared library that
// `tilejit --plugin` loads. It uses only <tilejit/plugin.h>.
//
// Each CTA of a 1-D cluster scales its slice of `in` by `scale` and writes it into the
// shared memory of the CTA `shift` ranks to its right (map_shared_rank); after
// cluster_sync, every CTA copies what it received to its slice of `out`. The host
// reference: out[cta] = scale * in[the CTA `shift` ranks to its left, same cluster].
#include <cstring>
#include <random>

#include <tilejit/plugin.h>

namespace {

using namespace tj::dsl;
using tj::plugin::Config;

class ClusterExchange final : public tj::plugin::Generator {
 public:
  std::string name() const override { return "cluster_exchange"; }
  std::string summary() const override {
    return "example plugin: each CTA sends scale * its slice of `in` to the CTA `shift` ranks to its right (DSMEM)";
  }
  std::vector<tj::plugin::ParamSpec> params() const override {
    return {{"elems", 2048, 1, 16384, "f32 values per CTA (in dynamic shared memory)"},
            {"shift", 1, 0, 15, "how many ranks to the right each CTA sends (modulo the cluster size)"}};
  }
  std::vector<tj::plugin::RealParamSpec> real_params() const override {
    return {{"scale", 2.0, -1e6, 1e6, "the factor applied on the way"}};
  }
  std::vector<tj::plugin::ConfigProblem> check_config(const Config& c) const override {
    std::vector<tj::plugin::ConfigProblem> out;
    if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "cluster_exchange takes a 1-D cluster [n, 1, 1]"});
    if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1)
      out.push_back({"clusters", "cluster_exchange takes a 1-D grid of clusters"});
    return out;
  }

  tj::ir::Kernel build(const Config& c) const override {
    const int32_t n = static_cast<int32_t>(c.param("elems"));
    KernelBuilder k("cluster_exchange");
    k.threads(c.threads).cluster(c.cluster.x, 1, 1);
    if (c.non_portable) k.allow_non_portable_cluster();
    auto in = k.param<float*>("in");
    auto out = k.param<float*>("out");
    auto scale = k.param<float>("scale");
    auto shift = k.param<int32_t>("shift");
    auto inbox = k.dynamic_shared<float>("inbox", static_cast<uint64_t>(n));
    i32 rank = cluster_ctarank();
    auto peer = map_shared_rank(inbox, (rank + shift) % cluster_nctarank());
    i64 base = cast<int64_t>(block_idx_x()) * int64_t(n);
    for_(thread_idx_x(), i32(n), block_dim_x(), [&](i32 i) { peer[i] = in[base + cast<int64_t>(i)] * scale; });
    cluster_sync();  // every CTA's inbox is full
    for_(thread_idx_x(), i32(n), block_dim_x(), [&](i32 i) { out[base + cast<int64_t>(i)] = inbox[i]; });
    return k.build();
  }

  std::unique_ptr<tj::plugin::Instance> instantiate(const Config& c, uint64_t seed) const override;
};

class ExchangeInstance final : public tj::plugin::Instance {
 public:
  ExchangeInstance(const Config& c, uint64_t seed)
      : cfg_(c), elems_(c.param("elems")), shift_(int32_t(c.param("shift"))), scale_(float(c.real("scale"))),
        host_in_(size_t(c.num_ctas()) * size_t(elems_)), in_(host_in_.size() * sizeof(float)),
        out_(host_in_.size() * sizeof(float)) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> small(-1024, 1024);
    for (float& x : host_in_) x = float(small(rng)) / 64.0f;  // exact after any power-of-two scale
    in_.upload(host_in_.data(), host_in_.size() * sizeof(float));
  }

  tj::rt::ArgPack args() override {
    tj::rt::ArgPack a;
    a.push(in_.ptr()).push(out_.ptr()).push(scale_).push(shift_);
    return a;
  }
  void poison() override { out_.fill_u8(0xFF); }  // NaN: an unwritten element never matches

  tj::plugin::Check verify() override {
    std::vector<float> got = out_.download_as<float>();
    const unsigned n = cfg_.cluster.x;
    tj::plugin::MismatchLog log;
    for (unsigned cta = 0; cta < cfg_.num_ctas(); ++cta) {
      const unsigned rank = cta % n;
      const unsigned from = cta - rank + (rank + n - unsigned(shift_) % n) % n;  // who wrote into this CTA
      for (int64_t i = 0; i < elems_; ++i)
        log.compare_close(got[cta * elems_ + i], double(scale_ * host_in_[from * elems_ + i]), 0.0,
                          [&] { return "cta " + std::to_string(cta) + " elem " + std::to_string(i); });
    }
    return log.result(std::to_string(got.size()) + " f32 received through DSMEM");
  }
  double bytes_per_launch() const override { return double(cfg_.num_ctas()) * double(elems_) * 8.0; }

 private:
  Config cfg_;
  int64_t elems_;
  int32_t shift_;
  float scale_;
  std::vector<float> host_in_;
  tj::rt::DeviceBuffer in_, out_;
};

std::unique_ptr<tj::plugin::Instance> ClusterExchange::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<ExchangeInstance>(c, seed);
}

void register_generators(tj::plugin::Registrar& r) { r.add(std::make_unique<ClusterExchange>()); }

}  // namespace

TILEJIT_PLUGIN("example cluster kernels", register_generators)

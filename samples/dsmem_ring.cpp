#include "samples/dsmem_ring.h"

#include "dsl/dsl.h"
#include "runtime/buffer.h"
#include "samples/compare.h"

namespace tj::samples {

using namespace tj::dsl;

uint32_t ring_value(uint32_t sender, uint32_t i, uint32_t round, uint32_t salt) {
  return sender * 2654435761u + i * 7u + round + salt;
}

std::vector<ParamSpec> DsmemRing::params() const {
  return {{"elems", 4096, 1, 58112, "u32 values each CTA sends (4 bytes each, in dynamic shared memory)"},
          {"rounds", 1, 1, 100000, "times the block is written to the neighbour"}};
}

std::vector<ConfigProblem> DsmemRing::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "dsmem_ring takes a 1-D cluster [n, 1, 1]"});
  if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1)
    out.push_back({"clusters", "dsmem_ring takes a 1-D grid of clusters"});
  return out;
}

ir::Kernel DsmemRing::build(const Config& c) const {
  const int64_t elems = c.param("elems");
  KernelBuilder k("dsmem_ring");
  k.threads(c.threads).cluster(c.cluster.x, c.cluster.y, c.cluster.z);
  if (c.non_portable) k.allow_non_portable_cluster();
  auto out = k.param<uint32_t*>("out");
  auto salt = k.param<uint32_t>("salt");
  auto rounds = k.param<int32_t>("rounds");
  auto ring = k.dynamic_shared<uint32_t>("ring", static_cast<uint64_t>(elems));

  i32 cta = block_idx_x();
  i32 rank = cluster_ctarank();
  i32 right = (rank + 1) % cluster_nctarank();
  auto peer = map_shared_rank(ring, right);
  u32 sender = cast<uint32_t>(cta);

  for_(0, rounds, [&](i32 round) {
    for_(thread_idx_x(), i32(int32_t(elems)), block_dim_x(), [&](i32 i) {
      peer[i] = sender * 2654435761u + cast<uint32_t>(i) * 7u + cast<uint32_t>(round) + salt;
    });
    cluster_sync();  // the neighbour's block has landed; and nobody overwrites it early
  });
  for_(thread_idx_x(), i32(int32_t(elems)), block_dim_x(), [&](i32 i) {
    out[cast<int64_t>(cta) * int64_t(elems) + cast<int64_t>(i)] = ring[i];
  });
  return k.build();
}

namespace {

class RingInstance final : public Instance {
 public:
  RingInstance(const Config& c, uint64_t seed)
      : cfg_(c), elems_(c.param("elems")), rounds_(c.param("rounds")),
        salt_(static_cast<uint32_t>(seed * 0x9E3779B97F4A7C15ull >> 32)),
        out_(static_cast<size_t>(c.num_ctas()) * elems_ * sizeof(uint32_t)) {}

  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(out_.ptr()).push(salt_).push(static_cast<int32_t>(rounds_));
    return a;
  }
  void poison() override { out_.fill_u8(0xAB); }

  Check verify() override {
    std::vector<uint32_t> got = out_.download_as<uint32_t>();
    const unsigned n = cfg_.cluster.x;
    MismatchLog log;
    for (unsigned cta = 0; cta < cfg_.num_ctas(); ++cta) {
      unsigned rank = cta % n;
      unsigned left = cta - rank + (rank + n - 1) % n;  // who wrote into this CTA
      for (int64_t i = 0; i < elems_; ++i) {
        uint32_t want = ring_value(left, static_cast<uint32_t>(i), static_cast<uint32_t>(rounds_ - 1), salt_);
        log.compare(got[cta * elems_ + i], want, "cta " + std::to_string(cta) + " elem " + std::to_string(i));
      }
    }
    return log.result(std::to_string(got.size()) + " u32 received through DSMEM");
  }

  double bytes_per_launch() const override {
    return double(cfg_.num_ctas()) * double(elems_) * 4.0 * double(rounds_);
  }

 private:
  Config cfg_;
  int64_t elems_, rounds_;
  uint32_t salt_;
  rt::DeviceBuffer out_;
};

}  // namespace

std::unique_ptr<Instance> DsmemRing::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<RingInstance>(c, seed);
}

}  // namespace tj::samples

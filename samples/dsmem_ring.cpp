#include "samples/dsmem_ring.h"

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"

namespace tj::samples {

using namespace tj::dsl;

uint32_t ring_value(uint32_t sender, uint32_t i, uint32_t round, uint32_t salt) {
  return sender * 2654435761u + i * 7u + round + salt;
}

std::vector<ParamSpec> DsmemRing::params() const {
  return {{"elems", 4096, 1, 58112, "u32 values each CTA sends (4 bytes each, in dynamic shared memory)"},
          {"rounds", 1, 1, 100000, "times the block is written to the neighbour"},
          {"vector", 1, 1, 4, "u32 lanes per access: 1 (st.shared::cluster.u32) or 4 (.v4.u32, 16 bytes)"}};
}

std::vector<ConfigProblem> DsmemRing::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "dsmem_ring takes a 1-D cluster [n, 1, 1]"});
  if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1)
    out.push_back({"clusters", "dsmem_ring takes a 1-D grid of clusters"});
  const int64_t vec = c.param("vector");
  if (vec != 1 && vec != 4) out.push_back({"params.vector", "must be 1 or 4, got " + std::to_string(vec)});
  else if (c.param("elems") % vec != 0)
    out.push_back({"params.elems", "must be a multiple of params.vector (" + std::to_string(vec) + "), got " +
                                       std::to_string(c.param("elems"))});
  return out;
}

namespace {

// The value CTA `sender` writes at u32 index i in `round`: the DSL twin of ring_value().
u32 ring_value_dsl(const u32& sender, const i32& i, const i32& round, const u32& salt) {
  return sender * 2654435761u + cast<uint32_t>(i) * 7u + cast<uint32_t>(round) + salt;
}

u32 element_value(const u32& sender, const i32& i, const i32& round, const u32& salt, uint32_t) {
  return ring_value_dsl(sender, i, round, salt);
}
u32x4 element_value(const u32& sender, const i32& j, const i32& round, const u32& salt, u32x4_t) {
  i32 i = j * 4;
  return pack_u32x4(ring_value_dsl(sender, i, round, salt), ring_value_dsl(sender, i + 1, round, salt),
                    ring_value_dsl(sender, i + 2, round, salt), ring_value_dsl(sender, i + 3, round, salt));
}

// E is uint32_t (one u32 per access) or u32x4_t (16-byte accesses).
template <class E>
ir::Kernel build_ring(const Config& c, bool through_global) {
  const int32_t n = static_cast<int32_t>(c.param("elems") / (sizeof(E) / 4));  // accesses per CTA per round
  KernelBuilder k(through_global ? "global_ring" : "dsmem_ring");
  k.threads(c.threads).cluster(c.cluster.x, c.cluster.y, c.cluster.z);
  if (c.non_portable) k.allow_non_portable_cluster();
  auto out = k.param<E*>("out");
  auto salt = k.param<uint32_t>("salt");
  auto rounds = k.param<int32_t>("rounds");
  i32 cta = block_idx_x();
  i32 rank = cluster_ctarank();
  i32 right = (rank + 1) % cluster_nctarank();
  u32 sender = cast<uint32_t>(cta);

  if (through_global) {
    // The neighbour's slot of `out`; same stores, same barrier, no shared memory.
    i64 slot = cast<int64_t>(cta - rank + right) * int64_t(n);
    for_(0, rounds, [&](i32 round) {
      for_(thread_idx_x(), i32(n), block_dim_x(),
           [&](i32 j) { out[slot + cast<int64_t>(j)] = element_value(sender, j, round, salt, E{}); });
      cluster_sync();
    });
    return k.build();
  }

  auto ring = k.dynamic_shared<E>("ring", static_cast<uint64_t>(n));
  auto peer = map_shared_rank(ring, right);
  for_(0, rounds, [&](i32 round) {
    for_(thread_idx_x(), i32(n), block_dim_x(), [&](i32 j) { peer[j] = element_value(sender, j, round, salt, E{}); });
    cluster_sync();  // the neighbour's block has landed, and nobody overwrites it early
  });
  for_(thread_idx_x(), i32(n), block_dim_x(), [&](i32 j) {
    out[cast<int64_t>(cta) * int64_t(n) + cast<int64_t>(j)] = ring[j];
  });
  return k.build();
}

}  // namespace

ir::Kernel DsmemRing::build(const Config& c) const {
  return c.param("vector") == 4 ? build_ring<u32x4_t>(c, false) : build_ring<uint32_t>(c, false);
}

ir::Kernel GlobalRing::build(const Config& c) const {
  return c.param("vector") == 4 ? build_ring<u32x4_t>(c, true) : build_ring<uint32_t>(c, true);
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

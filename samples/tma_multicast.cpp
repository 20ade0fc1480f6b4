#include "samples/tma_multicast.h"

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"
#include "runtime/tensor_map.h"
#include "samples/tma_common.h"

namespace tj::samples {

using namespace tj::dsl;

std::vector<ParamSpec> TmaMulticast::params() const {
  return {{"elem_bytes", 2, 1, 4, "element type: 1 = u8, 2 = bf16, 4 = f32"},
          {"rank", 2, 2, 3, "tensor and box rank: 2 or 3"},
          {"cols", 256, 1, 1 << 20, "tensor elements along the inner dimension (cols x elem_bytes a multiple of 16)"},
          {"rows", 256, 1, 1 << 20, "tensor rows"},
          {"depth", 4, 1, 4096, "tensor depth (rank 3)"},
          {"box_cols", 64, 1, 256, "box elements along the inner dimension"},
          {"box_rows", 64, 1, 256, "box rows"},
          {"box_depth", 2, 1, 256, "box depth (rank 3)"},
          {"swizzle", 128, 0, 128, "shared-memory swizzle span in bytes: 0, 32, 64 or 128"},
          {"mask", 0, 0, 2, "receivers: 0 = every CTA, 1 = only the last rank, 2 = the even ranks"},
          {"multicast", 1, 0, 1, "1: rank 0 loads once for all receivers; 0: every receiver loads its own copy (the reference)"}};
}

uint32_t multicast_mask(const Config& c) {
  const unsigned n = c.cluster.count();
  if (n == 0 || n > 32) return 0;  // check_config refuses these; no shift past the width
  const uint32_t all = n == 32 ? ~0u : (1u << n) - 1;
  switch (c.param("mask")) {
    case 1: return 1u << (n - 1);
    case 2: return 0x55555555u & all;
    default: return all;
  }
}

uint64_t swizzled_offset(uint64_t o, unsigned span) {
  const unsigned bits = span == 128 ? 3 : span == 64 ? 2 : span == 32 ? 1 : 0;
  return o ^ (((o >> 7) & ((1u << bits) - 1)) << 4);
}

std::vector<ConfigProblem> TmaMulticast::check_config(const Config& c) const {
  std::vector<ConfigProblem> out = check_tma_shape(c);
  if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "tma_multicast takes a 1-D cluster [n, 1, 1]"});
  else if (c.cluster.x > 16)
    out.push_back({"cluster", "tma_multicast takes at most 16 CTAs per cluster (a multicast mask has 16 bits), got " +
                                  std::to_string(c.cluster.x)});
  if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1)
    out.push_back({"clusters", "tma_multicast takes a 1-D grid of clusters"});
  return out;
}

namespace {

template <class E>
ir::Kernel build_multicast(const Config& c) {
  const TmaShape t = tma_shape(c);
  const int32_t nvec = static_cast<int32_t>(t.box_bytes() / 16);
  KernelBuilder k("tma_multicast");
  k.threads(c.threads).cluster(c.cluster.x);
  if (c.non_portable) k.allow_non_portable_cluster();
  TensorMap src = k.tensor_map<E>("src", t.box, t.swizzle);
  auto out = k.param<u32x4_t*>("out");
  auto tile = k.dynamic_shared<u32x4_t>("tile", static_cast<uint64_t>(nvec), 1024);
  auto full = k.mbarriers("full", 1, 1);

  i32 tid = thread_idx_x();
  i32 rank = cluster_ctarank();
  u32 mask = u32(multicast_mask(c));
  boolean receives = ((mask >> cast<uint32_t>(rank)) & 1u) == 1u;

  // Receivers announce the box's bytes; rank 0 loads it once for all of them
  // (or, without multicast, every receiver loads its own copy).
  if_(tid == 0 && receives, [&] { arrive_expect_tx(full[0], u32(static_cast<uint32_t>(t.box_bytes()))); });
  if (c.param("multicast"))
    if_(tid == 0 && rank == 0, [&] { tma_load_multicast(tile[0], src, tile_coords(t, cluster_id_x()), full[0], mask); });
  else
    if_(tid == 0 && receives, [&] { tma_load(tile[0], src, tile_coords(t, cluster_id_x()), full[0]); });
  if_(receives, [&] {
    wait(full[0]);
    for_(tid, i32(nvec), block_dim_x(), [&](i32 j) { out[block_idx_x() * nvec + j] = tile[j]; });
  });
  return k.build();
}

class MulticastInstance final : public Instance {
 public:
  MulticastInstance(const Config& c, uint64_t seed)
      : cfg_(c), shape_(tma_shape(c)), host_(make_tensor_bytes(shape_, seed)), tensor_(host_.size()),
        out_(size_t(c.num_ctas()) * shape_.box_bytes()) {
    tensor_.upload(host_);
  }

  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(rt::encode_tensor_map(tensor_desc(shape_, tensor_.ptr()), "src")).push(out_.ptr());
    return a;
  }
  void poison() override { out_.fill_u8(0xA5); }

  Check verify() override {
    std::vector<uint8_t> got = out_.download_as<uint8_t>();
    const uint32_t mask = multicast_mask(cfg_);
    const unsigned n = cfg_.cluster.x;
    const std::vector<uint8_t> poison(shape_.box_bytes(), 0xA5);
    MismatchLog log;
    unsigned receivers = 0;
    for (unsigned cta = 0; cta < cfg_.num_ctas(); ++cta) {
      const unsigned rank = cta % n, cluster = cta / n;
      const uint8_t* copy = got.data() + size_t(cta) * shape_.box_bytes();
      if (!((mask >> rank) & 1)) {  // not a receiver: must not have written anything
        log.compare(int(std::equal(poison.begin(), poison.end(), copy)), 1, "cta " + std::to_string(cta) + " (not in mask) untouched");
        continue;
      }
      ++receivers;
      std::vector<uint8_t> want = expected_box_image(shape_, host_, cluster);
      for (size_t i = 0; i < want.size(); ++i)
        log.compare(int(copy[i]), int(want[i]), "cta " + std::to_string(cta) + " byte " + std::to_string(i));
    }
    return log.result(std::to_string(receivers) + " multicast copies of a " + std::to_string(shape_.box_bytes()) + "-byte box");
  }
  double bytes_per_launch() const override { return double(cfg_.grid_clusters.count()) * double(shape_.box_bytes()); }

 private:
  Config cfg_;
  TmaShape shape_;
  std::vector<uint8_t> host_;
  rt::DeviceBuffer tensor_, out_;
};

}  // namespace

ir::Kernel TmaMulticast::build(const Config& c) const {
  switch (c.param("elem_bytes")) {
    case 1: return build_multicast<uint8_t>(c);
    case 4: return build_multicast<float>(c);
    default: return build_multicast<bf16>(c);
  }
}

std::unique_ptr<Instance> TmaMulticast::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<MulticastInstance>(c, seed);
}

}  // namespace tj::samples

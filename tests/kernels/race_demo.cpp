#include "tests/kernels/race_demo.h"

#include <cstring>

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"
#include "runtime/tensor_map.h"
#include "samples/tma_common.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {
constexpr int64_t kDsmem = 0, kTma = 1;
constexpr unsigned kBoxCols = 64, kBoxRows = 16;  // the TMA box: 64 x 16 f32, 4 KiB
constexpr uint32_t kBoxElems = kBoxCols * kBoxRows;

// The TMA tensor: one box per CTA, stacked along rows.
TmaShape demo_shape(const Config& c) {
  TmaShape s;
  s.elem_bytes = 4;
  s.rank = 2;
  s.dims = {kBoxCols, uint64_t(kBoxRows) * c.num_ctas()};
  s.box = {kBoxCols, kBoxRows};
  return s;
}
}  // namespace

std::vector<ParamSpec> RaceDemo::params() const {
  return {{"kernel", 0, 0, 1, "0: DSMEM counters zeroed while peers add; 1: a TMA box read before its wait", {"dsmem", "tma"}},
          {"racy", 1, 0, 2, "1: the race, let through with allow_race; 0: the corrected kernel; 2: the race as written (refused by the race check)"},
          {"elems", 4096, 1, 12288, "kernel 0: u32 counters per CTA (static shared memory)"},
          {"zero_passes", 64, 1, 4096, "kernel 0: times the even ranks zero their counters (odd ranks: once), a wider window for the race"}};
}

std::vector<ConfigProblem> RaceDemo::check_config(const Config& c) const {
  std::vector<ConfigProblem> out;
  if (c.cluster.y != 1 || c.cluster.z != 1) out.push_back({"cluster", "race_demo takes a 1-D cluster [n, 1, 1]"});
  if (c.param("kernel") == kDsmem && c.cluster.x < 2)
    out.push_back({"cluster", "race_demo's DSMEM kernel needs at least 2 CTAs per cluster"});
  if (c.grid_clusters.y != 1 || c.grid_clusters.z != 1) out.push_back({"clusters", "race_demo takes a 1-D grid of clusters"});
  return out;
}

namespace {

// racy: 0 corrected, 1 the race inside allow_race, 2 the race as written.
ir::Kernel build_dsmem(const Config& c, int64_t racy) {
  const int32_t elems = int32_t(c.param("elems"));
  KernelBuilder k("race_demo_dsmem");
  k.threads(c.threads).cluster(c.cluster.x);
  auto out = k.param<uint32_t*>("out");
  auto zero_passes = k.param<int32_t>("zero_passes");
  auto acc = k.shared<uint32_t>("acc", uint64_t(elems));
  i32 tid = thread_idx_x();
  // Even ranks zero slowly (zero_passes times), odd ranks once: an odd rank's adds then
  // reach its even neighbour while that one is still zeroing.
  i32 passes = select(cluster_ctarank() % 2 == 0, i32(zero_passes), i32(1));
  for_(0, passes, [&](i32) { for_(tid, i32(elems), block_dim_x(), [&](i32 j) { acc[j] = 0u; }); });
  if (!racy) cluster_sync();  // every CTA has zeroed before any peer adds
  auto right = map_shared_rank(acc, (cluster_ctarank() + 1) % cluster_nctarank());
  auto add = [&] { for_(tid, i32(elems), block_dim_x(), [&](i32 j) { atomic_add(right[j], 1u); }); };
  if (racy == 1) allow_race("race_demo: the neighbour adds while this CTA may still be zeroing", add);
  else add();
  cluster_sync();  // every add has landed
  for_(tid, i32(elems), block_dim_x(), [&](i32 j) { out[block_idx_x() * elems + j] = acc[j]; });
  return k.build();
}

ir::Kernel build_tma(const Config& c, int64_t racy) {
  KernelBuilder k("race_demo_tma");
  k.threads(c.threads);
  TensorMap src = k.tensor_map<float>("src", {kBoxCols, kBoxRows});
  auto out = k.param<float*>("out");
  auto tile = k.dynamic_shared<float>("tile", kBoxElems, 128);
  auto full = k.mbarriers("full", 1, 1);
  i32 tid = thread_idx_x();
  const int32_t n = int32_t(kBoxElems);
  // Poison the tile, so that a read before the copy lands is seen.
  for_(tid, i32(n), block_dim_x(), [&](i32 j) { tile[j] = -1.0f; });
  fence_proxy_async();
  sync_threads();
  if_(tid == 0, [&] {
    arrive_expect_tx(full[0], u32(kBoxElems * 4));
    tma_load(tile[0], src, {i32(0), block_idx_x() * int32_t(kBoxRows)}, full[0]);
  });
  auto read = [&] { for_(tid, i32(n), block_dim_x(), [&](i32 j) { out[block_idx_x() * n + j] = tile[j]; }); };
  if (racy) {
    if (racy == 1) allow_race("race_demo: reads the TMA box before waiting on its barrier", read);
    else read();
    wait(full[0]);
  } else {
    wait(full[0]);
    read();
  }
  return k.build();
}

class DemoInstance final : public Instance {
 public:
  DemoInstance(const Config& c, uint64_t seed)
      : cfg_(c), kernel_(c.param("kernel")), shape_(demo_shape(c)),
        n_(kernel_ == kDsmem ? size_t(c.num_ctas()) * size_t(c.param("elems")) : size_t(c.num_ctas()) * kBoxElems),
        out_(n_ * 4) {
    if (kernel_ == kTma) {
      host_ = make_tensor_bytes(shape_, seed);
      // No element may equal the poison value.
      for (size_t i = 0; i < host_.size(); i += 4) host_[i + 3] &= 0x3F;
      src_ = std::make_unique<rt::DeviceBuffer>(host_.size());
      src_->upload(host_);
    }
  }
  rt::ArgPack args() override {
    rt::ArgPack a;
    if (kernel_ == kDsmem) a.push(out_.ptr()).push(int32_t(cfg_.param("zero_passes")));
    else a.push(rt::encode_tensor_map(tensor_desc(shape_, src_->ptr()), "src")).push(out_.ptr());
    return a;
  }
  void poison() override { out_.fill_u8(0xEE); }
  Check verify() override {
    std::vector<uint32_t> got = out_.download_as<uint32_t>();
    MismatchLog log;
    for (size_t i = 0; i < got.size(); ++i) {
      uint32_t want = 1;
      if (kernel_ == kTma) std::memcpy(&want, host_.data() + 4 * i, 4);
      log.compare(got[i], want, "element " + std::to_string(i));
    }
    return log.result(kernel_ == kDsmem ? std::to_string(got.size()) + " DSMEM counters (each must be 1)"
                                        : std::to_string(got.size()) + " f32 read from TMA boxes");
  }
  double bytes_per_launch() const override { return double(n_) * 4.0; }

 private:
  Config cfg_;
  int64_t kernel_;
  TmaShape shape_;
  size_t n_;
  std::vector<uint8_t> host_;
  std::unique_ptr<rt::DeviceBuffer> src_;
  rt::DeviceBuffer out_;
};

}  // namespace

ir::Kernel RaceDemo::build(const Config& c) const {
  const int64_t racy = c.param("racy");
  return c.param("kernel") == kTma ? build_tma(c, racy) : build_dsmem(c, racy);
}

std::unique_ptr<Instance> RaceDemo::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<DemoInstance>(c, seed);
}

}  // namespace tj::samples

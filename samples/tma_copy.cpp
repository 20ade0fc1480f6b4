#include "samples/tma_copy.h"

#include <cstring>

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"
#include "runtime/tensor_map.h"
#include "samples/tma_common.h"

namespace tj::samples {

using namespace tj::dsl;

std::vector<ParamSpec> TmaCopy::params() const {
  return {{"cols", 4096, 4, 1 << 20, "matrix columns (f32; a multiple of 4)"},
          {"rows", 4096, 1, 1 << 20, "matrix rows"},
          {"box_cols", 64, 4, 256, "tile columns"},
          {"box_rows", 64, 1, 256, "tile rows"},
          {"stages", 4, 2, 16, "shared-memory stages (TMA loads in flight per CTA)"},
          {"warp_specialized", 0, 0, 1,
           "1: a producer thread (warp 0) and a consumer thread (warp 1) hand stages over through a Pipeline "
           "(full/empty barriers); 0: one thread does both"}};
}

std::vector<ConfigProblem> TmaCopy::check_config(const Config& c) const {
  std::vector<ConfigProblem> out = check_tma_shape(c);
  const TmaShape s = tma_shape(c);
  if (s.box_bytes() * uint64_t(c.param("stages")) > 200 * 1024)
    out.push_back({"params.stages", std::to_string(c.param("stages")) + " stages of " + std::to_string(s.box_bytes()) +
                                        " bytes do not fit in 200 KiB of shared memory"});
  if (c.cluster.count() != 1) out.push_back({"cluster", "tma_copy runs without clusters: use cluster 1"});
  if (c.param("warp_specialized") && c.threads < 64)
    out.push_back({"threads", "the warp-specialized tma_copy needs at least 64 threads (a producer and a consumer warp), got " +
                                  std::to_string(c.threads)});
  return out;
}

ir::Kernel TmaCopy::build(const Config& c) const {
  const TmaShape t = tma_shape(c);
  const int32_t stages = static_cast<int32_t>(c.param("stages"));
  const int32_t box_elems = static_cast<int32_t>((t.box_bytes() / 4 + 31) / 32 * 32);  // stages 128-byte aligned, as TMA needs
  const int32_t ntiles = static_cast<int32_t>(t.tiles());
  const uint32_t box_bytes = static_cast<uint32_t>(t.box_bytes());

  KernelBuilder k("tma_copy");
  k.threads(c.threads);
  TensorMap src = k.tensor_map<float>("src", t.box);
  TensorMap dst = k.tensor_map<float>("dst", t.box);
  auto stage = k.dynamic_shared<float>("stage", uint64_t(stages) * box_elems, 128);

  i32 cta = block_idx_x(), grid = grid_dim_x();
  if (c.param("warp_specialized")) {
    // Producer (thread 0) and consumer (thread 32, another warp) hand stages over
    // through the pipeline's full and empty barriers.
    Pipeline pipe(k, "pipe", unsigned(stages), 1);
    i32 count = (i32(ntiles) - cta + grid - 1) / grid;
    if_(thread_idx_x() == 0, [&] {
      for_(0, count, [&](i32 it) {
        pipe.acquire(it);
        arrive_expect_tx(pipe.full(it), u32(box_bytes));
        tma_load(stage[pipe.slot(it) * box_elems], src, tile_coords(t, cta + it * grid), pipe.full(it));
      });
    });
    if_(thread_idx_x() == 32, [&] {
      for_(0, count, [&](i32 it) {
        pipe.wait_full(it);
        tma_store(dst, tile_coords(t, cta + it * grid), stage[pipe.slot(it) * box_elems]);
        bulk_commit();
        // Release the previous stage once its store has read it; this one stays in flight (with one stage, it is this one).
        if_(it >= 1, [&] {
          bulk_wait_read(stages > 1 ? 1u : 0u);
          pipe.release(it - 1);
        });
      });
      bulk_wait(0);
    });
    return k.build();
  }
  auto full = k.mbarriers("full", unsigned(stages), 1);
  // Starts the load of this CTA's `it`-th tile into its stage, if that tile exists.
  auto load = [&](const i32& it) {
    i32 tile = cta + it * grid;
    if_(tile < ntiles, [&] {
      i32 s = it % stages;
      arrive_expect_tx(full[s], u32(box_bytes));
      tma_load(stage[s * box_elems], src, tile_coords(t, tile), full[s]);
    });
  };

  if_(thread_idx_x() == 0, [&] {
    for_(0, stages - 1, [&](i32 it) { load(it); });
    i32 count = (i32(ntiles) - cta + grid - 1) / grid;  // tiles of this CTA
    for_(0, count, [&](i32 it) {
      i32 s = it % stages;
      wait(full[s]);
      tma_store(dst, tile_coords(t, cta + it * grid), stage[s * box_elems]);
      bulk_commit();
      // The stage refilled next, (it - 1) % stages, was stored one iteration ago:
      // let that store finish reading shared memory before the load overwrites it.
      bulk_wait_read(1);
      load(it + stages - 1);
    });
    bulk_wait(0);
  });
  return k.build();
}

namespace {

class CopyInstance final : public Instance {
 public:
  CopyInstance(const Config& c, uint64_t seed)
      : shape_(tma_shape(c)), host_(make_tensor_bytes(shape_, seed)), src_(host_.size()), dst_(host_.size()) {
    src_.upload(host_);
  }
  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(rt::encode_tensor_map(tensor_desc(shape_, src_.ptr()), "src"))
        .push(rt::encode_tensor_map(tensor_desc(shape_, dst_.ptr()), "dst"));
    return a;
  }
  void poison() override { dst_.fill_u8(0xFF); }
  Check verify() override {
    std::vector<uint32_t> got = dst_.download_as<uint32_t>();
    MismatchLog log;
    for (size_t i = 0; i < got.size(); ++i) {
      uint32_t want;
      std::memcpy(&want, host_.data() + 4 * i, 4);
      log.compare(got[i], want, "element " + std::to_string(i));
    }
    return log.result(std::to_string(got.size()) + " f32 copied");
  }
  double bytes_per_launch() const override { return 2.0 * double(host_.size()); }  // read + write

 private:
  TmaShape shape_;
  std::vector<uint8_t> host_;
  rt::DeviceBuffer src_, dst_;
};

}  // namespace

std::unique_ptr<Instance> TmaCopy::instantiate(const Config& c, uint64_t seed) const {
  return std::make_unique<CopyInstance>(c, seed);
}

}  // namespace tj::samples

#include "tests/kernels/fault_injection.h"

#include "dsl/dsl.h"
#include "generators/compare.h"
#include "runtime/buffer.h"

namespace tj::samples {

using namespace tj::dsl;

namespace {
constexpr int64_t kNullStore = 1, kHang = 2;
}

std::vector<ParamSpec> FaultInjection::params() const {
  return {{"fault", 0, 0, 2, "0: none; 1: a store through a null pointer; 2: a barrier wait that never completes"}};
}

ir::Kernel FaultInjection::build(const Config& c) const {
  KernelBuilder k("fault_injection");
  k.threads(c.threads).cluster(c.cluster.x, c.cluster.y, c.cluster.z);
  if (c.non_portable) k.allow_non_portable_cluster();
  auto out = k.param<uint32_t*>("out");            // null for fault 1
  auto skip_arrival = k.param<int32_t>("skip_arrival");  // 1 for fault 2
  auto gate = k.mbarriers("gate", 1, 1);
  // Thread 0 opens the gate and waits for it; with skip_arrival it waits forever.
  if_(thread_idx_x() == 0 && skip_arrival == 0, [&] { arrive(gate[0]); });
  if_(thread_idx_x() == 0, [&] { wait(gate[0]); });
  i32 i = block_idx_x() * block_dim_x() + thread_idx_x();
  out[i] = cast<uint32_t>(i);
  return k.build();
}

namespace {

class FaultInstance final : public Instance {
 public:
  explicit FaultInstance(const Config& c)
      : fault_(c.param("fault")), n_(size_t(c.num_ctas()) * c.threads), out_(n_ * sizeof(uint32_t)) {}
  rt::ArgPack args() override {
    rt::ArgPack a;
    a.push(fault_ == kNullStore ? CUdeviceptr(0) : out_.ptr()).push(int32_t(fault_ == kHang));
    return a;
  }
  void poison() override { out_.fill_u8(0xFF); }
  Check verify() override {
    std::vector<uint32_t> got = out_.download_as<uint32_t>();
    MismatchLog log;
    for (size_t i = 0; i < got.size(); ++i) log.compare(got[i], uint32_t(i), "element " + std::to_string(i));
    return log.result(std::to_string(got.size()) + " u32 written");
  }
  double bytes_per_launch() const override { return double(n_) * sizeof(uint32_t); }

 private:
  int64_t fault_;
  size_t n_;
  rt::DeviceBuffer out_;
};

}  // namespace

std::unique_ptr<Instance> FaultInjection::instantiate(const Config& c, uint64_t) const {
  return std::make_unique<FaultInstance>(c);
}

}  // namespace tj::samples

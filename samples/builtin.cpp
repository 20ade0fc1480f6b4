#include "samples/builtin.h"

#include "samples/attention.h"
#include "samples/cluster_reduce.h"
#include "samples/dsmem_ring.h"
#include "samples/gemm.h"
#include "samples/gemm_sm100.h"
#include "samples/softmax.h"
#include "samples/tma_copy.h"
#include "samples/tma_multicast.h"
#include "samples/uneven.h"

namespace tj::samples {

void register_builtin_samples(Registrar& r) {
  r.add(std::make_unique<DsmemRing>());
  r.add(std::make_unique<ClusterReduce>());
  r.add(std::make_unique<TmaMulticast>());
  r.add(std::make_unique<TmaCopy>());
  r.add(std::make_unique<Gemm>());
  r.add(std::make_unique<GemmSm100>());
  r.add(std::make_unique<Attention>());
  r.add(std::make_unique<GlobalRing>());
  r.add(std::make_unique<Softmax>());
  r.add(std::make_unique<Uneven>());
}

Registry& registry() {
  static Registry* r = [] {
    auto* reg = new Registry;  // never destroyed: plugins' generators live as long as the process
    reg->register_from("built-in", register_builtin_samples);
    return reg;
  }();
  return *r;
}

const std::vector<const Sample*>& all_samples() { return registry().all(); }

const Sample* find_sample(const std::string& name) { return registry().find(name); }

}  // namespace tj::samples

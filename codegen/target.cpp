#include "codegen/target.h"

namespace tj::codegen {

namespace {
constexpr unsigned bits(std::initializer_list<Feature> fs) {
  unsigned out = 0;
  for (Feature f : fs) out |= static_cast<unsigned>(f);
  return out;
}
}  // namespace

Target Target::sm90a() {
  Target t;
  t.arch = "sm_90a";
  t.sm = 90;
  t.features = bits({Feature::Clusters, Feature::DistributedShared, Feature::TmaMulticast, Feature::Wgmma});
  return t;
}

Target Target::sm100a() {
  Target t;
  t.arch = "sm_100a";
  t.sm = 100;
  t.features = bits({Feature::Clusters, Feature::DistributedShared, Feature::TmaMulticast, Feature::Tcgen05,
                     Feature::ClusterLaunchControl});
  return t;
}

std::optional<Target> Target::parse(std::string_view arch) {
  if (arch == "sm_90a") return sm90a();
  if (arch == "sm_100a") return sm100a();
  return std::nullopt;
}

std::vector<std::string> Target::known() { return {"sm_90a", "sm_100a"}; }

std::string_view feature_name(Feature f) {
  switch (f) {
    case Feature::Clusters: return "thread-block clusters";
    case Feature::DistributedShared: return "distributed shared memory";
    case Feature::TmaMulticast: return "TMA multicast";
    case Feature::Wgmma: return "wgmma";
    case Feature::Tcgen05: return "tcgen05";
    case Feature::ClusterLaunchControl: return "cluster launch control";
  }
  return "?";
}

}  // namespace tj::codegen

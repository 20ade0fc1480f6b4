// A compilation target: the exact architecture and the features it has.
// Emission and verification ask the Target; nothing branches on #ifdef.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tj::codegen {

enum class Feature : unsigned {
  Clusters = 1u << 0,         // thread-block clusters, %cluster_* registers, barrier.cluster
  DistributedShared = 1u << 1,  // mapa / ld,st,red .shared::cluster
  TmaMulticast = 1u << 2,     // cp.async.bulk.tensor ... .multicast::cluster
  Wgmma = 1u << 3,            // Hopper warpgroup MMA
  Tcgen05 = 1u << 4,          // Blackwell tensor memory MMA
  ClusterLaunchControl = 1u << 5,
};

struct Target {
  std::string arch;  // NVRTC's -arch value: "sm_90a"
  int sm = 0;        // 90, 100
  unsigned features = 0;
  unsigned max_cluster_portable = 8;
  unsigned max_cluster = 16;
  unsigned max_shared_per_cta = 232448;  // opt-in dynamic limit, bytes
  unsigned max_static_shared = 48 * 1024;
  unsigned max_threads_per_cta = 1024;
  unsigned max_threads_per_sm = 2048;  // resident threads of all CTAs on one SM
  unsigned max_ctas_per_sm = 32;       // resident CTAs on one SM
  unsigned max_shared_per_sm = 233472;  // shared memory of one SM, bytes (228 KiB)
  unsigned reserved_shared_per_cta = 1024;  // what the system keeps of it per resident CTA

  bool has(Feature f) const { return (features & static_cast<unsigned>(f)) != 0; }
  bool operator==(const Target& o) const { return arch == o.arch; }

  static Target sm90a();
  static Target sm100a();
  // "sm_90a" / "sm_100a"; nullopt for anything else.
  static std::optional<Target> parse(std::string_view arch);
  static std::vector<std::string> known();
};

std::string_view feature_name(Feature f);

}  // namespace tj::codegen

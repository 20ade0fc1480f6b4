// How many clusters of a size a device holds at once, asked before any kernel of the
// problem is compiled: choices a sample makes for the device (Sample::for_device) that
// depend on it, such as how many CTAs a cluster may have and still run in one round.
#pragma once

#include "runtime/launch.h"

namespace tj::rt {

class Context;

// cuOccupancyMaxActiveClusters for clusters of `cluster` CTAs of `threads` threads, each
// CTA holding `dynamic_smem` bytes of shared memory, on a kernel that does nothing (loaded
// from PTX on each call, a few milliseconds). With the device's opt-in maximum it counts
// clusters of CTAs that each take a whole SM, as a persistent kernel's do. Throws
// RuntimeError(Launch) where the device cannot take such a launch at all (a block too
// large); 0 where none fits.
int probe_active_clusters(const Context& ctx, Dim3 cluster, unsigned threads, unsigned dynamic_smem);

}  // namespace tj::rt

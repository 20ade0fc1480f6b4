// compile --clusters-fit: how many clusters of each size a GPU runs at once, as the user
// gives it ("2=66,4=30"), for the device decisions `compile --sms` makes without the GPU.
#pragma once

#include <map>
#include <string>

#include "generators/sample.h"

namespace tj::cli {

// CTAS=COUNT pairs, comma-separated: CTAS 1..16 (a cluster's CTAs), COUNT 0..1024 (clusters
// at once), digits only, each size once. Anything else is RuntimeError(Usage) naming the
// flag and the item.
std::map<unsigned, int> parse_clusters_fit(const std::string& text);

// The facts of a GPU of `sms` SMs (> 0) for the device decisions made without it: with
// `clusters_fit` ("" or as parse_clusters_fit takes it), how many clusters of each size it
// runs; sizes it does not name count as sms / size.
samples::Sample::DeviceFacts modelled_device(int sms, const std::string& clusters_fit);

}  // namespace tj::cli

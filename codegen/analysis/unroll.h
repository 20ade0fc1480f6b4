// A copy of a kernel, for analysis only, with small constant loops unrolled: each trip's
// body with the loop index replaced by its value and the locals it declares renamed
// per trip. The race check's cluster epochs use it where a loop walks the cluster's
// ranks (`for_(0, 4, [&](i32 r) { map_shared_rank(buf, r)[...] = ...; })`): per trip, the
// peer is a constant, as if the loop were written out in C++.
#pragma once

#include <functional>

#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Loops with constant bounds and at most this many trips are unrolled when `want` says so.
constexpr int64_t kMaxUnrolledTrips = 16;

ir::Kernel unroll_small_loops(const ir::Kernel& k, const std::function<bool(const ir::For&)>& want);

// Whether a map_shared_rank in the loop's body names its peer with the loop's index.
bool walks_peers(const ir::For& f);

}  // namespace tj::codegen

#pragma once
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen {

// Transaction accounting, per barrier and per CTA rank of the cluster: the
// bytes that land on a barrier in one phase (TMA boxes x issuing threads x
// multicast senders into this CTA, bulk copies, st.async) must equal the bytes
// announced with arrive_expect_tx. A mismatch hangs the kernel (too few bytes)
// or corrupts the phase (too many); this reports it before compiling.
//
// A phase is one loop body (or the kernel body outside loops). Conditions are
// evaluated per rank and per thread where they depend only on the cluster
// rank, the thread index and constants; a barrier whose accounting depends on
// anything else in that loop body is not checked there.
std::vector<Diagnostic> verify_transactions(const ir::Kernel& k, const Target& target);

}  // namespace tj::codegen

#pragma once
#include <string>
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
// A phase is one loop body (or the kernel body outside loops; the model is
// codegen/analysis/barrier_phases.h, every loop a phase of its own). Conditions are
// evaluated per rank and per thread where they depend only on the cluster
// rank, the thread index and constants. A condition that cannot be evaluated
// (a parameter, a loop index, %ctaid) is one unknown truth value when it is the
// same in every thread concerned; the accounting is checked for each value of
// each such condition, so an arrive_expect_tx and its loads under the same
// `if_(tile < ntiles)` are checked together. What still cannot be decided is
// reported, never skipped silently.

// The outcome for one barrier in one phase, when it is not an error.
struct TransactionCheck {
  std::string barrier;  // "full[0]", or "full" for a run-time index (any barrier of the array)
  std::string phase;    // "the loop at f.cpp:12" or "the kernel body"
  bool verified = false;
  std::string reason;   // when not verified: why it cannot be decided before run time
};

struct TransactionReport {
  std::vector<Diagnostic> errors;
  std::vector<TransactionCheck> checks;  // in program order
};

TransactionReport account_transactions(const ir::Kernel& k);

// The errors of account_transactions, as a verification pass.
std::vector<Diagnostic> verify_transactions(const ir::Kernel& k, const Target& target);

// "barrier 'full' in the loop at f.cpp:12: verified" or "...: not verified: <reason>".
std::string to_string(const TransactionCheck& c);

}  // namespace tj::codegen

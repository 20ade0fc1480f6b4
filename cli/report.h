// What `tilejit compile` and `tilejit run` print about a compiled kernel beyond its files:
// which barriers' transaction bytes were verified, and which not and why.
#pragma once

#include <ostream>

#include "codegen/lower.h"

namespace tj::cli {

// One "tx check" line per barrier and phase that receives transaction bytes.
void print_transaction_checks(std::ostream& out, const codegen::Lowered& lowered);

}  // namespace tj::cli

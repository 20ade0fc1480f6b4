// The one table of DSL ops: for each, the DSL call, the IR node kind(s) it builds, the
// prelude wrapper it is emitted as, the PTX that wrapper holds, and the Target features
// it needs. The verifier asks it whether a target supports an op; `tilejit reference`
// writes docs/dsl-reference.md from it; tests check it against node_kinds.def and the
// prelude.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/target.h"

namespace tj::codegen {

enum class Op {
#define TJ_OP(Enum, ...) Enum,
#include "codegen/op_table.def"
};

struct OpRow {
  Op op;
  std::string_view name;      // short, for messages: "map_shared_rank"
  std::string_view group;     // the reference page's section
  std::string_view dsl;       // how a kernel writes it
  std::string_view ir_kinds;  // node kinds from node_kinds.def, ", "-separated ("" for a kernel attribute)
  std::string_view prelude;   // the tj:: wrapper(s) emitted, ", "-separated; "" when none (plain C++)
  std::string_view ptx;       // what it lowers to
  unsigned features;          // Feature bits the target must have
};

// Every row, in the reference page's order.
const std::vector<OpRow>& op_table();
const OpRow& op_row(Op op);

// Whether `t` has every feature the op needs.
bool supports(const Target& t, Op op);
// The first feature the op needs and `t` lacks (only meaningful when !supports).
Feature missing_feature(const Target& t, Op op);
// The known targets (Target::known()) that support the op: "sm_90a, sm_100a".
std::vector<std::string> supporting_targets(Op op);
// The same as text for a fix: "sm_90a or sm_100a".
std::string supporting_targets_text(Op op);

// docs/dsl-reference.md: every row, with the targets that support it. `tilejit
// reference` prints it; a test compares it with the committed page.
std::string dsl_reference_markdown();

}  // namespace tj::codegen

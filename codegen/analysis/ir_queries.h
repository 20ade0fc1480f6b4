// Small questions about the IR that analyses and checks share: which shared buffer
// a pointer names, every statement nested in one, the loads and variables an expression reads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dsl/ir/ir.h"

namespace tj::codegen {

// A shared buffer as a pointer names it: `name` empty when it is not one;
// `rank` set when it is reached through map_shared_rank.
struct BufferRef {
  std::string name;
  ir::Expr rank;
};
BufferRef buffer_of(const ir::Expr& ptr);

// Calls f on every statement of s, nested ones included, in program order.
void for_each_stmt(const ir::Stmt& s, const std::function<void(const ir::StmtNode&)>& f);

// The loads inside an expression, in evaluation order.
void loads_in(const ir::Expr& e, std::vector<const ir::Load*>& out);

// The names of the variables (parameters, locals, loop indices) an expression reads.
void var_names(const ir::Expr& e, std::vector<std::string>& out);

// The element parts a fragment expression reads (FragElem nodes): the fragments whose
// values it reads, in order of first use, and whether it reads the row or the column.
struct ElemReads {
  std::vector<const ir::FragElem*> values;  // one per fragment
  bool row = false, col = false;
  bool tile = false;  // AccStore's tile c (ElemPart::Tile)
  bool any() const { return !values.empty() || row || col || tile; }
};
ElemReads elem_reads(const ir::Expr& e);

}  // namespace tj::codegen

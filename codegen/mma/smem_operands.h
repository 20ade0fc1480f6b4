// What every MMA family that reads its operands from shared-memory descriptors shares:
// the tile behind an operand, its byte geometry, the element offset of the operand's
// first row, and where K step j of A and B starts inside a stage (K-major tiles in
// panels of panel_cols elements; an MN-major B in 64-element panels along N). wgmma
// (sm_90a) and tcgen05 (sm_100a) read the same swizzled tiles the same way; only their
// descriptors' encodings differ.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "codegen/mma/family.h"

namespace tj::codegen::mma {

const ir::TileLayout& layout_of(const ir::TileOperand& t, const ir::Kernel& k);
const ir::AccumulatorDecl& acc_of(const std::string& name, const ir::Kernel& k);

inline unsigned panel_bytes_of(const ir::TileLayout& t) { return unsigned(t.panel_elems() * ir::scalar_bytes(t.elem)); }
inline unsigned row_bytes(const ir::TileLayout& t) { return t.panel_cols() * ir::scalar_bytes(t.elem); }

// The element offset of a tile operand's first row: stage * stage_elems + row * panel_cols.
std::string operand_offset(const ir::TileOperand& t, const ir::TileLayout& l, const ExprText& ex);

// The descriptor of operand t, as C++: `make(address)` is a descriptor of a tile address
// (its text). The descriptor of the tile's first byte (the same every k-block: hoisted out
// of loops) plus the operand's offset in the descriptor's 16-byte units, when stages and
// rows are whole units (every 16-bit layout with K a multiple of 16; the sum stays inside
// the 14-bit address field for any shared-memory address); else of the operand's address.
std::string operand_desc(const ir::TileOperand& t, const ir::TileLayout& l, const ExprText& ex,
                         const std::function<std::string(const std::string&)>& make);

// The descriptors' leading and stride byte offsets. K-major, swizzled: 8-row groups 8
// rows apart (stride), the leading offset unused (16). MN-major B (128-byte swizzle):
// the 64-element panels along N a panel apart (leading), 8-row groups along K 8 rows apart.
struct DescOffsets {
  unsigned leading, stride;
};
DescOffsets desc_offsets(const ir::TileLayout& t);

// The byte offset of K step j (16 elements) of a K-major A, from its row `first_row`.
uint64_t a_kstep_bytes(const ir::TileLayout& a, unsigned j, unsigned first_row);
// The byte offset of K step j of B, from its column `first_col` of N (rows of a K-major
// B, whole panels of an MN-major one).
uint64_t b_kstep_bytes(const ir::TileLayout& b, unsigned j, unsigned first_col);

// The K extent of an operand tile (its columns K-major, its rows MN-major).
inline unsigned k_extent(const ir::TileLayout& t) { return t.major == ir::Major::K ? t.cols : t.rows; }

// The checks of mma's operand tiles that families reading shared-memory descriptors
// share: swizzles, element types (bf16 or f16, the same), A K-major, K extents and the
// K range; `family` names the lowering in the messages.
void check_operand_tiles(const ir::Mma& n, const OperandView& a, const OperandView& b, std::string_view family,
                         std::vector<Diagnostic>& diags);

// The C++ type of a tile element in an epilogue.
std::string cuda_elem(ir::Scalar s);

}  // namespace tj::codegen::mma

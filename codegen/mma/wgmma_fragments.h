// The wgmma family's fragments as values: how an element of a warpgroup's register
// accumulator maps to its row and column, and the code of maps, row reductions,
// epilogue functions and accumulators converted into A operands. Used by wgmma.cpp.
//
// Layout (the wgmma m64nNk16 D fragment): thread t of the warpgroup, lane l = t % 32,
// holds of each 64-row block b of an m x n accumulator n / 2 floats; register
// b * n / 2 + 4 j + 2 h + x is row 64 b + 16 (t / 32) + l / 4 + 8 h, column 8 j + 2 (l % 4) + x.
// A row fragment holds that thread's rows: register 2 b + h.
#pragma once

#include "codegen/mma/family.h"

namespace tj::codegen::mma::wgmma_fragments {

unsigned row_fragment_registers(const ir::AccumulatorDecl& a);

Lines frag_map(const ir::FragMap& n, const ir::Kernel& k, const ExprText& ex);
Lines row_reduce(const ir::RowReduce& n, const ir::Kernel& k);
// The thread of lane % 4 == 0 of each row's four stores the row's value.
Lines row_store(const ir::RowStore& n, const ir::Kernel& k, const ExprText& ex);
// store_accumulator (its epilogue function) into a tile of element type `elem` (panels of
// panel_cols elements, panel_bytes apart, swizzled over `span` bytes as TMA moves it: 128,
// 64 or 32, 0 unswizzled); `dst` the C++ address
// of the destination's first row, `c` that of the tile the function reads (n.c, laid out
// like dst; empty without one). 16-bit elements: the values of each pair of n8 groups go
// out in one stmatrix.x4, an odd count's last group (and other types) a 32-bit store per
// pair. Transposed (n.transposed): stmatrix.x4.trans for 16-bit pairs of groups, else one
// store per value.
Lines acc_store_epilogue(const ir::AccStore& n, const ir::Kernel& k, const ExprText& ex, ir::Scalar elem, const std::string& elem_cuda,
                         unsigned panel_cols, unsigned panel_bytes, unsigned span, const std::string& dst, const std::string& c);
// The A fragments of k-step j (16 columns) of accumulator `a`'s 64-row block b,
// packed into four registers of `elem_cuda` pairs, declared as `name`.
Lines register_a(const ir::AccumulatorDecl& a, unsigned b, unsigned j, const std::string& elem_cuda, const std::string& name);

}  // namespace tj::codegen::mma::wgmma_fragments

#include "codegen/mma/wgmma_fragments.h"

#include "codegen/analysis/ir_queries.h"

namespace tj::codegen::mma::wgmma_fragments {
namespace {

using namespace tj::ir;

const AccumulatorDecl& decl(const std::string& name, const Kernel& k) {
  const AccumulatorDecl* a = k.find_accumulator(name);
  if (!a) internal_error("emit: unknown fragment '" + name + "'");
  return *a;
}
std::string str(uint64_t v) { return std::to_string(v); }

// This thread's place in the warpgroup: the first of its rows in a 64-row block and the
// first of its columns in an 8-column group.
const char* kThreadPlace =
    "[[maybe_unused]] const int tj_lane = (int)threadIdx.x % 32, tj_wrow = (((int)threadIdx.x % 128) / 32) * 16 + tj_lane / 4, "
    "tj_qcol = 2 * (tj_lane % 4);";

// The bindings of an element's FragElem names, for a tile element with register index
// `i` of a tile fragment of n columns (block `blk`, half `h` as C++ expressions), or for
// row `r` of a row fragment (then i is empty).
Lines bindings(const ElemReads& reads, const Kernel& k, const std::string& i, const std::string& blk, const std::string& h,
               const std::string& row, const std::string& col) {
  Lines out;
  if (reads.row) out.push_back("const int " + std::string(kElemRow) + " = " + row + ";");
  if (reads.col) out.push_back("const int " + std::string(kElemCol) + " = " + col + ";");
  for (const FragElem* f : reads.values) {
    const AccumulatorDecl& a = decl(f->fragment, k);
    const std::string index = a.kind == FragmentKind::Rows ? "(" + blk + ") * 2 + (" + h + ")" : i;
    out.push_back("const float " + elem_value_name(f->fragment) + " = " + f->fragment + "[" + index + "];");
  }
  return out;
}

void indent(Lines& out, const Lines& in, const std::string& pad) {
  for (const std::string& l : in) out.push_back(pad + l);
}

}  // namespace

unsigned row_fragment_registers(const AccumulatorDecl& a) { return a.m / 32; }

Lines frag_map(const FragMap& n, const Kernel& k, const ExprText& ex) {
  const AccumulatorDecl& d = decl(n.dst, k);
  if (d.kind == FragmentKind::Operand) {
    // convert(p, acc): acc's registers in pairs, rounded to p's type (verify_tiles checked the shapes).
    const FragElem* src = n.value->as<FragElem>();
    if (!src) internal_error("emit: an operand fragment written by anything but convert");
    const std::string tag = d.elem == Scalar::BF16 ? "(tj::bf16*)nullptr" : "(tj::f16*)nullptr";
    return {"#pragma unroll", "for (int tj_i = 0; tj_i < " + str(d.m * d.n / 256) + "; ++tj_i) " + n.dst + "[tj_i] = tj::pack2(" + tag +
                                  ", " + src->fragment + "[2 * tj_i], " + src->fragment + "[2 * tj_i + 1]);"};
  }
  const ElemReads reads = elem_reads(n.value);
  Lines out = {"{"};
  if (reads.row || reads.col) out.push_back("  " + std::string(kThreadPlace));  // only an element's place needs it
  out.push_back("#pragma unroll");
  if (d.kind == FragmentKind::Rows) {
    out.push_back("  for (int tj_r = 0; tj_r < " + str(row_fragment_registers(d)) + "; ++tj_r) {");
    indent(out, bindings(reads, k, "", "tj_r / 2", "tj_r % 2", "(tj_r / 2) * 64 + tj_wrow + 8 * (tj_r % 2)", "0"), "    ");
    out.push_back("    " + n.dst + "[tj_r] = " + ex(n.value) + ";");
  } else {
    const unsigned half = d.n / 2;
    out.push_back("  for (int tj_i = 0; tj_i < " + str(d.m * d.n / 128) + "; ++tj_i) {");
    out.push_back("    [[maybe_unused]] const int tj_blk = tj_i / " + str(half) + ", tj_k = tj_i % " + str(half) + ";");
    indent(out,
           bindings(reads, k, "tj_i", "tj_blk", "(tj_k >> 1) & 1", "tj_blk * 64 + tj_wrow + 8 * ((tj_k >> 1) & 1)",
                    "(tj_k >> 2) * 8 + tj_qcol + (tj_k & 1)"),
           "    ");
    out.push_back("    " + n.dst + "[tj_i] = " + ex(n.value) + ";");
  }
  out.push_back("  }");
  out.push_back("}");
  return out;
}

Lines row_reduce(const RowReduce& n, const Kernel& k) {
  const AccumulatorDecl& src = decl(n.src, k);
  const unsigned op = n.op == ReduceOp::Sum ? 0 : n.op == ReduceOp::Max ? 1 : 2;
  Lines out;
  for (unsigned b = 0; b < src.m / 64; ++b)
    out.push_back("tj::row_reduce_m64<" + str(src.n) + ", " + str(op) + ">(&" + n.src + "[" + str(b * src.n / 2) + "], &" + n.dst +
                  "[" + str(2 * b) + "], " + (n.accumulate ? "true" : "false") + ");");
  return out;
}

Lines row_store(const RowStore& n, const Kernel& k, const ExprText& ex) {
  const AccumulatorDecl& d = decl(n.frag, k);
  ElemReads reads = elem_reads(n.index);
  if (n.valid) {
    const ElemReads v = elem_reads(n.valid);
    reads.row = reads.row || v.row;
    for (const FragElem* f : v.values) {
      bool seen = false;
      for (const FragElem* g : reads.values) seen = seen || g->fragment == f->fragment;
      if (!seen) reads.values.push_back(f);
    }
  }
  Lines out = {"{", "  " + std::string(kThreadPlace), "  if (tj_lane % 4 == 0) {", "#pragma unroll",
               "    for (int tj_r = 0; tj_r < " + str(row_fragment_registers(d)) + "; ++tj_r) {"};
  indent(out, bindings(reads, k, "", "tj_r / 2", "tj_r % 2", "(tj_r / 2) * 64 + tj_wrow + 8 * (tj_r % 2)", "0"), "      ");
  const std::string store = ex(n.ptr) + "[" + ex(n.index) + "] = " + n.frag + "[tj_r];";
  out.push_back("      " + (n.valid ? "if (" + ex(n.valid) + ") " + store : store));
  out.push_back("    }");
  out.push_back("  }");
  out.push_back("}");
  return out;
}

namespace {

// store_accumulator_transposed of groups [ja, jb) of n8 columns, j0 the first group of the
// tile: accumulator element (r, c) to tile row c - first_col, column r (a 64-row block b at
// columns 64 b); x4, sixteen columns at a time through stmatrix.x4.trans, else one value
// per store. A tile the function reads is read one value at a time at the same place.
Lines acc_store_transposed(const AccStore& n, const Kernel& k, const ElemReads& reads, bool tile, const ExprText& ex,
                           const std::string& elem_cuda, const std::string& panels, const std::string& dst, const std::string& c,
                           unsigned j0, unsigned ja, unsigned jb, bool x4) {
  if (ja == jb) return {};
  const AccumulatorDecl& a = decl(n.acc, k);
  const std::string group = x4 ? "(tj_j + tj_g)" : "tj_j";
  const std::string row = "8 * (" + group + " - " + str(j0) + ") + tj_qcol + tj_x", col = "tj_blk * 64 + tj_wrow + 8 * tj_h";
  Lines out = {"{", "  " + std::string(kThreadPlace), "  " + elem_cuda + "* tj_dst = " + dst + ";"};
  if (tile) out.push_back("  const " + elem_cuda + "* tj_c = " + c + ";");
  out.insert(out.end(), {"#pragma unroll", "  for (int tj_blk = 0; tj_blk < " + str(a.m / 64) + "; ++tj_blk) {", "#pragma unroll",
                         "    for (int tj_j = " + str(ja) + "; tj_j < " + str(jb) + "; tj_j += " + str(x4 ? 2 : 1) + ") {"});
  std::string pad = "      ";
  if (x4) {
    out.insert(out.end(), {"      float tj_v[8];", "#pragma unroll", "      for (int tj_g = 0; tj_g < 2; ++tj_g) {"});
    pad += "  ";
  }
  out.insert(out.end(), {"#pragma unroll", pad + "for (int tj_h = 0; tj_h < 2; ++tj_h) {", "#pragma unroll",
                         pad + "  for (int tj_x = 0; tj_x < 2; ++tj_x) {",
                         pad + "    [[maybe_unused]] const int tj_i = tj_blk * " + str(a.n / 2) + " + 4 * " + group + " + 2 * tj_h + tj_x;"});
  indent(out, bindings(reads, k, "tj_i", "tj_blk", "tj_h", "tj_blk * 64 + tj_wrow + 8 * tj_h", "8 * " + group + " + tj_qcol + tj_x"),
         pad + "    ");
  if (tile) out.push_back(pad + "    const float " + std::string(kElemTile) + " = tj::load_one_tile" + panels + "(tj_c, " + row + ", " + col + ");");
  if (x4) out.push_back(pad + "    tj_v[4 * tj_g + 2 * tj_h + tj_x] = " + ex(n.epilogue) + ";");
  else out.push_back(pad + "    tj::store_one_tile" + panels + "(tj_dst, " + row + ", " + col + ", " + ex(n.epilogue) + ");");
  out.push_back(pad + "  }");
  out.push_back(pad + "}");
  if (x4) {
    out.push_back("      }");
    out.push_back("      tj::stmatrix_x4_trans_tile" + panels + "(tj_dst, 8 * (tj_j - " + str(j0) + "), tj_blk * 64, tj_v);");
  }
  out.insert(out.end(), {"    }", "  }", "}"});
  return out;
}

// store_accumulator (not transposed) of groups [ja, jb) of n8 columns, j0 the first group of
// the tile: x4, two groups a step by stmatrix.x4, else a 32-bit store per pair.
Lines acc_store_groups(const AccStore& n, const Kernel& k, const ElemReads& reads, bool tile, const ExprText& ex,
                       const std::string& elem_cuda, unsigned panel_cols, const std::string& panels, const std::string& dst,
                       const std::string& c, unsigned j0, unsigned ja, unsigned jb, bool x4) {
  if (ja == jb) return {};
  const AccumulatorDecl& a = decl(n.acc, k);
  // The n8 group of an element: tj_j, or with stmatrix tj_j + tj_g (two groups a step).
  const std::string group = x4 ? "(tj_j + tj_g)" : "tj_j";
  const std::string block = " + tj_blk * " + str(64 * panel_cols) + ";";
  const std::string place = "tj_wrow + 8 * tj_h, 8 * (" + group + " - " + str(j0) + ") + tj_qcol";
  Lines out = {"{", "  " + std::string(kThreadPlace), "#pragma unroll",
               "  for (int tj_blk = 0; tj_blk < " + str(a.m / 64) + "; ++tj_blk) {",
               "    " + elem_cuda + "* tj_dst = " + dst + block};
  if (tile) out.push_back("    const " + elem_cuda + "* tj_c = " + c + block);
  out.insert(out.end(), {"#pragma unroll", "    for (int tj_j = " + str(ja) + "; tj_j < " + str(jb) + "; tj_j += " + str(x4 ? 2 : 1) + ") {"});
  std::string pad = "      ";
  if (x4) {
    out.insert(out.end(), {"      float tj_v[8];", "#pragma unroll", "      for (int tj_g = 0; tj_g < 2; ++tj_g) {"});
    pad += "  ";
  }
  out.insert(out.end(), {"#pragma unroll", pad + "for (int tj_h = 0; tj_h < 2; ++tj_h) {"});
  if (!x4) out.push_back(pad + "  float tj_pair[2];");
  // The tile's pair at this place, read before the pair is written (c may be dst itself).
  if (tile) out.insert(out.end(), {pad + "  float tj_tile[2];", pad + "  tj::load_pair_tile" + panels + "(tj_c, " + place + ", tj_tile[0], tj_tile[1]);"});
  out.insert(out.end(), {"#pragma unroll", pad + "  for (int tj_x = 0; tj_x < 2; ++tj_x) {",
                         pad + "    [[maybe_unused]] const int tj_i = tj_blk * " + str(a.n / 2) + " + 4 * " + group + " + 2 * tj_h + tj_x;"});
  indent(out, bindings(reads, k, "tj_i", "tj_blk", "tj_h", "tj_blk * 64 + tj_wrow + 8 * tj_h", "8 * " + group + " + tj_qcol + tj_x"),
         pad + "    ");
  if (tile) out.push_back(pad + "    const float " + std::string(kElemTile) + " = tj_tile[tj_x];");
  out.push_back(pad + "    " + std::string(x4 ? "tj_v[4 * tj_g + 2 * tj_h + tj_x]" : "tj_pair[tj_x]") + " = " + ex(n.epilogue) + ";");
  out.push_back(pad + "  }");
  if (!x4) out.push_back(pad + "  tj::store_pair_tile" + panels + "(tj_dst, " + place + ", tj_pair[0], tj_pair[1]);");
  out.push_back(pad + "}");
  if (x4) {
    out.push_back("      }");
    out.push_back("      tj::stmatrix_x4_tile" + panels + "(tj_dst, 8 * (tj_j - " + str(j0) + "), tj_v);");
  }
  out.push_back("    }");
  out.push_back("  }");
  out.push_back("}");
  return out;
}

}  // namespace

Lines acc_store_epilogue(const AccStore& n, const Kernel& k, const ExprText& ex, Scalar elem, const std::string& elem_cuda,
                         unsigned panel_cols, unsigned panel_bytes, unsigned span, const std::string& dst, const std::string& c) {
  const ElemReads reads = elem_reads(n.epilogue);
  const bool tile = reads.tile && !c.empty();
  if (reads.tile != tile) internal_error("emit: store_accumulator's function reads a tile, and the store has none");
  const std::string panels = "<" + str(panel_cols) + ", " + str(panel_bytes) + ", " + str(span) + ">";
  // 16-bit elements: whole pairs of n8 groups by stmatrix, an odd count's last group alone.
  const unsigned j0 = n.first_col / 8, j1 = (n.first_col + n.cols) / 8;
  const unsigned jx = scalar_bytes(elem) == 2 ? j0 + (j1 - j0) / 2 * 2 : j0;
  auto groups = [&](unsigned ja, unsigned jb, bool x4) {
    return n.transposed ? acc_store_transposed(n, k, reads, tile, ex, elem_cuda, panels, dst, c, j0, ja, jb, x4)
                        : acc_store_groups(n, k, reads, tile, ex, elem_cuda, panel_cols, panels, dst, c, j0, ja, jb, x4);
  };
  Lines out = groups(j0, jx, true);
  const Lines rest = groups(jx, j1, false);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Lines register_a(const AccumulatorDecl& a, unsigned b, unsigned j, const std::string& elem_cuda, const std::string& name) {
  // k-step j covers columns 16 j .. 16 j + 15: n8 groups 2 j and 2 j + 1. The A fragment
  // (m64k16, 16-bit) is {row r, k c..c+1}, {r + 8, same}, {r, c + 8..}, {r + 8, c + 8..}:
  // the accumulator's own pairs of those groups, in register order.
  const unsigned base = b * a.n / 2 + 8 * j;
  const std::string tag = "(" + elem_cuda + "*)nullptr";
  Lines out = {"tj::u32 " + name + "[4];"};
  for (unsigned r = 0; r < 4; ++r)
    out.push_back(name + "[" + str(r) + "] = tj::pack2(" + tag + ", " + a.name + "[" + str(base + 2 * r) + "], " + a.name + "[" +
                  str(base + 2 * r + 1) + "]);");
  return out;
}

}  // namespace tj::codegen::mma::wgmma_fragments

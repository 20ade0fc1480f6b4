#include "codegen/mma/smem_operands.h"

namespace tj::codegen::mma {

using namespace tj::ir;

const TileLayout& layout_of(const TileOperand& t, const Kernel& k) {
  const SharedRef* r = t.tile->as<SharedRef>();
  const SharedBuffer* b = r ? k.find_shared(r->name) : nullptr;
  if (!b || !b->tile) internal_error("emit: a tile operand is not a tile buffer (the verifier should have said so)");
  return *b->tile;
}

const AccumulatorDecl& acc_of(const std::string& name, const Kernel& k) {
  const AccumulatorDecl* a = k.find_accumulator(name);
  if (!a) internal_error("emit: unknown accumulator '" + name + "'");
  return *a;
}

std::string operand_offset(const TileOperand& t, const TileLayout& l, const ExprText& ex) {
  return "(" + ex(t.stage) + ") * " + std::to_string(l.stage_elems()) + " + (" + ex(t.row) + ") * " + std::to_string(l.panel_cols());
}

std::string operand_desc(const TileOperand& t, const TileLayout& l, const ExprText& ex,
                         const std::function<std::string(const std::string&)>& make) {
  const uint64_t stage_bytes = l.stage_elems() * scalar_bytes(l.elem);
  if (stage_bytes % 16 || row_bytes(l) % 16) return make("&" + ex(t.tile) + "[" + operand_offset(t, l, ex) + "]");
  return make(ex(t.tile)) + " + (tj::u64)(unsigned)((" + ex(t.stage) + ") * " + std::to_string(stage_bytes / 16) + " + (" + ex(t.row) +
         ") * " + std::to_string(row_bytes(l) / 16) + ")";
}

DescOffsets desc_offsets(const TileLayout& t) {
  if (t.major == Major::MN) return {panel_bytes_of(t), 8 * row_bytes(t)};
  return {16, 8 * row_bytes(t)};
}

uint64_t a_kstep_bytes(const TileLayout& a, unsigned j, unsigned first_row) {
  const unsigned esz = scalar_bytes(a.elem);
  return uint64_t(16 * j / a.panel_cols()) * panel_bytes_of(a) + uint64_t(16 * j % a.panel_cols()) * esz +
         uint64_t(first_row) * row_bytes(a);
}

uint64_t b_kstep_bytes(const TileLayout& b, unsigned j, unsigned first_col) {
  const unsigned esz = scalar_bytes(b.elem);
  if (b.major == Major::MN) return uint64_t(16 * j) * row_bytes(b) + uint64_t(first_col / b.panel_cols()) * panel_bytes_of(b);
  return uint64_t(16 * j / b.panel_cols()) * panel_bytes_of(b) + uint64_t(16 * j % b.panel_cols()) * esz +
         uint64_t(first_col) * row_bytes(b);
}

void check_operand_tiles(const Mma& n, const OperandView& av, const OperandView& bv, std::string_view family,
                         std::vector<Diagnostic>& diags) {
  const std::string fam(family);
  const TileLayout *a = &av.layout, *b = &bv.layout;
  const std::string &an = av.name, &bn = bv.name;
  auto error = [&](const Loc& loc, std::string msg, std::string fix) { diags.push_back({loc, std::move(msg), std::move(fix)}); };
  for (auto [l, nm] : {std::pair{a, an}, std::pair{b, bn}}) {
    if (l->swizzle == Swizzle::None)
      error(n.loc, "mma reads tile '" + nm + "', which is not swizzled; the " + fam + " lowering reads 32-, 64- or 128-byte-swizzled tiles",
            "declare '" + nm + "' with Swizzle::B128 (the default of shared_tile), B64 or B32");
    else if (l->major == Major::MN && l->swizzle != Swizzle::B128)
      error(n.loc, "mma reads tile '" + nm + "' MN-major with a " + std::string(swizzle_name(l->swizzle)) +
                       " swizzle; the " + fam + " lowering reads MN-major tiles 128-byte-swizzled",
            "declare '" + nm + "' with Swizzle::B128 (the default of shared_tile)");
    if (l->elem != Scalar::BF16 && l->elem != Scalar::F16)
      error(n.loc, "mma operand '" + nm + "' holds " + std::string(scalar_name(l->elem)) + "; " + fam + " takes bf16 or f16 here",
            "declare the tile as shared_tile<bf16> or shared_tile<f16>");
  }
  if (a->elem != b->elem)
    error(n.loc, "mma operands '" + an + "' (" + std::string(scalar_name(a->elem)) + ") and '" + bn + "' (" +
                     std::string(scalar_name(b->elem)) + ") differ in element type",
          "give A and B the same element type");
  if (a->major != Major::K)
    error(n.loc, "mma operand A '" + an + "' is M-major; this lowering reads A K-major (rows M, columns K)",
          "declare A as shared_tile<T>(name, M, K, stages) with Major::K");
  const unsigned ka = k_extent(*a), kb = k_extent(*b);
  if (ka != kb || ka % 16 != 0)
    error(n.loc, "mma operands have K extents " + std::to_string(ka) + " ('" + an + "') and " + std::to_string(kb) + " ('" + bn + "')",
          "give both tiles the same K extent, a multiple of 16");
  else if (n.k_first % 16 != 0 || n.k_count % 16 != 0 || n.k_first >= ka || n.k_first + n.k_count > ka)
    error(n.loc, "mma over K elements " + std::to_string(n.k_first) + ".." +
                     (n.k_count ? std::to_string(n.k_first + n.k_count) : std::string("end")) + " of tiles with a K extent of " +
                     std::to_string(ka),
          "give a K range inside [0, " + std::to_string(ka) + ") that starts and ends on a multiple of 16 (the MMA's K step)");
}

std::string cuda_elem(Scalar s) {
  switch (s) {
    case Scalar::BF16: return "tj::bf16";
    case Scalar::F16: return "tj::f16";
    case Scalar::F32: return "float";
    default: internal_error("emit: tile element type " + std::string(scalar_name(s)) + " in an epilogue");
  }
}

}  // namespace tj::codegen::mma

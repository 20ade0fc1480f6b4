#include "codegen/mma/tcgen05.h"

#include "codegen/analysis/ir_queries.h"
#include "codegen/mma/smem_operands.h"
#include "codegen/mma/tcgen05_desc.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen::mma {
namespace {

using namespace tj::ir;

std::string str(uint64_t v) { return std::to_string(v); }
std::string n2(unsigned a, unsigned b) { return str(a) + "x" + str(b); }

// Rows of a tcgen05 accumulator in each CTA: one per tensor-memory lane (M 128 for
// cta_group::1, the pair's M 256 as 128 per CTA).
constexpr unsigned kAccRows = 128;

// The instruction's shape and types for mma `n` into `acc`.
Tcgen05Shape shape_of(const Mma& n, const AccumulatorDecl& acc, const TileLayout& a, const TileLayout& b) {
  Tcgen05Shape s;
  s.a = a.elem;
  s.b = b.elem;
  s.d = Scalar::F32;
  s.m = kAccRows * n.cta_group;
  s.n = acc.n;
  s.a_major = a.major;
  s.b_major = b.major;
  s.cta_group = n.cta_group;
  return s;
}

// The tensor-memory address of accumulator `name`'s column 0 (lane 0) in buffer `stage`
// (null: 0), as C++.
std::string acc_address(const std::string& name, const Expr& stage, const Kernel& k, const ExprText& ex) {
  const TmemPlan plan = tmem_plan(k);
  const auto it = plan.column.find(name);
  if (it == plan.column.end()) internal_error("emit: accumulator '" + name + "' has no tensor-memory columns");
  const std::string base = std::string(kTmemSlot) + "[0] + " + str(it->second) + "u";
  if (!stage) return base;
  return base + " + (tj::u32)(" + ex(stage) + ") * " + str(acc_of(name, k).n) + "u";
}

class Tcgen05 final : public Family {
 public:
  std::string_view name() const override { return "tcgen05"; }
  AccumulatorHome accumulator_home() const override { return AccumulatorHome::TensorMemory; }
  unsigned mma_issuers() const override { return 1; }
  // Tensor memory, not registers; the epilogue holds one 16-column chunk of a row at a time.
  unsigned accumulator_registers(const AccumulatorDecl&) const override { return 0; }

  void check_mma(const Mma& n, const AccumulatorDecl& acc, const OperandView& av, const OperandView& bv,
                 std::vector<Diagnostic>& diags) const override {
    check_operand_tiles(n, av, bv, name(), diags);
    if (acc.m != kAccRows || acc.kind != FragmentKind::Tile) return;  // check_accumulator says why
    const std::string problem = tcgen05_shape_problem(shape_of(n, acc, av.layout, bv.layout));
    if (!problem.empty())
      diags.push_back({n.loc, std::string(n.cta_group == 2 ? "mma_pair" : "mma") + " into accumulator '" + acc.name + "' (" +
                                  n2(acc.m, acc.n) + "): " + problem,
                       "give the accumulator a number of columns the instruction takes"});
  }

  void check_accumulator(const AccumulatorDecl& a, std::vector<Diagnostic>& diags) const override {
    if (a.kind != FragmentKind::Tile) return;  // refused where it is used (refuses)
    if (a.m != kAccRows)
      diags.push_back({a.loc,
                       "accumulator '" + a.name + "' has " + str(a.m) +
                           " rows; a tcgen05 accumulator holds 128 per CTA, one per tensor-memory lane (a pair's mma_pair "
                           "makes 256 rows from two CTAs of 128)",
                       "declare it with k.accumulator(\"" + a.name + "\", 128, " + str(a.n) + ")"});
    if (a.n % 16 != 0 || a.n > 256)
      diags.push_back({a.loc,
                       "accumulator '" + a.name + "' has " + str(a.n) +
                           " columns; one tcgen05.mma writes 16 to 256 columns, a multiple of 16",
                       a.n > 256 ? "split it into accumulators of at most 256 columns (they share the 512 columns of tensor memory)"
                                 : "round the columns up to a multiple of 16"});
  }

  std::optional<Refusal> refuses(std::string_view what) const override {
    // mma with A from registers: check_register_a says why not.
    if (what == "store_accumulator" || what == "mma" || what == "mma operand A") return std::nullopt;
    if (what == "mma_wait")
      return Refusal{"mma_wait waits for wgmma groups (sm_90a); tcgen05 MMAs complete on an mbarrier",
                     "after the MMAs, mma_commit(bar[i], group) from the thread that issued them, and wait on bar[i] where the "
                     "accumulator or the stages are needed"};
    return Refusal{std::string(what) + " works on register fragments (wgmma, sm_90a); tcgen05 keeps accumulators in tensor "
                                       "memory, read only through store_accumulator",
                   "compute on the elements in store_accumulator's function (value, row, column), or compile for sm_90a"};
  }

  void check_acc_store(const AccStore& n, const OperandView& dv, std::vector<Diagnostic>& diags) const override {
    const TileLayout& d = dv.layout;
    if (n.transposed)
      diags.push_back({n.loc, "store_accumulator_transposed into tile '" + dv.name + "': the tcgen05 epilogue has no transposed store",
                       "store the accumulator untransposed (store_accumulator), or compile for sm_90a"});
    if (d.swizzle != Swizzle::B128)
      diags.push_back({n.loc, "store_accumulator writes tile '" + dv.name + "' with a " + std::string(swizzle_name(d.swizzle)) +
                                  " swizzle; the epilogue writes 128-byte-swizzled tiles",
                       "declare the tile with Swizzle::B128"});
    if (d.elem != Scalar::BF16 && d.elem != Scalar::F16 && d.elem != Scalar::F32)
      diags.push_back({n.loc, "store_accumulator into tile '" + dv.name + "' of " + std::string(scalar_name(d.elem)),
                       "the epilogue writes bf16, f16 or f32 tiles"});
    if (n.epilogue)
      for (const FragElem* f : elem_reads(n.epilogue).values)
        if (f->fragment != n.acc)
          diags.push_back({n.loc,
                           "store_accumulator's function reads fragment '" + f->fragment + "' beside accumulator '" + n.acc +
                               "'; with tcgen05 an epilogue reads the accumulator it stores (one tensor-memory row per thread)",
                           "read only e.value, e.row, e.col and e[tile] in the function"});
    if (n.first_col % 8 != 0 || n.cols % 8 != 0)
      diags.push_back({n.loc, "store_accumulator of columns " + str(n.first_col) + ".." + str(n.first_col + n.cols) +
                                  ": tcgen05.ld reads whole groups of 8 columns",
                       "store columns in multiples of 8"});
  }

  std::string declarations(const Kernel&) const override { return {}; }

  std::string accumulator_decls(const Kernel& k) const override {
    const TmemPlan plan = tmem_plan(k);
    std::string out;
    for (const AccumulatorDecl& a : k.accumulators) {
      if (a.kind != FragmentKind::Tile) continue;
      out += "  // accumulator at " + a.loc.str() + ": " + (a.stages > 1 ? str(a.stages) + " buffers of " : "") + n2(a.m, a.n) +
             " f32 in tensor memory, columns " + str(plan.column.at(a.name)) + ".." + str(plan.column.at(a.name) + a.n * a.stages - 1) +
             " of the allocation at " + kTmemSlot + "[0]\n";
    }
    return out;
  }

  Lines mma(const Mma& n, const Kernel& k, const ExprText& ex) const override {
    const AccumulatorDecl& acc = acc_of(n.acc, k);
    const TileLayout &a = layout_of(n.a, k), &b = layout_of(n.b, k);
    const unsigned kstep0 = n.k_first / 16, ksteps = (n.k_count ? n.k_first + n.k_count : k_extent(a)) / 16;
    const uint32_t idesc = tcgen05_instr_desc(shape_of(n, acc, a, b));
    const auto desc = [&](const char* name, const TileOperand& t, const TileLayout& l) {
      const DescOffsets o = desc_offsets(l);
      const uint64_t fixed = sm100_smem_desc_bits(l.swizzle, o.leading, o.stride);
      return "  const tj::u64 " + std::string(name) + " = " + operand_desc(t, l, ex, [&](const std::string& addr) {
               return "tj::sm100_smem_desc(" + addr + ", " + str(fixed) + "ull)";
             }) + ";";
    };
    const std::string g = "<" + str(n.cta_group) + ">";
    // This thread issues the whole tile (the tensor core runs all its rows); after the
    // barrier wait that handed it the stage or the accumulator, the fence orders it.
    Lines out = {"{", "  tj::tcgen05_fence_after_sync();", desc("tj_desc_a", n.a, a), desc("tj_desc_b", n.b, b),
                 "  const tj::u32 tj_d = " + acc_address(n.acc, n.acc_stage, k, ex) + ";",
                 "  const tj::u32 tj_scale_d = (" + ex(n.accumulate) + ") ? 1u : 0u;"};
    for (unsigned j = kstep0; j < ksteps; ++j)
      out.push_back("  tj::tcgen05_mma_f16" + g + "(tj_d, tj_desc_a + " + str(a_kstep_bytes(a, j, 0) >> 4) + "ull, tj_desc_b + " +
                    str(b_kstep_bytes(b, j, 0) >> 4) + "ull, " + str(idesc) + "u, " + (j == kstep0 ? "tj_scale_d" : "1u") + ");");
    out.push_back("}");
    return out;
  }

  Lines mma_wait(const MmaWait&, const Kernel&) const override {
    internal_error("emit: mma_wait with tcgen05 (verify_tiles refuses it)");
  }

  Lines acc_store(const AccStore& n, const Kernel& k, const ExprText& ex) const override {
    const TileLayout& d = layout_of(n.dst, k);
    const ElemReads reads = elem_reads(n.epilogue);
    const bool tile = reads.tile && n.c;
    if (reads.tile != tile) internal_error("emit: store_accumulator's function reads a tile, and the store has none");
    const std::string elem = cuda_elem(d.elem);
    const unsigned chunk = n.cols % 16 == 0 ? 16 : 8;        // columns per tcgen05.ld
    const unsigned per16 = 16 / scalar_bytes(d.elem);         // elements per 16-byte store
    const std::string panels = "<" + str(d.panel_cols()) + ", " + str(panel_bytes_of(d)) + ">";
    Lines out = {"{",
                 // Tensor-memory loads after the barrier wait that says the MMAs completed.
                 "  tj::tcgen05_fence_after_sync();",
                 // Warp w of the warpgroup reads lanes 32 (w % 4) ..: this thread's row is its lane.
                 "  const int tj_q = ((int)threadIdx.x / 32) % 4;",
                 "  [[maybe_unused]] const int tj_row = 32 * tj_q + (int)threadIdx.x % 32;",
                 "  const tj::u32 tj_t = " + acc_address(n.acc, n.acc_stage, k, ex) + " + ((tj::u32)(32 * tj_q) << 16);",
                 "  " + elem + "* tj_dst = &" + ex(n.dst.tile) + "[" + operand_offset(n.dst, d, ex) + "];"};
    if (tile)
      out.push_back("  const " + elem + "* tj_c = &" + ex(n.c->tile) + "[" + operand_offset(*n.c, layout_of(*n.c, k), ex) + "];");
    out.insert(out.end(), {"#pragma unroll", "  for (int tj_j = " + str(n.first_col) + "; tj_j < " + str(n.first_col + n.cols) +
                                                 "; tj_j += " + str(chunk) + ") {",
                           "    float tj_v[" + str(chunk) + "];",
                           "    tj::tmem_ld_32x32b_x" + str(chunk) + "(tj_t + (tj::u32)tj_j, tj_v);", "    tj::tcgen05_wait_ld();"});
    if (tile)
      out.insert(out.end(), {"    float tj_tile[" + str(chunk) + "];", "#pragma unroll",
                             "    for (int tj_p = 0; tj_p < " + str(chunk) + "; tj_p += " + str(per16) + ") tj::load_row16_b128" + panels +
                                 "(tj_c, tj_row, tj_j - " + str(n.first_col) + " + tj_p, &tj_tile[tj_p]);"});
    out.insert(out.end(), {"#pragma unroll", "    for (int tj_x = 0; tj_x < " + str(chunk) + "; ++tj_x) {"});
    if (reads.row) out.push_back("      const int " + std::string(kElemRow) + " = tj_row;");
    if (reads.col) out.push_back("      const int " + std::string(kElemCol) + " = tj_j + tj_x;");
    for (const FragElem* f : reads.values) out.push_back("      const float " + elem_value_name(f->fragment) + " = tj_v[tj_x];");
    if (tile) out.push_back("      const float " + std::string(kElemTile) + " = tj_tile[tj_x];");
    out.push_back("      tj_v[tj_x] = " + ex(n.epilogue) + ";");
    out.push_back("    }");
    out.insert(out.end(), {"#pragma unroll", "    for (int tj_p = 0; tj_p < " + str(chunk) + "; tj_p += " + str(per16) +
                                                 ") tj::store_row16_b128" + panels + "(tj_dst, tj_row, tj_j - " + str(n.first_col) +
                                                 " + tj_p, &tj_v[tj_p]);"});
    out.push_back("  }");
    // The loads are complete (wait::ld); the fence orders them before the thread
    // synchronization that gives the accumulator back to the MMA's issuer.
    out.push_back("  tj::tcgen05_fence_before_sync();");
    out.push_back("}");
    return out;
  }

  Lines acc_partial(const AccPartial&, const Kernel&, const ExprText&) const override { return refused("split-K partials"); }
  Lines frag_map(const FragMap&, const Kernel&, const ExprText&) const override { return refused("acc_map"); }
  Lines row_reduce(const RowReduce&, const Kernel&) const override { return refused("row reductions"); }
  Lines row_store(const RowStore&, const Kernel&, const ExprText&) const override { return refused("store_rows"); }

  void check_register_a(const Mma& n, const AccumulatorDecl& a, const OperandView&, std::vector<Diagnostic>& diags) const override {
    diags.push_back({n.loc, "mma with A from accumulator '" + a.name + "' in registers: tcgen05 reads A from shared memory",
                     "store the accumulator into a shared tile (store_accumulator) and give that tile as A, or compile for sm_90a"});
  }

 private:
  [[noreturn]] static Lines refused(const std::string& what) {
    internal_error("emit: " + what + " with tcgen05 (verify_tiles refuses them)");
  }
};

}  // namespace

TmemPlan tmem_plan(const Kernel& k) {
  TmemPlan plan;
  for (const AccumulatorDecl& a : k.accumulators) {
    if (a.kind != FragmentKind::Tile) continue;
    plan.column[a.name] = plan.used;
    plan.used += a.n * a.stages;
  }
  struct Pairs : Visitor {
    bool pair = false;
    void visit_node(const Mma& n) override { pair = pair || n.cta_group == 2; }
  } pairs;
  pairs.visit(k.body);
  plan.cta_group = pairs.pair ? 2 : 1;
  if (plan.used > 0 && plan.used <= 512) plan.columns = tmem_columns(plan.used);
  return plan;
}

const Family& tcgen05_family() {
  static const Tcgen05 family;
  return family;
}

}  // namespace tj::codegen::mma

#include "codegen/mma/wgmma.h"

#include <algorithm>
#include <set>

#include "codegen/mma/smem_operands.h"
#include "codegen/mma/wgmma_fragments.h"
#include "codegen/prelude/sm90_wgmma_wrappers.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen::mma {
namespace {

using namespace tj::ir;

std::string u(uint64_t v) { return std::to_string(v) + "u"; }
// The layout field of a wgmma shared-memory descriptor (bits 62-63 on sm_90a).
unsigned desc_swizzle(const TileLayout& t) {
  switch (t.swizzle) {
    case Swizzle::B128: return 1;
    case Swizzle::B64: return 2;
    case Swizzle::B32: return 3;
    case Swizzle::None: break;
  }
  return 0;  // refused by verify_tiles before emission
}

// An accumulator wider than one wgmma reads each k-step of A once per chunk of
// columns from shared memory; loading it into registers once (ldmatrix) and
// giving every chunk the registers cuts the MMAs' shared-memory reads, which
// bound a wide tile's rate. A K-major, swizzled A of 16-bit elements can.
bool a_from_registers(const TileLayout& a, unsigned chunks) {
  return chunks > 1 && a.major == Major::K && swizzle_span(a.swizzle) != 0 && scalar_bytes(a.elem) == 2;
}

// The instructions of one MMA along N: each chunk of columns with its shape.
std::vector<std::pair<WgmmaColumns, WgmmaShape>> chunks_of(const Mma& m, const Kernel& k) {
  const TileLayout& b = layout_of(m.b, k);
  const bool mn = b.major == Major::MN;
  const std::vector<WgmmaColumns> split = wgmma_column_split(acc_of(m.acc, k).n, mn ? b.panel_cols() : 8);
  const bool rs = !m.a_fragment.empty() || a_from_registers(layout_of(m.a, k), unsigned(split.size()));
  std::vector<std::pair<WgmmaColumns, WgmmaShape>> out;
  for (const WgmmaColumns& c : split) out.push_back({c, WgmmaShape{c.n, b.elem, mn, rs}});
  return out;
}
bool is_tile(const AccumulatorDecl& a) { return a.kind == FragmentKind::Tile; }

class Wgmma final : public Family {
 public:
  std::string_view name() const override { return "wgmma"; }
  AccumulatorHome accumulator_home() const override { return AccumulatorHome::Registers; }
  unsigned mma_issuers() const override { return 128; }
  // An m x n f32 fragment spread over the warpgroup's 128 threads.
  // A row fragment: two rows of each 64-row block per thread.
  unsigned accumulator_registers(const AccumulatorDecl& a) const override {
    if (a.kind == FragmentKind::Operand) return a.m * a.n / 256;  // 16-bit pairs
    return is_tile(a) ? a.m * a.n / 128 : wgmma_fragments::row_fragment_registers(a);
  }

  void check_mma(const Mma& n, const AccumulatorDecl&, const OperandView& av, const OperandView& bv,
                 std::vector<Diagnostic>& diags) const override {
    if (n.cta_group == 2)
      diags.push_back({n.loc, "mma_pair is tcgen05's CTA-pair MMA (tcgen05.mma.cta_group::2, sm_100a); wgmma has no pair form",
                       "on sm_90a give each CTA its own mma (wgmma) and share B's loads across the cluster with a multicast "
                       "tma_load_tile; or compile for sm_100a"});
    check_operand_tiles(n, av, bv, name(), diags);
  }

  // The DSL's shape rules are wgmma's; registers hold one buffer.
  void check_accumulator(const AccumulatorDecl& a, std::vector<Diagnostic>& diags) const override {
    if (a.stages > 1)
      diags.push_back({a.loc,
                       "accumulator '" + a.name + "' has " + std::to_string(a.stages) +
                           " stages; wgmma keeps an accumulator in registers, one buffer",
                       "declare one accumulator per buffer (k.accumulator(name, m, n)), or compile for sm_100a (tensor memory)"});
  }
  std::optional<Refusal> refuses(std::string_view) const override { return std::nullopt; }

  void check_acc_store(const AccStore& n, const OperandView& dv, std::vector<Diagnostic>& diags) const override {
    const TileLayout* d = &dv.layout;
    auto error = [&](const Loc& loc, std::string msg, std::string fix) { diags.push_back({loc, std::move(msg), std::move(fix)}); };
    if (d->elem != Scalar::BF16 && d->elem != Scalar::F16 && d->elem != Scalar::F32)
      error(n.loc, "store_accumulator into tile '" + dv.name + "' of " + std::string(scalar_name(d->elem)),
            "the epilogue writes bf16, f16 or f32 tiles");
  }

  std::string declarations(const Kernel& k) const override {
    struct Shapes : Visitor {
      const Kernel* k;
      std::set<WgmmaShape> found;
      void visit_node(const Mma& n) override {
        for (const auto& c : chunks_of(n, *k)) found.insert(c.second);
      }
    } v;
    v.k = &k;
    v.visit(k.body);
    if (v.found.empty()) return {};
    std::string out = "namespace tj {\n";
    for (const WgmmaShape& s : v.found) out += wgmma_wrapper(s);
    std::set<unsigned> sizes;
    for (const AccumulatorDecl& a : k.accumulators)
      if (is_tile(a)) sizes.insert(accumulator_registers(a));
    for (unsigned n : sizes) out += acc_fence(n);
    return out + "}  // namespace tj\n\n";
  }

  std::string accumulator_decls(const Kernel& k) const override {
    std::string out;
    for (const AccumulatorDecl& a : k.accumulators) {
      if (a.kind == FragmentKind::Operand) {
        out += "  // operand fragment at " + a.loc.str() + ": " + std::to_string(a.m) + "x" + std::to_string(a.n) + " " +
               std::string(scalar_name(a.elem)) + " per warpgroup, in pairs, in registers\n  tj::u32 " + a.name + "[" +
               std::to_string(accumulator_registers(a)) + "] = {};\n";
        continue;
      }
      out += "  // " + std::string(is_tile(a) ? "accumulator" : "row fragment") + " at " + a.loc.str() + ": " + std::to_string(a.m) +
             (is_tile(a) ? "x" + std::to_string(a.n) : std::string(" rows")) + " f32 per warpgroup, in registers\n  float " + a.name +
             "[" + std::to_string(accumulator_registers(a)) + "] = {};\n";
    }
    return out;
  }

  Lines mma(const Mma& n, const Kernel& k, const ExprText& ex) const override {
    const AccumulatorDecl& acc = acc_of(n.acc, k);
    // A from an accumulator (a_fragment): its registers packed into A fragments, K its columns.
    const AccumulatorDecl* af = n.a_fragment.empty() ? nullptr : &acc_of(n.a_fragment, k);
    const TileLayout &b = layout_of(n.b, k), &a = af ? b : layout_of(n.a, k);
    const unsigned kext = af ? af->n : k_extent(a);
    // The K steps this MMA covers: its K range of the tiles' extent.
    const unsigned kstep0 = n.k_first / 16, ksteps = (n.k_count ? n.k_first + n.k_count : kext) / 16;
    const DescOffsets ao = desc_offsets(a), bo = desc_offsets(b);
    const auto chunks = chunks_of(n, k);
    const bool rs = chunks.front().second.a_in_registers;
    Lines out;
    out.push_back("{");
    if (rs) {
      // A's fragments for every k-step first: the fence below then orders all of
      // these register writes before the MMAs that read them.
      for (unsigned blk = 0; blk < acc.m / 64; ++blk)
        for (unsigned j = kstep0; j < ksteps; ++j) {
          const std::string frag = "tj_a" + std::to_string(blk) + "_" + std::to_string(j);
          if (af && af->kind == FragmentKind::Operand) {
            // Converted already (convert): k-step j of block blk is 4 pairs from 4 (blk n / 4 + 4 j) on.
            out.push_back("  const tj::u32* " + frag + " = &" + af->name + "[" + std::to_string(blk * af->n / 4 + 4 * j) + "];");
            continue;
          }
          if (af) {
            for (const std::string& l : wgmma_fragments::register_a(*af, blk, j, cuda_elem(b.elem), frag)) out.push_back("  " + l);
            continue;
          }
          out.push_back("  tj::u32 " + frag + "[4];");
          out.push_back("  tj::ldmatrix_a_k16<" + std::to_string(a.panel_cols()) + ", " + std::to_string(panel_bytes_of(a)) + ", " +
                        std::to_string(swizzle_span(a.swizzle)) + ">(" + frag + ", &" + ex(n.a.tile) + "[" + operand_offset(n.a, a, ex) +
                        " + " + std::to_string(uint64_t(blk) * 64 * a.panel_cols()) + "], " + std::to_string(16 * j) + ");");
        }
    }
    out.push_back("  tj::wgmma_fence();");
    const auto desc = [&](const char* name, const TileOperand& t, const TileLayout& l, DescOffsets o) {
      return "  const tj::u64 " + std::string(name) + " = " + operand_desc(t, l, ex, [&](const std::string& addr) {
               return "tj::wgmma_desc(" + addr + ", " + u(o.leading) + ", " + u(o.stride) + ", " + u(desc_swizzle(l)) + ")";
             }) + ";";
    };
    if (!rs) out.push_back(desc("tj_desc_a", n.a, a, ao));
    out.push_back(desc("tj_desc_b", n.b, b, bo));
    out.push_back("  const tj::u32 tj_scale_d = (" + ex(n.accumulate) + ") ? 1u : 0u;");
    const auto call = [&](const WgmmaShape& shape, unsigned blk, unsigned first_col, const std::string& a_arg,
                          const std::string& b_arg, const std::string& scale) {
      return "tj::" + wgmma_wrapper_name(shape) + "(&" + n.acc + "[" + std::to_string(blk * acc.n / 2 + first_col / 2) + "], " +
             a_arg + ", " + b_arg + ", " + scale + ");";
    };
    const auto desc_plus = [](const char* desc, uint64_t bytes) { return std::string(desc) + " + " + std::to_string(bytes >> 4) + "ull"; };
    // Every K step unrolled, one call each: ptxas gives each HGMMA of a rolled loop its
    // own scoreboard wait (docs/gemm-perf-notes.md has the measurement). Block by block, or
    // with k_steps_first K step by K step across the blocks.
    const auto issue = [&](unsigned blk, unsigned j) {
      for (const auto& [cols, shape] : chunks) {
        const std::string a_arg = rs ? "tj_a" + std::to_string(blk) + "_" + std::to_string(j) : desc_plus("tj_desc_a", a_kstep_bytes(a, j, blk * 64));
        out.push_back("  " + call(shape, blk, cols.first, a_arg, desc_plus("tj_desc_b", b_kstep_bytes(b, j, cols.first)), j == kstep0 ? "tj_scale_d" : "1u"));
      }
    };
    const unsigned blocks = acc.m / 64;
    if (n.k_steps_first) {
      for (unsigned j = kstep0; j < ksteps; ++j)
        for (unsigned blk = 0; blk < blocks; ++blk) issue(blk, j);
    } else {
      for (unsigned blk = 0; blk < blocks; ++blk)
        for (unsigned j = kstep0; j < ksteps; ++j) issue(blk, j);
    }
    out.push_back("  tj::wgmma_commit();");
    out.push_back("}");
    return out;
  }

  Lines mma_wait(const MmaWait& n, const Kernel& k) const override {
    Lines out = {"tj::wgmma_wait<" + std::to_string(n.pending) + ">();"};
    // The MMAs write the accumulators asynchronously: keep their reads after the wait.
    // Only a wait for every group makes them readable (with groups still pending, some
    // accumulator may still be written), so only that wait needs the fence, an asm
    // statement naming every accumulator register: each costs NVRTC ~25 ms on the GEMM.
    // With groups pending, the accumulators the wait names (n.ready) are fenced.
    for (const AccumulatorDecl& a : k.accumulators)
      if (is_tile(a) && (n.pending == 0 || std::count(n.ready.begin(), n.ready.end(), a.name)))
        out.push_back("tj::" + acc_fence_name(accumulator_registers(a)) + "(" + a.name + ");");
    return out;
  }

  Lines acc_store(const AccStore& n, const Kernel& k, const ExprText& ex) const override {
    const TileLayout& d = layout_of(n.dst, k);
    return wgmma_fragments::acc_store_epilogue(
        n, k, ex, d.elem, cuda_elem(d.elem), d.panel_cols(), panel_bytes_of(d), swizzle_span(d.swizzle),
        "&" + ex(n.dst.tile) + "[" + operand_offset(n.dst, d, ex) + "]",
        n.c ? "&" + ex(n.c->tile) + "[" + operand_offset(*n.c, layout_of(*n.c, k), ex) + "]" : "");
  }

  Lines acc_partial(const AccPartial& n, const Kernel& k, const ExprText& ex) const override {
    const AccumulatorDecl& acc = acc_of(n.acc, k);
    const unsigned cols = n.col_count(acc.n);
    // The accumulator's registers and width, and the 8-column groups of the partial.
    const std::string shape = std::to_string(accumulator_registers(acc)) + ", " + std::to_string(acc.n) + ", " +
                              std::to_string(n.first_col / 8) + ", " + std::to_string((n.first_col + cols) / 8);
    const uint64_t slot_floats = uint64_t(acc.m) * cols;
    if (n.op == AccPartialOp::Send) {
      // Cluster-window addresses: the peer's slot and barrier.
      const std::string slot = "tj::cluster_ptr<float>{" + ex(n.ptr) + ".addr + (tj::u32)(" + ex(n.slot) + ") * " +
                               std::to_string(slot_floats * 4) + "u}";
      const std::string bar = "tj::cluster_ptr<tj::mbarrier>{" + ex(n.bar) + ".addr + (tj::u32)(" + ex(n.bar_index) + ") * 8u}";
      return {"tj::acc_partial_send<" + shape + ">(" + n.acc + ", " + slot + ", " + bar + ");"};
    }
    // 64-bit: slots x m x n may pass 2^31 floats.
    const std::string slot = "&" + ex(n.ptr) + "[(tj::u64)(" + ex(n.slot) + ") * " + std::to_string(slot_floats) + "ull]";
    if (n.op == AccPartialOp::Store) return {"tj::acc_partial_store<" + shape + ">(" + n.acc + ", " + slot + ");"};
    if (n.op == AccPartialOp::Reduce) return {"tj::acc_partial_reduce<" + shape + ">(" + n.acc + ", " + slot + ");"};
    if (n.op == AccPartialOp::Take) return {"tj::acc_partial_add<" + shape + ", false, true>(" + n.acc + ", " + slot + ");"};
    const bool shared = n.ptr->type.space == Space::Shared;
    return {"tj::acc_partial_add<" + shape + (shared ? ", true" : ", false") + ">(" + n.acc + ", " + slot + ");"};
  }

  Lines frag_map(const FragMap& n, const Kernel& k, const ExprText& ex) const override {
    return wgmma_fragments::frag_map(n, k, ex);
  }
  Lines row_reduce(const RowReduce& n, const Kernel& k) const override { return wgmma_fragments::row_reduce(n, k); }
  Lines row_store(const RowStore& n, const Kernel& k, const ExprText& ex) const override {
    return wgmma_fragments::row_store(n, k, ex);
  }

  void check_register_a(const Mma& n, const AccumulatorDecl& a, const OperandView& bv, std::vector<Diagnostic>& diags) const override {
    const TileLayout& b = bv.layout;
    if (a.kind == FragmentKind::Operand && a.elem != b.elem)
      diags.push_back({n.loc, "mma with A from operand fragment '" + a.name + "' (" + std::string(scalar_name(a.elem)) + ") and B '" +
                                  bv.name + "' (" + std::string(scalar_name(b.elem)) + ")",
                       "declare the operand fragment with B's element type"});
    const unsigned kb = b.major == Major::K ? b.cols : b.rows;
    if (b.elem != Scalar::BF16 && b.elem != Scalar::F16)
      diags.push_back({n.loc, "mma operand B '" + bv.name + "' holds " + std::string(scalar_name(b.elem)) +
                                  "; an accumulator converted to A becomes bf16 or f16, and wgmma takes B of the same type",
                       "declare B as shared_tile<bf16> or shared_tile<f16>"});
    if (b.swizzle == Swizzle::None || (b.major == Major::MN && b.swizzle != Swizzle::B128))
      diags.push_back({n.loc, "mma reads tile '" + bv.name + "' with a " + std::string(swizzle_name(b.swizzle)) + " swizzle " +
                                  std::string(major_name(b.major)) + "; the wgmma lowering reads B 128-byte-swizzled (or 32, 64 K-major)",
                       "declare '" + bv.name + "' with Swizzle::B128 (the default of shared_tile)"});
    if (a.n != kb)
      diags.push_back({n.loc, "mma with A from accumulator '" + a.name + "' (" + std::to_string(a.m) + "x" + std::to_string(a.n) +
                                  ": K = " + std::to_string(a.n) + ") and B '" + bv.name + "' with a K extent of " + std::to_string(kb),
                       "give B as many rows of K as the accumulator has columns (a multiple of 16)"});
    else if (a.n % 16 != 0)
      diags.push_back({n.loc, "mma with A from accumulator '" + a.name + "' (" + std::to_string(a.m) + "x" + std::to_string(a.n) +
                                  "): K = " + std::to_string(a.n) + " is not a multiple of 16, the K of one wgmma step",
                       "give the accumulator (and B's K extent) a multiple of 16 columns"});
  }

};

}  // namespace

const Family& wgmma_family() {
  static const Wgmma family;
  return family;
}

}  // namespace tj::codegen::mma

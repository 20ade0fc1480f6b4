#include "codegen/passes/verify_tiles.h"

#include <map>
#include <optional>
#include <set>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/guards.h"
#include "codegen/analysis/ir_queries.h"
#include "codegen/emit_roles.h"
#include "codegen/mma/family.h"
#include "codegen/op_table.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

std::string n2(unsigned a, unsigned b) { return std::to_string(a) + "x" + std::to_string(b); }

class Checker : public Visitor {
 public:
  Checker(const Kernel& k, const Target& t, std::vector<Diagnostic>& out)
      : k_(k), t_(t), family_(mma::family_for(t)), out_(out), defs_(single_assignment_defs(k)) {}

  void visit_node(const If& n) override {
    visit(n.cond);
    const size_t depth = guards_.size();
    push_guard(guards_, n.cond, false);
    visit(n.then_body);
    guards_.resize(depth);
    push_guard(guards_, n.cond, true);
    visit(n.else_body);
    guards_.resize(depth);
  }

  void visit_node(const Role& n) override {
    const unsigned wgs = k_.block.x / 128;
    if (k_.block.y != 1 || k_.block.z != 1 || k_.block.x % 128 != 0)
      error(n.loc, "warpgroup role '" + n.name + "' needs whole warpgroups, but the CTA has " + k_.block.str() + " threads",
            "give the kernel a 1-D block of a multiple of 128 threads (k.threads(" + std::to_string(128 * (n.first + n.count)) + "))");
    else if (n.first + n.count > wgs)
      error(n.loc, "warpgroup role '" + n.name + "' uses warpgroups " + std::to_string(n.first) + ".." +
                       std::to_string(n.first + n.count - 1) + ", but the CTA's " + std::to_string(k_.block.x) +
                       " threads make " + std::to_string(wgs) + " warpgroups",
            "launch " + std::to_string(128 * (n.first + n.count)) + " threads (k.threads(...))");
    roles_.push_back(&n);
    const Role* saved = role_;
    role_ = &n;
    const size_t depth = guards_.size();
    push_guard(guards_, n.condition(), false);
    Visitor::visit_node(n);
    guards_.resize(depth);
    role_ = saved;
  }

  void visit_node(const Mma& n) override {
    if (!family_) {
      no_family_reported_ = true;
      error(n.loc, "mma needs a tensor-core MMA family (wgmma on sm_90a, tcgen05 on sm_100a), and " + t_.arch + " has none in tilejit",
            "compile for sm_90a or sm_100a");
      return;
    }
    const AccumulatorDecl* acc = accumulator(n.acc, n.loc);
    if (!n.a_fragment.empty()) return mma_register_a(n, acc);
    const TileLayout* a = tile(n.a, "mma operand A", n.loc);
    const TileLayout* b = tile(n.b, "mma operand B", n.loc);
    if (role_ && acc) role_accs_[role_].insert(acc);
    if (!acc || !a || !b) return;
    const std::string an = name(n.a), bn = name(n.b);
    family_->check_mma(n, *acc, {an, *a}, {bn, *b}, out_);
    check_acc_stage(*acc, n.acc_stage, n.loc);
    check_rows(n.a, *a, acc->m, "mma operand A", n.loc);
    check_b_columns(n, *b, *acc);
    Visitor::visit_node(n);
  }

  // B's columns of N in this CTA: the accumulator's, or half of them in each CTA of a
  // pair (mma_pair: the pair's B is split between its two CTAs).
  void check_b_columns(const Mma& n, const TileLayout& b, const AccumulatorDecl& acc) {
    const std::string bn = name(n.b);
    const unsigned bn_extent = b.major == Major::K ? b.rows : b.cols, need = acc.n / n.cta_group;
    if (b.major == Major::K) check_rows(n.b, b, need, "mma operand B", n.loc);
    else if (bn_extent != need)
      error(n.loc, "mma operand B '" + bn + "' is N-major with " + std::to_string(bn_extent) + " columns of N; accumulator '" +
                       acc.name + "' has " + std::to_string(acc.n) + (n.cta_group == 2 ? ", half of them in each CTA of the pair" : ""),
            n.cta_group == 2 ? "make the tile's columns half the accumulator's N" : "make the tile's columns equal the accumulator's N");
  }

  void visit_node(const MmaWait& n) override {
    if (family_) refused_here("mma_wait", n.loc);
  }

  // A constant buffer of a staged accumulator inside its stages.
  void check_acc_stage(const AccumulatorDecl& acc, const Expr& stage, const Loc& loc) {
    std::optional<int64_t> s = stage ? const_int(stage) : std::nullopt;
    if (s && (*s < 0 || *s >= int64_t(acc.stages)))
      error(loc, "stage " + std::to_string(*s) + " of accumulator '" + acc.name + "', which has " + std::to_string(acc.stages),
            "use a stage from 0 to " + std::to_string(acc.stages - 1));
  }

  // Whether the family refuses op `what` (reported here); true when it does.
  bool refused_here(std::string_view what, const Loc& loc) {
    std::optional<mma::Refusal> r = family_->refuses(what);
    if (r) error(loc, r->message, r->fix);
    return r.has_value();
  }

  // mma(acc, registers(p), b, ...): p an accumulator of acc's rows, converted to B's type.
  void mma_register_a(const Mma& n, const AccumulatorDecl* acc) {
    const AccumulatorDecl* p = fragment(n.a_fragment, n.loc, std::nullopt, "mma operand A");
    if (p && p->kind == FragmentKind::Rows) {
      error(n.loc, "mma operand A '" + p->name + "' is a row fragment", "give A as an accumulator or an operand fragment");
      return;
    }
    const TileLayout* b = tile(n.b, "mma operand B", n.loc);
    if (role_ && acc) role_accs_[role_].insert(acc);
    if (role_ && p) role_accs_[role_].insert(p);
    if (!acc || !p || !b) return;
    if (p->m != acc->m)
      error(n.loc, "mma with A from accumulator '" + p->name + "' (" + n2(p->m, p->n) + ") into accumulator '" + acc->name + "' (" +
                       n2(acc->m, acc->n) + "): A needs the result's " + std::to_string(acc->m) + " rows",
            "give both accumulators the same rows");
    if (p->name == acc->name)
      error(n.loc, "mma reads accumulator '" + p->name + "' as A and writes it", "write the product into another accumulator");
    family_->check_register_a(n, *p, {name(n.b), *b}, out_);
    check_b_columns(n, *b, *acc);
    Visitor::visit_node(n);
  }

  void visit_node(const FragMap& n) override {
    const AccumulatorDecl* d = fragment(n.dst, n.loc, std::nullopt, "acc_map");
    if (d && d->kind == FragmentKind::Operand) check_convert(n, *d);
    else if (d) check_elements(n.value, *d, d->kind == FragmentKind::Rows ? "row_map" : "acc_map", n.loc);
    in_elem_ = true;
    Visitor::visit_node(n);
    in_elem_ = false;
  }

  // convert(p, acc): an accumulator of p's shape, element for element.
  void check_convert(const FragMap& n, const AccumulatorDecl& p) {
    const FragElem* f = n.value->as<FragElem>();
    const AccumulatorDecl* src = f && f->part == ElemPart::Value ? fragment(f->fragment, n.loc, FragmentKind::Tile, "convert") : nullptr;
    if (!src) {
      error(n.loc, "operand fragment '" + p.name + "' is written by something other than convert(p, accumulator)",
            "fill an operand fragment with convert(p, acc)");
      return;
    }
    if (src->m != p.m || src->n != p.n)
      error(n.loc, "convert of accumulator '" + src->name + "' (" + n2(src->m, src->n) + ") into operand fragment '" + p.name + "' (" +
                       n2(p.m, p.n) + ")",
            "give the operand fragment the accumulator's shape");
  }

  void visit_node(const RowReduce& n) override {
    const char* what = n.op == ReduceOp::Sum ? "row_sum" : n.op == ReduceOp::Max ? "row_max" : "row_min";
    const AccumulatorDecl* d = fragment(n.dst, n.loc, FragmentKind::Rows, what);
    const AccumulatorDecl* s = fragment(n.src, n.loc, FragmentKind::Tile, what);
    if (d && s && d->m != s->m)
      error(n.loc, std::string(what) + " of accumulator '" + s->name + "' (" + std::to_string(s->m) + " rows) into row fragment '" +
                       d->name + "' (" + std::to_string(d->m) + " rows)",
            "give the row fragment the accumulator's rows");
  }

  void visit_node(const RowStore& n) override {
    const AccumulatorDecl* r = fragment(n.frag, n.loc, FragmentKind::Rows, "store_rows");
    if (r) {
      check_elements(n.index, *r, "store_rows", n.loc);
      if (n.valid) check_elements(n.valid, *r, "store_rows", n.loc);
    }
    in_elem_ = true;
    Visitor::visit_node(n);
    in_elem_ = false;
  }

  void visit_node(const FragElem& n) override {
    if (!in_elem_)
      error(n.loc, "an element of fragment " + (n.fragment.empty() ? std::string("(its row or column)") : "'" + n.fragment + "'") +
                       " is used outside the function of acc_map, row_map or store_accumulator",
            "use Elem only inside the function it is given to");
    else if (n.part == ElemPart::Tile && !store_tile_)
      error(n.loc, "an element function reads a tile (e[tile]) outside store_accumulator, or a store that names no tile",
            "read a tile only in store_accumulator's function");
  }

  // A fragment by name, of a kind (any where none is given), owned by the role here.
  const AccumulatorDecl* fragment(const std::string& nm, const Loc& loc, std::optional<FragmentKind> kind, const std::string& what) {
    if (!family_) {
      no_family_reported_ = true;
      error(loc, what + " needs a target with an MMA family, and " + t_.arch + " has none in tilejit",
            "compile for sm_90a (--arch sm_90a)");
      return nullptr;
    }
    if (refused_here(what, loc)) return nullptr;
    const AccumulatorDecl* a = k_.find_accumulator(nm);
    if (!a) {
      error(loc, "unknown fragment '" + nm + "'", "declare it with k.accumulator(name, m, n) or k.row_fragment(name, m)");
      return nullptr;
    }
    if (kind && a->kind != *kind) {
      error(loc, what + " takes " + (*kind == FragmentKind::Rows ? "a row fragment" : "an accumulator") + ", and '" + nm + "' is " +
                     (a->kind == FragmentKind::Rows ? "a row fragment" : "an accumulator"),
            *kind == FragmentKind::Rows ? "declare it with k.row_fragment(name, m)" : "declare it with k.accumulator(name, m, n)");
      return nullptr;
    }
    if (!role_) error(loc, what + " outside a warpgroup role", "call it inside the role that holds '" + nm + "'");
    else role_accs_[role_].insert(a);
    return a;
  }

  // The fragments an element function reads: accumulators of the domain's shape, row
  // fragments of its rows; a row domain has no column and no accumulator elements.
  void check_elements(const Expr& value, const AccumulatorDecl& domain, const std::string& what, const Loc& loc) {
    const ElemReads reads = elem_reads(value);
    const bool rows = domain.kind == FragmentKind::Rows;
    if (rows && reads.col)
      error(loc, what + " over row fragment '" + domain.name + "' reads the element's column", "a row fragment has one value per row: use e.row");
    for (const FragElem* f : reads.values) {
      const AccumulatorDecl* a = fragment(f->fragment, loc, std::nullopt, what);
      if (!a) continue;
      if (a->kind == FragmentKind::Operand) {
        error(loc, what + " reads operand fragment '" + a->name + "'", "an operand fragment is only an MMA's A: read the accumulator it was converted from");
        continue;
      }
      if (a->kind == FragmentKind::Rows ? a->m != domain.m : (rows || a->m != domain.m || a->n != domain.n))
        error(loc, what + " over " + (rows ? "row fragment '" : "accumulator '") + domain.name + "' (" +
                       (rows ? std::to_string(domain.m) + " rows" : n2(domain.m, domain.n)) + ") reads " +
                       (a->kind == FragmentKind::Rows ? "row fragment '" : "accumulator '") + a->name + "' (" +
                       (a->kind == FragmentKind::Rows ? std::to_string(a->m) + " rows" : n2(a->m, a->n)) + ")",
              rows ? "a row map reads row fragments of the same rows (reduce an accumulator first: row_sum, row_max, row_min)"
                   : "read accumulators of the same shape and row fragments of the same rows");
    }
  }


  void visit_node(const AccStore& n) override {
    const AccumulatorDecl* acc = accumulator(n.acc, n.loc);
    if (acc && n.epilogue) check_elements(n.epilogue, *acc, "store_accumulator", n.loc);
    const TileLayout* d = tile(n.dst, "store_accumulator destination", n.loc);
    if (role_ && acc) role_accs_[role_].insert(acc);
    if (!acc || !d) return;
    if (!family_) return;  // the accumulator's own error says so (finish)
    family_->check_acc_store(n, {name(n.dst), *d}, out_);
    check_acc_stage(*acc, n.acc_stage, n.loc);
    const std::string op = n.transposed ? "store_accumulator_transposed" : "store_accumulator";
    if (n.first_col + n.cols > acc->n)
      error(n.loc, op + " writes columns " + std::to_string(n.first_col) + ".." + std::to_string(n.first_col + n.cols - 1) +
                       " of accumulator '" + acc->name + "' (" + n2(acc->m, acc->n) + ")",
            "store columns inside the accumulator");
    else if (!n.transposed && d->cols != n.cols)
      error(n.loc, op + " writes " + std::to_string(n.cols) + " columns of accumulator '" + acc->name + "' (" +
                       n2(acc->m, acc->n) + ") into tile '" + name(n.dst) + "' of " + std::to_string(d->cols) + " columns",
            "give the tile " + std::to_string(n.cols) + " columns");
    else if (n.transposed && d->cols != acc->m)
      error(n.loc, op + " writes the " + std::to_string(acc->m) + " rows of accumulator '" + acc->name + "' (" + n2(acc->m, acc->n) +
                       ") as the columns of tile '" + name(n.dst) + "' of " + std::to_string(d->cols) + " columns",
            "give the tile " + std::to_string(acc->m) + " columns (one per accumulator row)");
    check_rows(n.dst, *d, n.dst_rows(acc->m), op + " destination", n.loc);
    if (n.c) {
      const TileLayout* c = tile(*n.c, "store_accumulator source C", n.loc);
      if (c && !(*c == *d))
        error(n.loc,
              n.epilogue ? "store_accumulator's function reads tile '" + name(*n.c) + "' (e[tile]), whose layout differs from the destination's"
                         : "store_accumulator reads C from tile '" + name(*n.c) + "', whose layout differs from the destination's",
              n.epilogue ? "load what the function reads into a tile declared like the destination (or into the destination itself)"
                         : "load C into a tile declared like the destination (or into the destination itself)");
    }
    in_elem_ = n.epilogue != nullptr;
    store_tile_ = n.c.has_value();
    Visitor::visit_node(n);
    in_elem_ = store_tile_ = false;
  }

  void visit_node(const AccPartial& n) override {
    const char* what = acc_partial_name(n.op);
    if (family_ && refused_here(what, n.loc)) return;
    if (!supports(t_, Op::AccPartialOp) || !family_) {
      no_family_reported_ = true;
      error(n.loc, std::string(what) + " needs Hopper's register accumulators (wgmma), which " + t_.arch + " does not have",
            "compile for sm_90a (--arch sm_90a)");
      return;
    }
    if (!role_)
      error(n.loc, std::string(what) + " outside a warpgroup role", "call it inside the k.role(...) that runs the mma into the accumulator");
    const AccumulatorDecl* acc = accumulator(n.acc, n.loc);
    if (role_ && acc) role_accs_[role_].insert(acc);
    const Type& p = n.ptr->type;
    if (n.op == AccPartialOp::Send) {
      if (p.scalar != Scalar::F32 || p.space != Space::Cluster)
        error(n.loc, std::string(what) + " into " + to_string(n.ptr) + ", a " + p.str() + "; it writes a peer CTA's f32 shared buffer",
              "pass map_shared_rank(buffer, rank) of a k.shared<float>(...) buffer");
      if (n.bar->type.space != Space::Cluster)
        error(n.loc, std::string(what) + " completes on " + to_string(n.bar) + ", which is not mapped to the peer",
              "pass map_shared_rank(barrier, rank)[i], the barrier of the CTA that receives the partial");
    } else if (p.scalar != Scalar::F32 || !(p.space == Space::Global || (n.op == AccPartialOp::Add && p.space == Space::Shared))) {
      error(n.loc, std::string(what) + " through " + to_string(n.ptr) + ", a " + p.str() +
                       (n.op == AccPartialOp::Add ? "; it reads global f32 memory or this CTA's f32 shared memory"
                                                  : "; the workspace is global f32 memory"),
            n.op == AccPartialOp::Add ? "pass a k.param<float*>(name) workspace or a k.shared<float>(...) buffer"
                                      : "pass a kernel parameter k.param<float*>(name) (its slots of acc.m x acc.n floats)");
    }
    if (acc && n.first_col + n.col_count(acc->n) > acc->n)
      error(n.loc, std::string(what) + " of columns " + std::to_string(n.first_col) + ".." + std::to_string(n.first_col + n.col_count(acc->n)) +
                       " of accumulator '" + acc->name + "' (" + std::to_string(acc->n) + " columns)",
            "give whole groups of 8 columns inside the accumulator");
    Visitor::visit_node(n);
  }

  void visit_node(const AtomicFetchAdd& n) override {
    if (n.ptr->type.space != Space::Global)
      error(n.loc, "atomic_fetch_add on " + to_string(n.ptr) + ", a " + n.ptr->type.str() + "; it works on global memory",
            "use a global u32 buffer (k.param<uint32_t*>(name)), or atomic_add (no result) for shared memory");
    Visitor::visit_node(n);
  }

  void visit_node(const TmaLoad& n) override {
    check_box(n.dst, n.tmap, n.loc, "tma_load");
    Visitor::visit_node(n);
  }
  void visit_node(const TmaStore& n) override {
    check_box(n.src, n.tmap, n.loc, "tma_store");
    Visitor::visit_node(n);
  }

  void finish() {
    // Accumulators the kernel declares but no MMA op reported: they still need a family.
    if (!family_ && !no_family_reported_)
      for (const AccumulatorDecl& a : k_.accumulators)
        error(a.loc, "accumulator '" + a.name + "' needs an MMA family, and " + t_.arch + " has none in tilejit",
              "compile for sm_90a or sm_100a");
    if (family_)
      for (const AccumulatorDecl& a : k_.accumulators) family_->check_accumulator(a, out_);
    uint64_t total = 0;
    const unsigned launched = launch_registers_per_thread(k_);
    unsigned in_roles = 0;
    for (const Role* r : roles_) {
      const unsigned regs = r->max_regs ? r->max_regs : launched;
      total += uint64_t(regs) * 128 * r->count;
      in_roles += 128 * r->count;
      unsigned need = 0;
      std::string names;
      for (const AccumulatorDecl* a : role_accs_[r]) {
        need += family_ ? family_->accumulator_registers(*a) : 0;
        names += (names.empty() ? "'" : ", '") + a->name + "' (" + n2(a->m, a->n) + ")";
      }
      if (need && need + kMmaRoleOverheadRegisters > regs)
        error(r->loc, "role '" + r->name + "' holds accumulator " + names + ": " + std::to_string(need) +
                          " registers per thread, plus about " + std::to_string(kMmaRoleOverheadRegisters) +
                          " for addresses and loop state, but it runs with " + std::to_string(regs),
              need + kMmaRoleOverheadRegisters <= 256
                  ? "raise the role's max_regs to " + std::to_string((need + kMmaRoleOverheadRegisters + 7) / 8 * 8) +
                        " (and lower another role's), or use a smaller accumulator"
                  : "a thread has at most 255 registers: split the accumulator across more warpgroups or use a smaller tile");
    }
    if (k_.block.x > in_roles) total += uint64_t(launched) * (k_.block.x - in_roles);
    // setmaxnreg only moves registers between the warps of the CTA's launch
    // allocation: a role that asks for more than the others gave back waits forever.
    const uint64_t pool = uint64_t(launched) * k_.block.count();
    if (!roles_.empty() && total > pool)
      error(roles_.front()->loc,
            "the roles ask for " + std::to_string(total) + " registers per CTA, but a CTA of " +
                std::to_string(k_.block.count()) + " threads launches with " + std::to_string(launched) + " per thread (" +
                std::to_string(pool) + "), and setmaxnreg only moves registers within that: the raise would wait forever",
            "lower the roles' max_regs so that the sum of 128 x warpgroups x max_regs stays within " + std::to_string(pool));
  }

 private:
  void error(const Loc& loc, std::string msg, std::string fix) { out_.push_back({loc, std::move(msg), std::move(fix)}); }

  const AccumulatorDecl* accumulator(const std::string& name, const Loc& loc) {
    const AccumulatorDecl* a = k_.find_accumulator(name);
    if (!a) error(loc, "unknown accumulator '" + name + "'", "declare it with k.accumulator(name, m, n)");
    if (a && a->kind != FragmentKind::Tile) {
      error(loc, "'" + name + "' is " + (a->kind == FragmentKind::Rows ? "a row fragment" : "an operand fragment") + ", not an accumulator",
            "use an accumulator (k.accumulator(name, m, n)) here");
      return nullptr;
    }
    return a;
  }
  static std::string name(const TileOperand& t) {
    const SharedRef* r = t.tile->as<SharedRef>();
    return r ? r->name : "?";
  }
  const TileLayout* tile(const TileOperand& t, const std::string& what, const Loc& loc) {
    const SharedRef* r = t.tile->as<SharedRef>();
    const SharedBuffer* b = r ? k_.find_shared(r->name) : nullptr;
    if (!b || !b->tile) {
      error(loc, what + " '" + name(t) + "' is not a tile", "declare it with k.shared_tile<T>(name, rows, cols, stages)");
      return nullptr;
    }
    if (std::optional<int64_t> s = const_int(t.stage); s && (*s < 0 || *s >= int64_t(b->tile->stages)))
      error(loc, what + " '" + name(t) + "' stage " + std::to_string(*s) + " of " + std::to_string(b->tile->stages),
            "use a stage from 0 to " + std::to_string(b->tile->stages - 1));
    return &*b->tile;
  }
  void check_rows(const TileOperand& t, const TileLayout& l, unsigned need, const std::string& what, const Loc& loc) {
    std::optional<int64_t> row = const_int(t.row);
    const int64_t first = row.value_or(0);
    if (row && *row % 8 != 0)
      error(loc, what + " '" + name(t) + "' starts at row " + std::to_string(*row) + "; tiles are read in 8-row groups",
            "start at a multiple of 8 rows");
    if (first + int64_t(need) > int64_t(l.rows))
      error(loc, what + " '" + name(t) + "' needs rows " + std::to_string(first) + ".." + std::to_string(first + need - 1) +
                     " but the tile has " + std::to_string(l.rows),
            "declare the tile with at least " + std::to_string(first + need) + " rows, or use a smaller accumulator");
    else if (!row && t.row) rows_per_warpgroup(t, l, need, what, loc);
  }
  // A first row that depends on the warpgroup (`.rows(wg * 64)`): evaluated for each
  // warpgroup of the CTA (of the role) that certainly runs the operation, in each CTA rank.
  void rows_per_warpgroup(const TileOperand& t, const TileLayout& l, unsigned need, const std::string& what, const Loc& loc) {
    if (k_.block.y != 1 || k_.block.z != 1) return;
    for (unsigned rank = 0; rank < k_.cluster.count(); ++rank)
      for (unsigned w = 0; w * 128 < k_.block.x; ++w) {
        const EvalEnv env{k_.cluster, k_.block, rank, Dim3{w * 128, 0, 0}, nullptr, &defs_};
        if (all_hold(guards_, env) != true) continue;
        std::optional<int64_t> r = eval_int(t.row, env);
        if (!r || (*r >= 0 && *r + int64_t(need) <= int64_t(l.rows) && *r % 8 == 0)) continue;
        error(loc, what + " '" + name(t) + "' starts at row " + ir::to_string(t.row) + ", which is " + std::to_string(*r) +
                       " in warpgroup " + std::to_string(w) + (k_.cluster.count() > 1 ? " of CTA rank " + std::to_string(rank) : "") +
                       (*r % 8 != 0 ? "; tiles are read in 8-row groups" :
                        ": it needs rows " + std::to_string(*r) + ".." + std::to_string(*r + need - 1) + " but the tile has " +
                        std::to_string(l.rows)),
              *r % 8 != 0 ? "start at a multiple of 8 rows"
                          : "declare the tile with rows for every warpgroup that reads it (" + std::to_string(*r + need) +
                                " at least), or give each warpgroup rows inside the tile");
        return;
      }
  }
  void check_box(const Expr& buf, const Expr& tmap, const Loc& loc, const char* op) {
    const SharedRef* r = buf->as<SharedRef>();
    const SharedBuffer* b = r ? k_.find_shared(r->name) : nullptr;
    const VarRef* m = tmap->as<VarRef>();
    const TensorMapDecl* d = m ? k_.find_tensor_map(m->name) : nullptr;
    if (!b || !b->tile || !d || d->rank != 2) return;
    const TileLayout& l = *b->tile;
    if (d->swizzle != l.swizzle || d->box[0] != l.panel_cols() || l.rows % d->box[1] != 0)
      error(loc, std::string(op) + " moves boxes of " + n2(d->box[0], d->box[1]) + " with a " + std::string(swizzle_name(d->swizzle)) +
                     " swizzle ('" + d->name + "') into tile '" + b->name + "', stored as " + std::to_string(l.rows) + "x" +
                     std::to_string(l.panel_cols()) + " panels with a " + std::string(swizzle_name(l.swizzle)) + " swizzle",
            "make the tensor map with k.tile_map(name, tile, box_rows): its box is then one panel of the tile");
  }

  const Kernel& k_;
  const Target& t_;
  const mma::Family* family_;  // null: the target has no tile MMA lowering
  bool no_family_reported_ = false;
  bool in_elem_ = false;  // inside an element function (FragMap value, AccStore epilogue)
  bool store_tile_ = false;  // inside the epilogue of an AccStore that reads a tile (c)
  std::vector<Diagnostic>& out_;
  const Role* role_ = nullptr;
  Guards guards_;  // the conditions of the enclosing if_s and roles
  const Defs defs_;
  std::vector<const Role*> roles_;
  std::map<const Role*, std::set<const AccumulatorDecl*>> role_accs_;
};

}  // namespace

std::vector<Diagnostic> verify_tiles(const Kernel& k, const Target& target) {
  std::vector<Diagnostic> out;
  Checker c(k, target, out);
  c.visit(k.body);
  c.finish();
  return out;
}

}  // namespace tj::codegen

#include "dsl/ir/printer.h"

#include <cstdio>

#include "dsl/ir/visitor.h"

namespace tj::ir {
namespace {

std::string float_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

struct ExprText {
  std::string operator()(const IntImm& n) const { return std::to_string(n.value) + suffix(n.type.scalar); }
  std::string operator()(const FloatImm& n) const { return float_text(n.value) + "f"; }
  std::string operator()(const BoolImm& n) const { return n.value ? "true" : "false"; }
  std::string operator()(const VarRef& n) const { return n.name; }
  std::string operator()(const SharedRef& n) const { return n.name; }
  std::string operator()(const SpecialReg& n) const { return std::string(sreg_ptx(n.reg)); }
  std::string operator()(const Unary& n) const { return std::string(op_spelling(n.op)) + to_string(n.a); }
  std::string operator()(const Binary& n) const {
    if (n.op == BinOp::Min || n.op == BinOp::Max)
      return std::string(op_spelling(n.op)) + "(" + to_string(n.a) + ", " + to_string(n.b) + ")";
    return "(" + to_string(n.a) + " " + std::string(op_spelling(n.op)) + " " + to_string(n.b) + ")";
  }
  std::string operator()(const Cast& n) const {
    return std::string(scalar_name(n.type.scalar)) + "(" + to_string(n.a) + ")";
  }
  std::string operator()(const Select& n) const {
    return "select(" + to_string(n.cond) + ", " + to_string(n.a) + ", " + to_string(n.b) + ")";
  }
  std::string operator()(const MapSharedRank& n) const {
    return "map_shared_rank(" + to_string(n.buffer) + ", " + to_string(n.rank) + ")";
  }
  std::string operator()(const Load& n) const { return to_string(n.ptr) + "[" + to_string(n.index) + "]"; }
  std::string operator()(const VectorPack& n) const { return std::string(scalar_name(n.type.scalar)) + list(n.lanes); }
  std::string operator()(const VectorLane& n) const { return to_string(n.vec) + "." + "xyzw"[n.lane]; }
  std::string operator()(const FragElem& n) const {
    switch (n.part) {
      case ElemPart::Row: return "elem.row";
      case ElemPart::Col: return "elem.col";
      case ElemPart::Tile: return "elem.tile";
      case ElemPart::Value: break;
    }
    return "elem[" + n.fragment + "]";
  }
  // "approx::exp2(x)", "bitcast<u32>(x)", "as<f32x4>(p)"
  std::string operator()(const Intrinsic& n) const {
    std::string name(intrinsic_name(n.op));
    switch (intrinsic_rule(n.op)) {
      case IntrinsicRule::Bitcast:
      case IntrinsicRule::CvtPack:
      case IntrinsicRule::Reinterpret: name += "<" + std::string(scalar_name(n.type.scalar)) + ">"; break;
      default: break;
    }
    return name + list(n.args);
  }
  static std::string list(const std::vector<Expr>& es) {
    std::string out = "(";
    for (size_t i = 0; i < es.size(); ++i) out += (i ? ", " : "") + to_string(es[i]);
    return out + ")";
  }

  static std::string suffix(Scalar s) {
    switch (s) {
      case Scalar::U32: return "u";
      case Scalar::I64: return "l";
      case Scalar::U64: return "ul";
      default: return "";
    }
  }
};

std::string pad(int indent) { return std::string(static_cast<size_t>(indent) * 2, ' '); }
std::string at(const Loc& l) { return l.known() ? "    // " + l.str() : ""; }

struct StmtText {
  int indent;
  std::string operator()(const Block& n) const {
    std::string out;
    for (const Stmt& s : n.body) out += to_string(s, indent);
    return out;
  }
  std::string operator()(const Declare& n) const {
    return pad(indent) + "let " + n.name + ": " + n.init->type.str() + " = " + to_string(n.init) + at(n.loc) + "\n";
  }
  std::string operator()(const Assign& n) const {
    return pad(indent) + to_string(n.var) + " = " + to_string(n.value) + at(n.loc) + "\n";
  }
  std::string operator()(const Store& n) const {
    return pad(indent) + to_string(n.ptr) + "[" + to_string(n.index) + "] = " + to_string(n.value) + at(n.loc) + "\n";
  }
  std::string operator()(const AtomicAdd& n) const {
    return pad(indent) + "atomic_add(" + to_string(n.ptr) + "[" + to_string(n.index) + "], " + to_string(n.value) +
           ")" + at(n.loc) + "\n";
  }
  std::string operator()(const AtomicFetchAdd& n) const {
    return pad(indent) + "let " + n.result + ": " + n.value->type.str() + " = atomic_fetch_add." + std::string(order_name(n.order)) +
           "." + std::string(scope_name(n.scope)) + "(" + to_string(n.ptr) + "[" + to_string(n.index) + "], " + to_string(n.value) +
           ")" + at(n.loc) + "\n";
  }
  std::string operator()(const For& n) const {
    return pad(indent) + "for " + n.var + " in [" + to_string(n.begin) + ", " + to_string(n.end) + ") step " +
           to_string(n.step) + units(n.units) + " {" + at(n.loc) + "\n" + to_string(n.body, indent + 1) + pad(indent) + "}\n";
  }
  std::string operator()(const While& n) const {
    return pad(indent) + "while " + to_string(n.cond) + units(n.units) + " {" + at(n.loc) + "\n" + to_string(n.body, indent + 1) +
           pad(indent) + "}\n";
  }
  static std::string units(const std::optional<LoopUnits>& u) {
    return u ? " units " + to_string(u->unit) + " of " + to_string(u->count) : "";
  }
  std::string operator()(const If& n) const {
    std::string out = pad(indent) + "if " + to_string(n.cond) + " {" + at(n.loc) + "\n" + to_string(n.then_body, indent + 1);
    if (n.else_body) out += pad(indent) + "} else {\n" + to_string(n.else_body, indent + 1);
    return out + pad(indent) + "}\n";
  }
  std::string operator()(const SyncThreads& n) const { return pad(indent) + "sync_threads()" + at(n.loc) + "\n"; }
  std::string operator()(const ClusterBarrier& n) const {
    const char* op = n.op == ClusterBarrierOp::Arrive ? "cluster_arrive" : n.op == ClusterBarrierOp::Wait ? "cluster_wait" : "cluster_sync";
    std::string ord = n.order == MemoryOrder::Default ? "" : "." + std::string(order_name(n.order));
    return pad(indent) + op + ord + "()" + at(n.loc) + "\n";
  }
  std::string line(const std::string& text, const Loc& loc) const { return pad(indent) + text + at(loc) + "\n"; }
  static std::string slot(const Expr& p, const Expr& i) { return to_string(p) + "[" + to_string(i) + "]"; }
  static std::string coords(const std::vector<Expr>& cs) {
    std::string out = "{";
    for (size_t i = 0; i < cs.size(); ++i) out += (i ? ", " : "") + to_string(cs[i]);
    return out + "}";
  }
  std::string operator()(const MbarrierInit& n) const {
    return line("mbarrier_init(" + slot(n.bar, n.index) + ", " + std::to_string(n.arrivals) + ")", n.loc);
  }
  std::string operator()(const Fence& n) const {
    return line(std::string(fence_name(n.fence)) + "()", n.loc);
  }
  std::string operator()(const MbarrierArrive& n) const {
    if (n.commit_group)
      return line("mma_commit(" + slot(n.bar, n.index) + ", cta_group " + std::to_string(n.commit_group) +
                      (n.mask ? ", mask " + to_string(n.mask) : "") + ")",
                  n.loc);
    if (n.tx) return line("arrive_expect_tx(" + slot(n.bar, n.index) + ", " + to_string(n.tx) + ")", n.loc);
    return line(std::string(n.order == MemoryOrder::Relaxed ? "arrive_relaxed(" : "arrive(") + slot(n.bar, n.index) + ")", n.loc);
  }
  std::string operator()(const MbarrierWait& n) const {
    return line(std::string(n.cta_scope ? "wait_local(" : "wait(") + slot(n.bar, n.index) + ")", n.loc);
  }
  std::string operator()(const MbarrierSkip& n) const {
    return line("skip_phases(" + to_string(n.bar) + ", " + to_string(n.first) + ", " + to_string(n.count) + ")", n.loc);
  }
  std::string operator()(const TmaLoad& n) const {
    std::string m = n.mask ? ", mask " + to_string(n.mask) : "";
    return line(std::string(n.cta_group == 2 ? "tma_load_pair(" : "tma_load(") + slot(n.dst, n.dst_index) + ", " + to_string(n.tmap) + coords(n.coords) + ", " +
                    slot(n.bar, n.bar_index) + m + ")",
                n.loc);
  }
  std::string operator()(const TmaStore& n) const {
    return line("tma_store(" + to_string(n.tmap) + coords(n.coords) + ", " + slot(n.src, n.src_index) + ")", n.loc);
  }
  std::string operator()(const TmaPrefetch& n) const { return line("tma_prefetch(" + to_string(n.tmap) + coords(n.coords) + ")", n.loc); }
  std::string operator()(const BulkGroup& n) const {
    if (n.op == BulkGroupOp::Commit) return line("bulk_commit()", n.loc);
    return line(std::string(n.op == BulkGroupOp::Wait ? "bulk_wait(" : "bulk_wait_read(") + std::to_string(n.pending) + ")", n.loc);
  }
  std::string operator()(const BulkCopy& n) const {
    return line("bulk_copy(" + slot(n.dst, n.dst_index) + ", " + slot(n.src, n.src_index) + ", " + std::to_string(n.bytes) +
                    " bytes, " + slot(n.bar, n.bar_index) + ")",
                n.loc);
  }
  std::string operator()(const StAsync& n) const {
    return line("st_async(" + slot(n.dst, n.dst_index) + ", " + to_string(n.value) + ", " + slot(n.bar, n.bar_index) + ")", n.loc);
  }
  std::string operator()(const ClcTryCancel& n) const {
    return line(std::string(n.multicast ? "clc_try_cancel_multicast(" : "clc_try_cancel(") + slot(n.response, n.response_index) +
                    ", " + slot(n.bar, n.bar_index) + ")",
                n.loc);
  }
  std::string operator()(const TmemOp& n) const {
    std::string args = n.action == TmemAction::Alloc ? slot(n.slot, n.slot_index) + ", " + std::to_string(n.columns)
                       : n.action == TmemAction::Dealloc ? to_string(n.addr) + ", " + std::to_string(n.columns)
                                                         : std::string();
    return line(std::string(tmem_action_name(n.action)) + "(" + args + (args.empty() ? "" : ", ") + "cta_group " +
                    std::to_string(n.cta_group) + ")",
                n.loc);
  }
  std::string operator()(const Role& n) const {
    std::string regs = n.max_regs ? ", " + std::to_string(n.max_regs) + " registers" : "";
    return pad(indent) + "role " + n.name + " (warpgroups " + std::to_string(n.first) + ".." +
           std::to_string(n.first + n.count - 1) + regs + ") {" + at(n.loc) + "\n" + to_string(n.body, indent + 1) +
           pad(indent) + "}\n";
  }
  std::string operator()(const NamedBarrier& n) const {
    return line(std::string(n.arrive ? "named_barrier_arrive(" : "named_barrier(") + to_string(n.id) + ", " + std::to_string(n.threads) + " threads)", n.loc);
  }
  static std::string tile(const TileOperand& t) {
    return to_string(t.tile) + ".stage(" + to_string(t.stage) + ").rows(" + to_string(t.row) + ")";
  }
  std::string operator()(const Mma& n) const {
    const std::string k = n.k_first == 0 && n.k_count == 0
                              ? ""
                              : ", k " + std::to_string(n.k_first) + ".." +
                                    (n.k_count ? std::to_string(n.k_first + n.k_count - 1) : std::string("end"));
    const std::string a = n.a_fragment.empty() ? tile(n.a) : "registers(" + n.a_fragment + ")";
    const std::string acc = n.acc_stage ? n.acc + ".stage(" + to_string(n.acc_stage) + ")" : n.acc;
    return line(std::string(n.cta_group == 2 ? "mma_pair(" : "mma(") + acc + ", " + a + ", " + tile(n.b) + ", accumulate " +
                    to_string(n.accumulate) + k + (n.k_steps_first ? ", k steps first" : "") + ")",
                n.loc);
  }
  std::string operator()(const MmaWait& n) const {
    std::string ready;
    for (const std::string& r : n.ready) ready += (ready.empty() ? ", {" : ", ") + r;
    return line("mma_wait(" + std::to_string(n.pending) + (ready.empty() ? "" : ready + "}") + ")", n.loc);
  }
  std::string operator()(const AccStore& n) const {
    const std::string acc = n.acc_stage ? n.acc + ".stage(" + to_string(n.acc_stage) + ")" : n.acc;
    return line(std::string(n.transposed ? "store_accumulator_transposed(" : "store_accumulator(") + tile(n.dst) + " = " +
                    to_string(n.epilogue) + " over " + acc + "[columns " +
                    std::to_string(n.first_col) + ".." + std::to_string(n.first_col + n.cols - 1) + "]" +
                    (n.c ? ", elem.tile of " + tile(*n.c) : "") + ")",
                n.loc);
  }
  std::string operator()(const FragMap& n) const { return line(n.dst + "[elem] = " + to_string(n.value), n.loc); }
  std::string operator()(const RowReduce& n) const {
    const std::string op(reduce_name(n.op));
    return line(n.dst + " = " + (n.accumulate ? op + "(" + n.dst + ", row_" + op + "(" + n.src + "))" : "row_" + op + "(" + n.src + ")"), n.loc);
  }
  std::string operator()(const RowStore& n) const {
    return line(to_string(n.ptr) + "[" + to_string(n.index) + "] = " + n.frag + "[elem]" + (n.valid ? " if " + to_string(n.valid) : ""), n.loc);
  }
  std::string operator()(const AccPartial& n) const {
    const std::string op = std::string(acc_partial_name(n.op)) + "(";
    const std::string cols = n.cols ? ", columns " + std::to_string(n.first_col) + ".." + std::to_string(n.first_col + n.cols) : "";
    const std::string bar = n.bar ? ", completes on " + to_string(n.bar) + "[" + to_string(n.bar_index) + "]" : "";
    return line(op + to_string(n.ptr) + ", " + n.acc + cols + ", slot " + to_string(n.slot) + bar + ")", n.loc);
  }
  std::string operator()(const ForEachTile& n) const {
    const std::string split = n.splits ? ", " + n.var_split : "";
    const std::string splits = n.splits ? " x " + to_string(n.splits) + " splits" : "";
    const std::string dynamic = n.schedule.kind == ScheduleKind::Dynamic
                                    ? ", " + std::to_string(n.schedule.slots) + " slots, " + std::string(order_name(n.schedule.order))
                                    : "";
    const std::string in_cluster = n.schedule.cluster_splits ? ", splits in the cluster" : "";
    return pad(indent) + "for_each_tile " + std::string(schedule_name(n.schedule.kind)) + "(group " +
           std::to_string(n.schedule.group) + dynamic + in_cluster + ") (" + n.var_m + ", " + n.var_n + split + ") in [" + to_string(n.tiles_m) +
           " x " + to_string(n.tiles_n) + splits + "] {" + at(n.loc) + "\n" + to_string(n.body, indent + 1) + pad(indent) + "}\n";
  }
};

}  // namespace

std::string to_string(const Expr& e) { return e ? dispatch(*e, ExprText{}) : "<null>"; }
std::string to_string(const Stmt& s, int indent) { return s ? to_string(*s, indent) : ""; }
std::string to_string(const StmtNode& s, int indent) { return dispatch(s, StmtText{indent}); }

std::string first_line(const StmtNode& s) {
  const Stmt empty = Block::make({}, s.loc);
  std::string text;
  if (s.kind == StmtKind::Block) return {};
  if (const For* f = s.as<For>()) text = to_string(For::make(f->var, f->begin, f->end, f->step, empty, f->loc));
  else if (const While* w = s.as<While>()) text = to_string(While::make(w->cond, empty, w->loc));
  else if (const If* i = s.as<If>()) text = to_string(If::make(i->cond, empty, nullptr, i->loc));
  else if (const Role* r = s.as<Role>()) text = to_string(Role::make(r->name, r->first, r->count, r->max_regs, r->id, empty, r->loc));
  else if (const ForEachTile* t = s.as<ForEachTile>())
    text = to_string(t->with_body(empty));
  else text = to_string(s);
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

std::string to_string(const Kernel& k) {
  std::string out = "kernel " + k.name + "(";
  for (size_t i = 0; i < k.params.size(); ++i) {
    const Param& p = k.params[i];
    out += (i ? ", " : "") + p.name + ": " + p.type.str();
    if (p.workspace) out += " workspace[" + to_string(p.workspace->elements) + (p.workspace->zeroed ? ", zeroed]" : "]");
  }
  out += ") block" + k.block.str() + " cluster" + k.cluster.str();
  if (k.non_portable_cluster) out += " non_portable";
  if (k.dependent_launch) out += " dependent_launch";
  out += " {\n";
  for (const TensorMapDecl& t : k.tensor_maps) {
    std::string box;
    for (size_t i = 0; i < t.box.size(); ++i) box += (i ? "x" : "") + std::to_string(t.box[i]);
    out += "  tensor_map " + t.name + ": " + std::string(scalar_name(t.dtype)) + " rank " + std::to_string(t.rank) +
           " box " + box + " swizzle " + std::string(swizzle_name(t.swizzle)) + at(t.loc) + "\n";
  }
  for (const SharedBuffer& b : k.shared) {
    std::string arrivals = b.elem == Scalar::MBarrier ? " arrivals " + std::to_string(b.arrivals) : "";
    std::string tile;
    if (b.tile)
      tile = " tile " + std::to_string(b.tile->stages) + " x " + std::to_string(b.tile->rows) + "x" + std::to_string(b.tile->cols) +
             " " + std::string(major_name(b.tile->major)) + " swizzle " + std::string(swizzle_name(b.tile->swizzle));
    out += "  " + std::string(b.dynamic ? "dynamic_shared " : "shared ") + b.name + ": " +
           std::string(scalar_name(b.elem)) + "[" + std::to_string(b.count) + "]" + arrivals + tile + at(b.loc) + "\n";
  }
  for (const AccumulatorDecl& a : k.accumulators) {
    if (a.kind == FragmentKind::Rows)
      out += "  row fragment " + a.name + ": f32 " + std::to_string(a.m) + " rows per warpgroup" + at(a.loc) + "\n";
    else if (a.kind == FragmentKind::Operand)
      out += "  operand fragment " + a.name + ": " + std::string(scalar_name(a.elem)) + " " + std::to_string(a.m) + "x" +
             std::to_string(a.n) + " per warpgroup" + at(a.loc) + "\n";
    else
      out += "  accumulator " + a.name + ": f32 " + std::to_string(a.m) + "x" + std::to_string(a.n) + " per warpgroup" + at(a.loc) + "\n";
  }
  out += to_string(k.body, 1);
  return out + "}\n";
}

}  // namespace tj::ir

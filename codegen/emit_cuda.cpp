#include "codegen/emit_cuda.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "codegen/emit_roles.h"
#include "codegen/mma/family.h"
#include "codegen/prelude.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

std::string scalar_cuda(Scalar s) {
  switch (s) {
    case Scalar::I32: return "int";
    case Scalar::U32: return "unsigned";
    case Scalar::I64: return "long long";
    case Scalar::U64: return "unsigned long long";
    case Scalar::F32: return "float";
    case Scalar::BF16: return "tj::bf16";
    case Scalar::F16: return "tj::f16";
    case Scalar::Bool: return "bool";
    case Scalar::U32x4: return "tj::u32x4";
    case Scalar::U8: return "tj::u8";
    case Scalar::MBarrier: return "tj::mbarrier";
    case Scalar::TensorMap: return "tj::tensor_map";
    case Scalar::BF16x2: return "tj::bf16x2";
    case Scalar::F16x2: return "tj::f16x2";
    case Scalar::F32x2: return "tj::f32x2";
    case Scalar::F32x4: return "tj::f32x4";
  }
  return "?";
}

std::string int_literal(Scalar s, int64_t v) {
  if (s == Scalar::I32 && v == INT32_MIN) return "(-2147483647 - 1)";
  if (s == Scalar::I64 && v == INT64_MIN) return "(-9223372036854775807ll - 1)";
  std::string digits = (s == Scalar::U32 || s == Scalar::U64) ? std::to_string(static_cast<uint64_t>(v)) : std::to_string(v);
  std::string text;
  switch (s) {
    case Scalar::U32: return digits + "u";
    case Scalar::U64: return digits + "ull";
    case Scalar::I64: text = digits + "ll"; break;
    default: text = digits; break;
  }
  return v < 0 ? "(" + text + ")" : text;  // never "--7" after a unary minus
}

std::string float_literal(double v) {
  if (std::isnan(v)) return "__int_as_float(0x7fc00000)";
  if (std::isinf(v)) return v > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  // Shortest decimal that reads back as the same float; hex as the fallback.
  const float f = static_cast<float>(v);
  char buf[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  std::string text = buf;
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  const bool negative = std::signbit(f);  // -0.0f too
  return std::string(negative ? "(" : "") + text + "f" + (negative ? ")" : "");
}

std::string sreg(SpecialRegKind r) {
  switch (r) {
    case SpecialRegKind::ThreadIdxX: return "(int)threadIdx.x";
    case SpecialRegKind::ThreadIdxY: return "(int)threadIdx.y";
    case SpecialRegKind::ThreadIdxZ: return "(int)threadIdx.z";
    case SpecialRegKind::BlockDimX: return "(int)blockDim.x";
    case SpecialRegKind::BlockDimY: return "(int)blockDim.y";
    case SpecialRegKind::BlockDimZ: return "(int)blockDim.z";
    case SpecialRegKind::BlockIdxX: return "(int)blockIdx.x";
    case SpecialRegKind::BlockIdxY: return "(int)blockIdx.y";
    case SpecialRegKind::BlockIdxZ: return "(int)blockIdx.z";
    case SpecialRegKind::GridDimX: return "(int)gridDim.x";
    case SpecialRegKind::GridDimY: return "(int)gridDim.y";
    case SpecialRegKind::GridDimZ: return "(int)gridDim.z";
    default: return "tj::" + std::string(sreg_name(r)) + "()";  // prelude wrapper of the same name
  }
}

struct ExprEmitter {
  std::string operator()(const IntImm& n) const { return int_literal(n.type.scalar, n.value); }
  std::string operator()(const FloatImm& n) const { return float_literal(n.value); }
  std::string operator()(const BoolImm& n) const { return n.value ? "true" : "false"; }
  std::string operator()(const VarRef& n) const { return n.name; }
  std::string operator()(const SharedRef& n) const { return n.name; }
  std::string operator()(const SpecialReg& n) const { return sreg(n.reg); }
  std::string operator()(const Unary& n) const { return "(" + std::string(op_spelling(n.op)) + e(n.a) + ")"; }
  std::string operator()(const Binary& n) const {
    if (n.op == BinOp::Min) return "tj::min_(" + e(n.a) + ", " + e(n.b) + ")";
    if (n.op == BinOp::Max) return "tj::max_(" + e(n.a) + ", " + e(n.b) + ")";
    return "(" + e(n.a) + " " + std::string(op_spelling(n.op)) + " " + e(n.b) + ")";
  }
  std::string operator()(const Cast& n) const {
    Scalar from = n.a->type.scalar, to = n.type.scalar;
    if (from == to) return e(n.a);
    if (to == Scalar::BF16 || to == Scalar::F16) {
      const std::string half = to == Scalar::BF16 ? "tj::to_bf16" : "tj::to_f16";
      // One rounding each: bf16 and f16 widen to f32 exactly; integers convert directly
      // (u64 unsigned, every other one as s64, exact), not through a float.
      if (from == Scalar::F32) return half + "(" + e(n.a) + ")";
      if (from == Scalar::BF16 || from == Scalar::F16) return half + "(tj::to_f32(" + e(n.a) + "))";
      if (from == Scalar::U64) return half + "_u64(" + e(n.a) + ")";
      return half + "_s64((long long)" + e(n.a) + ")";
    }
    if (from == Scalar::BF16 || from == Scalar::F16) {
      std::string f = "tj::to_f32(" + e(n.a) + ")";
      return to == Scalar::F32 ? f : "((" + scalar_cuda(to) + ")" + f + ")";
    }
    return "((" + scalar_cuda(to) + ")" + e(n.a) + ")";
  }
  std::string operator()(const Select& n) const { return "(" + e(n.cond) + " ? " + e(n.a) + " : " + e(n.b) + ")"; }
  std::string operator()(const MapSharedRank& n) const {
    return "tj::map_shared_rank(" + e(n.buffer) + ", " + e(n.rank) + ")";
  }
  std::string operator()(const Load& n) const {
    if (n.ptr->type.space == Space::Cluster) return "tj::ld_cluster(" + e(n.ptr) + ", " + e(n.index) + ")";
    return e(n.ptr) + "[" + e(n.index) + "]";
  }
  std::string operator()(const VectorPack& n) const {
    std::string out = scalar_cuda(n.type.scalar) + "{";
    for (size_t i = 0; i < n.lanes.size(); ++i) out += (i ? ", " : "") + e(n.lanes[i]);
    return out + "}";
  }
  std::string operator()(const VectorLane& n) const { return e(n.vec) + "." + "xyzw"[n.lane]; }
  std::string operator()(const FragElem& n) const {
    switch (n.part) {
      case ElemPart::Row: return mma::kElemRow;
      case ElemPart::Col: return mma::kElemCol;
      case ElemPart::Tile: return mma::kElemTile;
      case ElemPart::Value: break;
    }
    return mma::elem_value_name(n.fragment);
  }
  // tj::<wrapper>[<result type>](args): the prelude's math.cuh and warp.cuh.
  std::string operator()(const Intrinsic& n) const {
    std::string out = "tj::" + std::string(intrinsic_wrapper(n.op));
    switch (intrinsic_rule(n.op)) {
      case IntrinsicRule::Bitcast:
      case IntrinsicRule::CvtPack:
      case IntrinsicRule::Reinterpret: out += "<" + scalar_cuda(n.type.scalar) + ">"; break;
      default: break;
    }
    out += "(";
    for (size_t i = 0; i < n.args.size(); ++i) out += (i ? ", " : "") + e(n.args[i]);
    return out + ")";
  }
  static std::string e(const Expr& x) { return dispatch(*x, ExprEmitter{}); }
};

std::string ex(const Expr& x) { return ExprEmitter::e(x); }

// "// store at dsmem_ring.cpp:42: buf[i] = ..." — the first line of the IR text.
std::string origin(const StmtNode& s) {
  std::string text = ir::first_line(s);
  size_t start = text.find_first_not_of(' ');
  text = text.substr(start == std::string::npos ? 0 : start);
  if (size_t nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (size_t c = text.find("    // "); c != std::string::npos) text.resize(c);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return "// " + std::string(kind_name(s.kind)) + " at " + s.loc.str() + ": " + text;
}

// The address of ptr[index] as a copy's operand: a generic pointer for our own
// memory, a cluster-window address for a peer's.
std::string slot(const Expr& ptr, const Expr& index) {
  if (ptr->type.space == Space::Cluster) return "tj::cluster_addr(" + ex(ptr) + ", " + ex(index) + ")";
  return "&" + ex(ptr) + "[" + ex(index) + "]";
}
std::string coord_args(const std::vector<Expr>& cs) {
  std::string out;
  for (const Expr& c : cs) out += ", " + ex(c);
  return out;
}
std::string phase_var(const std::string& barrier) { return "tj_phase_" + barrier; }

class StmtEmitter {
 public:
  StmtEmitter(std::string& out, const Kernel& k, const mma::Family* family, const EmitOptions& opts)
      : out_(out), k_(k), family_(family), opts_(opts) {
    struct Uses : Visitor {
      std::set<std::string>& names;
      explicit Uses(std::set<std::string>& n) : names(n) {}
      void visit_node(const VarRef& n) override { names.insert(n.name); }
    } uses(used_);
    uses.visit(k.body);
  }

  void emit(const Stmt& s, int indent) {
    indent_ = indent;
    if (s->kind != StmtKind::Block) line(origin(*s));
    if (const RaceAllowance* a = s->kind != StmtKind::Block ? k_.race_allowance(s->loc) : nullptr) {
      std::string why = a->reason;
      for (char& c : why)
        if (c == '\n' || c == '\r') c = ' ';
      line("// allow_race(\"" + why + "\") at " + a->where.str() + ": the race check does not refuse hazards of this statement");
    }
    dispatch(*s, [&](const auto& n) { this->node(n); });
  }

 private:
  void line(const std::string& text) { out_ += std::string(static_cast<size_t>(indent_) * 2, ' ') + text + "\n"; }
  void body(const Stmt& s) {
    int saved = indent_;
    emit(s, saved + 1);
    indent_ = saved;
  }

  void node(const Block& n) {
    int saved = indent_;
    for (size_t i = 0; i < n.body.size(); ++i) {
      const Role* r = n.body[i]->as<Role>();
      if (!r) {
        emit(n.body[i], saved);
        continue;
      }
      // Consecutive roles form one if / else-if chain: ptxas applies setmaxnreg
      // only when each warpgroup's role is one branch of a single chain.
      size_t j = i;
      for (; j < n.body.size() && n.body[j]->as<Role>(); ++j) {
        indent_ = saved;
        role(*n.body[j]->as<Role>(), j == i);
      }
      indent_ = saved;
      line("}");
      i = j - 1;
    }
    indent_ = saved;
  }
  // A local nothing reads (a role's warpgroup index the body ignores) would draw
  // NVRTC's warning #177 on every compile: not the user's to act on in generated code.
  void node(const Declare& n) {
    if (&n == role_index_) {
      line(std::string(used_.count(n.name) ? "" : "[[maybe_unused]] ") + "int " + n.name + " = tj::warpgroup_index() - " +
           std::to_string(role_first_) + ";  // = (threadIdx.x / 128) - first, from lane 0");
      return;
    }
    line(std::string(used_.count(n.name) ? "" : "[[maybe_unused]] ") + cuda_type(n.init->type) + " " + n.name + " = " + ex(n.init) + ";");
  }
  void node(const Assign& n) { line(ex(n.var) + " = " + ex(n.value) + ";"); }
  void node(const Store& n) {
    if (n.ptr->type.space == Space::Cluster)
      line("tj::st_cluster(" + ex(n.ptr) + ", " + ex(n.index) + ", " + ex(n.value) + ");");
    else
      line(ex(n.ptr) + "[" + ex(n.index) + "] = " + ex(n.value) + ";");
  }
  void node(const AtomicAdd& n) {
    if (n.ptr->type.space == Space::Cluster)
      line("tj::red_add_cluster(" + ex(n.ptr) + ", " + ex(n.index) + ", " + ex(n.value) + ");");
    else
      line("tj::red_add(&" + ex(n.ptr) + "[" + ex(n.index) + "], " + ex(n.value) + ");");
  }
  void node(const AtomicFetchAdd& n) {
    line(cuda_type(n.value->type) + " " + n.result + " = tj::atom_add_" + std::string(order_name(n.order)) + "_" +
         std::string(scope_name(n.scope)) + "(&" + ex(n.ptr) + "[" + ex(n.index) + "], " + ex(n.value) + ");");
  }
  void node(const For& n) {
    std::string t = cuda_type(n.begin->type);
    line("for (" + t + " " + n.var + " = " + ex(n.begin) + "; " + n.var + " < " + ex(n.end) + "; " + n.var +
         " += " + ex(n.step) + ") {");
    body(n.body);
    line("}");
  }
  void node(const While& n) {
    line("while (" + ex(n.cond) + ") {");
    body(n.body);
    line("}");
  }
  void node(const If& n) {
    line("if (" + ex(n.cond) + ") {");
    body(n.then_body);
    if (n.else_body) {
      line("} else {");
      body(n.else_body);
    }
    line("}");
  }
  void node(const SyncThreads&) { line("tj::sync_threads();"); }
  void node(const ClusterBarrier& n) {
    switch (n.op) {
      case ClusterBarrierOp::Sync: line("tj::cluster_sync();"); break;
      case ClusterBarrierOp::Wait: line("tj::cluster_wait_acquire();"); break;
      case ClusterBarrierOp::Arrive:
        line(n.order == MemoryOrder::Relaxed ? "tj::cluster_arrive_relaxed();" : "tj::cluster_arrive_release();");
        break;
    }
  }

  void node(const MbarrierInit& n) { line("tj::mbar_init(" + slot(n.bar, n.index) + ", " + std::to_string(n.arrivals) + "u);"); }
  void node(const Fence& n) { line("tj::" + std::string(fence_name(n.fence)) + "();"); }
  void node(const MbarrierArrive& n) {
    if (n.commit_group) {
      const std::string g = "<" + std::to_string(n.commit_group) + ">(";
      if (n.mask) line("tj::tcgen05_commit_multicast" + g + slot(n.bar, n.index) + ", (unsigned short)(" + ex(n.mask) + "));");
      else line("tj::tcgen05_commit" + g + slot(n.bar, n.index) + ");");
      return;
    }
    std::string tx = n.tx ? ", " + ex(n.tx) : "";
    std::string fn = n.tx ? "tj::mbar_arrive_expect_tx(" : n.order == MemoryOrder::Relaxed ? "tj::mbar_arrive_relaxed(" : "tj::mbar_arrive(";
    if (n.bar->type.space == Space::Cluster) line(fn + ex(n.bar) + ", " + ex(n.index) + tx + ");");
    else line(fn + slot(n.bar, n.index) + tx + ");");
  }
  void node(const MbarrierWait& n) {
    const SharedRef* b = n.bar->as<SharedRef>();
    if (!b) internal_error("emit: wait on a barrier that is not a shared buffer (the verifier should have said so)");
    std::string idx = ex(n.index), phase = phase_var(b->name);
    std::string parity = "(" + phase + " >> " + idx + ") & 1u";
    if (opts_.hang_guard_ns)
      line("tj::mbar_wait_guarded(" + slot(n.bar, n.index) + ", " + parity + ", \"" + b->name + "\", " + idx + ", " +
           std::to_string(opts_.hang_guard_ns) + "ull);");
    else
      line(std::string(n.cta_scope ? "tj::mbar_wait_cta(" : "tj::mbar_wait(") + slot(n.bar, n.index) + ", " + parity + ");");
    line(phase + " ^= 1u << " + idx + ";");
  }
  // Flips the phase bits of the barriers whose phases pass (prelude: skipped_phase_bits).
  void node(const MbarrierSkip& n) {
    const SharedRef* b = n.bar->as<SharedRef>();
    if (!b) internal_error("emit: skip_phases on a barrier that is not a shared buffer (the verifier should have said so)");
    const SharedBuffer* buf = k_.find_shared(b->name);
    if (!buf || buf->count == 0 || buf->count > 32) internal_error("emit: skip_phases on a ring that is not 1 to 32 barriers");
    line(phase_var(b->name) + " ^= tj::skipped_phase_bits(unsigned(" + ex(n.first) + "), unsigned(" + ex(n.count) + "), " +
         std::to_string(buf->count) + "u);");
  }
  void node(const TmaLoad& n) {
    std::string rank = std::to_string(n.coords.size());
    std::string args = slot(n.dst, n.dst_index) + ", &" + ex(n.tmap) + coord_args(n.coords) + ", " + slot(n.bar, n.bar_index);
    const std::string pair = n.cta_group == 2 ? "_pair" : "";
    if (n.mask) line("tj::tma_load_" + rank + "d" + pair + "_multicast(" + args + ", " + ex(n.mask) + ");");
    else line("tj::tma_load_" + rank + "d" + pair + "(" + args + ");");
  }
  void node(const TmaStore& n) {
    line("tj::tma_store_" + std::to_string(n.coords.size()) + "d(&" + ex(n.tmap) + coord_args(n.coords) + ", " +
         slot(n.src, n.src_index) + ");");
  }
  void node(const TmaPrefetch& n) {
    line("tj::tma_prefetch_" + std::to_string(n.coords.size()) + "d(&" + ex(n.tmap) + coord_args(n.coords) + ");");
  }
  void node(const BulkGroup& n) {
    switch (n.op) {
      case BulkGroupOp::Commit: line("tj::bulk_commit();"); break;
      case BulkGroupOp::Wait: line("tj::bulk_wait<" + std::to_string(n.pending) + ">();"); break;
      case BulkGroupOp::WaitRead: line("tj::bulk_wait_read<" + std::to_string(n.pending) + ">();"); break;
    }
  }
  void node(const BulkCopy& n) {
    line("tj::bulk_copy_to_peer(" + slot(n.dst, n.dst_index) + ", " + slot(n.src, n.src_index) + ", " +
         std::to_string(n.bytes) + "u, " + ex(n.bar) + ", " + ex(n.bar_index) + ");");
  }
  void node(const ClcTryCancel& n) {
    line(std::string(n.multicast ? "tj::clc_try_cancel_multicast(" : "tj::clc_try_cancel(") + slot(n.response, n.response_index) +
         ", " + slot(n.bar, n.bar_index) + ");");
  }
  void node(const TmemOp& n) {
    const std::string g = "<" + std::to_string(n.cta_group) + ">(";
    switch (n.action) {
      case TmemAction::Alloc: line("tj::tmem_alloc" + g + slot(n.slot, n.slot_index) + ", " + std::to_string(n.columns) + "u);"); break;
      case TmemAction::Relinquish: line("tj::tmem_relinquish" + g + ");"); break;
      case TmemAction::Dealloc: line("tj::tmem_dealloc" + g + ex(n.addr) + ", " + std::to_string(n.columns) + "u);"); break;
    }
  }
  void node(const StAsync& n) {
    line("tj::st_async(" + ex(n.dst) + ", " + ex(n.dst_index) + ", " + ex(n.value) + ", " + ex(n.bar) + ", " +
         ex(n.bar_index) + ");");
  }

  void lines(const std::vector<std::string>& ls) {
    for (const std::string& l : ls) line(l);
  }
  void role(const Role& n, bool first) {
    line(origin(n));
    line(std::string(first ? "if (" : "} else if (") + role_condition(n) + ") {  // role " + n.name);
    int saved = indent_;
    indent_ = saved + 1;
    lines(role_prologue(n, k_));
    indent_ = saved;
    role_index_ = role_index_decl(n);
    role_first_ = n.first;
    body(n.body);
    role_index_ = nullptr;
  }
  // The role's warpgroup index (Role::index_var, declared by the body's first statement),
  // in a one-dimensional block. At the role's entry every lane of each warp is there, so
  // it can be taken from lane 0: ptxas then knows it is the same in the whole warp and
  // computes what depends on it (the wgmma descriptors of a warpgroup's rows) in uniform
  // registers, without moving each value from a vector register (R2UR).
  const Declare* role_index_decl(const Role& n) const {
    if (n.index_var.empty() || k_.block.y != 1 || k_.block.z != 1 || k_.block.x % 32) return nullptr;
    return n.body->as<Block>()->body.front()->as<Declare>();
  }
  void node(const Role&) { internal_error("emit: a role outside a block"); }
  void node(const NamedBarrier& n) {
    line(std::string(n.arrive ? "tj::named_barrier_arrive(" : "tj::named_barrier_sync(") + ex(n.id) + ", " + std::to_string(n.threads) + "u);");
  }
  void node(const Mma& n) { lines(family().mma(n, k_, ex)); }
  void node(const MmaWait& n) { lines(family().mma_wait(n, k_)); }
  void node(const AccStore& n) { lines(family().acc_store(n, k_, ex)); }
  void node(const AccPartial& n) { lines(family().acc_partial(n, k_, ex)); }
  void node(const FragMap& n) { lines(family().frag_map(n, k_, ex)); }
  void node(const RowReduce& n) { lines(family().row_reduce(n, k_)); }
  void node(const RowStore& n) { lines(family().row_store(n, k_, ex)); }
  void node(const ForEachTile&) { internal_error("emit: for_each_tile was not lowered (lower_schedules runs first)"); }

  const mma::Family& family() const {
    if (!family_) internal_error("emit: a tile MMA op for a target without an MMA family (the verifier should have refused it)");
    return *family_;
  }

  std::string& out_;
  const Kernel& k_;
  const mma::Family* family_;  // the target's; null where it has none
  const EmitOptions& opts_;
  std::set<std::string> used_;  // names some expression reads
  const Declare* role_index_ = nullptr;  // the warpgroup index of the role being emitted
  unsigned role_first_ = 0;              // and that role's first warpgroup
  int indent_ = 0;
};

}  // namespace

std::string cuda_type(const Type& t) {
  std::string s = scalar_cuda(t.scalar);
  switch (t.space) {
    case Space::None: return s;
    case Space::Global:
    case Space::Shared: return s + "*";
    case Space::Cluster: return "tj::cluster_ptr<" + s + ">";
  }
  return s;
}

std::string emit_cuda(const Kernel& k, const Target& target, const EmitOptions& opts) {
  std::string out;
  out += "// Generated by tilejit for " + target.arch + " from kernel '" + k.name + "' (" + k.loc.str() + ").\n";
  out += "// block " + k.block.str() + ", cluster " + k.cluster.str() + "\n";
  out += "#include \"" + std::string(kPreludeName) + "\"\n\n";
  const mma::Family* family = mma::family_for(target);
  if (family) out += family->declarations(k);
  // A kernel with warpgroup roles runs one CTA per SM: its registers are split
  // between the roles with setmaxnreg.
  bool has_roles = false;
  struct Roles : Visitor {
    bool* found;
    void visit_node(const Role&) override { *found = true; }
  } roles;
  roles.found = &has_roles;
  roles.visit(k.body);
  // The minimum CTAs per SM the user asked for (verify_launch_bounds checked it).
  const unsigned min_blocks = has_roles ? 1 : k.min_blocks_per_sm;
  out += "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(k.block.count()) +
         (min_blocks ? ", " + std::to_string(min_blocks) : "") + ") " + k.name + "(";
  for (size_t i = 0; i < k.params.size(); ++i) {
    // Tensor maps travel by value in parameter space, where TMA reads them.
    std::string quals = k.params[i].type.scalar == Scalar::TensorMap ? "const __grid_constant__ " : "";
    out += std::string(i ? ", " : "") + quals + cuda_type(k.params[i].type) + " " + k.params[i].name;
  }
  out += ") {\n";

  bool has_dynamic = false;
  for (const SharedBuffer& b : k.shared) has_dynamic |= b.dynamic;
  if (has_dynamic)
    out += "  extern __shared__ __align__(" + std::to_string(kDynamicSharedBaseAlign) + ") unsigned char tj_dynamic_smem[];\n";
  const std::vector<uint64_t> offsets = k.dynamic_offsets();
  for (size_t i = 0; i < k.shared.size(); ++i) {
    const SharedBuffer& b = k.shared[i];
    std::string t = scalar_cuda(b.elem);
    out += "  // shared buffer at " + b.loc.str() + "\n";
    if (b.dynamic)
      out += "  [[maybe_unused]] " + t + "* const " + b.name + " = reinterpret_cast<" + t + "*>(tj_dynamic_smem + " +
             std::to_string(offsets[i]) + ");\n";
    else
      out += "  __shared__ __align__(" + std::to_string(std::max<uint64_t>(kSharedAlign, b.align)) + ") " + t + " " +
             b.name + "[" + std::to_string(b.count) + "];\n";
  }
  // Phase bits only for the barriers this kernel waits on.
  struct Waited : Visitor {
    std::set<std::string> names;
    void visit_node(const MbarrierWait& n) override {
      if (const SharedRef* s = n.bar->as<SharedRef>()) names.insert(s->name);
    }
    void visit_node(const MbarrierSkip& n) override {
      if (const SharedRef* s = n.bar->as<SharedRef>()) names.insert(s->name);
    }
  } waited;
  waited.visit(k.body);
  for (const SharedBuffer& b : k.shared)
    if (b.elem == Scalar::MBarrier && waited.names.count(b.name)) out += "  unsigned " + phase_var(b.name) + " = 0u;  // bit i: phase parity of " + b.name + "[i]\n";
  if (!k.accumulators.empty()) out += mma::family_of(target).accumulator_decls(k);
  StmtEmitter(out, k, family, opts).emit(k.body, 1);
  out += "}\n";
  return out;
}

}  // namespace tj::codegen

#include "dsl/ir/ir.h"

namespace tj::ir {

void internal_error(const std::string& what) { throw InternalError("tilejit internal error: " + what); }

namespace {
enum class OpClass { A, I, C, L };
OpClass op_class(BinOp op) {
  switch (op) {
#define TJ_BINOP(Enum, spelling, kind) \
  case BinOp::Enum: return OpClass::kind;
#include "dsl/ir/ops.def"
  }
  return OpClass::A;
}
OpClass op_class(UnOp op) {
  switch (op) {
#define TJ_UNOP(Enum, spelling, kind) \
  case UnOp::Enum: return OpClass::kind;
#include "dsl/ir/ops.def"
  }
  return OpClass::A;
}

void require(bool ok, const std::string& what) {
  if (!ok) internal_error(what);
}
void require_expr(const Expr& e, const char* node, const char* field) {
  require(e != nullptr, std::string(node) + "::make: null " + field);
}
void require_value(const Expr& e, const char* node, const char* field) {
  require_expr(e, node, field);
  require(!e->type.is_pointer(), std::string(node) + "::make: " + field + " is a pointer, expected a value");
}
void require_index(const Expr& e, const char* node) {
  require_value(e, node, "index");
  require(is_integer(e->type.scalar), std::string(node) + "::make: index must be an integer, got " + e->type.str());
}
}  // namespace

bool is_comparison(BinOp op) { return op_class(op) == OpClass::C; }

Expr IntImm::make(Scalar s, int64_t value) {
  require(is_integer(s), "IntImm::make: not an integer type");
  return std::make_shared<IntImm>(s, value);
}

Expr FloatImm::make(Scalar s, double value) {
  require(s == Scalar::F32, "FloatImm::make: only f32 constants exist");
  return std::make_shared<FloatImm>(s, value);
}

Expr BoolImm::make(bool value) { return std::make_shared<BoolImm>(value); }

Expr VarRef::make(std::string name, Type t, Loc loc) {
  require(!name.empty(), "VarRef::make: empty name");
  return std::make_shared<VarRef>(std::move(name), t, std::move(loc));
}

Expr SharedRef::make(std::string name, Scalar elem, Loc loc) {
  require(!name.empty(), "SharedRef::make: empty name");
  return std::make_shared<SharedRef>(std::move(name), elem, std::move(loc));
}

Expr SpecialReg::make(SpecialRegKind reg, Loc loc) { return std::make_shared<SpecialReg>(reg, std::move(loc)); }

Expr Unary::make(UnOp op, Expr a, Loc loc) {
  require_value(a, "Unary", "operand");
  Scalar s = a->type.scalar;
  switch (op_class(op)) {
    case OpClass::A: require(is_integer(s) || s == Scalar::F32, "Unary::make: arithmetic on " + a->type.str()); break;
    case OpClass::I: require(is_integer(s), "Unary::make: bitwise op on " + a->type.str()); break;
    case OpClass::L: require(s == Scalar::Bool, "Unary::make: logical op on " + a->type.str()); break;
    case OpClass::C: break;
  }
  Type t = a->type;
  return std::make_shared<Unary>(op, std::move(a), t, std::move(loc));
}

Expr Binary::make(BinOp op, Expr a, Expr b, Loc loc) {
  require_value(a, "Binary", "lhs");
  require_value(b, "Binary", "rhs");
  require(a->type == b->type, "Binary::make: operand types differ: " + a->type.str() + " vs " + b->type.str());
  Scalar s = a->type.scalar;
  Type result = a->type;
  switch (op_class(op)) {
    case OpClass::A: require(is_integer(s) || s == Scalar::F32, "Binary::make: arithmetic on " + a->type.str()); break;
    case OpClass::I: require(is_integer(s), "Binary::make: integer op on " + a->type.str()); break;
    case OpClass::C:
      require(s != Scalar::BF16 && !is_vector(s), "Binary::make: comparison on " + a->type.str());
      result = Type::of(Scalar::Bool);
      break;
    case OpClass::L: require(s == Scalar::Bool, "Binary::make: logical op on " + a->type.str()); break;
  }
  return std::make_shared<Binary>(op, std::move(a), std::move(b), result, std::move(loc));
}

Expr Cast::make(Scalar to, Expr a, Loc loc) {
  require_value(a, "Cast", "operand");
  require(!is_vector(to) && !is_vector(a->type.scalar), "Cast::make: vectors do not convert");
  return std::make_shared<Cast>(to, std::move(a), std::move(loc));
}

Expr Select::make(Expr cond, Expr a, Expr b, Loc loc) {
  require_value(cond, "Select", "cond");
  require(cond->type.scalar == Scalar::Bool, "Select::make: condition is not bool");
  require_expr(a, "Select", "a");
  require_expr(b, "Select", "b");
  require(a->type == b->type, "Select::make: branch types differ");
  return std::make_shared<Select>(std::move(cond), std::move(a), std::move(b), std::move(loc));
}

Expr MapSharedRank::make(Expr buffer, Expr rank, Loc loc) {
  require_expr(buffer, "MapSharedRank", "buffer");
  require(buffer->type.is_pointer(), "MapSharedRank::make: buffer is not a pointer");
  require_value(rank, "MapSharedRank", "rank");
  require(is_integer(rank->type.scalar), "MapSharedRank::make: rank must be an integer");
  return std::make_shared<MapSharedRank>(std::move(buffer), std::move(rank), std::move(loc));
}

Expr Load::make(Expr ptr, Expr index, Loc loc) {
  require_expr(ptr, "Load", "ptr");
  require(ptr->type.is_pointer(), "Load::make: not a pointer");
  require_index(index, "Load");
  return std::make_shared<Load>(std::move(ptr), std::move(index), std::move(loc));
}

Expr VectorPack::make(std::vector<Expr> lanes, Loc loc) {
  require(!lanes.empty(), "VectorPack::make: no lanes");
  for (const Expr& l : lanes) {
    require_value(l, "VectorPack", "lane");
    require(l->type == lanes[0]->type, "VectorPack::make: lanes differ in type");
  }
  const Scalar vec = vector_of(lanes[0]->type.scalar, static_cast<unsigned>(lanes.size()));
  require(vec != Scalar::Bool, "VectorPack::make: no packed type of " + std::to_string(lanes.size()) + " " + lanes[0]->type.str());
  return std::make_shared<VectorPack>(vec, std::move(lanes), std::move(loc));
}

Expr VectorLane::make(Expr vec, unsigned lane, Loc loc) {
  require_value(vec, "VectorLane", "vector");
  require(is_vector(vec->type.scalar), "VectorLane::make: not a packed type: " + vec->type.str());
  require(lane < vector_lanes(vec->type.scalar), "VectorLane::make: lane out of range");
  return std::make_shared<VectorLane>(std::move(vec), lane, std::move(loc));
}

Stmt Block::make(std::vector<Stmt> body, Loc loc) {
  for (const Stmt& s : body) require(s != nullptr, "Block::make: null statement");
  return std::make_shared<Block>(std::move(body), std::move(loc));
}

Stmt Declare::make(std::string name, Expr init, Loc loc) {
  require(!name.empty(), "Declare::make: empty name");
  require_value(init, "Declare", "init");
  return std::make_shared<Declare>(std::move(name), std::move(init), std::move(loc));
}

Stmt Assign::make(Expr var, Expr value, Loc loc) {
  require_expr(var, "Assign", "var");
  require(var->kind == ExprKind::VarRef, "Assign::make: target is not a variable");
  require_value(value, "Assign", "value");
  require(var->type == value->type, "Assign::make: type mismatch " + var->type.str() + " = " + value->type.str());
  return std::make_shared<Assign>(std::move(var), std::move(value), std::move(loc));
}

Stmt Store::make(Expr ptr, Expr index, Expr value, Loc loc) {
  require_expr(ptr, "Store", "ptr");
  require(ptr->type.is_pointer(), "Store::make: not a pointer");
  require_index(index, "Store");
  require_value(value, "Store", "value");
  require(value->type == ptr->type.element(), "Store::make: storing " + value->type.str() + " through " + ptr->type.str());
  return std::make_shared<Store>(std::move(ptr), std::move(index), std::move(value), std::move(loc));
}

Stmt AtomicAdd::make(Expr ptr, Expr index, Expr value, Loc loc) {
  require_expr(ptr, "AtomicAdd", "ptr");
  require(ptr->type.is_pointer(), "AtomicAdd::make: not a pointer");
  require_index(index, "AtomicAdd");
  require_value(value, "AtomicAdd", "value");
  Scalar s = value->type.scalar;
  require(s == Scalar::I32 || s == Scalar::U32 || s == Scalar::U64 || s == Scalar::F32,
          "AtomicAdd::make: no atomic add for " + value->type.str());
  require(value->type == ptr->type.element(), "AtomicAdd::make: type mismatch");
  return std::make_shared<AtomicAdd>(std::move(ptr), std::move(index), std::move(value), std::move(loc));
}

Stmt AtomicFetchAdd::make(std::string result, Expr ptr, Expr index, Expr value, MemoryOrder order, MemoryScope scope,
                          Loc loc) {
  require(!result.empty(), "AtomicFetchAdd::make: empty result name");
  require_expr(ptr, "AtomicFetchAdd", "ptr");
  require(ptr->type.is_pointer(), "AtomicFetchAdd::make: not a pointer");
  require_index(index, "AtomicFetchAdd");
  require_value(value, "AtomicFetchAdd", "value");
  Scalar s = value->type.scalar;
  require(s == Scalar::U32, "AtomicFetchAdd::make: no atomic fetch-add for " + value->type.str());
  require(value->type == ptr->type.element(), "AtomicFetchAdd::make: type mismatch");
  require(order != MemoryOrder::Default, "AtomicFetchAdd::make: the memory order must be stated");
  return std::make_shared<AtomicFetchAdd>(std::move(result), std::move(ptr), std::move(index), std::move(value), order, scope,
                                          std::move(loc));
}

namespace {
void require_units(const std::optional<LoopUnits>& u, const char* node) {
  if (!u) return;
  require_value(u->unit, node, "units.unit");
  require_value(u->count, node, "units.count");
  require(u->unit->type == Type::of(Scalar::I32), std::string(node) + "::make: a unit number is i32");
  require(u->count->type == Type::of(Scalar::I64), std::string(node) + "::make: a unit count is i64");
}
}  // namespace

Stmt For::make(std::string var, Expr begin, Expr end, Expr step, Stmt body, Loc loc, std::optional<LoopUnits> units) {
  require(!var.empty(), "For::make: empty loop variable");
  require_value(begin, "For", "begin");
  require_value(end, "For", "end");
  require_value(step, "For", "step");
  require(is_integer(begin->type.scalar), "For::make: loop bounds must be integers");
  require(begin->type == end->type && begin->type == step->type, "For::make: bound types differ");
  require(body != nullptr, "For::make: null body");
  require_units(units, "For");
  return std::make_shared<For>(std::move(var), std::move(begin), std::move(end), std::move(step), std::move(body),
                               std::move(loc), std::move(units));
}

Stmt While::make(Expr cond, Stmt body, Loc loc, std::optional<LoopUnits> units) {
  require_value(cond, "While", "cond");
  require(cond->type.scalar == Scalar::Bool, "While::make: condition is not bool");
  require(body != nullptr, "While::make: null body");
  require_units(units, "While");
  return std::make_shared<While>(std::move(cond), std::move(body), std::move(loc), std::move(units));
}

Stmt If::make(Expr cond, Stmt then_body, Stmt else_body, Loc loc) {
  require_value(cond, "If", "cond");
  require(cond->type.scalar == Scalar::Bool, "If::make: condition is not bool");
  require(then_body != nullptr, "If::make: null then");
  return std::make_shared<If>(std::move(cond), std::move(then_body), std::move(else_body), std::move(loc));
}

Stmt SyncThreads::make(Loc loc) { return std::make_shared<SyncThreads>(std::move(loc)); }

Stmt ClusterBarrier::make(ClusterBarrierOp op, MemoryOrder order, Loc loc) {
  switch (op) {
    case ClusterBarrierOp::Arrive:
      require(order == MemoryOrder::Default || order == MemoryOrder::Release || order == MemoryOrder::Relaxed,
              "ClusterBarrier::make: arrive takes release or relaxed");
      break;
    case ClusterBarrierOp::Wait:
      require(order == MemoryOrder::Default || order == MemoryOrder::Acquire, "ClusterBarrier::make: wait takes acquire");
      break;
    case ClusterBarrierOp::Sync:
      require(order == MemoryOrder::Default, "ClusterBarrier::make: sync has a fixed order");
      break;
  }
  return std::make_shared<ClusterBarrier>(op, order, std::move(loc));
}

namespace {
void require_ptr(const Expr& p, const char* node, const char* field, Scalar elem, std::initializer_list<Space> spaces) {
  require_expr(p, node, field);
  require(p->type.is_pointer(), std::string(node) + "::make: " + field + " is not a pointer");
  bool ok = false;
  for (Space s : spaces) ok |= p->type.space == s;
  require(ok, std::string(node) + "::make: " + field + " is in the wrong memory: " + p->type.str());
  if (elem != Scalar::Bool)  // Bool: any element type
    require(p->type.scalar == elem, std::string(node) + "::make: " + field + " has elements " + p->type.str());
}
void require_coords(const std::vector<Expr>& coords, const char* node) {
  require(!coords.empty() && coords.size() <= 5, std::string(node) + "::make: 1 to 5 coordinates");
  for (const Expr& c : coords) {
    require_value(c, node, "coordinate");
    require(c->type.scalar == Scalar::I32, std::string(node) + "::make: coordinates are i32");
  }
}
void require_tmap(const Expr& t, const char* node) {
  require_expr(t, node, "tmap");
  require(t->kind == ExprKind::VarRef && t->type.scalar == Scalar::TensorMap,
          std::string(node) + "::make: tmap is not a tensor_map parameter");
}
}  // namespace

Stmt MbarrierInit::make(Expr bar, Expr index, unsigned arrivals, Loc loc) {
  require_ptr(bar, "MbarrierInit", "bar", Scalar::MBarrier, {Space::Shared});
  require_index(index, "MbarrierInit");
  return std::make_shared<MbarrierInit>(std::move(bar), std::move(index), arrivals, std::move(loc));
}

Stmt Fence::make(FenceKind f, Loc loc) { return std::make_shared<Fence>(f, std::move(loc)); }

Stmt MbarrierArrive::make(Expr bar, Expr index, Expr tx, Loc loc, MemoryOrder order, unsigned commit_group, Expr mask) {
  require(commit_group <= 2, "MbarrierArrive::make: commit_group is 0, 1 or 2");
  if (commit_group) {
    require(!tx && order == MemoryOrder::Relaxed, "MbarrierArrive::make: a commit is relaxed and announces no bytes");
    require(bar && bar->type.space == Space::Shared, "MbarrierArrive::make: a commit names this CTA's barrier");
  }
  require(!mask || commit_group, "MbarrierArrive::make: only a commit multicasts");
  if (mask) {
    require_value(mask, "MbarrierArrive", "mask");
    require(mask->type.scalar == Scalar::U32, "MbarrierArrive::make: mask is u32");
  }
  require(order == MemoryOrder::Default || order == MemoryOrder::Relaxed, "MbarrierArrive::make: order is default or relaxed");
  require(!(tx && order == MemoryOrder::Relaxed), "MbarrierArrive::make: a relaxed arrive announces no bytes");
  require_ptr(bar, "MbarrierArrive", "bar", Scalar::MBarrier, {Space::Shared, Space::Cluster});
  require_index(index, "MbarrierArrive");
  if (tx) {
    require_value(tx, "MbarrierArrive", "tx");
    require(tx->type.scalar == Scalar::U32, "MbarrierArrive::make: tx bytes are u32");
  }
  return std::make_shared<MbarrierArrive>(std::move(bar), std::move(index), std::move(tx), std::move(loc), order, commit_group,
                                          std::move(mask));
}

Stmt MbarrierSkip::make(Expr bar, Expr first, Expr count, Loc loc) {
  require_ptr(bar, "MbarrierSkip", "bar", Scalar::MBarrier, {Space::Shared, Space::Cluster});
  require_index(first, "MbarrierSkip");
  require_index(count, "MbarrierSkip");
  return std::make_shared<MbarrierSkip>(std::move(bar), std::move(first), std::move(count), std::move(loc));
}

Stmt MbarrierWait::make(Expr bar, Expr index, Loc loc, bool cta_scope) {
  // Space::Cluster is let through: waiting on a peer's barrier is a user error
  // the verifier reports with the user's line.
  require_ptr(bar, "MbarrierWait", "bar", Scalar::MBarrier, {Space::Shared, Space::Cluster});
  require_index(index, "MbarrierWait");
  return std::make_shared<MbarrierWait>(std::move(bar), std::move(index), std::move(loc), cta_scope);
}

Stmt TmaLoad::make(Expr tmap, std::vector<Expr> coords, Expr dst, Expr dst_index, Expr bar, Expr bar_index, Expr mask,
                   Loc loc, unsigned cta_group) {
  require(cta_group == 1 || cta_group == 2, "TmaLoad::make: cta_group is 1 or 2");
  require_tmap(tmap, "TmaLoad");
  require_coords(coords, "TmaLoad");
  require_ptr(dst, "TmaLoad", "dst", Scalar::Bool, {Space::Shared, Space::Global, Space::Cluster});
  require_index(dst_index, "TmaLoad");
  require_ptr(bar, "TmaLoad", "bar", Scalar::MBarrier, {Space::Shared, Space::Global, Space::Cluster});
  require_index(bar_index, "TmaLoad");
  if (mask) {
    require_value(mask, "TmaLoad", "mask");
    require(mask->type.scalar == Scalar::U32, "TmaLoad::make: mask is u32");
  }
  return std::make_shared<TmaLoad>(std::move(tmap), std::move(coords), std::move(dst), std::move(dst_index),
                                   std::move(bar), std::move(bar_index), std::move(mask), cta_group, std::move(loc));
}

Stmt TmaStore::make(Expr tmap, std::vector<Expr> coords, Expr src, Expr src_index, Loc loc) {
  require_tmap(tmap, "TmaStore");
  require_coords(coords, "TmaStore");
  require_ptr(src, "TmaStore", "src", Scalar::Bool, {Space::Shared, Space::Global, Space::Cluster});
  require_index(src_index, "TmaStore");
  return std::make_shared<TmaStore>(std::move(tmap), std::move(coords), std::move(src), std::move(src_index),
                                    std::move(loc));
}

Stmt TmaPrefetch::make(Expr tmap, std::vector<Expr> coords, Loc loc) {
  require_tmap(tmap, "TmaPrefetch");
  require_coords(coords, "TmaPrefetch");
  return std::make_shared<TmaPrefetch>(std::move(tmap), std::move(coords), std::move(loc));
}

Stmt BulkGroup::make(BulkGroupOp op, unsigned pending, Loc loc) {
  require(op != BulkGroupOp::Commit || pending == 0, "BulkGroup::make: commit takes no count");
  return std::make_shared<BulkGroup>(op, pending, std::move(loc));
}

Stmt BulkCopy::make(Expr dst, Expr dst_index, Expr src, Expr src_index, uint32_t bytes, Expr bar, Expr bar_index,
                    Loc loc) {
  require_ptr(dst, "BulkCopy", "dst", Scalar::Bool, {Space::Cluster, Space::Shared, Space::Global});
  require_index(dst_index, "BulkCopy");
  require_ptr(src, "BulkCopy", "src", Scalar::Bool, {Space::Shared, Space::Cluster, Space::Global});
  require_index(src_index, "BulkCopy");
  require_ptr(bar, "BulkCopy", "bar", Scalar::MBarrier, {Space::Cluster, Space::Shared});
  require_index(bar_index, "BulkCopy");
  return std::make_shared<BulkCopy>(std::move(dst), std::move(dst_index), std::move(src), std::move(src_index), bytes,
                                    std::move(bar), std::move(bar_index), std::move(loc));
}

Stmt StAsync::make(Expr dst, Expr dst_index, Expr value, Expr bar, Expr bar_index, Loc loc) {
  require_ptr(dst, "StAsync", "dst", Scalar::Bool, {Space::Cluster, Space::Shared, Space::Global});
  require_index(dst_index, "StAsync");
  require_value(value, "StAsync", "value");
  require(value->type == dst->type.element(), "StAsync::make: value type differs from the destination's");
  require_ptr(bar, "StAsync", "bar", Scalar::MBarrier, {Space::Cluster, Space::Shared});
  require_index(bar_index, "StAsync");
  return std::make_shared<StAsync>(std::move(dst), std::move(dst_index), std::move(value), std::move(bar),
                                   std::move(bar_index), std::move(loc));
}

std::optional<int64_t> const_int(const Expr& e) {
  if (!e) return std::nullopt;
  if (auto* i = e->as<IntImm>()) return i->value;
  if (auto* c = e->as<Cast>(); c && is_integer(c->type.scalar)) return const_int(c->a);
  return std::nullopt;
}


namespace {
void require_tile(const TileOperand& t, const char* node) {
  require(t.tile && t.tile->type.space == Space::Shared, std::string(node) + "::make: a tile operand must be a shared buffer");
  require_index(t.stage, node);
  require_index(t.row, node);
}
}  // namespace

Stmt Role::make(std::string name, unsigned first, unsigned count, unsigned max_regs, unsigned id, Stmt body, Loc loc,
                std::string index_var) {
  require(count >= 1, "Role::make: a role needs at least one warpgroup");
  require(body != nullptr, "Role::make: null body");
  if (!index_var.empty()) {
    const Block* b = body->as<Block>();
    const Declare* d = b && !b->body.empty() ? b->body.front()->as<Declare>() : nullptr;
    require(d && d->name == index_var, "Role::make: the index variable must be declared by the body's first statement");
  }
  return std::make_shared<Role>(std::move(name), first, count, max_regs, id, std::move(body), std::move(loc), std::move(index_var));
}

Expr Role::condition() const {
  Expr wg = Binary::make(BinOp::Div, SpecialReg::make(SpecialRegKind::ThreadIdxX), IntImm::make(Scalar::I32, 128));
  return Binary::make(BinOp::And, Binary::make(BinOp::Ge, wg, IntImm::make(Scalar::I32, first)),
                      Binary::make(BinOp::Lt, wg, IntImm::make(Scalar::I32, first + count)));
}

Stmt NamedBarrier::make(Expr id, unsigned threads, Loc loc, bool arrive) {
  require_index(id, "NamedBarrier");
  if (std::optional<int64_t> c = const_int(id)) require(*c >= 1 && *c < 16, "NamedBarrier::make: id must be 1..15 (0 is sync_threads)");
  require(threads % 32 == 0 && threads > 0, "NamedBarrier::make: threads must be a positive multiple of 32");
  return std::make_shared<NamedBarrier>(std::move(id), threads, std::move(loc), arrive);
}

Stmt Mma::make(std::string acc, TileOperand a, TileOperand b, Expr accumulate, Loc loc, unsigned k_first, unsigned k_count,
               unsigned cta_group, Expr acc_stage, bool k_steps_first) {
  require_tile(a, "Mma");
  require_tile(b, "Mma");
  require_value(accumulate, "Mma", "accumulate");
  require(accumulate->type.scalar == Scalar::Bool, "Mma::make: accumulate must be a bool");
  require(cta_group == 1 || cta_group == 2, "Mma::make: cta_group must be 1 or 2");
  if (acc_stage) require(acc_stage->type.scalar == Scalar::I32, "Mma::make: the accumulator's stage must be an i32");
  return std::make_shared<Mma>(std::move(acc), std::move(a), std::move(b), std::move(accumulate), k_first, k_count, std::move(loc),
                               std::string{}, cta_group, std::move(acc_stage), k_steps_first);
}

Stmt Mma::make_register_a(std::string acc, std::string a_fragment, TileOperand b, Expr accumulate, Loc loc) {
  require(!a_fragment.empty(), "Mma::make_register_a: empty A fragment");
  require_tile(b, "Mma");
  require_value(accumulate, "Mma", "accumulate");
  require(accumulate->type.scalar == Scalar::Bool, "Mma::make: accumulate must be a bool");
  return std::make_shared<Mma>(std::move(acc), TileOperand{}, std::move(b), std::move(accumulate), 0, 0, std::move(loc),
                               std::move(a_fragment));
}

Stmt MmaWait::make(unsigned pending, Loc loc, std::vector<std::string> ready) {
  require(pending <= 7, "MmaWait::make: at most 7 pending groups");
  return std::make_shared<MmaWait>(pending, std::move(loc), std::move(ready));
}

Stmt AccStore::make(std::string acc, TileOperand dst, std::optional<TileOperand> c, unsigned first_col, unsigned cols,
                     Expr epilogue, Loc loc, Expr acc_stage, bool transposed) {
  require(cols > 0 && cols % 8 == 0 && first_col % 8 == 0, "AccStore::make: columns come in groups of 8");
  require_tile(dst, "AccStore");
  if (c) require_tile(*c, "AccStore");
  require_value(epilogue, "AccStore", "epilogue");
  require(epilogue->type.scalar == Scalar::F32, "AccStore::make: the epilogue must be f32");
  if (acc_stage) require(acc_stage->type.scalar == Scalar::I32, "AccStore::make: the accumulator's stage must be an i32");
  return std::make_shared<AccStore>(std::move(acc), std::move(dst), std::move(c), first_col, cols, std::move(epilogue),
                                    std::move(loc), std::move(acc_stage), transposed);
}

Expr FragElem::make(ElemPart part, std::string fragment, Loc loc) {
  require((part == ElemPart::Value) != fragment.empty(), "FragElem::make: a fragment name exactly for Value");
  const bool value = part == ElemPart::Value || part == ElemPart::Tile;
  return std::make_shared<FragElem>(part, std::move(fragment), Type::of(value ? Scalar::F32 : Scalar::I32), std::move(loc));
}

Stmt FragMap::make(std::string dst, Expr value, Loc loc) {
  require(!dst.empty(), "FragMap::make: empty fragment name");
  require_value(value, "FragMap", "value");
  require(value->type.scalar == Scalar::F32, "FragMap::make: the value must be f32");
  return std::make_shared<FragMap>(std::move(dst), std::move(value), std::move(loc));
}

Stmt RowReduce::make(std::string dst, std::string src, ReduceOp op, bool accumulate, Loc loc) {
  require(!dst.empty() && !src.empty(), "RowReduce::make: empty fragment name");
  return std::make_shared<RowReduce>(std::move(dst), std::move(src), op, accumulate, std::move(loc));
}

Stmt RowStore::make(std::string frag, Expr ptr, Expr index, Expr valid, Loc loc) {
  require(!frag.empty(), "RowStore::make: empty fragment name");
  require_expr(ptr, "RowStore", "ptr");
  require(ptr->type.is_pointer() && ptr->type.scalar == Scalar::F32, "RowStore::make: not an f32 pointer");
  require_index(index, "RowStore");
  if (valid) require(valid->type.scalar == Scalar::Bool, "RowStore::make: valid must be a bool");
  return std::make_shared<RowStore>(std::move(frag), std::move(ptr), std::move(index), std::move(valid), std::move(loc));
}

Stmt AccPartial::make(AccPartialOp op, std::string acc, Expr ptr, Expr slot, Loc loc, unsigned first_col, unsigned cols, Expr bar,
                      Expr bar_index) {
  require(!acc.empty(), "AccPartial::make: empty accumulator name");
  require_expr(ptr, "AccPartial", "ptr");
  require(ptr->type.is_pointer(), "AccPartial::make: not a pointer");
  require_value(slot, "AccPartial", "slot");
  require(slot->type.scalar == Scalar::I32, "AccPartial::make: the slot must be i32");
  require(first_col % 8 == 0 && cols % 8 == 0, "AccPartial::make: columns come in whole groups of 8");
  require((op == AccPartialOp::Send) == (bar != nullptr), "AccPartial::make: a send (and only a send) completes on a barrier");
  if (bar) {
    require_ptr(bar, "AccPartial", "bar", Scalar::MBarrier, {Space::Shared, Space::Cluster});
    require_index(bar_index, "AccPartial");
  }
  return std::make_shared<AccPartial>(op, std::move(acc), std::move(ptr), std::move(slot), std::move(loc), first_col, cols,
                                      std::move(bar), std::move(bar_index));
}

Stmt TmemOp::make(TmemAction action, unsigned cta_group, unsigned columns, Expr slot, Expr slot_index, Expr addr, Loc loc) {
  require(cta_group == 1 || cta_group == 2, "TmemOp::make: cta_group must be 1 or 2");
  const bool sized = action != TmemAction::Relinquish;
  require(!sized || (columns >= 32 && columns <= 512 && (columns & (columns - 1)) == 0),
          "TmemOp::make: columns must be a power of two from 32 to 512");
  require(sized || columns == 0, "TmemOp::make: relinquish takes no columns");
  if (action == TmemAction::Alloc) {
    require_ptr(slot, "TmemOp", "slot", Scalar::Bool, {Space::Shared});
    require(slot->type.scalar == Scalar::U32, "TmemOp::make: the address slot holds u32");
    require_index(slot_index, "TmemOp");
  } else {
    require(!slot && !slot_index, "TmemOp::make: only alloc has an address slot");
  }
  if (action == TmemAction::Dealloc) {
    require_value(addr, "TmemOp", "addr");
    require(addr->type.scalar == Scalar::U32, "TmemOp::make: the address is u32");
  } else {
    require(!addr, "TmemOp::make: only dealloc takes an address");
  }
  return std::make_shared<TmemOp>(action, cta_group, columns, std::move(slot), std::move(slot_index), std::move(addr), std::move(loc));
}

Stmt ClcTryCancel::make(Expr response, Expr response_index, Expr bar, Expr bar_index, bool multicast, Loc loc) {
  require_ptr(response, "ClcTryCancel", "response", Scalar::Bool, {Space::Shared, Space::Global, Space::Cluster});
  require(response->type.scalar == Scalar::U32, "ClcTryCancel::make: the response buffer holds u32");
  require_index(response_index, "ClcTryCancel");
  require_ptr(bar, "ClcTryCancel", "bar", Scalar::MBarrier, {Space::Shared, Space::Global, Space::Cluster});
  require_index(bar_index, "ClcTryCancel");
  return std::make_shared<ClcTryCancel>(std::move(response), std::move(response_index), std::move(bar), std::move(bar_index),
                                        multicast, std::move(loc));
}

Stmt ForEachTile::make(TileSchedule schedule, Expr tiles_m, Expr tiles_n, std::string var_m, std::string var_n, Stmt body,
                       Loc loc, Expr splits, std::string var_split) {
  require_value(tiles_m, "ForEachTile", "tiles_m");
  require_value(tiles_n, "ForEachTile", "tiles_n");
  require(tiles_m->type.scalar == Scalar::I32 && tiles_n->type.scalar == Scalar::I32, "ForEachTile::make: tile counts must be i32");
  require(schedule.group >= 1, "ForEachTile::make: group must be at least 1");
  require(schedule.slots >= 1, "ForEachTile::make: a dynamic schedule has at least one slot");
  require(body != nullptr, "ForEachTile::make: null body");
  require((splits == nullptr) == var_split.empty(), "ForEachTile::make: splits and its variable come together");
  if (splits) {
    require_value(splits, "ForEachTile", "splits");
    require(splits->type.scalar == Scalar::I32, "ForEachTile::make: the split count must be i32");
  }
  return std::make_shared<ForEachTile>(schedule, std::move(tiles_m), std::move(tiles_n), std::move(var_m), std::move(var_n),
                                       std::move(body), std::move(loc), std::move(splits), std::move(var_split));
}

Stmt ForEachTile::with_body(Stmt b) const {
  return make(schedule, tiles_m, tiles_n, var_m, var_n, std::move(b), loc, splits, var_split);
}

}  // namespace tj::ir

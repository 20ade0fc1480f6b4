#include "dsl/builder.h"

#include <array>
#include <cctype>

#include "dsl/cluster.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::dsl {
namespace {

thread_local KernelBuilder* g_active = nullptr;
thread_local uint64_t g_next_scope = 1;  // scope ids, unique across builders

ir::Loc L(const SrcLoc& l) { return ir::Loc::from(l); }

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// Names the generated CUDA must not reuse: C++ keywords and CUDA built-ins.
bool is_reserved(const std::string& s) {
  static const std::set<std::string> reserved = {
      // C++20 keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename",
      "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // CUDA built-ins and names the generated code uses
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "min", "max", "printf", "main"};
  return reserved.count(s) != 0 || s.rfind("tj_", 0) == 0 || s.rfind("__", 0) == 0 || s == "tj";
}

}  // namespace

void append_stmt(ir::Stmt s) {
  if (!g_active)
    throw UserError(s->loc, "DSL statement outside a kernel",
                    "create a tj::dsl::KernelBuilder first; statements are recorded into the active one");
  g_active->append(std::move(s));
}

KernelBuilder::KernelBuilder(std::string name, SrcLoc loc) {
  if (!is_identifier(name) || is_reserved(name))
    throw UserError(L(loc), "kernel name '" + name + "' is not a usable C identifier",
                    "use letters, digits and '_', not starting with a digit, 'tj_' or '__'");
  kernel_.name = std::move(name);
  kernel_.loc = L(loc);
  kernel_.cluster_loc = L(loc);
  kernel_.block_loc = L(loc);
  names_.insert(kernel_.name);
  blocks_.emplace_back();
  scopes_.push_back(Scope{0, "kernel", L(loc)});
  previous_ = g_active;
  g_active = this;
}

KernelBuilder::~KernelBuilder() {
  if (g_active == this) g_active = previous_;
}

KernelBuilder& KernelBuilder::active(const SrcLoc& loc) {
  if (!g_active)
    throw UserError(L(loc), "DSL statement outside a kernel",
                    "create a tj::dsl::KernelBuilder first; statements are recorded into the active one");
  return *g_active;
}

void KernelBuilder::append(ir::Stmt s) {
  if (built_) throw UserError(s->loc, "statement added to kernel '" + kernel_.name + "' after build()");
  if (!allowances_.empty() && s->loc.known())
    kernel_.race_allowances.push_back({s->loc, allowances_.back().first, allowances_.back().second});
  blocks_.back().push_back(std::move(s));
}

void KernelBuilder::open_race_allowance(std::string reason, const SrcLoc& loc) {
  if (reason.find_first_not_of(" \t\n") == std::string::npos)
    throw UserError(L(loc), "allow_race needs a reason", "say why the race is intended, e.g. allow_race(\"demo of a race\", ...)");
  allowances_.emplace_back(std::move(reason), L(loc));
}

void KernelBuilder::close_race_allowance() {
  if (allowances_.empty()) ir::internal_error("KernelBuilder::close_race_allowance: no open allow_race");
  allowances_.pop_back();
}

void KernelBuilder::push_block(const char* what, const ir::Loc& loc) {
  blocks_.emplace_back();
  scopes_.push_back(Scope{g_next_scope++, what, loc});
}

uint64_t current_scope() { return g_active && !g_active->scopes_.empty() ? g_active->scopes_.back().id : 0; }

void check_rebind(uint64_t home) {
  if (!g_active || g_active->scopes_.empty() || g_active->scopes_.back().id == home) return;
  const KernelBuilder::Scope& s = g_active->scopes_.back();
  throw UserError(s.loc, std::string("a DSL value made outside this ") + s.what +
                             " body is assigned inside it: a C++ assignment to a value records no statement, so the "
                             "kernel would use the new value everywhere after the body, unconditionally (or name "
                             "what the body declared, outside it)",
                  "make it a variable, whose assignments are statements: auto x = var(f32(0.0f)); then x = ... inside the body");
}

std::vector<ir::Stmt> KernelBuilder::pop_block() {
  if (blocks_.size() < 2) ir::internal_error("KernelBuilder::pop_block: no open block");
  std::vector<ir::Stmt> out = std::move(blocks_.back());
  blocks_.pop_back();
  scopes_.pop_back();
  return out;
}

std::vector<ir::Stmt>& KernelBuilder::current_block() { return blocks_.back(); }

void KernelBuilder::turn_taken(unsigned role, const ir::Loc& loc) {
  auto [open, fresh] = open_turns_.emplace(role, loc);
  if (!fresh)
    throw UserError(loc, "wait_turn while the turn taken at " + open->second.str() +
                             " is not passed on: the next warpgroup still waits for it, and this one waits for a turn that "
                             "comes only after it",
                    "pass the turn (pass_turn) after the work it orders, before waiting for the next one");
}

void KernelBuilder::turn_passed(unsigned role, const ir::Loc& loc) {
  if (!open_turns_.erase(role))
    throw UserError(loc, "pass_turn without a wait_turn before it: a warpgroup passes only the turn it took, or the turns "
                         "order nothing",
                    "wait for the turn (wait_turn) before the work it orders, then pass it");
}

void KernelBuilder::align_at_least(const ir::Expr& ptr, unsigned bytes) {
  ir::Expr base = ptr;
  if (const auto* m = ptr->as<ir::MapSharedRank>()) base = m->buffer;
  if (const auto* s = base->as<ir::SharedRef>())
    for (ir::SharedBuffer& b : kernel_.shared)
      if (b.name == s->name) b.align = std::max(b.align, bytes);
}

std::string KernelBuilder::claim_name(std::string name, const SrcLoc& loc) {
  if (!is_identifier(name) || is_reserved(name))
    throw UserError(L(loc), "'" + name + "' is not a usable name in kernel '" + kernel_.name + "'",
                    "use a C identifier that is not a keyword and does not start with 'tj_' or '__'");
  if (!names_.insert(name).second)
    throw UserError(L(loc), "'" + name + "' is declared twice in kernel '" + kernel_.name + "'",
                    "give each parameter and shared buffer its own name");
  return name;
}

std::string KernelBuilder::fresh_name(std::string hint, const SrcLoc& loc) {
  if (!is_identifier(hint) || is_reserved(hint)) hint = "v";
  std::string name = hint;
  while (names_.count(name)) name = hint + std::to_string(counter_++);
  names_.insert(name);
  return name;
}

ir::Expr KernelBuilder::add_param(std::string name, ir::Type type, const SrcLoc& loc) {
  name = claim_name(std::move(name), loc);
  kernel_.params.push_back(ir::Param{name, type, L(loc)});
  return ir::VarRef::make(name, type, L(loc));
}

ir::Expr KernelBuilder::add_workspace(std::string name, ir::Scalar elem, bool zeroed, const SrcLoc& loc) {
  if (elem == ir::Scalar::Bool)
    throw UserError(L(loc), "workspace '" + name + "' of bool", "use u32 or i32 elements for flags");
  ir::Expr ref = add_param(std::move(name), ir::Type::pointer(elem, ir::Space::Global), loc);
  kernel_.params.back().workspace = ir::Workspace{ir::IntImm::make(ir::Scalar::I64, 0), zeroed};
  return ref;
}

namespace {
// What a workspace size reads that the host cannot know before a launch, or "".
class HostUnknown final : public ir::Visitor {
 public:
  explicit HostUnknown(const ir::Kernel& k) : k_(k) {}
  std::string found;

  void visit_node(const ir::VarRef& n) override {
    const ir::Param* p = nullptr;
    for (const ir::Param& q : k_.params)
      if (q.name == n.name) p = &q;
    if (!p) note("the local '" + n.name + "'");
    else if (p->type.is_pointer() || !ir::is_integer(p->type.scalar)) note("the parameter '" + n.name + "' (not an integer)");
  }
  void visit_node(const ir::SpecialReg& n) override {
    using R = ir::SpecialRegKind;
    switch (n.reg) {
      case R::GridDimX: case R::GridDimY: case R::GridDimZ: case R::NumClustersX: case R::NumClustersY:
      case R::NumClustersZ: case R::ClusterDimX: case R::ClusterDimY: case R::ClusterDimZ: case R::ClusterNumCtas:
      case R::BlockDimX: case R::BlockDimY: case R::BlockDimZ:
        return;
      default: note(std::string(ir::sreg_name(n.reg)) + "() (it differs between threads or CTAs)");
    }
  }
  void visit_node(const ir::FloatImm&) override { note("a float"); }
  void visit_node(const ir::SharedRef& n) override { note("the shared buffer '" + n.name + "'"); }
  void visit_node(const ir::MapSharedRank&) override { note("map_shared_rank"); }
  void visit_node(const ir::Load&) override { note("a load from memory"); }
  void visit_node(const ir::VectorPack&) override { note("a vector"); }
  void visit_node(const ir::VectorLane&) override { note("a vector"); }
  void visit_node(const ir::Intrinsic& n) override { note(std::string(ir::intrinsic_name(n.op))); }

 private:
  void note(std::string what) {
    if (found.empty()) found = std::move(what);
  }
  const ir::Kernel& k_;
};
}  // namespace

void KernelBuilder::set_workspace_size(const ir::Expr& buffer, const ir::Expr& elements, const SrcLoc& loc) {
  ir::Param* p = nullptr;
  if (const ir::VarRef* v = buffer->as<ir::VarRef>())
    for (ir::Param& q : kernel_.params)
      if (q.name == v->name && q.workspace) p = &q;
  if (!p) throw UserError(L(loc), "size_workspace: the buffer is not a workspace", "declare it with k.workspace<T>(name, zeroed)");
  if (std::string unknown = host_unknown(elements); !unknown.empty())
    throw UserError(L(loc), "workspace '" + p->name + "': its size reads " + unknown + ", which the host cannot evaluate before a launch",
                    "build the size from integer parameters, constants, the cluster shape and the grid");
  p->workspace->elements = elements;
}

std::string KernelBuilder::host_unknown(const ir::Expr& e) const {
  HostUnknown unknown(kernel_);
  unknown.visit(e);
  return unknown.found;
}

ir::Expr KernelBuilder::add_shared(std::string name, ir::Scalar elem, uint64_t count, bool dynamic, const SrcLoc& loc) {
  name = claim_name(std::move(name), loc);
  if (count == 0)
    throw UserError(L(loc), "shared buffer '" + name + "' has 0 elements", "give it at least one element");
  if (elem == ir::Scalar::Bool)
    throw UserError(L(loc), "shared buffer '" + name + "' of bool", "use u32 or i32 elements for flags");
  kernel_.shared.push_back(ir::SharedBuffer{name, elem, count, dynamic, L(loc)});
  return ir::SharedRef::make(name, elem, L(loc));
}

void KernelBuilder::check_align(const std::string& name, unsigned align, const SrcLoc& loc) {
  if (align < 16 || align > 1024 || (align & (align - 1)) != 0)
    throw UserError(L(loc), "shared buffer '" + name + "' asks for alignment " + std::to_string(align),
                    "use a power of two from 16 to 1024");
}

Ptr<mbarrier_t> KernelBuilder::mbarriers(std::string name, unsigned count, unsigned arrivals, SrcLoc loc) {
  if (arrivals == 0)
    throw UserError(L(loc), "mbarrier '" + name + "' expects 0 arrivals per phase; its phases could never complete",
                    "give the number of threads (or CTAs) that arrive each phase, at least 1");
  if (arrivals >= (1u << 20))
    throw UserError(L(loc), "mbarrier '" + name + "' expects " + std::to_string(arrivals) +
                                " arrivals per phase; an mbarrier counts at most 2^20 - 1",
                    "arrive once per warp or per CTA instead of once per thread");
  ir::Expr e = add_shared(std::move(name), ir::Scalar::MBarrier, count, false, loc);
  kernel_.shared.back().arrivals = arrivals;
  return Ptr<mbarrier_t>(e);
}

TensorMap KernelBuilder::add_tensor_map(std::string name, ir::Scalar dtype, std::vector<unsigned> box,
                                        ir::Swizzle swizzle, const SrcLoc& loc) {
  ir::Expr ref = add_param(name, ir::Type::of(ir::Scalar::TensorMap), loc);
  ir::TensorMapDecl d{kernel_.params.back().name, dtype, static_cast<unsigned>(box.size()), std::move(box), swizzle, L(loc)};
  kernel_.tensor_maps.push_back(d);
  return TensorMap{ref, d};
}

KernelBuilder& KernelBuilder::dependent_launch(bool on) {
  kernel_.dependent_launch = on;
  return *this;
}

KernelBuilder& KernelBuilder::min_blocks_per_sm(unsigned n, SrcLoc loc) {
  if (n == 0)
    throw UserError(L(loc), "min_blocks_per_sm(0) on kernel '" + kernel_.name + "': at least one CTA must fit on an SM",
                    "ask for 1 or more CTAs per SM, or leave it unset");
  kernel_.min_blocks_per_sm = n;
  kernel_.min_blocks_loc = L(loc);
  return *this;
}

KernelBuilder& KernelBuilder::threads(unsigned x, unsigned y, unsigned z, SrcLoc loc) {
  kernel_.block = ir::Dim3{x, y, z};
  kernel_.block_loc = L(loc);
  return *this;
}

void KernelBuilder::note_cluster_read(const std::string& what, SrcLoc loc) {
  if (!cluster_read_) cluster_read_ = std::make_pair(what, L(loc));
}

KernelBuilder& KernelBuilder::cluster(unsigned x, unsigned y, unsigned z, SrcLoc loc) {
  if (cluster_read_ && !(kernel_.cluster == ir::Dim3{x, y, z}))
    throw UserError(L(loc), "k.cluster(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ") after " +
                                cluster_read_->first + " at " + cluster_read_->second.str() + ", which was built for the cluster " +
                                kernel_.cluster.str() + " set then",
                    "set the cluster before " + cluster_read_->first);
  kernel_.cluster = ir::Dim3{x, y, z};
  kernel_.cluster_loc = L(loc);
  return *this;
}

KernelBuilder& KernelBuilder::allow_non_portable_cluster() {
  kernel_.non_portable_cluster = true;
  return *this;
}

void KernelBuilder::note_tile_walk(const ir::TileSchedule& schedule, const ir::Expr& tiles_m, const ir::Expr& tiles_n,
                                   const ir::Expr& splits, const ir::Loc& loc) {
  const ir::Role* r = current_role();
  // Dynamic schedules share one claim protocol: lowering checks them (lower_schedules).
  if (!r || schedule.kind == ir::ScheduleKind::Dynamic) return;
  const std::string grid = ir::to_string(tiles_m) + " x " + ir::to_string(tiles_n) + (splits ? " in " + ir::to_string(splits) + " splits" : "");
  // The i-th walk of a role against the i-th walk of each other role.
  size_t mine = 0;
  for (const TileWalk& w : tile_walks_) mine += w.role == r->name;
  std::map<std::string, size_t> seen;
  for (const TileWalk& w : tile_walks_) {
    if (w.schedule.kind == ir::ScheduleKind::Dynamic) continue;
    if (w.role == r->name || seen[w.role]++ != mine || (w.schedule == schedule && w.grid == grid)) continue;
    const bool same_grid = w.grid == grid;
    throw UserError(loc, "for_each_tile in role '" + r->name + "' walks " + grid + " with a " +
                             std::string(ir::schedule_name(schedule.kind)) + " schedule (group " + std::to_string(schedule.group) +
                             "), but the one in role '" + w.role + "' at " + w.loc.str() + " walks " + w.grid + " with a " +
                             std::string(ir::schedule_name(w.schedule.kind)) + " schedule (group " +
                             std::to_string(w.schedule.group) + "): roles that hand units to each other take them in different "
                             "orders and numbers, and their barriers fall out of step",
                    same_grid ? "give both walks the same schedule" : "give both walks the same grid and schedule");
  }
  tile_walks_.push_back({r->name, schedule, grid, loc});
}

ir::Kernel KernelBuilder::build() {
  if (built_) ir::internal_error("KernelBuilder::build called twice for '" + kernel_.name + "'");
  if (blocks_.size() != 1) ir::internal_error("KernelBuilder::build: an open block remains");
  if (!open_turns_.empty())
    throw UserError(open_turns_.begin()->second, "the turn taken here (wait_turn) is never passed on: the next warpgroup waits "
                                                 "for it forever",
                    "pass it (pass_turn) after the work it orders");
  kernel_.body = ir::Block::make(std::move(blocks_.back()), kernel_.loc);
  built_ = true;
  if (g_active == this) g_active = previous_;
  return kernel_;
}

// ---- control flow ----

namespace {
template <class T>
void build_for(const Val<T>& begin, const Val<T>& end, const Val<T>& step, const std::function<void(Val<T>)>& body,
               const SrcLoc& loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  if (auto s = ir::const_int(step.expr()); s && *s <= 0)
    throw UserError(L(loc), "for_ step is " + std::to_string(*s) + ", the loop would never end",
                    "use a positive step");
  std::string name = b.fresh_name("i", loc);
  b.push_block("for_", L(loc));
  body(Val<T>(ir::VarRef::make(name, begin.expr()->type, L(loc))));
  ir::Stmt inner = ir::Block::make(b.pop_block(), L(loc));
  b.append(ir::For::make(name, begin.expr(), end.expr(), step.expr(), inner, L(loc)));
}
}  // namespace

void for_(const i32& begin, const i32& end, const i32& step, const std::function<void(i32)>& body, SrcLoc loc) {
  build_for<int32_t>(begin, end, step, body, loc);
}
void for_(const i32& begin, const i32& end, const std::function<void(i32)>& body, SrcLoc loc) {
  build_for<int32_t>(begin, end, i32(1), body, loc);
}
void for_(const i64& begin, const i64& end, const i64& step, const std::function<void(i64)>& body, SrcLoc loc) {
  build_for<int64_t>(begin, end, step, body, loc);
}

namespace {
void build_while(const boolean& cond, std::optional<ir::LoopUnits> units, const std::function<void()>& body, const SrcLoc& loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  b.push_block("while_", L(loc));
  body();
  ir::Stmt inner = ir::Block::make(b.pop_block(), L(loc));
  b.append(ir::While::make(cond.expr(), inner, L(loc), std::move(units)));
}
}  // namespace

void while_(const boolean& cond, const std::function<void()>& body, SrcLoc loc) { build_while(cond, std::nullopt, body, loc); }

void while_units(const boolean& cond, const i32& unit, const i64& count, const std::function<void()>& body, SrcLoc loc) {
  if (std::string unknown = KernelBuilder::active(loc).host_unknown(count.expr()); !unknown.empty())
    throw UserError(L(loc), "while_units: the unit count reads " + unknown + ", which the host cannot evaluate before a launch",
                    "build the count from integer parameters, constants, the cluster shape and the grid");
  build_while(cond, ir::LoopUnits{unit.expr(), count.expr()}, body, loc);
}

IfChain if_(const boolean& cond, const std::function<void()>& then, SrcLoc loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  b.push_block("if_", L(loc));
  then();
  ir::Stmt then_body = ir::Block::make(b.pop_block(), L(loc));
  b.append(ir::If::make(cond.expr(), then_body, nullptr, L(loc)));
  return IfChain(b, b.depth(), b.current_block().size() - 1, b.current_block().back());
}

void IfChain::else_(const std::function<void()>& body, SrcLoc loc) {
  std::vector<ir::Stmt>& block = b_->current_block();
  const bool same = b_->depth() == depth_ && index_ < block.size() && block[index_] == node_;
  const ir::If* prev = same ? block[index_]->as<ir::If>() : nullptr;
  if (!prev || prev->else_body)
    throw UserError(L(loc), "else_ must follow its if_ directly", "write if_(cond, then).else_(other)");
  b_->push_block("else_", L(loc));
  body();
  ir::Stmt else_body = ir::Block::make(b_->pop_block(), L(loc));
  std::vector<ir::Stmt>& again = b_->current_block();
  again[index_] = ir::If::make(prev->cond, prev->then_body, else_body, prev->loc);
  node_ = again[index_];
}

u32 atomic_fetch_add(const Ref<uint32_t>& r, const u32& v, ir::MemoryOrder order, ir::MemoryScope scope, SrcLoc loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  if (order == ir::MemoryOrder::Default)
    throw UserError(L(loc), "atomic_fetch_add without a memory order",
                    "state one: MemoryOrder::Relaxed, Acquire, Release or AcqRel");
  std::string n = b.fresh_name("old", loc);
  b.append(ir::AtomicFetchAdd::make(n, r.ptr(), r.index(), v.expr(), order, scope, L(loc)));
  return u32(ir::VarRef::make(n, ir::Type::of(ir::Scalar::U32), L(loc)));
}

void sync_threads(SrcLoc loc) { KernelBuilder::active(loc).append(ir::SyncThreads::make(L(loc))); }

void allow_race(const std::string& reason, const std::function<void()>& body, SrcLoc loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  b.open_race_allowance(reason, loc);
  struct Close {
    KernelBuilder& b;
    ~Close() { b.close_race_allowance(); }
  } close{b};
  body();
}

// ---- cluster barrier ----

void cluster_sync(SrcLoc loc) {
  KernelBuilder::active(loc).append(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Sync, ir::MemoryOrder::Default, L(loc)));
}
void cluster_arrive(ir::MemoryOrder order, SrcLoc loc) {
  if (order != ir::MemoryOrder::Release && order != ir::MemoryOrder::Relaxed)
    throw UserError(L(loc), "cluster_arrive takes release or relaxed ordering, not " + std::string(ir::order_name(order)),
                    "use MemoryOrder::Release (publishes writes) or MemoryOrder::Relaxed");
  KernelBuilder::active(loc).append(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Arrive, order, L(loc)));
}
void cluster_arrive_relaxed(SrcLoc loc) { cluster_arrive(ir::MemoryOrder::Relaxed, loc); }
void cluster_wait(SrcLoc loc) {
  KernelBuilder::active(loc).append(ir::ClusterBarrier::make(ir::ClusterBarrierOp::Wait, ir::MemoryOrder::Acquire, L(loc)));
}

}  // namespace tj::dsl

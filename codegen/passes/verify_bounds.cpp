#include "codegen/passes/verify_bounds.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/guards.h"
#include "codegen/analysis/index_sets.h"
#include "codegen/analysis/shared_accesses.h"
#include "codegen/analysis/ir_queries.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/mutator.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Evaluations per access (ranks x threads x loop trips) before it is left unchecked.
constexpr size_t kMaxEvaluations = 1 << 15;
constexpr int64_t kMaxTrips = 1024;

// Trips tried for a loop whose bound is known only at run time but whose index reaches the
// access only through remainders by constants (a ring's `it % stages`): every value of the
// index shows up within these trips, if the loop runs that long.
constexpr int64_t kRingTrips = 64;

// Whether `var` reaches `e` only inside `x % c` with c a positive constant.
bool only_through_remainders(const Expr& e, const std::string& var) {
  struct Strip : Mutator {
    Expr mutate_node(const Binary& n, const Expr& self) override {
      if (n.op == BinOp::Mod && const_int(n.b).value_or(0) > 0) return IntImm::make(n.type.scalar, 0);
      return Mutator::mutate_node(n, self);
    }
  } strip;
  std::vector<std::string> before, after;
  var_names(e, before);
  var_names(strip.mutate(e), after);
  return std::count(before.begin(), before.end(), var) > 0 && std::count(after.begin(), after.end(), var) == 0;
}

std::string thread_text(const std::optional<Dim3>& t) {
  if (!t) return "";
  return " (thread " + std::to_string(t->x) + (t->y || t->z ? "," + std::to_string(t->y) + "," + std::to_string(t->z) : "") + ")";
}

// A local stepped by a constant once per trip of one counted loop: `x = x + c` directly in
// the loop's body, x declared just before the loop in the same block and assigned nowhere
// else. In trip j (the index's (value - begin) / step) x is init + c j before the step and
// init + c (j + 1) after it.
struct Stepped {
  Expr init;
  int64_t step = 0;
  const StmtNode* loop = nullptr;
  const Assign* assign = nullptr;
};

// The constant c of `value` = x + c or x - c (nullopt otherwise).
std::optional<int64_t> step_of(const std::string& x, const Expr& value) {
  const Binary* b = value ? value->as<Binary>() : nullptr;
  if (!b || (b->op != BinOp::Add && b->op != BinOp::Sub)) return std::nullopt;
  const VarRef* l = b->a->as<VarRef>();
  const VarRef* r = b->b->as<VarRef>();
  if (l && l->name == x) {
    const std::optional<int64_t> c = const_int(b->b);
    if (c) return b->op == BinOp::Add ? *c : -*c;
  }
  if (r && r->name == x && b->op == BinOp::Add) return const_int(b->a);
  return std::nullopt;
}

std::map<std::string, Stepped> stepped_locals(const Kernel& k) {
  std::map<std::string, int> assigns, declares;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    if (const Assign* a = s.as<Assign>())
      if (const VarRef* v = a->var->as<VarRef>()) ++assigns[v->name];
    if (const Declare* d = s.as<Declare>()) ++declares[d->name];
  });
  std::map<std::string, Stepped> out;
  for_each_stmt(k.body, [&](const StmtNode& s) {
    const Block* b = s.as<Block>();
    if (!b) return;
    std::map<std::string, Expr> declared;  // earlier in this block
    for (const Stmt& c : b->body) {
      if (const Declare* d = c->as<Declare>()) declared[d->name] = d->init;
      std::optional<LoopView> l = as_loop(*c);
      if (!l || !l->counted()) continue;
      const Block* body = l->body ? l->body->as<Block>() : nullptr;
      const std::vector<Stmt> direct = body ? body->body : std::vector<Stmt>{l->body};
      for (const Stmt& t : direct) {
        const Assign* a = t ? t->as<Assign>() : nullptr;
        const VarRef* v = a ? a->var->as<VarRef>() : nullptr;
        if (!v || assigns[v->name] != 1 || declares[v->name] != 1 || !declared.count(v->name) || !declared[v->name]) continue;
        if (const std::optional<int64_t> step = step_of(v->name, a->value))
          out[v->name] = Stepped{declared[v->name], *step, c.get(), a};
      }
    }
  });
  return out;
}

class Bounds {
 public:
  Bounds(const Kernel& k, std::vector<Diagnostic>& out)
      : k_(k), d_(single_assignment_defs(k)), stepped_(stepped_locals(k)), out_(out) {}

  void walk(const Stmt& s) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c);
      return;
    }
    if (const Assign* a = s->as<Assign>())
      for (auto& [name, st] : stepped_)
        if (st.assign == a) stepped_now_[name] = 1;  // from here on in the trip: stepped once more
    check(*s);
    const size_t depth = guards_.size();
    if (const If* i = s->as<If>()) {
      push_guard(guards_, i->cond, false);
      walk(i->then_body);
      guards_.resize(depth);
      push_guard(guards_, i->cond, true);
      walk(i->else_body);
      guards_.resize(depth);
    } else if (const Role* r = s->as<Role>()) {
      push_guard(guards_, r->condition(), false);
      walk(r->body);
      guards_.resize(depth);
    } else if (std::optional<LoopView> l = as_loop(*s)) {
      loops_.push_back(LoopTrip{l->node, l->var, l->begin, l->end, l->step});
      for (const auto& [name, st] : stepped_)
        if (st.loop == l->node) stepped_now_[name] = 0;
      walk(l->body);
      for (const auto& [name, st] : stepped_)
        if (st.loop == l->node) stepped_now_.erase(name);
      loops_.pop_back();
    }
  }

 private:
  struct Found {
    int64_t value;
    unsigned rank;
    std::optional<Dim3> thread;
    std::optional<std::pair<Loc, int64_t>> trips;  // a ring's loop with a run-time bound, and the trips it must run
  };

  static std::string trips_text(const Found& f) {
    if (!f.trips) return "";
    return " when the loop at " + f.trips->first.str() + " (bound known at run time) runs " + std::to_string(f.trips->second) +
           " trip" + (f.trips->second == 1 ? "" : "s") + " or more";
  }

  // `e` with each stepped local of a loop being walked written as its value in the trip.
  Expr through_steps(const Expr& e) const {
    struct Steps : Mutator {
      const Bounds& self;
      explicit Steps(const Bounds& b) : self(b) {}
      Expr mutate_node(const VarRef& n, const Expr& me) override {
        auto now = self.stepped_now_.find(n.name);
        if (now == self.stepped_now_.end()) return me;
        const Stepped& st = self.stepped_.at(n.name);
        std::optional<LoopView> l = as_loop(*st.loop);
        const Scalar t = n.type.scalar;
        const Expr trip = Binary::make(BinOp::Div, Binary::make(BinOp::Sub, VarRef::make(l->var, l->begin->type), l->begin), l->step);
        const Expr steps = Binary::make(BinOp::Add, Cast::make(t, trip), IntImm::make(t, now->second));
        return Binary::make(BinOp::Add, st.init, Binary::make(BinOp::Mul, IntImm::make(t, st.step), steps));
      }
    } steps(*this);
    return stepped_now_.empty() ? e : steps.mutate(e);
  }

  void check(const StmtNode& s) {
    for (MemAccess a : accesses_of(k_, s, AccessView::Elements)) {
      const SharedBuffer* b = k_.find_shared(a.buf.name);
      if (!b || !a.index) continue;
      a.index = through_steps(a.index);
      if (!reported_.insert({s.loc.str(), a.buf.name, a.what}).second) continue;
      a_ = &a, buf_ = b, evaluations_ = 0;
      found_index_.reset(), found_rank_.reset(), found_align_.reset();
      // A literal rank outside the cluster is verify_dsmem's to report.
      check_rank_ = a.buf.rank && !const_int(a.buf.rank);
      align_ = a.what == "bulk copy" ? 16 : tma_alignment(s);
      if (align_ && buf_->align < align_) {
        out_.push_back({s.loc, a.what + " into " + std::string(a.buf.rank ? "a peer's " : "") + "'" + a.buf.name + "' needs " +
                                   std::to_string(align_) + "-byte aligned shared addresses" + ", but '" +
                                   a.buf.name + "' (declared at " + b->loc.str() + ") is aligned to " + std::to_string(buf_->align),
                        "declare it with k.dynamic_shared<T>(name, count, " + std::to_string(align_) + ")"});
        align_ = 0;
      }
      for (unsigned r = 0; r < k_.cluster.count() && !done(); ++r) {
        rank_ = r;
        loop(0);
      }
      report(s);
    }
  }

  // What a TMA box's shared address must be aligned to: 128 bytes (0 for other statements).
  static unsigned tma_alignment(const StmtNode& s) { return s.as<TmaLoad>() || s.as<TmaStore>() ? 128 : 0; }

  bool done() const { return found_index_ && (!check_rank_ || found_rank_) && (!align_ || found_align_); }

  EvalEnv env() const { return EvalEnv{k_.cluster, k_.block, rank_, thread_, &vars_, &d_}; }

  // Binds the counted loops with constant bounds in turn, each at every trip.
  void loop(size_t i) {
    if (done() || evaluations_ > kMaxEvaluations) return;
    if (i == loops_.size()) return leaf();
    const LoopTrip& l = loops_[i];
    std::optional<int64_t> b, e, st;
    thread_ = std::nullopt;
    if (!l.var.empty()) b = eval_int(l.begin, env()), e = eval_int(l.end, env()), st = eval_int(l.step, env());
    // A run-time bound over a ring's index: its first kRingTrips trips, each error naming
    // the trips the loop must run to reach it.
    const bool ring = b && !e && st && *st > 0 && only_through_remainders(a_->index, l.var);
    if (ring) e = *b + *st * kRingTrips;
    if (!b || !e || !st || *st <= 0 || (*e - *b) / *st > kMaxTrips) return loop(i + 1);  // left unbound
    for (int64_t v = *b; v < *e && !done(); v += *st) {
      vars_[l.var] = v;
      if (ring) ring_trip_ = std::make_pair(l.node->loc, (v - *b) / *st + 1);
      loop(i + 1);
      if (ring) ring_trip_.reset();
    }
    vars_.erase(l.var);
  }

  // One evaluation; false when something depends on the thread.
  bool evaluate() {
    ++evaluations_;
    const std::optional<bool> reached = all_hold(guards_, env());
    if (reached && !*reached) return true;
    const std::optional<int64_t> v = eval_int(a_->index, env());
    const std::optional<int64_t> r = check_rank_ ? eval_int(a_->buf.rank, env()) : std::nullopt;
    if (!reached || !v || (check_rank_ && !r)) return false;
    const int64_t n = int64_t(buf_->count);
    if (!found_index_ && (*v < 0 || *v + int64_t(a_->extent) > n)) found_index_ = Found{*v, rank_, thread_, ring_trip_};
    if (check_rank_ && !found_rank_ && (*r < 0 || *r >= int64_t(k_.cluster.count()))) found_rank_ = Found{*r, rank_, thread_, ring_trip_};
    if (align_ && !found_align_ && (*v * int64_t(scalar_bytes(buf_->elem))) % align_ != 0)
      found_align_ = Found{*v, rank_, thread_, ring_trip_};
    return true;
  }

  void leaf() {
    thread_ = std::nullopt;
    if (evaluate()) return;
    for (unsigned z = 0; z < k_.block.z; ++z)
      for (unsigned y = 0; y < k_.block.y; ++y)
        for (unsigned x = 0; x < k_.block.x && !done() && evaluations_ <= kMaxEvaluations; ++x) {
          thread_ = Dim3{x, y, z};
          evaluate();
        }
    thread_ = std::nullopt;
  }

  void report(const StmtNode& s) {
    const MemAccess& a = *a_;
    const std::string whose = a.buf.rank ? "a peer's '" + a.buf.name + "'" : "'" + a.buf.name + "'";
    const std::string decl = "'" + a.buf.name + "' (declared at " + buf_->loc.str() + ") has " + std::to_string(buf_->count) +
                             " element" + (buf_->count == 1 ? "" : "s");
    if (found_index_) {
      const Found& f = *found_index_;
      const std::string range = a.extent > 1 ? "elements " + std::to_string(f.value) + ".." + std::to_string(f.value + int64_t(a.extent) - 1)
                                             : "element " + std::to_string(f.value);
      out_.push_back({s.loc, a.what + " of " + whose + " reaches " + range + " in CTA rank " + std::to_string(f.rank) +
                                 thread_text(f.thread) + trips_text(f) + ", outside the buffer: " + decl,
                      a.extent > buf_->count
                          ? "the access covers " + std::to_string(a.extent) + " elements, more than the buffer's " +
                                std::to_string(buf_->count) + ": declare it with at least " +
                                std::to_string(f.value + int64_t(a.extent)) + " elements, or move fewer"
                          : "keep the index within 0.." + std::to_string(int64_t(buf_->count) - int64_t(a.extent)) +
                                (a.extent > 1 ? " (the access covers " + std::to_string(a.extent) + " elements)" : "") +
                                ", or declare the buffer larger"});
    }
    if (found_rank_) {
      const Found& f = *found_rank_;
      const unsigned size = k_.cluster.count();
      out_.push_back({s.loc, a.what + " through map_shared_rank names CTA rank " + std::to_string(f.value) + " in CTA rank " +
                                 std::to_string(f.rank) + thread_text(f.thread) + ", outside the cluster of " + std::to_string(size) +
                                 " CTA" + (size == 1 ? "" : "s") + " (ranks 0.." + std::to_string(size - 1) + ")",
                      "use a rank below " + std::to_string(size) + ", e.g. (cluster_ctarank() + 1) % cluster_nctarank()"});
    }
    if (found_align_) {
      const Found& f = *found_align_;
      const uint64_t bytes = uint64_t(f.value) * scalar_bytes(buf_->elem);
      const std::string needs = a.what == "bulk copy" ? "cp.async.bulk needs 16-byte aligned shared addresses"
                                                      : "a TMA box needs " + std::to_string(align_) + "-byte aligned shared addresses";
      out_.push_back({s.loc, a.what + " at element " + std::to_string(f.value) + " of " + whose + " (byte " + std::to_string(bytes) +
                                 ") in CTA rank " + std::to_string(f.rank) + thread_text(f.thread) + ": " + needs,
                      "start it at an element whose byte offset is a multiple of " + std::to_string(align_)});
    }
  }

  const Kernel& k_;
  const Defs d_;
  const std::map<std::string, Stepped> stepped_;
  std::map<std::string, int64_t> stepped_now_;  // stepped locals of the loops walked: 1 after their step in the body
  std::vector<Diagnostic>& out_;
  Guards guards_;
  std::vector<LoopTrip> loops_;
  std::set<std::tuple<std::string, std::string, std::string>> reported_;
  // The access being evaluated.
  const MemAccess* a_ = nullptr;
  const SharedBuffer* buf_ = nullptr;
  bool check_rank_ = false;
  unsigned align_ = 0;
  unsigned rank_ = 0;
  std::optional<Dim3> thread_;
  std::optional<std::pair<Loc, int64_t>> ring_trip_;  // the ring loop's trip being evaluated
  Bindings vars_;
  size_t evaluations_ = 0;
  std::optional<Found> found_index_, found_rank_, found_align_;
};

}  // namespace

std::vector<Diagnostic> verify_bounds(const Kernel& k) {
  std::vector<Diagnostic> out;
  Bounds b(k, out);
  b.walk(k.body);
  return out;
}

}  // namespace tj::codegen

#include "codegen/passes/verify_transactions.h"

#include <map>

#include "codegen/eval.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// One operation that announces or delivers transaction bytes.
struct Event {
  enum Kind { Expect, TmaBox, PeerCopy } kind;
  Expr amount;       // bytes (Expect: tx); for copies a constant
  Expr target_rank;  // the CTA whose barrier it reaches; null: the issuing CTA
  Expr mask;         // TmaBox with multicast
  std::vector<Expr> guards;
  Loc loc;
};

struct Region {
  std::map<std::string, std::vector<Event>> by_barrier;
};

// The buffer name of a barrier, seen locally or through map_shared_rank.
std::string barrier_name(const Expr& bar, Expr* mapped_rank) {
  Expr base = bar;
  if (const MapSharedRank* m = bar->as<MapSharedRank>()) {
    base = m->buffer;
    *mapped_rank = m->rank;
  }
  if (const SharedRef* s = base->as<SharedRef>()) return s->name;
  return {};
}

class Collector {
 public:
  explicit Collector(const Kernel& k) : k_(k) { regions_.emplace_back(); }
  std::vector<Region> regions_;

  void walk(const Stmt& s, std::vector<Expr>& guards, size_t region) {
    if (!s) return;
    if (const Block* b = s->as<Block>()) {
      for (const Stmt& c : b->body) walk(c, guards, region);
    } else if (const If* i = s->as<If>()) {
      guards.push_back(i->cond);
      walk(i->then_body, guards, region);
      guards.back() = Unary::make(UnOp::Not, i->cond);
      walk(i->else_body, guards, region);
      guards.pop_back();
    } else if (const For* f = s->as<For>()) {
      regions_.emplace_back();
      walk(f->body, guards, regions_.size() - 1);
    } else if (const MbarrierArrive* a = s->as<MbarrierArrive>()) {
      if (a->tx) add(a->bar, a->index, Event{Event::Expect, a->tx, nullptr, nullptr, guards, a->loc}, region);
    } else if (const TmaLoad* t = s->as<TmaLoad>()) {
      const TensorMapDecl* d = k_.find_tensor_map(t->tmap->as<VarRef>()->name);
      if (d && d->rank == t->coords.size())
        add(t->bar, t->bar_index, Event{Event::TmaBox, IntImm::make(Scalar::I64, int64_t(d->box_bytes())), nullptr, t->mask, guards, t->loc}, region);
    } else if (const BulkCopy* c = s->as<BulkCopy>()) {
      add(c->bar, c->bar_index, Event{Event::PeerCopy, IntImm::make(Scalar::I64, c->bytes), nullptr, nullptr, guards, c->loc}, region);
    } else if (const StAsync* st = s->as<StAsync>()) {
      add(st->bar, st->bar_index, Event{Event::PeerCopy, IntImm::make(Scalar::I64, scalar_bytes(st->value->type.scalar)), nullptr, nullptr,
                         guards, st->loc},
          region);
    }
  }

 private:
  void add(const Expr& bar, const Expr& index, Event e, size_t region) {
    Expr rank;
    std::string name = barrier_name(bar, &rank);
    if (name.empty()) return;
    // Each barrier of an array has its own phases: a constant index names one;
    // a run-time index (a pipeline stage) stands for any of them.
    if (std::optional<int64_t> i = const_int(index)) name += "[" + std::to_string(*i) + "]";
    e.target_rank = rank;
    regions_[region].by_barrier[name].push_back(std::move(e));
  }
  const Kernel& k_;
};

struct Totals {
  std::vector<uint64_t> expected, landed;
  const Event* first_expect = nullptr;
  const Event* first_copy = nullptr;
  bool known = true;
};

Totals account(const Kernel& k, const std::vector<Event>& events) {
  const unsigned n = k.cluster.count();
  Totals t;
  t.expected.assign(n, 0);
  t.landed.assign(n, 0);
  for (const Event& e : events) {
    if (e.kind == Event::Expect && !t.first_expect) t.first_expect = &e;
    if (e.kind != Event::Expect && !t.first_copy) t.first_copy = &e;
    for (unsigned s = 0; s < n; ++s) {
      EvalEnv env{k.cluster, k.block, s, std::nullopt};
      std::optional<uint64_t> threads = threads_running(k, e.guards, s);
      std::optional<int64_t> amount = eval_int(e.amount, env);
      if (!threads || !amount) return t.known = false, t;
      if (*threads == 0) continue;
      const uint64_t bytes = *threads * static_cast<uint64_t>(*amount);
      std::vector<unsigned> receivers;
      if (e.kind == Event::TmaBox && e.mask) {
        std::optional<int64_t> m = eval_int(e.mask, env);
        if (!m) return t.known = false, t;
        for (unsigned c = 0; c < n && c < 32; ++c)
          if ((static_cast<uint64_t>(*m) >> c) & 1) receivers.push_back(c);
      } else if (e.target_rank) {
        std::optional<int64_t> r = eval_int(e.target_rank, env);
        if (!r || *r < 0 || *r >= int64_t(n)) return t.known = false, t;
        receivers.push_back(static_cast<unsigned>(*r));
      } else {
        receivers.push_back(s);
      }
      for (unsigned c : receivers) (e.kind == Event::Expect ? t.expected : t.landed)[c] += bytes;
    }
  }
  return t;
}

}  // namespace

std::vector<Diagnostic> verify_transactions(const Kernel& k, const Target& target) {
  std::vector<Diagnostic> out;
  Collector c(k);
  std::vector<Expr> guards;
  c.walk(k.body, guards, 0);
  for (const Region& region : c.regions_) {
    for (const auto& [name, events] : region.by_barrier) {
      Totals t = account(k, events);
      if (!t.known) continue;
      for (unsigned r = 0; r < t.expected.size(); ++r) {
        if (t.expected[r] == t.landed[r]) continue;
        const Event* at = t.first_expect ? t.first_expect : t.first_copy;
        std::string where;
        if (t.first_expect) where += " (arrive_expect_tx at " + t.first_expect->loc.str() + ")";
        std::string copies = t.first_copy ? " (first copy at " + t.first_copy->loc.str() + ")" : "";
        out.push_back({at->loc,
                       "transaction bytes of barrier '" + name + "' do not match in CTA rank " + std::to_string(r) +
                           ": " + std::to_string(t.expected[r]) + " bytes announced with expect_tx" + where + ", " +
                           std::to_string(t.landed[r]) + " bytes delivered by the copies completing on it" + copies,
                       t.landed[r] > t.expected[r] && t.first_copy
                           ? "announce box bytes x copies x multicast senders into this CTA; a copy issued by every "
                             "thread is issued " + std::to_string(k.block.count()) + " times: guard it with if_(thread_idx_x() == 0, ...)"
                           : "announce exactly the bytes that land in this CTA per phase, or add the missing copies"});
        break;
      }
    }
  }
  return out;
}

}  // namespace tj::codegen

#include "codegen/schedules/dynamic_sites.h"

#include <map>
#include <optional>
#include <string>

#include "codegen/analysis/eval.h"
#include "codegen/analysis/guards.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/loops.h"
#include "dsl/ir/printer.h"

namespace tj::codegen::schedules {
namespace {

using namespace tj::ir;

struct Found {
  const ForEachTile* node;
  std::vector<Expr> guards;  // the roles and if_ conditions around it (negated in else branches)
  std::string enclosing;     // "" or what it is nested in ("a loop at f.cpp:3")
};

void find(const Stmt& s, std::vector<Expr>& guards, const std::string& enclosing, std::vector<Found>& out) {
  if (!s) return;
  if (const Block* b = s->as<Block>()) {
    for (const Stmt& c : b->body) find(c, guards, enclosing, out);
  } else if (const If* i = s->as<If>()) {
    guards.push_back(i->cond);
    find(i->then_body, guards, enclosing, out);
    guards.back() = Unary::make(UnOp::Not, i->cond);
    find(i->else_body, guards, enclosing, out);
    guards.pop_back();
  } else if (const Role* r = s->as<Role>()) {
    guards.push_back(r->condition());
    find(r->body, guards, enclosing, out);
    guards.pop_back();
  } else if (std::optional<LoopView> l = as_loop(*s)) {
    find(l->body, guards, enclosing.empty() ? "a loop at " + s->loc.str() : enclosing, out);
  } else if (const ForEachTile* t = s->as<ForEachTile>()) {
    if (t->schedule.kind == ScheduleKind::Dynamic) out.push_back({t, guards, enclosing});
    find(t->body, guards, enclosing.empty() ? "the for_each_tile at " + s->loc.str() : enclosing, out);
  }
}

std::string thread_text(const Dim3& t, const Kernel& k) {
  if (k.block.y == 1 && k.block.z == 1) return std::to_string(t.x);
  return "(" + std::to_string(t.x) + "," + std::to_string(t.y) + "," + std::to_string(t.z) + ")";
}

std::string grid_text(const ForEachTile& t) {
  return "[" + to_string(t.tiles_m) + " x " + to_string(t.tiles_n) + (t.splits ? " x " + to_string(t.splits) + " splits" : "") + "]";
}

const char* kWhoFix =
    "walk the dynamic schedule under conditions on the thread and CTA index only (roles, thread_idx_x(), "
    "cluster_ctarank()), so that its barriers can count the threads that receive each unit";

}  // namespace

uint64_t DynamicSite::walkers() const {
  uint64_t n = 0;
  for (const auto& r : threads) n += r.size();
  return n;
}

std::vector<DynamicSite> dynamic_sites(const Kernel& k) {
  std::vector<Found> found;
  std::vector<Expr> guards;
  find(k.body, guards, "", found);
  std::vector<Diagnostic> errors;
  const Defs defs = single_assignment_defs(k);
  std::vector<DynamicSite> sites;
  // Which walk each thread of each rank reaches first, to refuse a second.
  std::map<std::pair<unsigned, uint64_t>, const ForEachTile*> owner;
  for (const Found& f : found) {
    const ForEachTile& t = *f.node;
    if (!f.enclosing.empty()) {
      errors.push_back({t.loc, "for_each_tile with a dynamic schedule inside " + f.enclosing +
                                   ": the units it claims are handed out once per launch, so each thread walks it once",
                        "call for_each_tile(dynamic(...), ...) once per role, outside loops and other for_each_tile"});
      continue;
    }
    if (!sites.empty()) {
      const ForEachTile& first = *sites.front().node;
      if (!(first.schedule == t.schedule) || grid_text(first) != grid_text(t))
        errors.push_back({t.loc, "for_each_tile walks a dynamic schedule over " + grid_text(t) + " with " +
                                     std::to_string(t.schedule.slots) + " slots, but the one at " + first.loc.str() +
                                     " walks " + grid_text(first) + " with " + std::to_string(first.schedule.slots) +
                                     " slots: the roles of a kernel share one dynamic schedule",
                          "pass the same dynamic(...), tile counts and splits to every for_each_tile of the kernel"});
    }
    DynamicSite site{&t, std::vector<std::vector<Dim3>>(k.cluster.count())};
    bool known = true;
    for (unsigned rank = 0; rank < k.cluster.count() && known; ++rank)
      for (unsigned z = 0; z < k.block.z && known; ++z)
        for (unsigned y = 0; y < k.block.y && known; ++y)
          for (unsigned x = 0; x < k.block.x && known; ++x) {
            const Dim3 thread{x, y, z};
            EvalEnv env{k.cluster, k.block, rank, thread, nullptr, &defs};
            bool runs = true;
            for (const Expr& g : f.guards) {
              std::optional<int64_t> v = eval_int(g, env);
              if (!v) {
                errors.push_back({t.loc, "for_each_tile with a dynamic schedule runs under the condition " + to_string(g) +
                                             ", which cannot be evaluated before run time",
                                  kWhoFix});
                known = false;
                break;
              }
              if (*v == 0) {
                runs = false;
                break;
              }
            }
            if (!known || !runs) continue;
            const uint64_t linear = (uint64_t(z) * k.block.y + y) * k.block.x + x;
            auto [it, fresh] = owner.insert({{rank, linear}, &t});
            if (!fresh) {
              errors.push_back({t.loc, "thread " + thread_text(thread, k) + " of CTA rank " + std::to_string(rank) +
                                           " walks the dynamic schedule here and at " + it->second->loc.str() +
                                           ": each unit is handed to every walker once",
                                "let each thread walk the schedule once: one for_each_tile per role (or per branch)"});
              known = false;
              break;
            }
            site.threads[rank].push_back(thread);
          }
    if (known && site.walkers() > 0) sites.push_back(std::move(site));
  }
  if (!errors.empty()) throw UserError(std::move(errors));
  return sites;
}

}  // namespace tj::codegen::schedules

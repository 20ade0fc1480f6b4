#include "codegen/passes/verify_async.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "codegen/analysis/eval.h"
#include "codegen/op_table.h"
#include "dsl/ir/printer.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

std::string name_of(const Expr& p) {
  if (auto* s = p->as<SharedRef>()) return "'" + s->name + "'";
  if (auto* v = p->as<VarRef>()) return "'" + v->name + "'";
  if (auto* m = p->as<MapSharedRank>()) return name_of(m->buffer) + " of a peer CTA";
  return "'" + to_string(p) + "'";
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

void check_tensor_map(const TensorMapDecl& t, std::vector<Diagnostic>& out) {
  const std::string what = "tensor map '" + t.name + "'";
  if (t.rank < 1 || t.rank > 5) {
    out.push_back({t.loc, what + " has rank " + std::to_string(t.rank) + "; TMA takes 1 to 5 dimensions", "give 1 to 5 box dimensions"});
    return;
  }
  if (t.dtype == Scalar::Bool || is_opaque(t.dtype)) {
    out.push_back({t.loc, what + " has element type " + std::string(scalar_name(t.dtype)) + ", which TMA cannot copy",
                   "use u8, bf16, i32, u32, f32, i64 or u64 elements"});
    return;
  }
  for (unsigned i = 0; i < t.rank; ++i)
    if (t.box[i] == 0 || t.box[i] > 256)
      out.push_back({t.loc, what + " box dimension " + std::to_string(i) + " is " + std::to_string(t.box[i]) +
                                "; TMA boxes have 1 to 256 elements per dimension",
                     "split the tile into several boxes of at most 256"});
  const uint64_t inner = uint64_t(t.box[0]) * scalar_bytes(t.dtype);
  if (inner % 16 != 0)
    out.push_back({t.loc, what + " inner box is " + std::to_string(inner) + " bytes (" + std::to_string(t.box[0]) + " x " +
                              std::string(scalar_name(t.dtype)) + "); TMA needs a multiple of 16 bytes",
                   "make box[0] a multiple of " + std::to_string(16 / std::max(1u, scalar_bytes(t.dtype))) + " elements"});
  if (unsigned span = swizzle_span(t.swizzle); span && inner > span)
    out.push_back({t.loc, what + " inner box is " + std::to_string(inner) + " bytes, wider than its " +
                              std::string(swizzle_name(t.swizzle)) + " swizzle span",
                   "use box[0] <= " + std::to_string(span / scalar_bytes(t.dtype)) + " elements, or a wider swizzle"});
}

class AsyncChecker : public Visitor {
 public:
  AsyncChecker(const Kernel& k, std::vector<Diagnostic>& out) : k_(k), out_(out) {}

  // Conditions of the enclosing ifs: a mask matters only in ranks that issue the load.
  void visit_node(const If& n) override {
    visit(n.cond);
    guards_.push_back(n.cond);
    visit(n.then_body);
    guards_.back() = Unary::make(UnOp::Not, n.cond);
    visit(n.else_body);
    guards_.pop_back();
  }

  void visit_node(const Load& n) override {
    if (is_opaque(n.type.scalar))
      err(n.loc, "buffer " + name_of(n.ptr) + " holds " + std::string(scalar_name(n.type.scalar)) +
                     " objects, which cannot be read as values",
          "use arrive()/wait() on barriers; tensor maps are only passed to tma_load/tma_store");
    Visitor::visit_node(n);
  }
  void visit_node(const Store& n) override {
    if (is_opaque(n.value->type.scalar))
      err(n.loc, "buffer " + name_of(n.ptr) + " holds " + std::string(scalar_name(n.value->type.scalar)) +
                     " objects, which cannot be written as values",
          "barriers are initialized for you at kernel start");
    Visitor::visit_node(n);
  }
  void visit_node(const MbarrierWait& n) override {
    if (n.bar->type.space != Space::Shared)
      err(n.loc, "wait() on " + name_of(n.bar) + ": a thread can only wait on its own CTA's barriers",
          "wait on the local barrier; have the peer arrive on yours with map_shared_rank");
    barrier_elements(n.bar, n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const MbarrierSkip& n) override {
    if (n.bar->type.space != Space::Shared)
      err(n.loc, "skip_phases() on " + name_of(n.bar) + ": a thread tracks phases of its own CTA's barriers only",
          "skip phases of the local barriers");
    barrier_elements(n.bar, n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const MbarrierArrive& n) override {
    barrier_elements(n.bar, n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const TmaLoad& n) override {
    const TensorMapDecl* t = tensor_map(n.tmap, n.coords.size(), n.loc);
    if (n.dst->type.space != Space::Shared)
      err(n.loc, "tma_load into " + name_of(n.dst) + " (" + n.dst->type.str() + "): TMA loads land in this CTA's shared memory",
          "load into a shared buffer; multicast reaches the peers");
    if (n.bar->type.space != Space::Shared)
      err(n.loc, "tma_load completes on " + name_of(n.bar) + ", which is not this CTA's barrier",
          "pass a barrier of this CTA; with multicast each receiving CTA's barrier at the same offset is signalled");
    if (t && n.dst->type.space == Space::Shared) fits(n.dst, n.dst_index, t->box_bytes(), "tma_load", n.loc);
    if (n.mask && check_mask(n) && t) check_overlap(n, *t);
    Visitor::visit_node(n);
  }
  void visit_node(const TmaStore& n) override {
    const TensorMapDecl* t = tensor_map(n.tmap, n.coords.size(), n.loc);
    if (n.src->type.space != Space::Shared)
      err(n.loc, "tma_store from " + name_of(n.src) + " (" + n.src->type.str() + "): TMA stores read this CTA's shared memory",
          "stage the tile in a shared buffer first");
    else if (t) fits(n.src, n.src_index, t->box_bytes(), "tma_store", n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const TmaPrefetch& n) override {
    tensor_map(n.tmap, n.coords.size(), n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const BulkCopy& n) override {
    if (n.bytes == 0 || n.bytes % 16 != 0)
      err(n.loc, "bulk_copy_to_peer moves " + std::to_string(n.bytes) + " bytes; bulk copies move a non-zero multiple of 16",
          "round the size up to a multiple of 16 bytes");
    if (n.dst->type.space != Space::Cluster)
      err(n.loc, "bulk_copy_to_peer into " + name_of(n.dst) + ", which is not a peer's shared memory",
          "map the destination with map_shared_rank(buffer, rank)");
    if (n.src->type.space != Space::Shared)
      err(n.loc, "bulk_copy_to_peer from " + name_of(n.src) + ", which is not this CTA's shared memory", "copy from a shared buffer");
    if (n.bar->type.space != Space::Cluster)
      err(n.loc, "bulk_copy_to_peer completes on " + name_of(n.bar) + ", which is not mapped to the peer",
          "pass map_shared_rank(barrier, rank)[i], the barrier in the CTA that receives the bytes");
    same_cta(n.dst, n.bar, "bulk_copy_to_peer", n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const ClcTryCancel& n) override {
    if (n.response->type.space != Space::Shared)
      err(n.loc, "try_cancel answers into " + name_of(n.response) + ", which is not this CTA's shared memory",
          "pass a u32 shared buffer of at least 4 elements; with multicast every CTA's copy at the same offset is written");
    if (n.bar->type.space != Space::Shared)
      err(n.loc, "try_cancel completes on " + name_of(n.bar) + ", which is not this CTA's barrier",
          "pass a barrier of this CTA; with multicast each CTA's barrier at the same offset is signalled");
    if (std::optional<int64_t> i = const_int(n.response_index); i && *i % 4 != 0)
      err(n.loc, "try_cancel's 16-byte answer at element " + std::to_string(*i) + " of " + name_of(n.response) +
                     " is not 16-byte aligned",
          "use an element index that is a multiple of 4");
    if (n.response->type.space == Space::Shared) fits(n.response, n.response_index, 16, "try_cancel", n.loc);
    Visitor::visit_node(n);
  }
  void visit_node(const StAsync& n) override {
    if (n.dst->type.space != Space::Cluster || n.bar->type.space != Space::Cluster)
      err(n.loc, "st_async writes a peer's shared memory and signals its barrier; both must come from map_shared_rank",
          "map the destination and the barrier with map_shared_rank(..., rank)");
    else
      same_cta(n.dst, n.bar, "st_async", n.loc);
    Visitor::visit_node(n);
  }

 private:
  void err(const Loc& loc, std::string msg, std::string fix) { out_.push_back({loc, std::move(msg), std::move(fix)}); }

  // A copy into a peer's shared memory signals the barrier of the CTA the bytes land in:
  // the destination's and the barrier's map_shared_rank must name the same CTA, in every
  // rank that may issue it (where both ranks evaluate).
  void same_cta(const Expr& dst, const Expr& bar, const char* op, const Loc& loc) {
    const MapSharedRank* d = dst->as<MapSharedRank>();
    const MapSharedRank* b = bar->as<MapSharedRank>();
    if (!d || !b) return;
    for (unsigned r = 0; r < k_.cluster.count(); ++r) {
      if (threads_running(k_, guards_, r) == std::optional<uint64_t>(0)) continue;  // this rank never issues it
      const EvalEnv env{k_.cluster, k_.block, r, std::nullopt};
      const std::optional<int64_t> to = eval_int(d->rank, env), on = eval_int(b->rank, env);
      if (!to || !on || *to == *on) continue;
      err(loc, std::string(op) + " in CTA rank " + std::to_string(r) + " writes " + name_of(d->buffer) + " of CTA rank " +
                   std::to_string(*to) + " but completes on " + name_of(b->buffer) + " of CTA rank " + std::to_string(*on) +
                   ": the bytes must signal a barrier in the CTA they land in (PTX leaves any other undefined), so rank " + std::to_string(*to) +
                   "'s wait never sees them",
          "map the barrier to the destination's CTA: map_shared_rank(" + to_string(b->buffer) + ", <the rank given to " +
              to_string(d->buffer) + ">)");
      return;
    }
  }

  void barrier_elements(const Expr& bar, const Loc& loc) {
    const Expr& base = bar->as<MapSharedRank>() ? bar->as<MapSharedRank>()->buffer : bar;
    if (auto* s = base->as<SharedRef>())
      if (const SharedBuffer* b = k_.find_shared(s->name); b && b->count > 32 && !reported_.count(b->name)) {
        reported_.insert(b->name);
        err(b->loc, "mbarrier array '" + b->name + "' has " + std::to_string(b->count) +
                        " barriers; tilejit tracks the phases of at most 32 per array",
            "split it into several arrays of at most 32");
      }
  }

  const TensorMapDecl* tensor_map(const Expr& ref, size_t ncoords, const Loc& loc) {
    const VarRef* v = ref->as<VarRef>();
    const TensorMapDecl* t = v ? k_.find_tensor_map(v->name) : nullptr;
    if (!t) internal_error("tensor map parameter without a declaration");
    if (t->rank != ncoords) {
      err(loc, "tensor map '" + t->name + "' has rank " + std::to_string(t->rank) + " but " + std::to_string(ncoords) +
                   " coordinates were given",
          "give one coordinate per dimension, innermost first");
      return nullptr;
    }
    return t;
  }

  // The copy's box fits the buffer from a constant index on.
  void fits(const Expr& buf, const Expr& index, uint64_t bytes, const char* op, const Loc& loc) {
    auto* s = buf->as<SharedRef>();
    const SharedBuffer* b = s ? k_.find_shared(s->name) : nullptr;
    std::optional<int64_t> i = const_int(index);
    if (!b || !i || *i < 0) return;
    const uint64_t offset = uint64_t(*i) * scalar_bytes(b->elem);
    if (offset + bytes > b->bytes())
      err(loc, std::string(op) + " moves a " + std::to_string(bytes) + "-byte box at byte " + std::to_string(offset) + " of '" +
                   b->name + "', which has " + std::to_string(b->bytes()) + " bytes",
          "make the buffer at least " + std::to_string(offset + bytes) + " bytes");
  }

  // Whether the masks it could evaluate are sound (nothing reported).
  bool check_mask(const TmaLoad& n) {
    const unsigned size = k_.cluster.count();
    const uint64_t inside = size >= 64 ? ~0ull : (1ull << size) - 1;
    for (unsigned r = 0; r < size; ++r) {
      std::optional<uint64_t> issuers = threads_running(k_, guards_, r);
      if (issuers && *issuers == 0) continue;  // this rank never issues the load
      EvalEnv env{k_.cluster, k_.block, r, std::nullopt};
      std::optional<int64_t> m = eval_int(n.mask, env);
      if (!m) return true;  // depends on run-time values: nothing to prove here
      const uint64_t mask = static_cast<uint64_t>(*m) & 0xffffffffull;
      if (mask == 0) {
        err(n.loc, "multicast mask is empty in CTA rank " + std::to_string(r) + ": the box would go nowhere",
            "include at least one CTA, e.g. mask_all() or mask_rank(cluster_ctarank())");
        return false;
      }
      if (mask & ~inside) {
        err(n.loc, "multicast mask " + hex(mask) + " in CTA rank " + std::to_string(r) + " names CTAs outside the cluster of " +
                       std::to_string(size) + " (valid bits " + hex(inside) + ")",
            "mask with mask_all() or keep bits below " + std::to_string(size));
        return false;
      }
    }
    return true;
  }

  // Two ranks' boxes of one multicast load landing on the same bytes of a CTA they both
  // reach: one overwrites the other, and the bytes meant for the other slice get nothing
  // (the barrier still counts both). Decided where every issuing rank's mask and destination
  // evaluate; one thread per rank issuing it (more, or indices that depend on the thread or a
  // loop, are not decided here).
  void check_overlap(const TmaLoad& n, const TensorMapDecl& t) {
    auto* s = n.dst->as<SharedRef>();
    const SharedBuffer* b = s ? k_.find_shared(s->name) : nullptr;
    if (!b) return;
    struct Box {
      unsigned rank;
      uint64_t mask, begin;
    };
    std::vector<Box> boxes;
    for (unsigned r = 0; r < k_.cluster.count(); ++r) {
      const std::optional<uint64_t> issuers = threads_running(k_, guards_, r);
      if (issuers == std::optional<uint64_t>(0)) continue;
      if (issuers != std::optional<uint64_t>(1)) return;
      const EvalEnv env{k_.cluster, k_.block, r, std::nullopt};
      const std::optional<int64_t> m = eval_int(n.mask, env), i = eval_int(n.dst_index, env);
      if (!m || !i || *i < 0) return;
      boxes.push_back({r, uint64_t(*m) & 0xffffffffull, uint64_t(*i) * scalar_bytes(b->elem)});
    }
    const uint64_t bytes = t.box_bytes();
    for (size_t x = 0; x < boxes.size(); ++x)
      for (size_t y = x + 1; y < boxes.size(); ++y) {
        const Box &p = boxes[x], &q = boxes[y];
        const uint64_t both = p.mask & q.mask;
        if (!both || p.begin >= q.begin + bytes || q.begin >= p.begin + bytes) continue;
        unsigned cta = 0;
        while (!(both >> cta & 1)) ++cta;
        const uint64_t lo = std::max(p.begin, q.begin), hi = std::min(p.begin, q.begin) + bytes;
        err(n.loc, "multicast boxes of CTA ranks " + std::to_string(p.rank) + " and " + std::to_string(q.rank) + " (" +
                       std::to_string(bytes) + " bytes each) both land on bytes " + std::to_string(lo) + ".." +
                       std::to_string(hi - 1) + " of '" + b->name + "' in CTA rank " + std::to_string(cta) +
                       ": one overwrites the other, and the bytes meant for another slice get none",
            "give each rank its own slice: a destination and a coordinate that depend on cluster_ctarank(), e.g. " + b->name +
                "[cluster_ctarank() * " + std::to_string(bytes / scalar_bytes(b->elem)) +
                "]; if both carry the same data, issue the load from one rank");
        return;
      }
  }

  const Kernel& k_;
  std::vector<Diagnostic>& out_;
  std::set<std::string> reported_;
  std::vector<Expr> guards_;
};

// Cluster launch control exists on sm_100a only; Hopper's way to the same schedule is
// named in the fix.
void check_launch_control(const Kernel& k, const Target& target, std::vector<Diagnostic>& out) {
  if (supports(target, Op::LaunchControlOp)) return;
  struct Uses : Visitor {
    std::vector<std::pair<Loc, std::string>> found;
    void visit_node(const ClcTryCancel& n) override {
      found.push_back({n.loc, n.multicast ? "try_cancel (multicast)" : "try_cancel"});
      Visitor::visit_node(n);
    }
    void visit_node(const Intrinsic& n) override {
      if (intrinsic_rule(n.op) == IntrinsicRule::ClcQuery) found.push_back({n.loc, std::string(intrinsic_name(n.op))});
      Visitor::visit_node(n);
    }
  } uses;
  uses.visit(k.body);
  std::set<std::string> seen;
  for (const auto& [loc, what] : uses.found) {
    if (!seen.insert(loc.str() + what).second) continue;
    out.push_back({loc,
                   what + " is " + std::string(feature_name(missing_feature(target, Op::LaunchControlOp))) +
                       " (clusterlaunchcontrol), which " + target.arch + " lacks",
                   "on " + target.arch + " use for_each_tile(dynamic(...), ...): it claims units from an atomic counter "
                   "in the same ask-first protocol; or compile for " + supporting_targets_text(Op::LaunchControlOp)});
  }
}

// A pair load (.cta_group::2) exists on sm_100a only, and needs whole CTA pairs.
void check_pair_loads(const Kernel& k, const Target& target, std::vector<Diagnostic>& out) {
  struct Uses : Visitor {
    std::vector<const TmaLoad*> found;
    void visit_node(const TmaLoad& n) override {
      if (n.cta_group == 2) found.push_back(&n);
      Visitor::visit_node(n);
    }
  } uses;
  uses.visit(k.body);
  std::set<std::string> seen;
  const unsigned ctas = k.cluster.count();
  for (const TmaLoad* n : uses.found) {
    if (!seen.insert(n->loc.str()).second) continue;
    const std::string op = n->mask ? "tma_load_pair_multicast" : "tma_load_pair";
    if (!supports(target, Op::TmaLoadPair))
      out.push_back({n->loc,
                     op + " is " + std::string(feature_name(missing_feature(target, Op::TmaLoadPair))) +
                         " (cp.async.bulk.tensor .cta_group::2, for a CTA pair's 2-CTA MMA), which " + target.arch + " lacks",
                     "on " + target.arch + " each CTA loads its own part with tma_load (or shares it with tma_load_multicast) "
                     "and completes it on its own barrier; or compile for " + supporting_targets_text(Op::TmaLoadPair)});
    else if (ctas % 2 != 0)
      out.push_back({n->loc,
                     op + " completes on the barrier of the even CTA of a pair (ranks 2k, 2k + 1), but the cluster has " +
                         std::to_string(ctas) + (ctas == 1 ? " CTA" : " CTAs") + ": its last CTA has no partner",
                     "launch clusters of an even number of CTAs (k.cluster(2, ...)), or use tma_load"});
  }
}

}  // namespace

std::vector<Diagnostic> verify_async(const Kernel& k, const Target& target) {
  std::vector<Diagnostic> out;
  for (const TensorMapDecl& t : k.tensor_maps) check_tensor_map(t, out);
  bool uses_multicast = false;
  struct FindMulticast : Visitor {
    bool* found;
    void visit_node(const TmaLoad& n) override { *found |= n.mask != nullptr; }
  } find;
  find.found = &uses_multicast;
  find.visit(k.body);
  if (uses_multicast && !supports(target, Op::TmaLoadMulticast))
    out.push_back({k.loc,
                   "kernel '" + k.name + "' uses " + std::string(feature_name(missing_feature(target, Op::TmaLoadMulticast))) +
                       ", which " + target.arch + " lacks",
                   "compile for " + supporting_targets_text(Op::TmaLoadMulticast)});
  AsyncChecker checker(k, out);
  checker.visit(k.body);
  check_launch_control(k, target, out);
  check_pair_loads(k, target, out);
  return out;
}

}  // namespace tj::codegen

#include "codegen/schedules/dynamic.h"

#include <map>
#include <string>

#include "codegen/schedules/dynamic_sites.h"
#include "dsl/diagnostic.h"

namespace tj::codegen::schedules {
namespace {

using namespace tj::ir;

constexpr const char* kAnswer = "tj_dyn_answer";
constexpr const char* kFull = "tj_dyn_full";
constexpr const char* kEmpty = "tj_dyn_empty";
constexpr const char* kCounter = "tj_dyn_counter";
constexpr unsigned kMaxSlots = 8;

Expr imm(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr u32(int64_t v) { return IntImm::make(Scalar::U32, v); }
Expr bin(BinOp op, Expr a, Expr b) { return Binary::make(op, std::move(a), std::move(b)); }
Expr reg(SpecialRegKind r) { return SpecialReg::make(r); }
Expr shared(const std::string& name, Scalar elem) { return SharedRef::make(name, elem); }
Stmt block(std::vector<Stmt> b, const Loc& loc) { return Block::make(std::move(b), loc); }

struct DynamicPlan final : KernelPlan {
  std::map<const ForEachTile*, std::string> empty;  // each walk's empty ring
  std::vector<std::string> rings;                    // all of them, in program order
  const ForEachTile* scheduler_site = nullptr;
  Expr scheduler;  // the condition "this thread claims"
  bool launch_control = false;  // sm_100a: try_cancel; else the counter
};

// The scheduler: the lowest-numbered walker of CTA rank 0 (the first role's first
// thread that walks), in rank 0 of a cluster.
Expr scheduler_condition(const Kernel& k, const Dim3& t) {
  Expr c = bin(BinOp::Eq, reg(SpecialRegKind::ThreadIdxX), imm(t.x));
  if (k.block.y > 1) c = bin(BinOp::And, c, bin(BinOp::Eq, reg(SpecialRegKind::ThreadIdxY), imm(t.y)));
  if (k.block.z > 1) c = bin(BinOp::And, c, bin(BinOp::Eq, reg(SpecialRegKind::ThreadIdxZ), imm(t.z)));
  if (k.cluster.count() > 1) c = bin(BinOp::And, bin(BinOp::Eq, reg(SpecialRegKind::ClusterCtaRank), imm(0)), c);
  return c;
}

class Dynamic final : public Schedule {
 public:
  std::string_view name() const override { return "dynamic"; }

  std::shared_ptr<const KernelPlan> prepare(Kernel& k, const Target& target) const override {
    std::vector<DynamicSite> sites = dynamic_sites(k);
    if (sites.empty()) return nullptr;
    const ForEachTile& first = *sites.front().node;
    const unsigned slots = first.schedule.slots;
    if (slots > kMaxSlots)
      throw UserError(first.loc, "dynamic schedule with " + std::to_string(slots) + " slots; at most " +
                                     std::to_string(kMaxSlots) + " claims may be in flight",
                      "use 1 to " + std::to_string(kMaxSlots) + " slots (2 lets one role run a unit ahead of another)");
    auto plan = std::make_shared<DynamicPlan>();
    plan->launch_control = target.has(Feature::ClusterLaunchControl);
    // The scheduler: rank 0's lowest walker, over every walk.
    uint64_t best = UINT64_MAX;
    Dim3 who;
    for (const DynamicSite& s : sites)
      for (const Dim3& t : s.threads[0]) {
        const uint64_t linear = (uint64_t(t.z) * k.block.y + t.y) * k.block.x + t.x;
        if (linear < best) best = linear, who = t, plan->scheduler_site = s.node;
      }
    if (!plan->scheduler_site)
      throw UserError(first.loc, "no thread of CTA rank 0 walks the dynamic schedule; its scheduler claims units there",
                      "let some thread of CTA rank 0 walk it (the conditions around for_each_tile exclude rank 0 now)");
    plan->scheduler = scheduler_condition(k, who);

    // The ring: answers, full barriers (the scheduler's one arrival per phase), and an
    // empty ring per walk counting its walkers in every CTA (they arrive on rank 0's).
    k.shared.push_back(SharedBuffer{kAnswer, Scalar::U32, 4ull * slots, false, first.loc});
    k.shared.back().uniform_reads = true;  // every walker reads a slot after its full phase, until all let it go
    SharedBuffer full{kFull, Scalar::MBarrier, slots, false, first.loc};
    full.arrivals = 1;
    k.shared.push_back(full);
    for (size_t i = 0; i < sites.size(); ++i) {
      const uint64_t walkers = sites[i].walkers();
      if (walkers >= (1u << 20))
        throw UserError(sites[i].node->loc, std::to_string(walkers) + " threads walk this dynamic schedule; an mbarrier counts at most 2^20 - 1",
                        "walk it with fewer threads (one thread per warp, say)");
      const std::string name = kEmpty + std::to_string(i);
      SharedBuffer empty{name, Scalar::MBarrier, slots, false, sites[i].node->loc};
      empty.arrivals = unsigned(walkers);
      k.shared.push_back(empty);
      plan->empty[sites[i].node] = name;
      plan->rings.push_back(name);
    }
    if (!plan->launch_control)
      k.params.push_back(Param{kCounter, Type::pointer(Scalar::U32, Space::Global), first.loc,
                               Workspace{IntImm::make(Scalar::I64, 1), true}});
    // The units a launch has, for the host to size the grid: the unit space of
    // lower_schedules, from the first walk's expressions.
    k.schedule_grid = ScheduleGrid{unit_count(first, k), plan->launch_control};
    return plan;
  }

  UnitWalk walk(const UnitSpace&, std::vector<Stmt>&) const override {
    internal_error("dynamic schedule: its loop is a while loop on the claimed predicate, not a walk");
  }

  void decode(const UnitSpace& s, const Expr& unit, std::vector<Stmt>& into) const override { decode_grouped(s, unit, into); }

  // unit = this cluster's id; valid = unit < units; k = 0;
  // while (valid) {
  //   slot = k % slots;
  //   if (scheduler) { if (k >= slots) wait every empty ring's [slot]; claim into slot }  // ask first
  //   decode(unit); body                                                                   // then compute
  //   wait(full[slot]); answer = the slot; valid = claimed(answer);
  //   if (valid) unit = the claimed unit; arrive on this walk's empty ring [slot] in rank 0; ++k;
  // }
  Stmt loop(const UnitSpace& s, std::vector<Stmt>& prologue, const UnitBody& body) const override {
    const DynamicPlan* plan = dynamic_cast<const DynamicPlan*>(s.plan);
    if (!plan) internal_error("dynamic schedule: lowered without its plan");
    const ForEachTile& t = s.node;
    const Loc& loc = t.loc;
    const unsigned slots = t.schedule.slots;
    declare_grouping(s, prologue);
    const Expr first = reg(s.clustered() ? SpecialRegKind::ClusterIdX : SpecialRegKind::BlockIdxX);
    Expr unit = s.let(prologue, "unit", first);
    prologue.push_back(Declare::make(s.prefix + "valid", bin(BinOp::Lt, first, s.units), loc));
    Expr valid = VarRef::make(s.prefix + "valid", Type::of(Scalar::Bool), loc);
    Expr k = s.let(prologue, "k", imm(0));

    std::vector<Stmt> iter;
    Expr slot = s.let(iter, "slot", bin(BinOp::Mod, k, imm(slots)));
    if (&t == plan->scheduler_site) iter.push_back(If::make(plan->scheduler, claim(s, *plan, k, slot), nullptr, loc));
    iter.push_back(body(unit));
    // Receive: every walker reads the answer once its phase completed.
    iter.push_back(MbarrierWait::make(shared(kFull, Scalar::MBarrier), slot, loc));
    auto lane = [&](int j) {
      return Load::make(shared(kAnswer, Scalar::U32), bin(BinOp::Add, bin(BinOp::Mul, slot, imm(4)), imm(j)), loc);
    };
    Expr claimed, next;
    if (plan->launch_control) {
      // The hardware's opaque 16-byte answer, decoded by query_cancel.
      iter.push_back(Declare::make(s.prefix + "answer", VectorPack::make({lane(0), lane(1), lane(2), lane(3)}, loc), loc));
      Expr answer = VarRef::make(s.prefix + "answer", Type::of(Scalar::U32x4), loc);
      claimed = Intrinsic::make(IntrinsicOp::ClcIsCanceled, {answer}, loc);
      next = bin(BinOp::Div, Intrinsic::make(IntrinsicOp::ClcFirstCtaidX, {answer}, loc), imm(s.kernel.cluster.x));
    } else {
      // The scheduler's answer: {claimed, unit}.
      claimed = bin(BinOp::Ne, lane(0), u32(0));
      next = Cast::make(Scalar::I32, lane(1));
    }
    iter.push_back(Assign::make(valid, claimed, loc));
    // The unit is read only when one was claimed.
    iter.push_back(If::make(valid, block({Assign::make(unit, next, loc)}, loc), nullptr, loc));
    Expr empty = shared(plan->empty.at(&t), Scalar::MBarrier);
    if (s.clustered()) empty = MapSharedRank::make(empty, imm(0), loc);
    iter.push_back(MbarrierArrive::make(empty, slot, nullptr, loc));
    iter.push_back(Assign::make(k, bin(BinOp::Add, k, imm(1)), loc));
    return While::make(valid, block(std::move(iter), loc), loc, LoopUnits{unit, s.unit_count});
  }

 private:
  // The scheduler's claim of the next unit into `slot`, once every walk gave it back.
  Stmt claim(const UnitSpace& s, const DynamicPlan& plan, const Expr& k, const Expr& slot) const {
    const Loc& loc = s.node.loc;
    const unsigned ranks = s.kernel.cluster.count();
    std::vector<Stmt> out;
    std::vector<Stmt> waits;
    for (const std::string& ring : plan.rings) waits.push_back(MbarrierWait::make(shared(ring, Scalar::MBarrier), slot, loc));
    out.push_back(If::make(bin(BinOp::Ge, k, imm(s.node.schedule.slots)), block(std::move(waits), loc), nullptr, loc));
    const Expr full = shared(kFull, Scalar::MBarrier), answer = shared(kAnswer, Scalar::U32);
    auto in_rank = [&](const Expr& buffer, unsigned r) { return s.clustered() ? MapSharedRank::make(buffer, imm(r), loc) : buffer; };
    const Expr at = bin(BinOp::Mul, slot, imm(4));
    if (plan.launch_control) {
      // Each CTA's full[slot] expects the answer's 16 bytes; the scheduler's arrival is
      // the phase's one (before or after the bytes land: the phase needs both).
      for (unsigned r = 0; r < ranks; ++r)
        out.push_back(MbarrierArrive::make(in_rank(full, r), slot, IntImm::make(Scalar::U32, 16), loc));
      out.push_back(ClcTryCancel::make(answer, at, full, slot, s.clustered(), loc));
      return block(std::move(out), loc);
    }
    // sm_90a: the units after the first wave are claimed in counter order.
    const Expr counter = VarRef::make(kCounter, Type::pointer(Scalar::U32, Space::Global), loc);
    const std::string old = s.prefix + "old";
    out.push_back(AtomicFetchAdd::make(old, counter, imm(0), u32(1), MemoryOrder::Relaxed, MemoryScope::Gpu, loc));
    const Expr old_i = Cast::make(Scalar::I32, VarRef::make(old, Type::of(Scalar::U32), loc));
    const Expr clusters = reg(s.clustered() ? SpecialRegKind::NumClustersX : SpecialRegKind::GridDimX);
    Expr next = s.let(out, "next", bin(BinOp::Add, old_i, clusters));
    // The launch's last claim (units in all: see dynamic.h) leaves the counter at 0.
    out.push_back(If::make(bin(BinOp::Eq, old_i, bin(BinOp::Sub, s.units, imm(1))),
                           block({Store::make(counter, imm(0), u32(0), loc)}, loc), nullptr, loc));
    // The answer {claimed, unit}: into this CTA with stores and an arrive; into each peer
    // with st.async, whose 8 bytes complete on the peer's full[slot] (announced by the
    // scheduler's arrive_expect_tx there), in the tx shape of the sm_100a answer.
    const Expr got = Select::make(bin(BinOp::Lt, next, s.units), u32(1), u32(0));
    const Expr unit = Cast::make(Scalar::U32, next), at1 = bin(BinOp::Add, at, imm(1));
    out.push_back(Store::make(answer, at, got, loc));
    out.push_back(Store::make(answer, at1, unit, loc));
    out.push_back(MbarrierArrive::make(full, slot, nullptr, loc));
    for (unsigned r = 1; r < ranks; ++r) {
      const Expr peer_full = in_rank(full, r);
      out.push_back(MbarrierArrive::make(peer_full, slot, IntImm::make(Scalar::U32, 8), loc));
      out.push_back(StAsync::make(in_rank(answer, r), at, got, peer_full, slot, loc));
      out.push_back(StAsync::make(in_rank(answer, r), at1, unit, peer_full, slot, loc));
    }
    return block(std::move(out), loc);
  }
};

}  // namespace

const Schedule& dynamic_schedule() {
  static const Dynamic schedule;
  return schedule;
}

}  // namespace tj::codegen::schedules

#include "dsl/tile.h"

#include "dsl/diagnostic.h"
#include "dsl/tensor_memory.h"

namespace tj::dsl {
namespace {

ir::Loc L(const SrcLoc& l) { return ir::Loc::from(l); }

// Named barrier ids: 0 is sync_threads, 1..7 a role's warpgroups together,
// 8..15 one warpgroup of the CTA.
constexpr unsigned kRoleBarrierBase = 1, kWarpgroupBarrierBase = 8, kMaxWarpgroups = 8;

const ir::Role& role_here(const char* what, const SrcLoc& loc) {
  const ir::Role* r = KernelBuilder::active(loc).current_role();
  if (!r)
    throw UserError(L(loc), std::string(what) + " outside a warpgroup role",
                    "call it inside k.role(name, warpgroups, max_regs, body): it needs whole warpgroups");
  return *r;
}

}  // namespace

SharedTile KernelBuilder::add_tile(std::string name, ir::Scalar elem, unsigned rows, unsigned cols, unsigned stages,
                                   ir::Major major, ir::Swizzle swizzle, const SrcLoc& loc) {
  ir::TileLayout t{rows, cols, swizzle, major, stages, elem};
  const unsigned span = ir::swizzle_span(swizzle);
  if (rows == 0 || cols == 0 || stages == 0)
    throw UserError(L(loc), "tile '" + name + "' is " + std::to_string(stages) + " x " + std::to_string(rows) + "x" +
                                std::to_string(cols) + ": every extent must be at least 1",
                    "give rows, cols and stages of at least 1");
  if (span && (uint64_t(cols) * ir::scalar_bytes(elem)) % span != 0)
    throw UserError(L(loc), "tile '" + name + "' has rows of " + std::to_string(cols * ir::scalar_bytes(elem)) +
                                " bytes, not a multiple of its " + std::string(ir::swizzle_name(swizzle)) + " swizzle span",
                    "make cols a multiple of " + std::to_string(span / ir::scalar_bytes(elem)) + " elements");
  if (span && rows % 8 != 0)
    throw UserError(L(loc), "tile '" + name + "' has " + std::to_string(rows) + " rows; a swizzled tile needs a multiple of 8",
                    "the swizzle pattern repeats every 8 rows: use a multiple of 8 rows");
  ir::Expr ref = add_shared(std::move(name), elem, t.stage_elems() * stages, true, loc);
  kernel_.shared.back().align = 1024;  // the swizzle pattern is anchored at 1024-byte boundaries
  kernel_.shared.back().tile = t;
  return SharedTile{ref, t, kernel_.shared.back().name};
}

TileMap KernelBuilder::tile_map(std::string name, const SharedTile& tile, unsigned box_rows, SrcLoc loc) {
  if (box_rows == 0 || tile.layout.rows % box_rows != 0)
    throw UserError(L(loc), "tile map '" + name + "' loads boxes of " + std::to_string(box_rows) + " rows into tile '" +
                                tile.name + "' of " + std::to_string(tile.layout.rows) + " rows",
                    "use a box_rows that divides the tile's rows");
  // TMA writes a swizzled box at a 128-byte aligned address, in the pattern the address bits
  // give it: a box starting inside the tile's 8-row swizzle atom lands as that part of the
  // whole tile would.
  const unsigned span = ir::swizzle_span(tile.layout.swizzle);
  if (span && uint64_t(box_rows) * span % 128 != 0)
    throw UserError(L(loc), "tile map '" + name + "' has boxes of " + std::to_string(box_rows) + " rows of " + std::to_string(span) +
                                " bytes; slices of a swizzled tile must start 128-byte aligned",
                    "use a multiple of " + std::to_string(128 / span) + " rows");
  TensorMap m = add_tensor_map(std::move(name), tile.layout.elem, {tile.layout.panel_cols(), box_rows}, tile.layout.swizzle, loc);
  return TileMap{m, tile.layout, box_rows};
}

Accumulator KernelBuilder::accumulator(std::string name, unsigned m, unsigned n, SrcLoc loc) {
  return accumulator(std::move(name), m, n, 1, loc);
}

Accumulator KernelBuilder::accumulator(std::string name, unsigned m, unsigned n, unsigned stages, SrcLoc loc) {
  name = claim_name(std::move(name), loc);
  if (stages == 0 || stages > 4)
    throw UserError(L(loc), "accumulator '" + name + "' with " + std::to_string(stages) + " stages",
                    "give it 1 to 4 buffers (tensor memory holds 512 columns)");
  if (m == 0 || m % 64 != 0 || n == 0 || n % 8 != 0 || n > 512)
    throw UserError(L(loc), "accumulator '" + name + "' is " + std::to_string(m) + " x " + std::to_string(n),
                    "a warpgroup's accumulator is a multiple of 64 rows by 8..512 columns (a multiple of 8)");
  ir::AccumulatorDecl decl{name, m, n, L(loc)};
  decl.stages = stages;
  kernel_.accumulators.push_back(decl);
  return Accumulator{name, m, n, stages};
}

RowFragment KernelBuilder::row_fragment(std::string name, unsigned m, SrcLoc loc) {
  name = claim_name(std::move(name), loc);
  if (m == 0 || m % 64 != 0)
    throw UserError(L(loc), "row fragment '" + name + "' has " + std::to_string(m) + " rows",
                    "give it the rows of the accumulators it goes with: a multiple of 64");
  kernel_.accumulators.push_back(ir::AccumulatorDecl{name, m, 0, L(loc), ir::FragmentKind::Rows});
  return RowFragment{name, m};
}

void KernelBuilder::role(std::string name, unsigned warpgroups, unsigned max_regs, const std::function<void(i32)>& body,
                         SrcLoc loc) {
  if (!roles_.empty())
    throw UserError(L(loc), "role '" + name + "' inside role '" + roles_.back().name + "'", "roles do not nest: declare them one after another");
  if (depth() != 1)
    throw UserError(L(loc), "role '" + name + "' inside a loop or condition", "declare roles at the top of the kernel body");
  if (warpgroups == 0)
    throw UserError(L(loc), "role '" + name + "' has no warpgroups", "give it at least one warpgroup (128 threads)");
  if (max_regs != 0 && (max_regs < 24 || max_regs > 256 || max_regs % 8 != 0))
    throw UserError(L(loc), "role '" + name + "' asks for " + std::to_string(max_regs) + " registers per thread",
                    "setmaxnreg takes a multiple of 8 from 24 to 256 (or 0 to keep the launch's allocation)");
  if (kRoleBarrierBase + role_count_ >= turn_floor_)
    throw UserError(L(loc), "role '" + name + "' needs named barrier " + std::to_string(kRoleBarrierBase + role_count_) +
                                ", which turns declared before it took",
                    "declare the roles before taking turns in them (k.turns inside the role's body)");
  if (next_warpgroup_ + warpgroups > kMaxWarpgroups || role_count_ + 1 >= kWarpgroupBarrierBase)
    throw UserError(L(loc), "role '" + name + "' would use warpgroups " + std::to_string(next_warpgroup_) + ".." +
                                std::to_string(next_warpgroup_ + warpgroups - 1) + "; a CTA has at most 8 (1024 threads)",
                    "use fewer warpgroups");
  const unsigned first = next_warpgroup_;
  roles_.emplace_back(name, first, warpgroups, max_regs, role_count_, nullptr, L(loc), std::string());
  next_warpgroup_ += warpgroups;
  ++role_count_;
  push_block("role", L(loc));
  i32 wg = var(thread_idx_x() / 128 - int32_t(first), "wg", loc);
  const std::string index_var = wg.expr()->as<ir::VarRef>()->name;
  body(wg);
  ir::Stmt inner = ir::Block::make(pop_block(), L(loc));
  roles_.pop_back();
  append(ir::Role::make(std::move(name), first, warpgroups, max_regs, role_count_ - 1, inner, L(loc), index_var));
}

OperandFragment KernelBuilder::operand_fragment(std::string name, unsigned m, unsigned n, ir::Scalar elem, SrcLoc loc) {
  name = claim_name(std::move(name), loc);
  if (m == 0 || m % 64 != 0 || n == 0 || n % 16 != 0 || n > 512)
    throw UserError(L(loc), "operand fragment '" + name + "' is " + std::to_string(m) + " x " + std::to_string(n),
                    "an MMA's A from registers is a multiple of 64 rows by 16..512 columns (a multiple of 16)");
  if (elem != ir::Scalar::BF16 && elem != ir::Scalar::F16)
    throw UserError(L(loc), "operand fragment '" + name + "' of " + std::string(ir::scalar_name(elem)),
                    "operand fragments hold bf16 or f16, what the MMA reads");
  ir::AccumulatorDecl d{name, m, n, L(loc), ir::FragmentKind::Operand};
  d.elem = elem;
  kernel_.accumulators.push_back(d);
  return OperandFragment{name, m, n, elem};
}

Turns KernelBuilder::turns(SrcLoc loc) {
  const ir::Role* r = current_role();
  if (!r) throw UserError(L(loc), "turns outside a warpgroup role", "call k.turns() inside the body of the role whose warpgroups take turns");
  if (r->count < 2)
    throw UserError(L(loc), "turns in role '" + r->name + "' of 1 warpgroup", "turns order 2 or more warpgroups of one role");
  if (depth() != 2)
    throw UserError(L(loc), "turns inside a loop or condition", "call k.turns() at the top of the role's body, before its loops");
  // Roles take ids from 1 up (one for each role declared); turns from 7 down.
  const unsigned lowest_free = kRoleBarrierBase + std::max(role_count_, r->id + 1);
  if (turn_floor_ < r->count || turn_floor_ - r->count < lowest_free)
    throw UserError(L(loc), "turns for the " + std::to_string(r->count) + " warpgroups of role '" + r->name +
                                "' need " + std::to_string(r->count) + " named barriers; ids " + std::to_string(lowest_free) +
                                ".." + std::to_string(kWarpgroupBarrierBase - 1) + " are left, " +
                                std::to_string(turn_floor_ > lowest_free ? turn_floor_ - lowest_free : 0) + " of them free",
                    "take turns in fewer warpgroups or fewer roles");
  turn_floor_ -= r->count;
  Turns t{turn_floor_, r->count, r->id};
  // The last warpgroup passes the first turn to warpgroup 0 (its arrive, as pass_turn's,
  // outside the order of taken turns).
  i32 wg = thread_idx_x() / 128 - int32_t(r->first);
  if_(wg == int32_t(r->count - 1), [&] {
    const i32 next = (wg + 1) % int32_t(t.warpgroups) + int32_t(t.first);
    append_stmt(ir::NamedBarrier::make(next.expr(), 256, L(loc), /*arrive=*/true));
  }, loc);
  return t;
}

namespace {
// This warpgroup's index in the role that took turns t, checked against the role we are in.
i32 turn_warpgroup(const char* what, const Turns& t, const SrcLoc& loc) {
  const ir::Role& r = role_here(what, loc);
  if (r.id != t.role)
    throw UserError(L(loc), std::string(what) + " in role '" + r.name + "' with turns taken in another role",
                    "wait for and pass turns in the role whose k.turns() made them");
  return thread_idx_x() / 128 - int32_t(r.first);
}
}  // namespace

void wait_turn(const Turns& t, SrcLoc loc) {
  i32 id = turn_warpgroup("wait_turn", t, loc) + int32_t(t.first);
  KernelBuilder::active(loc).turn_taken(t.role, L(loc));
  append_stmt(ir::NamedBarrier::make(id.expr(), 256, L(loc)));
}

void pass_turn(const Turns& t, SrcLoc loc) {
  i32 next = (turn_warpgroup("pass_turn", t, loc) + 1) % int32_t(t.warpgroups) + int32_t(t.first);
  KernelBuilder::active(loc).turn_passed(t.role, L(loc));
  append_stmt(ir::NamedBarrier::make(next.expr(), 256, L(loc), /*arrive=*/true));
}

// ---- tile copies ----

uint32_t tile_load_bytes(const TileMap& map) {
  return static_cast<uint32_t>(map.map.box_bytes() * map.layout.panels());
}

namespace {
// Each TMA box of part `part` of a tile load (one per panel): its shared slot and global coordinates.
void for_each_load_box(const TileView& dst, const TileMap& map, const i32& row0, const i32& col0, const i32& part, SrcLoc loc,
                       const std::function<void(const Slot&, const std::vector<i32>&)>& box) {
  const ir::TileLayout& t = dst.tile().layout;
  if (!(t == map.layout))
    throw UserError(L(loc), "tile map '" + map.map.decl.name + "' was made for another tile layout than tile '" +
                                dst.tile().name + "'",
                    "load a tile through the tile_map made for it");
  const int32_t pc = int32_t(t.panel_cols()), br = int32_t(map.box_rows);
  const std::optional<int64_t> p = ir::const_int(part.expr()), r = ir::const_int(dst.row().expr());
  if (p && r && (*p < 0 || *r + (*p + 1) * br > int64_t(t.rows)))
    throw UserError(L(loc), "part " + std::to_string(*p) + " of tile '" + dst.tile().name + "'" +
                                (*r ? " from row " + std::to_string(*r) : std::string()) + ": its " + std::to_string(t.rows) +
                                " rows in boxes of " + std::to_string(br) + " rows (tile map '" + map.map.decl.name +
                                "') hold parts 0.." + std::to_string((int64_t(t.rows) - *r) / br - 1),
                    "load parts 0 to " + std::to_string((int64_t(t.rows) - *r) / br - 1) + " of the tile");
  i32 slice = part * br;
  for (unsigned p = 0; p < t.panels(); ++p) {
    i32 offset = dst.stage() * int32_t(t.stage_elems()) + int32_t(p * t.panel_elems()) + (dst.row() + slice) * pc;
    box(Slot(dst.tile().ref, offset.expr()), {col0 + int32_t(p) * pc, row0 + dst.row() + slice});
  }
}
}  // namespace

void tma_load_tile(const TileView& dst, const TileMap& map, const i32& row0, const i32& col0, const BarrierRef& bar,
                   const i32& part, std::optional<u32> mask, SrcLoc loc) {
  for_each_load_box(dst, map, row0, col0, part, loc, [&](const Slot& slot, const std::vector<i32>& coords) {
    if (mask) tma_load_multicast(slot, map.map, coords, bar, *mask, loc);
    else tma_load(slot, map.map, coords, bar, loc);
  });
}

void tma_load_tile_pair(const TileView& dst, const TileMap& map, const i32& row0, const i32& col0, const BarrierRef& bar,
                        const i32& part, std::optional<u32> mask, SrcLoc loc) {
  for_each_load_box(dst, map, row0, col0, part, loc, [&](const Slot& slot, const std::vector<i32>& coords) {
    if (mask) tma_load_pair_multicast(slot, map.map, coords, bar, *mask, loc);
    else tma_load_pair(slot, map.map, coords, bar, loc);
  });
}

void tma_prefetch_tile(const TileMap& map, const i32& row0, const i32& col0, const i32& part, SrcLoc loc) {
  const int32_t pc = int32_t(map.layout.panel_cols());
  for (unsigned p = 0; p < map.layout.panels(); ++p)
    tma_prefetch(map.map, {col0 + int32_t(p) * pc, row0 + part * int32_t(map.box_rows)}, loc);
}

void tma_store_tile(const TileMap& map, const i32& row0, const i32& col0, const TileView& src, SrcLoc loc) {
  const ir::TileLayout& t = src.tile().layout;
  if (!(t == map.layout))
    throw UserError(L(loc), "tile map '" + map.map.decl.name + "' was made for another tile layout than tile '" +
                                src.tile().name + "'",
                    "store a tile through the tile_map made for it");
  const int32_t pc = int32_t(t.panel_cols());
  for (unsigned p = 0; p < t.panels(); ++p) {
    i32 offset = src.stage() * int32_t(t.stage_elems()) + int32_t(p * t.panel_elems()) + src.row() * pc;
    tma_store(map.map, {col0 + int32_t(p) * pc, row0 + src.row()}, Slot(src.tile().ref, offset.expr()), loc);
  }
}

// ---- MMA and epilogue ----

Accumulator stage(const Accumulator& acc, const i32& s, SrcLoc loc) {
  if (acc.stages == 1)
    throw UserError(L(loc), "stage of accumulator '" + acc.name + "', which has one buffer",
                    "declare it with stages: k.accumulator(\"" + acc.name + "\", " + std::to_string(acc.m) + ", " +
                        std::to_string(acc.n) + ", 2)");
  Accumulator out = acc;
  out.buffer = s.expr();
  return out;
}

void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, SrcLoc loc) {
  role_here("mma", loc);
  append_stmt(ir::Mma::make(acc.name, a.operand(), b.operand(), accumulate.expr(), L(loc), 0, 0, 1, acc.buffer));
}

void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k, SrcLoc loc) {
  mma(acc, a, b, accumulate, k, MmaOrder::Blocks, loc);
}

void mma(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k, MmaOrder order,
         SrcLoc loc) {
  role_here("mma", loc);
  append_stmt(ir::Mma::make(acc.name, a.operand(), b.operand(), accumulate.expr(), L(loc), k.first, k.count, 1, acc.buffer,
                            order == MmaOrder::KSteps));
}

void mma_pair(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, SrcLoc loc) {
  role_here("mma_pair", loc);
  append_stmt(ir::Mma::make(acc.name, a.operand(), b.operand(), accumulate.expr(), L(loc), 0, 0, 2, acc.buffer));
}

void mma_pair(const Accumulator& acc, const TileView& a, const TileView& b, const boolean& accumulate, KRange k, SrcLoc loc) {
  role_here("mma_pair", loc);
  append_stmt(ir::Mma::make(acc.name, a.operand(), b.operand(), accumulate.expr(), L(loc), k.first, k.count, 2, acc.buffer));
}

void mma_wait(unsigned pending, SrcLoc loc) {
  role_here("mma_wait", loc);
  if (pending > 7) throw UserError(L(loc), "mma_wait(" + std::to_string(pending) + ")", "wait for at most 7 pending groups");
  append_stmt(ir::MmaWait::make(pending, L(loc)));
}

void mma_wait(unsigned pending, const std::vector<Accumulator>& ready, SrcLoc loc) {
  role_here("mma_wait", loc);
  if (pending > 7) throw UserError(L(loc), "mma_wait(" + std::to_string(pending) + ")", "wait for at most 7 pending groups");
  std::vector<std::string> names;
  for (const Accumulator& a : ready) names.push_back(a.name);
  append_stmt(ir::MmaWait::make(pending, L(loc), std::move(names)));
}

void check_accumulator_columns(const char* what, const Accumulator& acc, Columns cols, const SrcLoc& loc) {
  if (cols.count == 0 || cols.count % 8 != 0 || cols.first % 8 != 0 || cols.first + cols.count > acc.n)
    throw UserError(L(loc), std::string(what) + " of columns " + std::to_string(cols.first) + ".." +
                                std::to_string(cols.first + cols.count) + " of accumulator '" + acc.name + "' (" +
                                std::to_string(acc.n) + " columns)",
                    "give whole groups of 8 columns inside the accumulator");
}

namespace {
void acc_partial(ir::AccPartialOp op, const Ptr<float>& workspace, const Accumulator& acc, const i32& slot, const SrcLoc& loc) {
  role_here(ir::acc_partial_name(op), loc);
  append_stmt(ir::AccPartial::make(op, acc.name, workspace.expr(), slot.expr(), L(loc)));
}
}  // namespace

void store_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot, SrcLoc loc) {
  acc_partial(ir::AccPartialOp::Store, workspace, acc, slot, loc);
}
void add_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot, SrcLoc loc) {
  acc_partial(ir::AccPartialOp::Add, workspace, acc, slot, loc);
}
void reduce_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot, SrcLoc loc) {
  acc_partial(ir::AccPartialOp::Reduce, workspace, acc, slot, loc);
}
void take_accumulator_partial(const Ptr<float>& workspace, const Accumulator& acc, const i32& slot, SrcLoc loc) {
  acc_partial(ir::AccPartialOp::Take, workspace, acc, slot, loc);
}

void send_accumulator_partial(const Ptr<float>& peer, const Accumulator& acc, Columns cols, const i32& slot, const BarrierRef& bar,
                              SrcLoc loc) {
  role_here("send_accumulator_partial", loc);
  check_accumulator_columns("send_accumulator_partial", acc, cols, loc);
  append_stmt(ir::AccPartial::make(ir::AccPartialOp::Send, acc.name, peer.expr(), slot.expr(), L(loc), cols.first, cols.count,
                                   bar.ptr(), bar.index()));
}

void add_accumulator_partial(const Ptr<float>& buffer, const Accumulator& acc, Columns cols, const i32& slot, SrcLoc loc) {
  role_here("add_accumulator_partial", loc);
  check_accumulator_columns("add_accumulator_partial", acc, cols, loc);
  append_stmt(ir::AccPartial::make(ir::AccPartialOp::Add, acc.name, buffer.expr(), slot.expr(), L(loc), cols.first, cols.count));
}

void role_sync(SrcLoc loc) {
  const ir::Role& r = role_here("role_sync", loc);
  append_stmt(ir::NamedBarrier::make(ir::IntImm::make(ir::Scalar::I32, kRoleBarrierBase + r.id), 128 * r.count, L(loc)));
}

void warpgroup_sync(const i32& warpgroup_in_role, SrcLoc loc) {
  const ir::Role& r = role_here("warpgroup_sync", loc);
  if (std::optional<int64_t> v = ir::const_int(warpgroup_in_role.expr()); v && (*v < 0 || *v >= int64_t(r.count)))
    throw UserError(L(loc), "warpgroup_sync(" + std::to_string(*v) + ") in role '" + r.name + "' of " + std::to_string(r.count) +
                                " warpgroup" + (r.count == 1 ? "" : "s"),
                    "pass the warpgroup's index in the role, 0 to " + std::to_string(r.count - 1) +
                        " (the role body's argument)");
  i32 id = warpgroup_in_role + int32_t(kWarpgroupBarrierBase + r.first);
  append_stmt(ir::NamedBarrier::make(id.expr(), 128, L(loc)));
}

// ---- schedules ----

namespace {
void check_schedule(const ir::TileSchedule& schedule, const SrcLoc& loc) {
  if (schedule.group == 0) throw UserError(L(loc), "for_each_tile with a group of 0 cluster rows", "use a group of at least 1");
  if (schedule.slots == 0)
    throw UserError(L(loc), "for_each_tile with a dynamic schedule of 0 slots: no claim could be answered",
                    "use at least 1 slot (2 lets one role run a unit ahead of another)");
  if (schedule.slots > 8)
    throw UserError(L(loc), "for_each_tile with a dynamic schedule of " + std::to_string(schedule.slots) +
                                " slots; at most 8 claims may be in flight",
                    "use 1 to 8 slots (2 lets one role run a unit ahead of another)");
}
}  // namespace

void for_each_tile(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n,
                   const std::function<void(i32, i32)>& body, SrcLoc loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  check_schedule(schedule, loc);
  b.note_tile_walk(schedule, tiles_m.expr(), tiles_n.expr(), nullptr, L(loc));
  std::string vm = b.fresh_name("tile_m", loc), vn = b.fresh_name("tile_n", loc);
  b.push_block("for_each_tile", L(loc));
  body(i32(ir::VarRef::make(vm, ir::Type::of(ir::Scalar::I32), L(loc))), i32(ir::VarRef::make(vn, ir::Type::of(ir::Scalar::I32), L(loc))));
  ir::Stmt inner = ir::Block::make(b.pop_block(), L(loc));
  b.append(ir::ForEachTile::make(schedule, tiles_m.expr(), tiles_n.expr(), vm, vn, inner, L(loc)));
}

void for_each_tile(const ir::TileSchedule& schedule, const i32& tiles_m, const i32& tiles_n, const i32& splits,
                   const std::function<void(i32, i32, i32)>& body, SrcLoc loc) {
  KernelBuilder& b = KernelBuilder::active(loc);
  check_schedule(schedule, loc);
  if (std::optional<int64_t> s = ir::const_int(splits.expr()); s && *s < 1)
    throw UserError(L(loc), "for_each_tile with " + std::to_string(*s) + " splits", "use at least 1 split (1: no split-K)");
  b.note_tile_walk(schedule, tiles_m.expr(), tiles_n.expr(), splits.expr(), L(loc));
  std::string vm = b.fresh_name("tile_m", loc), vn = b.fresh_name("tile_n", loc), vs = b.fresh_name("split", loc);
  auto ref = [&](const std::string& n) { return i32(ir::VarRef::make(n, ir::Type::of(ir::Scalar::I32), L(loc))); };
  b.push_block("for_each_tile", L(loc));
  body(ref(vm), ref(vn), ref(vs));
  ir::Stmt inner = ir::Block::make(b.pop_block(), L(loc));
  b.append(ir::ForEachTile::make(schedule, tiles_m.expr(), tiles_n.expr(), vm, vn, inner, L(loc), splits.expr(), vs));
}

void for_each_tile_split_in_cluster(ir::TileSchedule schedule, const i32& tiles_m, const i32& tiles_n,
                                    const std::function<void(i32, i32, i32)>& body, SrcLoc loc) {
  const ir::Dim3 cluster = KernelBuilder::active(loc).cluster_shape();
  if (cluster.z < 2)
    throw UserError(L(loc), "for_each_tile_split_in_cluster in a kernel whose cluster is " + cluster.str() +
                                ": a tile's splits are the cluster's planes along z",
                    "set a cluster with 2 or more CTAs along z first (k.cluster(x, y, splits)), or use for_each_tile with splits");
  schedule.cluster_splits = true;
  for_each_tile(schedule, tiles_m, tiles_n, i32(int32_t(cluster.z)), body, loc);
}

}  // namespace tj::dsl

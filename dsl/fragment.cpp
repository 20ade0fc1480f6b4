#include "dsl/fragment.h"

#include "dsl/diagnostic.h"
#include "dsl/ir/printer.h"

namespace tj::dsl {

// The op whose function an Elem is given to, and the tile store_accumulator's function read.
struct ElemScope {
  std::string what;
  bool reads_tile = false;  // store_accumulator's function may read one tile (e[tile])
  std::optional<TileView> tile;
};

namespace {

ir::Loc L(const SrcLoc& l) { return ir::Loc::from(l); }

std::string view_text(const TileView& t) {
  return "'" + t.tile().name + "' (stage " + ir::to_string(t.stage().expr()) + ", row " + ir::to_string(t.row().expr()) + ")";
}

void in_role(const char* what, const SrcLoc& loc) {
  if (!KernelBuilder::active(loc).current_role())
    throw UserError(L(loc), std::string(what) + " outside a warpgroup role",
                    "call it inside the k.role(name, warpgroups, max_regs, body) whose warpgroups hold the fragment");
}

Elem elem_of(const std::string& self, const ir::Loc& loc, std::shared_ptr<ElemScope> scope) {
  return Elem{f32(ir::FragElem::make(ir::ElemPart::Value, self, loc)), i32(ir::FragElem::make(ir::ElemPart::Row, {}, loc)),
              i32(ir::FragElem::make(ir::ElemPart::Col, {}, loc)), std::move(scope)};
}

// fn(elem) as one expression: the function may compute (select for conditions) but
// not add statements, which would run outside the per-element loop.
// scope: what the function may read besides fragments (a tile, for store_accumulator).
template <class Fn>
auto element_value(const char* what, const std::string& self, const Fn& fn, const SrcLoc& loc,
                   std::shared_ptr<ElemScope> scope = nullptr) {
  KernelBuilder& b = KernelBuilder::active(loc);
  if (!scope) scope = std::make_shared<ElemScope>(ElemScope{what, false, std::nullopt});
  b.push_block(what, L(loc));
  std::optional<decltype(fn(std::declval<Elem>()))> value;
  try {
    value.emplace(fn(elem_of(self, L(loc), scope)));
  } catch (...) {
    b.pop_block();  // a user error in the function leaves the builder as it was
    throw;
  }
  auto v = std::move(*value);
  std::vector<ir::Stmt> added = b.pop_block();
  if (!added.empty()) {
    std::string text = ir::first_line(*added.front());
    text = text.substr(0, text.find("//"));
    text.erase(text.find_last_not_of(' ') + 1);
    text.erase(0, text.find_first_not_of(' '));
    throw UserError(added.front()->loc.line ? added.front()->loc : L(loc),
                    std::string(what) + "'s function adds a statement (" + text +
                        "); it must only compute the element's value",
                    std::string("write the value as one expression (select(c, a, b) for a condition), and do the rest before or after ") + what);
  }
  return v;
}

void map(const char* what, const std::string& dst, const ElemFn& fn, const SrcLoc& loc) {
  in_role(what, loc);
  f32 v = element_value(what, dst, fn, loc);
  append_stmt(ir::FragMap::make(dst, v.expr(), L(loc)));
}

void reduce(const char* what, const RowFragment& dst, const Accumulator& src, ir::ReduceOp op, bool combine, const SrcLoc& loc) {
  in_role(what, loc);
  if (dst.m != src.m)
    throw UserError(L(loc), std::string(what) + " of accumulator '" + src.name + "' (" + std::to_string(src.m) +
                                " rows) into row fragment '" + dst.name + "' (" + std::to_string(dst.m) + " rows)",
                    "give the row fragment the accumulator's rows: k.row_fragment(name, " + std::to_string(src.m) + ")");
  append_stmt(ir::RowReduce::make(dst.name, src.name, op, combine, L(loc)));
}

}  // namespace

f32 Elem::operator[](const Accumulator& a) const { return f32(ir::FragElem::make(ir::ElemPart::Value, a.name, value.expr()->loc)); }
f32 Elem::operator[](const RowFragment& r) const { return f32(ir::FragElem::make(ir::ElemPart::Value, r.name, value.expr()->loc)); }
f32 Elem::operator[](const TileView& t) const {
  const ir::Loc& loc = value.expr()->loc;
  if (!scope || !scope->reads_tile)
    throw UserError(loc, (scope ? scope->what : std::string("an element")) + "'s function reads tile '" + t.tile().name + "' (e[tile])",
                    "read a tile only in store_accumulator's function (a tile laid out like its destination, or the destination itself)");
  if (scope->tile && view_text(*scope->tile) != view_text(t))
    throw UserError(loc, "store_accumulator's function reads tiles " + view_text(*scope->tile) + " and " + view_text(t) + "; it reads one",
                    "load what the function reads into one tile laid out like the destination (or into the destination itself)");
  scope->tile = t;
  return f32(ir::FragElem::make(ir::ElemPart::Tile, {}, loc));
}

void acc_map(const Accumulator& acc, const ElemFn& fn, SrcLoc loc) { map("acc_map", acc.name, fn, loc); }
void row_map(const RowFragment& r, const ElemFn& fn, SrcLoc loc) { map("row_map", r.name, fn, loc); }
void fill(const Accumulator& acc, const f32& v, SrcLoc loc) { map("fill", acc.name, [&](const Elem&) { return v; }, loc); }
void fill(const RowFragment& r, const f32& v, SrcLoc loc) { map("fill", r.name, [&](const Elem&) { return v; }, loc); }
void copy(const Accumulator& dst, const Accumulator& src, SrcLoc loc) {
  map("copy", dst.name, [&](const Elem& e) { return e[src]; }, loc);
}
void copy(const RowFragment& dst, const RowFragment& src, SrcLoc loc) {
  map("copy", dst.name, [&](const Elem& e) { return e[src]; }, loc);
}

void convert(const OperandFragment& dst, const Accumulator& src, SrcLoc loc) {
  in_role("convert", loc);
  if (dst.m != src.m || dst.n != src.n)
    throw UserError(L(loc), "convert of accumulator '" + src.name + "' (" + std::to_string(src.m) + "x" + std::to_string(src.n) +
                                ") into operand fragment '" + dst.name + "' (" + std::to_string(dst.m) + "x" + std::to_string(dst.n) + ")",
                    "give the operand fragment the accumulator's shape");
  append_stmt(ir::FragMap::make(dst.name, ir::FragElem::make(ir::ElemPart::Value, src.name, L(loc)), L(loc)));
}

void row_sum(const RowFragment& dst, const Accumulator& src, bool combine, SrcLoc loc) {
  reduce("row_sum", dst, src, ir::ReduceOp::Sum, combine, loc);
}
void row_max(const RowFragment& dst, const Accumulator& src, bool combine, SrcLoc loc) {
  reduce("row_max", dst, src, ir::ReduceOp::Max, combine, loc);
}
void row_min(const RowFragment& dst, const Accumulator& src, bool combine, SrcLoc loc) {
  reduce("row_min", dst, src, ir::ReduceOp::Min, combine, loc);
}

void store_accumulator(const TileView& dst, const Accumulator& acc, const ElemFn& fn, SrcLoc loc) {
  store_accumulator(dst, acc, Columns{0, acc.n}, fn, loc);
}

namespace {
void store(const char* what, const TileView& dst, const Accumulator& acc, Columns cols, const ElemFn& fn, const SrcLoc& loc,
           bool transposed) {
  in_role(what, loc);
  check_accumulator_columns(what, acc, cols, loc);
  auto scope = std::make_shared<ElemScope>(ElemScope{what, true, std::nullopt});
  f32 v = element_value(what, acc.name, fn, loc, scope);
  std::optional<ir::TileOperand> tile;
  if (scope->tile) tile = scope->tile->operand();
  append_stmt(ir::AccStore::make(acc.name, dst.operand(), tile, cols.first, cols.count, v.expr(), L(loc), acc.buffer, transposed));
}
}  // namespace

void store_accumulator(const TileView& dst, const Accumulator& acc, Columns cols, const ElemFn& fn, SrcLoc loc) {
  store("store_accumulator", dst, acc, cols, fn, loc, false);
}

void store_accumulator_transposed(const TileView& dst, const Accumulator& acc, const ElemFn& fn, SrcLoc loc) {
  store("store_accumulator_transposed", dst, acc, Columns{0, acc.n}, fn, loc, true);
}

void store_accumulator_transposed(const TileView& dst, const Accumulator& acc, Columns cols, const ElemFn& fn, SrcLoc loc) {
  store("store_accumulator_transposed", dst, acc, cols, fn, loc, true);
}

// alpha * acc + beta * c as the epilogue function it is; a literal alpha of 1 and a literal
// beta of 0 leave their terms out (no multiply, no read of c).
namespace {
bool literal(const f32& v, float x) {
  const ir::FloatImm* f = v.expr()->as<ir::FloatImm>();
  return f && f->value == x;
}
ElemFn scaled(const f32& alpha, std::optional<std::pair<f32, TileView>> beta_c) {
  return [alpha, beta_c](const Elem& e) {
    f32 v = literal(alpha, 1.0f) ? e.value : alpha * e.value;
    if (beta_c && !literal(beta_c->first, 0.0f)) v = v + beta_c->first * e[beta_c->second];
    return v;
  };
}
}  // namespace

void store_accumulator(const TileView& dst, const Accumulator& acc, const f32& alpha, SrcLoc loc) {
  store_accumulator(dst, acc, Columns{0, acc.n}, scaled(alpha, std::nullopt), loc);
}

void store_accumulator(const TileView& dst, const Accumulator& acc, const f32& alpha, const f32& beta, const TileView& c,
                       SrcLoc loc) {
  store_accumulator(dst, acc, Columns{0, acc.n}, scaled(alpha, std::make_pair(beta, c)), loc);
}

void store_accumulator(const TileView& dst, const Accumulator& acc, Columns cols, const f32& alpha, const f32& beta,
                       const TileView& c, SrcLoc loc) {
  store_accumulator(dst, acc, cols, scaled(alpha, std::make_pair(beta, c)), loc);
}

void store_rows(const RowFragment& r, const Ptr<float>& dst, const ElemIndexFn& index, const ElemPredicateFn& valid, SrcLoc loc) {
  in_role("store_rows", loc);
  i64 at = element_value("store_rows", r.name, index, loc);
  ir::Expr when = valid ? element_value("store_rows", r.name, valid, loc).expr() : nullptr;
  append_stmt(ir::RowStore::make(r.name, dst.expr(), at.expr(), when, L(loc)));
}

void mma(const Accumulator& acc, RegisterOperand a, const TileView& b, const boolean& accumulate, SrcLoc loc) {
  in_role("mma", loc);
  append_stmt(ir::Mma::make_register_a(acc.name, a.name, b.operand(), accumulate.expr(), L(loc)));
}

}  // namespace tj::dsl

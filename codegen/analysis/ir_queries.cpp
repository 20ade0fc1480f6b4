#include "codegen/analysis/ir_queries.h"

#include "dsl/ir/loops.h"
#include "dsl/ir/visitor.h"

namespace tj::codegen {

using namespace tj::ir;

BufferRef buffer_of(const Expr& ptr) {
  BufferRef out;
  Expr base = ptr;
  if (const MapSharedRank* m = ptr->as<MapSharedRank>()) {
    base = m->buffer;
    out.rank = m->rank;
  }
  if (const SharedRef* s = base->as<SharedRef>()) out.name = s->name;
  return out;
}

void for_each_stmt(const Stmt& s, const std::function<void(const StmtNode&)>& f) {
  if (!s) return;
  f(*s);
  if (const Block* b = s->as<Block>())
    for (const Stmt& c : b->body) for_each_stmt(c, f);
  else if (const If* i = s->as<If>()) {
    for_each_stmt(i->then_body, f);
    for_each_stmt(i->else_body, f);
  } else if (std::optional<LoopView> l = as_loop(*s)) for_each_stmt(l->body, f);
  else if (const Role* r = s->as<Role>()) for_each_stmt(r->body, f);
  else if (const ForEachTile* t = s->as<ForEachTile>()) for_each_stmt(t->body, f);
}

void loads_in(const Expr& e, std::vector<const Load*>& out) {
  struct Finder : Visitor {
    std::vector<const Load*>& out;
    explicit Finder(std::vector<const Load*>& o) : out(o) {}
    void visit_node(const Load& n) override {
      Visitor::visit_node(n);
      out.push_back(&n);
    }
  } f(out);
  f.visit(e);
}

void var_names(const Expr& e, std::vector<std::string>& out) {
  struct Finder : Visitor {
    std::vector<std::string>& out;
    explicit Finder(std::vector<std::string>& o) : out(o) {}
    void visit_node(const VarRef& n) override { out.push_back(n.name); }
  } f(out);
  if (e) f.visit(e);
}

ElemReads elem_reads(const Expr& e) {
  struct Finder : Visitor {
    ElemReads out;
    void visit_node(const FragElem& n) override {
      if (n.part == ElemPart::Row) out.row = true;
      else if (n.part == ElemPart::Col) out.col = true;
      else if (n.part == ElemPart::Tile) out.tile = true;
      else {
        for (const FragElem* f : out.values)
          if (f->fragment == n.fragment) return;
        out.values.push_back(&n);
      }
    }
  } f;
  if (e) f.visit(e);
  return f.out;
}

}  // namespace tj::codegen

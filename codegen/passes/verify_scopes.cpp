#include "codegen/passes/verify_scopes.h"

#include <map>
#include <set>
#include <string>

#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Where each local of the body is declared, and what declares it.
struct Declared {
  Loc loc;
  std::string what;
};

class Declarations : public Visitor {
 public:
  std::map<std::string, Declared> names;
  void visit_node(const Declare& n) override {
    names.emplace(n.name, Declared{n.loc, "declared"});
    Visitor::visit_node(n);
  }
  void visit_node(const AtomicFetchAdd& n) override {
    names.emplace(n.result, Declared{n.loc, "the result of atomic_fetch_add"});
    Visitor::visit_node(n);
  }
  void visit_node(const For& n) override {
    names.emplace(n.var, Declared{n.loc, "the index of the for_"});
    Visitor::visit_node(n);
  }
  void visit_node(const ForEachTile& n) override {
    for (const std::string& v : {n.var_m, n.var_n, n.var_split})
      if (!v.empty()) names.emplace(v, Declared{n.loc, "a tile index of the for_each_tile"});
    Visitor::visit_node(n);
  }
};

// The walk in program order with the names in scope: a scope per if_, else_, loop and
// role body (a Block is no scope of its own: the CUDA emits it without braces).
class Scopes : public Visitor {
 public:
  Scopes(const Kernel& k, const std::map<std::string, Declared>& declared, std::vector<Diagnostic>& out)
      : k_(k), declared_(declared), out_(out) {
    for (const Param& p : k.params) kernel_names_.insert(p.name);
    for (const TensorMapDecl& m : k.tensor_maps) kernel_names_.insert(m.name);
    scopes_.emplace_back();
  }

  void visit_node(const VarRef& n) override {
    if (kernel_names_.count(n.name)) return;
    for (const std::set<std::string>& s : scopes_)
      if (s.count(n.name)) return;
    if (!reported_.insert(n.name).second) return;
    const Loc at = stmt_ ? stmt_->loc : n.loc;
    auto d = declared_.find(n.name);
    if (d == declared_.end()) {
      out_.push_back({at, "'" + n.name + "' is read here, but kernel '" + k_.name + "' never declares it: a DSL value of another kernel?",
                      "build every value a kernel reads inside that kernel's KernelBuilder"});
      return;
    }
    out_.push_back({at, "'" + n.name + "' (" + d->second.what + " at " + d->second.loc.str() +
                            ") is read here, outside the body it belongs to",
                    "read it inside that body, or carry the value out in a variable declared before the body "
                    "(auto x = var(...); x = ... inside it)"});
  }

  void visit(const Stmt& s) {
    if (!s) return;
    const StmtNode* saved = stmt_;
    if (s->kind != StmtKind::Block) stmt_ = s.get();
    Visitor::visit(s);
    stmt_ = saved;
  }
  using Visitor::visit;

  void visit_node(const Block& n) override {
    for (const Stmt& c : n.body) visit(c);
  }
  void visit_node(const Declare& n) override {
    Visitor::visit_node(n);
    scopes_.back().insert(n.name);
  }
  void visit_node(const AtomicFetchAdd& n) override {
    Visitor::visit_node(n);
    scopes_.back().insert(n.result);
  }
  // A loop's units (LoopUnits: the schedules' bound for a timeline) are not checked.
  void visit_node(const For& n) override {
    visit(n.begin), visit(n.end), visit(n.step);
    nested(n.body, {n.var});
  }
  void visit_node(const While& n) override {
    visit(n.cond);
    nested(n.body, {});
  }
  void visit_node(const If& n) override {
    visit(n.cond);
    nested(n.then_body, {});
    nested(n.else_body, {});
  }
  void visit_node(const Role& n) override { nested(n.body, {}); }
  void visit_node(const ForEachTile& n) override {
    visit(n.tiles_m), visit(n.tiles_n), visit(n.splits);
    nested(n.body, {n.var_m, n.var_n, n.var_split});
  }

 private:
  void nested(const Stmt& body, std::set<std::string> names) {
    if (!body) return;
    scopes_.push_back(std::move(names));
    visit(body);
    scopes_.pop_back();
  }

  const Kernel& k_;
  const std::map<std::string, Declared>& declared_;
  std::vector<Diagnostic>& out_;
  std::set<std::string> kernel_names_, reported_;
  std::vector<std::set<std::string>> scopes_;
  const StmtNode* stmt_ = nullptr;
};

}  // namespace

std::vector<Diagnostic> verify_scopes(const Kernel& k) {
  std::vector<Diagnostic> out;
  Declarations d;
  d.visit(k.body);
  Scopes s(k, d.names, out);
  s.visit(k.body);
  return out;
}

}  // namespace tj::codegen

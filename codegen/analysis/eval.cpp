#include "codegen/analysis/eval.h"
#include <algorithm>

#include "dsl/ir/visitor.h"

namespace tj::codegen {
namespace {

using namespace tj::ir;

// Wraps to the width and signedness of `s`, as the GPU would.
int64_t wrap(Scalar s, int64_t v) {
  switch (s) {
    case Scalar::I32: return static_cast<int32_t>(v);
    case Scalar::U32: return static_cast<uint32_t>(v);
    case Scalar::Bool: return v != 0;
    default: return v;
  }
}

std::optional<int64_t> sreg(SpecialRegKind r, const EvalEnv& env) {
  const Dim3& c = env.cluster;
  switch (r) {
    case SpecialRegKind::ClusterNumCtas: return c.count();
    case SpecialRegKind::ClusterDimX: return c.x;
    case SpecialRegKind::ClusterDimY: return c.y;
    case SpecialRegKind::ClusterDimZ: return c.z;
    case SpecialRegKind::BlockDimX: return env.block.x;
    case SpecialRegKind::BlockDimY: return env.block.y;
    case SpecialRegKind::BlockDimZ: return env.block.z;
    case SpecialRegKind::ClusterCtaRank: if (env.rank) return *env.rank; return std::nullopt;
    case SpecialRegKind::ClusterCtaIdX: if (env.rank) return *env.rank % c.x; return std::nullopt;
    case SpecialRegKind::ClusterCtaIdY: if (env.rank) return *env.rank / c.x % c.y; return std::nullopt;
    case SpecialRegKind::ClusterCtaIdZ: if (env.rank) return *env.rank / (c.x * c.y); return std::nullopt;
    case SpecialRegKind::ThreadIdxX: if (env.thread) return env.thread->x; return std::nullopt;
    case SpecialRegKind::ThreadIdxY: if (env.thread) return env.thread->y; return std::nullopt;
    case SpecialRegKind::ThreadIdxZ: if (env.thread) return env.thread->z; return std::nullopt;
    case SpecialRegKind::BlockIdxX: if (env.first_cluster && env.rank) return *env.rank % c.x; return std::nullopt;
    case SpecialRegKind::BlockIdxY: if (env.first_cluster && env.rank) return *env.rank / c.x % c.y; return std::nullopt;
    case SpecialRegKind::BlockIdxZ: if (env.first_cluster && env.rank) return *env.rank / (c.x * c.y); return std::nullopt;
    case SpecialRegKind::ClusterIdX:
    case SpecialRegKind::ClusterIdY:
    case SpecialRegKind::ClusterIdZ: if (env.first_cluster) return 0; return std::nullopt;
    case SpecialRegKind::NumClustersX: if (env.grid_clusters) return env.grid_clusters->x; return std::nullopt;
    case SpecialRegKind::NumClustersY: if (env.grid_clusters) return env.grid_clusters->y; return std::nullopt;
    case SpecialRegKind::NumClustersZ: if (env.grid_clusters) return env.grid_clusters->z; return std::nullopt;
    case SpecialRegKind::GridDimX: if (env.grid_clusters) return int64_t(env.grid_clusters->x) * c.x; return std::nullopt;
    case SpecialRegKind::GridDimY: if (env.grid_clusters) return int64_t(env.grid_clusters->y) * c.y; return std::nullopt;
    case SpecialRegKind::GridDimZ: if (env.grid_clusters) return int64_t(env.grid_clusters->z) * c.z; return std::nullopt;
    case SpecialRegKind::LaneId:  // lanes are numbered along the linear thread index
      if (env.thread) return (env.thread->x + env.block.x * (env.thread->y + env.block.y * env.thread->z)) % 32;
      return std::nullopt;
    default: return std::nullopt;
  }
}

// A comparison's truth (0 or 1); nullopt for any other operator.
template <class T>
std::optional<int64_t> compare(BinOp op, T a, T b) {
  switch (op) {
    case BinOp::Lt: return a < b;
    case BinOp::Le: return a <= b;
    case BinOp::Gt: return a > b;
    case BinOp::Ge: return a >= b;
    case BinOp::Eq: return a == b;
    case BinOp::Ne: return a != b;
    default: return std::nullopt;
  }
}

// An f32 value whose every step is an integer of magnitude under 2^24: exact in f32,
// whatever the GPU's rounding or contraction (an fma gives the same); nullopt otherwise.
std::optional<double> exact_f32(const Expr& e, const EvalEnv& env) {
  constexpr double kExact = 16777216.0;  // 2^24
  auto exact = [&](double v) -> std::optional<double> {
    if (v != static_cast<double>(static_cast<int64_t>(v)) || v >= kExact || v <= -kExact) return std::nullopt;
    return v;
  };
  if (!e || e->type.scalar != Scalar::F32) return std::nullopt;
  if (const FloatImm* f = e->as<FloatImm>()) return exact(f->value);
  if (const Cast* c = e->as<Cast>()) {
    if (c->a->type.scalar == Scalar::F32) return exact_f32(c->a, env);
    if (!is_integer(c->a->type.scalar)) return std::nullopt;
    const std::optional<int64_t> v = eval_int(c->a, env);
    return v ? exact(double(*v)) : std::nullopt;
  }
  if (const Unary* u = e->as<Unary>(); u && u->op == UnOp::Neg) {
    const std::optional<double> a = exact_f32(u->a, env);
    return a ? std::optional<double>(-*a) : std::nullopt;
  }
  if (const Select* sel = e->as<Select>()) {
    const std::optional<int64_t> c = eval_int(sel->cond, env);
    return c ? exact_f32(*c ? sel->a : sel->b, env) : std::nullopt;
  }
  const Binary* b = e->as<Binary>();
  if (!b) return std::nullopt;
  const std::optional<double> x = exact_f32(b->a, env), y = exact_f32(b->b, env);
  if (!x || !y) return std::nullopt;
  switch (b->op) {
    case BinOp::Add: return exact(*x + *y);
    case BinOp::Sub: return exact(*x - *y);
    case BinOp::Mul: return exact(*x * *y);
    case BinOp::Min: return std::min(*x, *y);
    case BinOp::Max: return std::max(*x, *y);
    default: return std::nullopt;
  }
}

struct Evaluator {
  const EvalEnv& env;
  using R = std::optional<int64_t>;

  R operator()(const IntImm& n) const { return n.value; }
  R operator()(const BoolImm& n) const { return n.value ? 1 : 0; }
  R operator()(const SpecialReg& n) const { return sreg(n.reg, env); }
  R operator()(const VarRef& n) const {
    if (env.vars)
      if (auto it = env.vars->find(n.name); it != env.vars->end()) return it->second;
    if (env.defs)
      if (auto it = env.defs->find(n.name); it != env.defs->end()) return eval_int(it->second, env);
    return std::nullopt;
  }
  R operator()(const Cast& n) const {
    if (!is_integer(n.type.scalar) && n.type.scalar != Scalar::Bool) return std::nullopt;
    if (n.a->type.scalar == Scalar::F32) {  // an integral f32 converts exactly
      const std::optional<double> f = exact_f32(n.a, env);
      return f ? R(wrap(n.type.scalar, int64_t(*f))) : std::nullopt;
    }
    R a = eval_int(n.a, env);
    return a ? R(wrap(n.type.scalar, *a)) : std::nullopt;
  }
  R operator()(const Unary& n) const {
    R a = eval_int(n.a, env);
    if (!a) return std::nullopt;
    switch (n.op) {
      case UnOp::Neg: return wrap(n.type.scalar, -*a);
      case UnOp::BitNot: return wrap(n.type.scalar, ~*a);
      case UnOp::Not: return *a == 0;
    }
    return std::nullopt;
  }
  R operator()(const Binary& n) const {
    if (n.a->type.scalar == Scalar::F32) {  // comparisons of exact f32 values
      const std::optional<double> x = exact_f32(n.a, env), y = exact_f32(n.b, env);
      if (!x || !y) return std::nullopt;
      return compare(n.op, *x, *y);
    }
    R a = eval_int(n.a, env), b = eval_int(n.b, env);
    // Short circuits that hold whatever the unknown side is.
    if (n.op == BinOp::And && ((a && *a == 0) || (b && *b == 0))) return 0;
    if (n.op == BinOp::Or && ((a && *a != 0) || (b && *b != 0))) return 1;
    if (!a || !b) return std::nullopt;
    const Scalar s = n.a->type.scalar;
    const bool is_unsigned = s == Scalar::U32 || s == Scalar::U64;
    const uint64_t ua = static_cast<uint64_t>(*a), ub = static_cast<uint64_t>(*b);
    switch (n.op) {
      case BinOp::Add: return wrap(s, *a + *b);
      case BinOp::Sub: return wrap(s, *a - *b);
      case BinOp::Mul: return wrap(s, *a * *b);
      case BinOp::Div: if (*b == 0) return std::nullopt; return wrap(s, is_unsigned ? int64_t(ua / ub) : *a / *b);
      case BinOp::Mod: if (*b == 0) return std::nullopt; return wrap(s, is_unsigned ? int64_t(ua % ub) : *a % *b);
      case BinOp::Min: return std::min(*a, *b);
      case BinOp::Max: return std::max(*a, *b);
      case BinOp::BitAnd: return wrap(s, *a & *b);
      case BinOp::BitOr: return wrap(s, *a | *b);
      case BinOp::BitXor: return wrap(s, *a ^ *b);
      case BinOp::Shl: if (*b < 0 || *b >= 64) return std::nullopt; return wrap(s, int64_t(ua << *b));
      case BinOp::Shr: if (*b < 0 || *b >= 64) return std::nullopt; return wrap(s, is_unsigned ? int64_t(ua >> *b) : (*a >> *b));
      case BinOp::Lt:
      case BinOp::Le:
      case BinOp::Gt:
      case BinOp::Ge:
      case BinOp::Eq:
      case BinOp::Ne: return compare(n.op, *a, *b);
      case BinOp::And: return (*a != 0) && (*b != 0);
      case BinOp::Or: return (*a != 0) || (*b != 0);
    }
    return std::nullopt;
  }
  R operator()(const Select& n) const {
    R c = eval_int(n.cond, env);
    if (!c) return std::nullopt;
    return eval_int(*c ? n.a : n.b, env);
  }
  template <class N>
  R operator()(const N&) const { return std::nullopt; }
};

}  // namespace

std::optional<int64_t> eval_int(const ir::Expr& e, const EvalEnv& env) {
  if (!e) return std::nullopt;
  return dispatch(*e, Evaluator{env});
}

void conjuncts(const ir::Expr& e, bool negated, std::vector<std::pair<ir::Expr, bool>>& out) {
  using namespace tj::ir;
  if (const Unary* u = e->as<Unary>(); u && u->op == UnOp::Not) return conjuncts(u->a, !negated, out);
  if (const Binary* b = e->as<Binary>(); b && b->op == (negated ? BinOp::Or : BinOp::And)) {
    conjuncts(b->a, negated, out);
    conjuncts(b->b, negated, out);
    return;
  }
  out.push_back({e, negated});
}

std::optional<uint64_t> threads_running(const ir::Kernel& k, const std::vector<ir::Expr>& guards, unsigned rank) {
  uint64_t count = 0;
  for (unsigned z = 0; z < k.block.z; ++z)
    for (unsigned y = 0; y < k.block.y; ++y)
      for (unsigned x = 0; x < k.block.x; ++x) {
        EvalEnv env{k.cluster, k.block, rank, ir::Dim3{x, y, z}};
        bool runs = true;
        for (const ir::Expr& g : guards) {
          std::optional<int64_t> v = eval_int(g, env);
          if (!v) return std::nullopt;
          if (*v == 0) {
            runs = false;
            break;
          }
        }
        count += runs;
      }
  return count;
}

}  // namespace tj::codegen

// IR node invariants: every make() rejects a node the DSL could not have built
// with ir::InternalError, naming the node and what was wrong. Also the small
// value types (Type, Loc, Dim3) and const_int.
#include <catch2/catch.hpp>

#include <type_traits>

#include "dsl/ir/ir.h"
#include "dsl/ir/kernel.h"
#include "dsl/ir/printer.h"

using namespace tj::ir;

namespace {

Expr i32c(int64_t v) { return IntImm::make(Scalar::I32, v); }
Expr f32c(double v) { return FloatImm::make(Scalar::F32, v); }
Expr var(const char* name, Type t) { return VarRef::make(name, t); }
Expr gptr(Scalar s) { return VarRef::make("g", Type::pointer(s, Space::Global)); }

// The InternalError message make() throws, or "no error".
template <class F>
std::string internal_error_of(F&& f) {
  try {
    f();
  } catch (const InternalError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

static_assert(std::is_same_v<Expr, std::shared_ptr<const ExprNode>>, "expressions are shared immutable nodes");
static_assert(std::is_same_v<Stmt, std::shared_ptr<const StmtNode>>, "statements are shared immutable nodes");
static_assert(std::is_base_of_v<std::logic_error, InternalError>);

TEST_CASE("Binary::make rejects operands of different types", "[dsl][ir][invariants]") {
  CHECK_THROWS_AS(Binary::make(BinOp::Add, i32c(1), f32c(1)), InternalError);
  CHECK(internal_error_of([] { Binary::make(BinOp::Add, i32c(1), f32c(1)); }) ==
        "tilejit internal error: Binary::make: operand types differ: i32 vs f32");
  CHECK(internal_error_of([] { Binary::make(BinOp::Lt, IntImm::make(Scalar::I64, 1), i32c(1)); }) ==
        "tilejit internal error: Binary::make: operand types differ: i64 vs i32");
}

TEST_CASE("Binary::make checks the operator's class against the operand type", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { Binary::make(BinOp::Mod, f32c(1), f32c(2)); }) ==
        "tilejit internal error: Binary::make: integer op on f32");
  CHECK(internal_error_of([] { Binary::make(BinOp::Shl, f32c(1), f32c(2)); }) ==
        "tilejit internal error: Binary::make: integer op on f32");
  CHECK(internal_error_of([] { Binary::make(BinOp::And, i32c(1), i32c(2)); }) ==
        "tilejit internal error: Binary::make: logical op on i32");
  CHECK(internal_error_of([] { Binary::make(BinOp::Add, BoolImm::make(true), BoolImm::make(false)); }) ==
        "tilejit internal error: Binary::make: arithmetic on bool");
  Expr bf = var("h", Type::of(Scalar::BF16));
  CHECK(internal_error_of([&] { Binary::make(BinOp::Lt, bf, bf); }) ==
        "tilejit internal error: Binary::make: comparison on bf16");
  CHECK(internal_error_of([&] { Binary::make(BinOp::Mul, bf, bf); }) ==
        "tilejit internal error: Binary::make: arithmetic on bf16");
}

TEST_CASE("Binary::make rejects pointers and null operands", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { Binary::make(BinOp::Add, gptr(Scalar::F32), f32c(1)); }) ==
        "tilejit internal error: Binary::make: lhs is a pointer, expected a value");
  CHECK(internal_error_of([] { Binary::make(BinOp::Add, i32c(1), nullptr); }) ==
        "tilejit internal error: Binary::make: null rhs");
}

TEST_CASE("Binary::make gives comparisons a bool result and keeps arithmetic types", "[dsl][ir]") {
  Expr lt = Binary::make(BinOp::Lt, f32c(1), f32c(2));
  CHECK(lt->type == Type::of(Scalar::Bool));
  Expr add = Binary::make(BinOp::Add, IntImm::make(Scalar::U64, 1), IntImm::make(Scalar::U64, 2));
  CHECK(add->type == Type::of(Scalar::U64));
  CHECK(to_string(add) == "(1ul + 2ul)");
  CHECK(is_comparison(BinOp::Ne));
  CHECK_FALSE(is_comparison(BinOp::Min));
  CHECK(op_spelling(BinOp::Shr) == ">>");
  CHECK(op_spelling(UnOp::BitNot) == "~");
}

TEST_CASE("constants: IntImm is integer, FloatImm is f32 only", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { IntImm::make(Scalar::F32, 1); }) ==
        "tilejit internal error: IntImm::make: not an integer type");
  CHECK(internal_error_of([] { IntImm::make(Scalar::Bool, 1); }) ==
        "tilejit internal error: IntImm::make: not an integer type");
  CHECK(internal_error_of([] { FloatImm::make(Scalar::I32, 1.0); }) ==
        "tilejit internal error: FloatImm::make: only f32 constants exist");
  CHECK(internal_error_of([] { FloatImm::make(Scalar::BF16, 1.0); }) ==
        "tilejit internal error: FloatImm::make: only f32 constants exist");
  CHECK(internal_error_of([] { VarRef::make("", Type::of(Scalar::I32)); }) ==
        "tilejit internal error: VarRef::make: empty name");
  CHECK(internal_error_of([] { SharedRef::make("", Scalar::F32); }) ==
        "tilejit internal error: SharedRef::make: empty name");
}

TEST_CASE("Unary::make checks its operand", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { Unary::make(UnOp::Not, i32c(1)); }) ==
        "tilejit internal error: Unary::make: logical op on i32");
  CHECK(internal_error_of([] { Unary::make(UnOp::BitNot, f32c(1)); }) ==
        "tilejit internal error: Unary::make: bitwise op on f32");
  CHECK(internal_error_of([] { Unary::make(UnOp::Neg, BoolImm::make(true)); }) ==
        "tilejit internal error: Unary::make: arithmetic on bool");
  CHECK(Unary::make(UnOp::Neg, f32c(1))->type == Type::of(Scalar::F32));
}

TEST_CASE("Select, Cast, Load and MapSharedRank check their inputs", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { Select::make(i32c(1), f32c(1), f32c(2)); }) ==
        "tilejit internal error: Select::make: condition is not bool");
  CHECK(internal_error_of([] { Select::make(BoolImm::make(true), f32c(1), i32c(2)); }) ==
        "tilejit internal error: Select::make: branch types differ");
  CHECK(internal_error_of([] { Cast::make(Scalar::F32, gptr(Scalar::F32)); }) ==
        "tilejit internal error: Cast::make: operand is a pointer, expected a value");
  CHECK(internal_error_of([] { Load::make(i32c(1), i32c(0), {}); }) ==
        "tilejit internal error: Load::make: not a pointer");
  CHECK(internal_error_of([] { Load::make(gptr(Scalar::F32), f32c(0), {}); }) ==
        "tilejit internal error: Load::make: index must be an integer, got f32");
  CHECK(internal_error_of([] { MapSharedRank::make(i32c(1), i32c(0), {}); }) ==
        "tilejit internal error: MapSharedRank::make: buffer is not a pointer");
  CHECK(internal_error_of([] { MapSharedRank::make(SharedRef::make("s", Scalar::F32), f32c(0), {}); }) ==
        "tilejit internal error: MapSharedRank::make: rank must be an integer");
  // A Load's type is the pointee; MapSharedRank keeps the element type, in the cluster window.
  CHECK(Load::make(gptr(Scalar::U64), i32c(0), {})->type == Type::of(Scalar::U64));
  Expr m = MapSharedRank::make(SharedRef::make("s", Scalar::BF16), i32c(1), {});
  CHECK(m->type == Type::pointer(Scalar::BF16, Space::Cluster));
  CHECK(to_string(m) == "map_shared_rank(s, 1)");
}

TEST_CASE("statements: Store, AtomicAdd, Assign, Declare", "[dsl][ir][invariants]") {
  CHECK(internal_error_of([] { Store::make(gptr(Scalar::F32), i32c(0), i32c(1), {}); }) ==
        "tilejit internal error: Store::make: storing i32 through global f32*");
  CHECK(internal_error_of([] { Store::make(f32c(0), i32c(0), f32c(1), {}); }) ==
        "tilejit internal error: Store::make: not a pointer");
  CHECK(internal_error_of([] { AtomicAdd::make(gptr(Scalar::I64), i32c(0), IntImm::make(Scalar::I64, 1), {}); }) ==
        "tilejit internal error: AtomicAdd::make: no atomic add for i64");
  CHECK(internal_error_of([] { AtomicAdd::make(gptr(Scalar::F32), i32c(0), i32c(1), {}); }) ==
        "tilejit internal error: AtomicAdd::make: type mismatch");
  CHECK(internal_error_of([] { Assign::make(i32c(1), i32c(2), {}); }) ==
        "tilejit internal error: Assign::make: target is not a variable");
  CHECK(internal_error_of([] { Assign::make(var("x", Type::of(Scalar::I32)), f32c(2), {}); }) ==
        "tilejit internal error: Assign::make: type mismatch i32 = f32");
  CHECK(internal_error_of([] { Declare::make("", i32c(1), {}); }) ==
        "tilejit internal error: Declare::make: empty name");
  CHECK(internal_error_of([] { Declare::make("p", gptr(Scalar::F32), {}); }) ==
        "tilejit internal error: Declare::make: init is a pointer, expected a value");
  CHECK(internal_error_of([] { Block::make({nullptr}); }) == "tilejit internal error: Block::make: null statement");
}

TEST_CASE("statements: For, If, ClusterBarrier", "[dsl][ir][invariants]") {
  Stmt body = Block::make({});
  CHECK(internal_error_of([&] { For::make("i", i32c(0), IntImm::make(Scalar::I64, 4), i32c(1), body, {}); }) ==
        "tilejit internal error: For::make: bound types differ");
  CHECK(internal_error_of([&] { For::make("i", f32c(0), f32c(4), f32c(1), body, {}); }) ==
        "tilejit internal error: For::make: loop bounds must be integers");
  CHECK(internal_error_of([&] { For::make("", i32c(0), i32c(4), i32c(1), body, {}); }) ==
        "tilejit internal error: For::make: empty loop variable");
  CHECK(internal_error_of([&] { For::make("i", i32c(0), i32c(4), i32c(1), nullptr, {}); }) ==
        "tilejit internal error: For::make: null body");
  CHECK(internal_error_of([&] { If::make(i32c(1), body, nullptr, {}); }) ==
        "tilejit internal error: If::make: condition is not bool");
  CHECK(internal_error_of([&] { If::make(BoolImm::make(true), nullptr, nullptr, {}); }) ==
        "tilejit internal error: If::make: null then");
  CHECK(internal_error_of([] { ClusterBarrier::make(ClusterBarrierOp::Arrive, MemoryOrder::Acquire, {}); }) ==
        "tilejit internal error: ClusterBarrier::make: arrive takes release or relaxed");
  CHECK(internal_error_of([] { ClusterBarrier::make(ClusterBarrierOp::Wait, MemoryOrder::Release, {}); }) ==
        "tilejit internal error: ClusterBarrier::make: wait takes acquire");
  CHECK(internal_error_of([] { ClusterBarrier::make(ClusterBarrierOp::Sync, MemoryOrder::Release, {}); }) ==
        "tilejit internal error: ClusterBarrier::make: sync has a fixed order");
  CHECK(internal_error_of([] { ClusterBarrier::make(ClusterBarrierOp::Arrive, MemoryOrder::Relaxed, {}); }) ==
        "no error");
}

TEST_CASE("kind names come from the one node list", "[dsl][ir]") {
  CHECK(kind_name(ExprKind::IntImm) == "IntImm");
  CHECK(kind_name(ExprKind::MapSharedRank) == "MapSharedRank");
  CHECK(kind_name(StmtKind::ClusterBarrier) == "ClusterBarrier");
  CHECK(kind_name(StmtKind::AtomicAdd) == "AtomicAdd");
  Expr e = i32c(3);
  CHECK(e->kind == ExprKind::IntImm);
  CHECK(e->as<IntImm>() != nullptr);
  CHECK(e->as<FloatImm>() == nullptr);
  CHECK(order_name(MemoryOrder::Release) == "release");
  CHECK(order_name(MemoryOrder::Acquire) == "acquire");
}

TEST_CASE("const_int sees integer constants through integer casts only", "[dsl][ir]") {
  CHECK(const_int(i32c(7)) == std::optional<int64_t>(7));
  CHECK(const_int(i32c(-7)) == std::optional<int64_t>(-7));
  CHECK(const_int(Cast::make(Scalar::I64, i32c(9))) == std::optional<int64_t>(9));
  CHECK_FALSE(const_int(Cast::make(Scalar::F32, i32c(9))).has_value());
  CHECK_FALSE(const_int(var("n", Type::of(Scalar::I32))).has_value());
  CHECK_FALSE(const_int(Binary::make(BinOp::Add, i32c(1), i32c(2))).has_value());
  CHECK_FALSE(const_int(nullptr).has_value());
}

TEST_CASE("scalar types: names, sizes and classes", "[dsl][ir][types]") {
  CHECK(scalar_name(Scalar::I32) == "i32");
  CHECK(scalar_name(Scalar::BF16) == "bf16");
  CHECK(scalar_bytes(Scalar::I32) == 4);
  CHECK(scalar_bytes(Scalar::I64) == 8);
  CHECK(scalar_bytes(Scalar::U64) == 8);
  CHECK(scalar_bytes(Scalar::BF16) == 2);
  CHECK(scalar_bytes(Scalar::Bool) == 1);
  CHECK(is_integer(Scalar::U32));
  CHECK_FALSE(is_integer(Scalar::Bool));
  CHECK(is_float(Scalar::BF16));
  CHECK_FALSE(is_float(Scalar::I32));
  CHECK(Type::of(Scalar::F32).str() == "f32");
  CHECK(Type::pointer(Scalar::I32, Space::Global).str() == "global i32*");
  CHECK(Type::pointer(Scalar::F32, Space::Shared).str() == "shared f32*");
  CHECK(Type::pointer(Scalar::U32, Space::Cluster).str() == "shared::cluster u32*");
  CHECK(Type::pointer(Scalar::U32, Space::Cluster).element() == Type::of(Scalar::U32));
  CHECK_FALSE(Type::of(Scalar::U32).is_pointer());
}

TEST_CASE("Loc keeps only the file's base name", "[dsl][ir][types]") {
  Loc l = Loc::from(std::source_location::current());
  CHECK(l.file == "test_ir_nodes.cpp");
  CHECK(l.line == unsigned(__LINE__ - 2));
  CHECK(l.str() == "test_ir_nodes.cpp:" + std::to_string(l.line));
  CHECK(Loc{}.str() == "<unknown>");
  CHECK_FALSE(Loc{}.known());
}

TEST_CASE("Dim3 counts and prints", "[dsl][ir][types]") {
  CHECK(Dim3{}.str() == "(1,1,1)");
  CHECK(Dim3{4, 2, 3}.count() == 24);
  CHECK(Dim3{4, 2, 3}.str() == "(4,2,3)");
  CHECK(Dim3{0, 5, 1}.count() == 0);
}

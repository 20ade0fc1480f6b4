// An MMA family: what one kind of tensor-core instruction means for the tile layer.
// One implementation per family knows the operand layouts it reads, where its
// accumulators live and what they cost, how an MMA is issued and completed, how an
// epilogue reads an accumulator, and the checks on all of that. The Target picks the
// family (family_for); the IR and the generic emitter hold none of these facts.
//
// sm_90a: wgmma (codegen/mma/wgmma.cpp), register accumulators, fence/commit/wait.
// sm_100a: tcgen05 (codegen/mma/tcgen05.cpp), accumulators in tensor memory, one thread
// issues, completion is a commit to an mbarrier.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/target.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/kernel.h"

namespace tj::codegen::mma {

// Lines of generated code, without indentation.
using Lines = std::vector<std::string>;
// The C++ text of an IR expression (the generic emitter's).
using ExprText = std::function<std::string(const ir::Expr&)>;

// An op a family does not lower, as the user's diagnostic: what is wrong, and the fix.
struct Refusal {
  std::string message, fix;
};

// Where an accumulator lives while the MMAs run.
enum class AccumulatorHome : uint8_t { Registers, TensorMemory };

// A tile operand's buffer name and layout, resolved by the caller (verify_tiles).
struct OperandView {
  std::string name;
  const ir::TileLayout& layout;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string_view name() const = 0;

  // ---- accumulators ----
  virtual AccumulatorHome accumulator_home() const = 0;
  // The threads that issue one mma together (verify_collectives): 128, a warpgroup
  // (wgmma.mma_async.sync.aligned), or 1 (tcgen05.mma, one thread for the CTA).
  virtual unsigned mma_issuers() const = 0;
  // f32 registers per thread of each warpgroup that owns `a` (0 where it lives in
  // tensor memory): what the register budget check adds up per role.
  virtual unsigned accumulator_registers(const ir::AccumulatorDecl& a) const = 0;

  // ---- checks (DSL-level diagnostics with the user's line) ----
  // The operand tiles of `n` as this family reads them: swizzles, element types,
  // major-ness and K steps. verify_tiles has already resolved the tiles and checks
  // what every family shares (rows covering the accumulator, 8-row offsets).
  virtual void check_mma(const ir::Mma& n, const ir::AccumulatorDecl& acc, const OperandView& a, const OperandView& b,
                         std::vector<Diagnostic>& out) const = 0;
  // An accumulator as this family holds it (its shape; checked once per declaration).
  virtual void check_accumulator(const ir::AccumulatorDecl& a, std::vector<Diagnostic>& out) const = 0;
  // An op on accumulators this family does not lower, named as the DSL names it
  // ("mma_wait", "acc_map", "row_sum", "store_accumulator_partial", ...): the diagnostic,
  // or nothing when it lowers it.
  virtual std::optional<Refusal> refuses(std::string_view what) const = 0;
  // The epilogue's destination tile (`d`) as this family's store writes it.
  virtual void check_acc_store(const ir::AccStore& n, const OperandView& d, std::vector<Diagnostic>& out) const = 0;

  // ---- emission ----
  // Device functions the kernel's MMAs need, placed before the kernel (empty when none).
  virtual std::string declarations(const ir::Kernel& k) const = 0;
  // The kernel's accumulators, declared at the top of its body.
  virtual std::string accumulator_decls(const ir::Kernel& k) const = 0;
  // Issue: one MMA group of the warpgroup.
  virtual Lines mma(const ir::Mma& n, const ir::Kernel& k, const ExprText& ex) const = 0;
  // Completion: at most n.pending groups in flight; with 0 the accumulators are readable.
  virtual Lines mma_wait(const ir::MmaWait& n, const ir::Kernel& k) const = 0;
  // The epilogue's read of the accumulator into a shared tile.
  virtual Lines acc_store(const ir::AccStore& n, const ir::Kernel& k, const ExprText& ex) const = 0;
  // Split-K: the accumulator into, or added from, a global workspace slot.
  virtual Lines acc_partial(const ir::AccPartial& n, const ir::Kernel& k, const ExprText& ex) const = 0;

  // ---- fragments (accumulators as values) ----
  // Every element of a fragment = n.value, its FragElem nodes bound to the element's
  // values, row and column (the generic emitter writes them as elem_value_name(f),
  // kElemRow and kElemCol).
  virtual Lines frag_map(const ir::FragMap& n, const ir::Kernel& k, const ExprText& ex) const = 0;
  // A row fragment from a reduction over each row of an accumulator.
  virtual Lines row_reduce(const ir::RowReduce& n, const ir::Kernel& k) const = 0;
  // A row fragment's values stored to memory, one thread per row.
  virtual Lines row_store(const ir::RowStore& n, const ir::Kernel& k, const ExprText& ex) const = 0;
  // The checks of fragment ops particular to the family (reductions its layout can
  // do, operand conversions); verify_tiles checks shapes and names.
  virtual void check_register_a(const ir::Mma& n, const ir::AccumulatorDecl& a, const OperandView& b,
                                std::vector<Diagnostic>& out) const = 0;
};

// The names the generic emitter gives FragElem nodes; a family binds them per element.
inline constexpr const char* kElemRow = "tj_e_row";
inline constexpr const char* kElemCol = "tj_e_col";
inline constexpr const char* kElemTile = "tj_e_tile";
inline std::string elem_value_name(const std::string& fragment) { return "tj_e_" + fragment; }

// The family `target` lowers tile MMAs with; nullptr where none is written.
const Family* family_for(const Target& target);


// The family of `target`, for emission: an internal error where there is none (the
// verifier refuses tile MMAs on such a target before emission).
const Family& family_of(const Target& target);

}  // namespace tj::codegen::mma

#include "dsl/ir/kernel.h"

#include <algorithm>

namespace tj::ir {

std::string Dim3::str() const {
  return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

namespace {
uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t shared_bytes(const Kernel& k, bool dynamic) {
  uint64_t total = 0;
  for (const SharedBuffer& b : k.shared)
    if (b.dynamic == dynamic) total = round_up(total, std::max<uint64_t>(kSharedAlign, b.align)) + b.bytes();
  return round_up(total, kSharedAlign);
}
}  // namespace

std::vector<uint64_t> Kernel::dynamic_offsets() const {
  std::vector<uint64_t> out;
  uint64_t total = 0;
  for (const SharedBuffer& b : shared) {
    if (!b.dynamic) {
      out.push_back(0);
      continue;
    }
    total = round_up(total, std::max<uint64_t>(kSharedAlign, b.align));
    out.push_back(total);
    total += b.bytes();
  }
  return out;
}

uint64_t Kernel::static_shared_bytes() const { return shared_bytes(*this, false); }
uint64_t Kernel::dynamic_shared_bytes() const { return shared_bytes(*this, true); }

std::string_view swizzle_name(Swizzle s) {
  switch (s) {
    case Swizzle::None: return "none";
    case Swizzle::B32: return "32B";
    case Swizzle::B64: return "64B";
    case Swizzle::B128: return "128B";
  }
  return "?";
}

unsigned swizzle_span(Swizzle s) {
  switch (s) {
    case Swizzle::None: return 0;
    case Swizzle::B32: return 32;
    case Swizzle::B64: return 64;
    case Swizzle::B128: return 128;
  }
  return 0;
}

uint64_t TensorMapDecl::box_bytes() const {
  uint64_t n = scalar_bytes(dtype);
  for (unsigned b : box) n *= b;
  return n;
}

const TensorMapDecl* Kernel::find_tensor_map(const std::string& name) const {
  for (const TensorMapDecl& t : tensor_maps)
    if (t.name == name) return &t;
  return nullptr;
}

const AccumulatorDecl* Kernel::find_accumulator(const std::string& name) const {
  for (const AccumulatorDecl& a : accumulators)
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view major_name(Major m) { return m == Major::K ? "K-major" : "MN-major"; }

unsigned TileLayout::panel_cols() const {
  const unsigned span = swizzle_span(swizzle);
  return span ? span / scalar_bytes(elem) : cols;
}

const SharedBuffer* Kernel::find_shared(const std::string& name) const {
  for (const SharedBuffer& b : shared)
    if (b.name == name) return &b;
  return nullptr;
}

const RaceAllowance* Kernel::race_allowance(const Loc& stmt) const {
  if (!stmt.known()) return nullptr;
  for (const RaceAllowance& a : race_allowances)
    if (a.stmt.line == stmt.line && a.stmt.column == stmt.column && a.stmt.file == stmt.file) return &a;
  return nullptr;
}

}  // namespace tj::ir

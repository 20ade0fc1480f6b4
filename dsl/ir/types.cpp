#include "dsl/ir/types.h"

namespace tj::ir {

std::string_view scalar_name(Scalar s) {
  switch (s) {
#define TJ_X(e, str, n) \
  case Scalar::e:       \
    return str;
    TJ_SCALAR_TYPES(TJ_X)
#undef TJ_X
  }
  return "?";
}

unsigned scalar_bytes(Scalar s) {
  switch (s) {
#define TJ_X(e, str, n) \
  case Scalar::e:       \
    return n;
    TJ_SCALAR_TYPES(TJ_X)
#undef TJ_X
  }
  return 0;
}

bool is_integer(Scalar s) {
  return s == Scalar::I32 || s == Scalar::U32 || s == Scalar::I64 || s == Scalar::U64;
}

bool is_float(Scalar s) { return s == Scalar::F32 || s == Scalar::BF16 || s == Scalar::F16; }

namespace {
struct Packed {
  Scalar vec, lane;
  unsigned lanes;
};
constexpr Packed kPacked[] = {{Scalar::U32x4, Scalar::U32, 4},
                              {Scalar::BF16x2, Scalar::BF16, 2},
                              {Scalar::F16x2, Scalar::F16, 2},
                              {Scalar::F32x2, Scalar::F32, 2},
                              {Scalar::F32x4, Scalar::F32, 4}};
const Packed* packed(Scalar s) {
  for (const Packed& p : kPacked)
    if (p.vec == s) return &p;
  return nullptr;
}
}  // namespace

bool is_vector(Scalar s) { return packed(s) != nullptr; }
unsigned vector_lanes(Scalar s) { return packed(s) ? packed(s)->lanes : 1; }
Scalar vector_lane_type(Scalar s) { return packed(s) ? packed(s)->lane : s; }
Scalar vector_of(Scalar lane, unsigned lanes) {
  for (const Packed& p : kPacked)
    if (p.lane == lane && p.lanes == lanes) return p.vec;
  return Scalar::Bool;
}

bool is_opaque(Scalar s) { return s == Scalar::MBarrier || s == Scalar::TensorMap; }

std::string_view space_name(Space s) {
  switch (s) {
    case Space::None: return "";
    case Space::Global: return "global";
    case Space::Shared: return "shared";
    case Space::Cluster: return "shared::cluster";
  }
  return "?";
}

std::string Type::str() const {
  std::string out(scalar_name(scalar));
  if (is_pointer()) out = std::string(space_name(space)) + " " + out + "*";
  return out;
}

Loc Loc::from(const std::source_location& l) {
  std::string_view f = l.file_name();
  if (auto slash = f.find_last_of("/\\"); slash != std::string_view::npos) f = f.substr(slash + 1);
  return Loc{std::string(f), l.line(), l.column()};
}

std::string Loc::str() const {
  if (!known()) return file.empty() ? "<unknown>" : file;
  return file + ":" + std::to_string(line);
}

}  // namespace tj::ir

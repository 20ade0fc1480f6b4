#include "codegen/op_table.h"

#include "dsl/ir/ir.h"

namespace tj::codegen {
namespace {

constexpr unsigned None = 0;
constexpr unsigned Clusters = unsigned(Feature::Clusters);
constexpr unsigned DistributedShared = unsigned(Feature::DistributedShared);
constexpr unsigned TmaMulticast = unsigned(Feature::TmaMulticast);
constexpr unsigned Wgmma = unsigned(Feature::Wgmma);
constexpr unsigned ClusterLaunchControl = unsigned(Feature::ClusterLaunchControl);
constexpr unsigned Tcgen05 = unsigned(Feature::Tcgen05);

const Feature kAllFeatures[] = {Feature::Clusters, Feature::DistributedShared, Feature::TmaMulticast,
                                Feature::Wgmma,    Feature::Tcgen05,          Feature::ClusterLaunchControl};

}  // namespace

const std::vector<OpRow>& op_table() {
  static const std::vector<OpRow> rows = {
#define TJ_OP(Enum, name, group, dsl, ir_kinds, prelude, ptx, features) \
  OpRow{Op::Enum, name, group, dsl, ir_kinds, prelude, ptx, features},
#include "codegen/op_table.def"
  };
  return rows;
}

const OpRow& op_row(Op op) {
  const std::vector<OpRow>& rows = op_table();
  const size_t i = static_cast<size_t>(op);
  if (i >= rows.size() || rows[i].op != op) ir::internal_error("op_table: rows out of order");
  return rows[i];
}

bool supports(const Target& t, Op op) { return (t.features & op_row(op).features) == op_row(op).features; }

Feature missing_feature(const Target& t, Op op) {
  for (Feature f : kAllFeatures)
    if ((op_row(op).features & unsigned(f)) && !t.has(f)) return f;
  ir::internal_error("missing_feature: the target supports the op");
}

std::vector<std::string> supporting_targets(Op op) {
  std::vector<std::string> out;
  for (const std::string& arch : Target::known())
    if (supports(*Target::parse(arch), op)) out.push_back(arch);
  return out;
}

std::string supporting_targets_text(Op op) {
  std::string out;
  const std::vector<std::string> archs = supporting_targets(op);
  for (size_t i = 0; i < archs.size(); ++i) out += (i == 0 ? "" : i + 1 == archs.size() ? " or " : ", ") + archs[i];
  return out;
}

}  // namespace tj::codegen

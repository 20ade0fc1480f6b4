// The op table (codegen/op_table.def) against the code: every IR node kind has a row,
// every row names real node kinds, prelude wrappers and PTX, every wrapper emission
// calls has a row, and the verifier's target checks follow the table.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <filesystem>
#include <regex>
#include <set>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "codegen/op_table.h"
#include "codegen/prelude.h"
#include "codegen/prelude/sm90_wgmma_wrappers.h"
#include "dsl/ir/ir.h"

using namespace tj;
using codegen::Op;
using codegen::OpRow;

namespace {

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(", ", start);
    if (end == std::string_view::npos) end = text.size();
    out.emplace_back(text.substr(start, end - start));
    start = end + 2;
  }
  return out;
}

std::set<std::string> rows_ir_kinds() {
  std::set<std::string> out;
  for (const OpRow& r : codegen::op_table())
    for (const std::string& k : split_list(r.ir_kinds)) out.insert(k);
  return out;
}

std::set<std::string> rows_wrappers() {
  std::set<std::string> out;
  for (const OpRow& r : codegen::op_table())
    for (const std::string& w : split_list(r.prelude)) out.insert(w);
  return out;
}

// The prelude, and a generated wgmma wrapper (those are written per shape).
std::string device_code() {
  return std::string(codegen::prelude_source()) + codegen::wgmma_wrapper(codegen::WgmmaShape{256, ir::Scalar::BF16, false});
}

}  // namespace

TEST_CASE("op table: every IR statement kind has a row", "[codegen][op_table]") {
  const std::set<std::string> kinds = rows_ir_kinds();
  std::vector<std::string> missing;
#define TJ_STMT(Name) \
  if (!kinds.count(#Name)) missing.push_back(#Name);
#include "dsl/ir/node_kinds.def"
  INFO("statement kinds without a row in codegen/op_table.def");
  CHECK(missing == std::vector<std::string>{});
}

TEST_CASE("op table: every IR expression kind has a row", "[codegen][op_table]") {
  const std::set<std::string> kinds = rows_ir_kinds();
  std::vector<std::string> missing;
#define TJ_EXPR(Name) \
  if (!kinds.count(#Name)) missing.push_back(#Name);
#include "dsl/ir/node_kinds.def"
  CHECK(missing == std::vector<std::string>{});
}

TEST_CASE("op table: rows name only real IR node kinds", "[codegen][op_table]") {
  std::set<std::string> real;
#define TJ_EXPR(Name) real.insert(#Name);
#define TJ_STMT(Name) real.insert(#Name);
#include "dsl/ir/node_kinds.def"
  for (const std::string& k : rows_ir_kinds()) {
    INFO("row names IR kind '" << k << "'");
    CHECK(real.count(k) == 1);
  }
}

TEST_CASE("op table: rows are in enum order, so op_row finds each", "[codegen][op_table]") {
  for (const OpRow& r : codegen::op_table()) CHECK(&codegen::op_row(r.op) == &r);
}

TEST_CASE("op table: every prelude wrapper a row names is defined in the prelude", "[codegen][op_table]") {
  const std::string code = device_code();
  for (const std::string& w : rows_wrappers()) {
    INFO("wrapper tj::" << w);
    // Defined as a function, or by a macro: TJ_SREG_U32(name, ...) or tma_load_##N##d.
    const std::string macro_form = std::regex_replace(w, std::regex("_[1-5]d"), "_##N##d");
    const bool defined = std::regex_search(code, std::regex("\\b" + w + "(<[^>]*>)?\\(")) ||
                         code.find("(" + w + ",") != std::string::npos ||
                         code.find(" " + macro_form + "(") != std::string::npos;
    CHECK(defined);
  }
}

TEST_CASE("op table: every PTX instruction a row names occurs in the device code", "[codegen][op_table]") {
  const std::string code = device_code();
  int checked = 0;
  for (const OpRow& r : codegen::op_table()) {
    const std::string ptx(r.ptx);
    // Each `code span` that is a PTX instruction (lowercase, dotted), up to its first operand,
    // optional part ([...]) or placeholder (N).
    static const std::regex span("`([a-z][^`]*)`");
    for (std::sregex_iterator it(ptx.begin(), ptx.end(), span), end; it != end; ++it) {
      std::string insn = (*it)[1];
      if (insn.find('.') == std::string::npos) continue;
      insn = insn.substr(0, insn.find_first_of(" [N"));
      INFO("row '" << r.name << "': " << insn);
      CHECK(code.find(insn) != std::string::npos);
      ++checked;
    }
  }
  CHECK(checked >= 30);
}

TEST_CASE("op table: every prelude call in the samples' generated code has a row", "[codegen][op_table]") {
  const std::set<std::string> wrappers = rows_wrappers();
  std::set<std::string> called;
  // Every spec the samples ship with (the GEMM's included), lowered for sm_90a.
  for (const auto& entry : std::filesystem::directory_iterator(tj::test::source_dir() + "/samples/specs")) {
    cli::Spec spec = cli::load_spec(entry.path().string());
    // Samples written for sm_100a only (gemm_sm100) are lowered for it.
    const codegen::Target t = spec.sample->targets().empty() ? codegen::Target::sm90a() : *codegen::Target::parse(spec.sample->targets().front());
    codegen::Lowered l = codegen::lower(spec.sample->build(spec.config), t);
    static const std::regex call("tj::([a-z_0-9]+)[(<]");
    for (std::sregex_iterator it(l.cuda.begin(), l.cuda.end(), call), end; it != end; ++it)
      called.insert((*it)[1]);
  }
  REQUIRE(called.count("wgmma_commit") == 1);  // the GEMM was among them
  REQUIRE(called.size() >= 10);
  for (const std::string& f : called) {
    // Per-shape wgmma wrappers and the accumulator's register fences belong to the mma row;
    // cluster_addr computes a copy's operand address.
    if (f.rfind("wgmma_m64n", 0) == 0 || f.rfind("acc_fence", 0) == 0 || f == "cluster_addr" || f == "cluster_ptr") continue;
    INFO("generated code calls tj::" << f);
    CHECK(wrappers.count(f) == 1);
  }
}

TEST_CASE("op table: the targets that support each op follow their features", "[codegen][op_table]") {
  CHECK(codegen::supporting_targets(Op::MapSharedRankOp) == std::vector<std::string>{"sm_90a", "sm_100a"});
  CHECK(codegen::supporting_targets(Op::MmaOp) == std::vector<std::string>{"sm_90a", "sm_100a"});
  CHECK(codegen::supporting_targets(Op::MmaWaitOp) == std::vector<std::string>{"sm_90a"});
  CHECK(codegen::supporting_targets(Op::MmaPairOp) == std::vector<std::string>{"sm_100a"});
  CHECK(codegen::supporting_targets_text(Op::TmaLoadMulticast) == "sm_90a or sm_100a");
  codegen::Target bare = codegen::Target::sm90a();
  bare.arch = "sm_80";
  bare.features = 0;
  CHECK_FALSE(codegen::supports(bare, Op::ClusterSync));
  CHECK(codegen::supports(bare, Op::SyncThreadsOp));
  CHECK(codegen::missing_feature(bare, Op::MapSharedRankOp) == codegen::Feature::DistributedShared);
}

TEST_CASE("op table: the reference page has a row per op and a column per target", "[codegen][op_table]") {
  const std::string page = codegen::dsl_reference_markdown();
  for (const OpRow& r : codegen::op_table()) {
    INFO(r.name);
    CHECK(page.find("\n| " + std::string(r.name) + " |") != std::string::npos);
  }
  CHECK(page.find("| sm_90a | sm_100a |") != std::string::npos);
  // mma_wait runs on sm_90a only (wgmma groups): its row ends "yes | no |".
  const size_t mma = page.find("\n| mma_wait |");
  REQUIRE(mma != std::string::npos);
  const std::string row = page.substr(mma + 1, page.find('\n', mma + 1) - mma - 1);
  CHECK(row.substr(row.size() - 11) == " yes | no |");
}

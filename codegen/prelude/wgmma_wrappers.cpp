#include "codegen/prelude/wgmma_wrappers.h"

#include <algorithm>

namespace tj::codegen {

std::string wgmma_wrapper_name(const WgmmaShape& s) {
  return "wgmma_m64n" + std::to_string(s.n) + "k16_f32_" + std::string(ir::scalar_name(s.in)) + (s.b_mn_major ? "_kn" : "_kk");
}

std::vector<WgmmaColumns> wgmma_column_split(unsigned n, unsigned align) {
  const unsigned count = (n + kWgmmaMaxN - 1) / kWgmmaMaxN;
  const unsigned width = std::min(kWgmmaMaxN, (n / count + align - 1) / align * align);
  std::vector<WgmmaColumns> out;
  for (unsigned first = 0; first < n; first += width) out.push_back({first, std::min(width, n - first)});
  return out;
}

namespace {
// "+f"(d[0]), "+f"(d[1]), ...
std::string read_write_operands(unsigned regs) {
  std::string outs;
  for (unsigned i = 0; i < regs; ++i) outs += std::string(i ? ", " : "") + "\"+f\"(d[" + std::to_string(i) + "])";
  return outs;
}
}  // namespace

std::string acc_fence_name(unsigned regs) { return "acc_fence_" + std::to_string(regs); }

std::string acc_fence(unsigned regs) {
  return "TJ_DEVICE void " + acc_fence_name(regs) + "(float* d) { asm volatile(\"\" : " + read_write_operands(regs) +
         " : : \"memory\"); }\n";
}

std::string wgmma_wrapper(const WgmmaShape& s) {
  const unsigned regs = s.n / 2;
  const std::string type(ir::scalar_name(s.in));
  std::string list;
  for (unsigned i = 0; i < regs; ++i) list += (i ? ", %" : "%") + std::to_string(i);
  const std::string outs = read_write_operands(regs);
  const std::string da = "%" + std::to_string(regs), db = "%" + std::to_string(regs + 1), sc = "%" + std::to_string(regs + 2);
  std::string out;
  out += "// D(64x" + std::to_string(s.n) + ", f32) (+)= A(64x16, K-major) * B(16x" + std::to_string(s.n) + ", " +
         (s.b_mn_major ? "N-major" : "K-major") + "), " + type + " in; scale_d 0 overwrites D.\n";
  out += "TJ_DEVICE void " + wgmma_wrapper_name(s) + "(float* d, u64 desc_a, u64 desc_b, u32 scale_d) {\n";
  out += "  asm volatile(\n      \"{ .reg .pred p; setp.ne.b32 p, " + sc + ", 0; \"\n";
  out += "      \"wgmma.mma_async.sync.aligned.m64n" + std::to_string(s.n) + "k16.f32." + type + "." + type + " \"\n";
  out += "      \"{" + list + "}, \"\n";
  out += "      \"" + da + ", " + db + ", p, 1, 1, 0, " + (s.b_mn_major ? "1" : "0") + "; }\"\n";
  out += "      : " + outs + "\n";
  out += "      : \"l\"(desc_a), \"l\"(desc_b), \"r\"(scale_d));\n}\n";
  return out;
}

}  // namespace tj::codegen

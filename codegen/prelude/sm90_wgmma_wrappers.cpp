#include "codegen/prelude/sm90_wgmma_wrappers.h"

#include <algorithm>

namespace tj::codegen {

std::string wgmma_wrapper_name(const WgmmaShape& s) {
  return "wgmma_m64n" + std::to_string(s.n) + "k16_f32_" + std::string(ir::scalar_name(s.in)) + (s.b_mn_major ? "_kn" : "_kk") +
         (s.a_in_registers ? "_rs" : "");
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
  auto op = [](unsigned i) { return "%" + std::to_string(i); };
  // Operands after the accumulators: A (a descriptor, or four registers), B's descriptor, scale_d.
  const unsigned a_ops = s.a_in_registers ? 4 : 1;
  std::string a_text = op(regs);
  if (s.a_in_registers) a_text = "{" + op(regs) + ", " + op(regs + 1) + ", " + op(regs + 2) + ", " + op(regs + 3) + "}";
  const std::string db = op(regs + a_ops), sc = op(regs + a_ops + 1);
  std::string out;
  out += "// D(64x" + std::to_string(s.n) + ", f32) (+)= A(64x16, " + (s.a_in_registers ? "registers" : "K-major") + ") * B(16x" +
         std::to_string(s.n) + ", " + (s.b_mn_major ? "N-major" : "K-major") + "), " + type + " in; scale_d 0 overwrites D.\n";
  out += "TJ_DEVICE void " + wgmma_wrapper_name(s) + "(float* d, " + (s.a_in_registers ? "const u32* a" : "u64 desc_a") +
         ", u64 desc_b, u32 scale_d) {\n";
  out += "  asm volatile(\n      \"{ .reg .pred p; setp.ne.b32 p, " + sc + ", 0; \"\n";
  out += "      \"wgmma.mma_async.sync.aligned.m64n" + std::to_string(s.n) + "k16.f32." + type + "." + type + " \"\n";
  out += "      \"{" + list + "}, \"\n";
  // Immediates: scale-a, scale-b, then the transposes (only B's in the register form).
  const std::string trans_b = s.b_mn_major ? "1" : "0";
  out += "      \"" + a_text + ", " + db + ", p, 1, 1, " + (s.a_in_registers ? trans_b : "0, " + trans_b) + "; }\"\n";
  out += "      : " + outs + "\n";
  out += std::string("      : ") + (s.a_in_registers ? "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])" : "\"l\"(desc_a)") +
         ", \"l\"(desc_b), \"r\"(scale_d));\n}\n";
  return out;
}

}  // namespace tj::codegen

#include "api/compile.h"

#include <chrono>

#include "codegen/prelude.h"
#include "runtime/cache.h"
#include "runtime/device.h"
#include "runtime/error.h"

namespace tj {

namespace {
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

codegen::Target target_for(const std::string& arch) {
  const std::string name = arch.empty() ? rt::default_arch() : arch;
  if (std::optional<codegen::Target> t = codegen::Target::parse(name)) return *t;
  std::string known;
  for (const std::string& k : codegen::Target::known()) known += (known.empty() ? "" : " or ") + k;
  throw rt::RuntimeError(rt::ErrorKind::Usage, "unsupported architecture '" + name + "'; tilejit generates code for " + known);
}

rt::CompileRequest compile_request(const codegen::Lowered& lowered, const codegen::Target& target) {
  rt::CompileRequest req;
  req.kernel_name = lowered.kernel.name;
  req.source = lowered.cuda;
  req.headers.push_back({codegen::kPreludeName, std::string(codegen::prelude_source())});
  req.arch = target.arch;
  return req;
}

CompiledKernel compile(const ir::Kernel& kernel, const codegen::Target& target, rt::Cache* cache,
                       const codegen::LowerOptions& lower) {
  CompiledKernel out{target, {}, {}, {}};
  auto start = std::chrono::steady_clock::now();
  out.lowered = codegen::lower(kernel, target, lower);
  out.times.lower = seconds_since(start);
  start = std::chrono::steady_clock::now();
  out.result = rt::compile(compile_request(out.lowered, target), cache);
  out.times.compile = seconds_since(start);
  return out;
}

CompiledKernel compile(const ir::Kernel& kernel, const CompileOptions& options) {
  const codegen::Target target = target_for(options.arch);
  codegen::LowerOptions lower;
  lower.debug_hangs = options.debug_hangs;
  if (!options.cache) return compile(kernel, target, nullptr, lower);
  rt::Cache cache = options.cache_dir.empty() ? rt::Cache::from_env() : rt::Cache(options.cache_dir);
  return compile(kernel, target, &cache, lower);
}

}  // namespace tj

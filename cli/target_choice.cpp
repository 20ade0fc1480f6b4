#include "cli/target_choice.h"

#include "runtime/device.h"
#include "runtime/error.h"

namespace tj::cli {

codegen::Target choose_target(const std::string& arch_flag) {
  std::string arch = arch_flag.empty() ? rt::default_arch() : arch_flag;
  std::optional<codegen::Target> t = codegen::Target::parse(arch);
  if (!t) throw rt::RuntimeError(rt::ErrorKind::Usage, "unsupported architecture '" + arch + "'; use sm_90a or sm_100a");
  return *t;
}

codegen::Target device_target(const rt::Context& ctx) {
  std::optional<codegen::Target> t = codegen::Target::parse(ctx.arch());
  if (!t)
    throw rt::RuntimeError(rt::ErrorKind::NoDriver, "GPU " + ctx.info().name + " is " + ctx.arch() +
                                                        "; tilejit runs kernels on sm_90a (Hopper) or sm_100a (Blackwell)");
  return *t;
}

}  // namespace tj::cli

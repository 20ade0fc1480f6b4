#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "cli/version.h"
#include "generators/runner.h"
#include "runtime/device.h"
#include "runtime/driver.h"

namespace tj::cli {

int cmd_info(const std::string& spec_file, std::optional<int> device) {
  std::optional<Spec> spec;
  if (!spec_file.empty()) spec = load_spec(spec_file);  // bad specs fail before the GPU question

  std::cout << "tilejit " << version_text() << ", NVRTC " << rt::nvrtc_version() << ", targets sm_90a sm_100a\n";
  std::string why;
  if (!rt::driver_available(&why)) {
    std::cout << "device    none: " << why << "\n";
    return kNoGpu;
  }
  const Device gpu = open_device(device);
  const rt::Context& ctx = gpu.context();
  const rt::DeviceInfo& d = ctx.info();
  std::cout << "device    " << d.ordinal << ": " << d.name << " (" << ctx.arch() << ", cc " << d.cc_major << "."
            << d.cc_minor << ")\n"
            << "SMs       " << d.sm_count << "\n"
            << "memory    " << (d.total_mem >> 20) << " MiB, L2 " << (d.l2_bytes >> 10) << " KiB\n"
            << "smem      " << d.max_smem_per_block_optin << " B per CTA (opt-in), " << d.max_smem_per_sm
            << " B per SM\n";
  if (!spec) return kOk;

  std::optional<codegen::Target> target = codegen::Target::parse(ctx.arch());
  if (!target) {
    std::cout << "spec      cannot be compiled for " << ctx.arch() << "\n";
    return kNoGpu;
  }
  samples::Compiled c = samples::compile_sample(*spec->sample, spec->config, *target, nullptr);
  rt::Module module = rt::Module::load(ctx, c.result.cubin, c.lowered.kernel.name, c.lowered.kernel.params.size());
  std::cout << "kernel    " << c.lowered.kernel.name << ": " << module.num_regs() << " registers/thread, "
            << c.lowered.kernel.static_shared_bytes() << " B static + " << c.lowered.dynamic_smem
            << " B dynamic smem per CTA\n"
            << "clusters  size -> max co-resident clusters (0: cannot launch)\n";
  rt::LaunchConfig lc = samples::launch_config(spec->config, c);
  unsigned largest = 0;
  for (unsigned n : {1u, 2u, 4u, 8u, 16u}) {
    lc.cluster = {n, 1, 1};
    int active = 0;
    try {
      rt::prepare(module, lc);
      active = rt::max_active_clusters(module, lc);
    } catch (const std::exception& e) {
      active = 0;
    }
    if (active > 0) largest = n;
    std::cout << "          " << n << (n == spec->config.cluster.count() ? " (spec)" : "") << " -> " << active << "\n";
  }
  std::cout << "largest   cluster size that fits: " << largest << "\n";
  return kOk;
}

}  // namespace tj::cli

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "cli/clusters_fit.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/report.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "dsl/ir/printer.h"
#include "generators/runner.h"
#include "runtime/disassemble.h"
#include "runtime/error.h"

namespace tj::cli {

const std::vector<std::string>& emit_kinds() {
  static const std::vector<std::string> kinds = {"ir", "cuda", "ptx", "cubin", "sass"};
  return kinds;
}

std::string emit_extension(const std::string& kind) { return kind == "cuda" ? ".cu" : "." + kind; }

int cmd_compile(const CompileArgs& args) {
  Spec spec = load_spec(args.spec);
  codegen::Target target = choose_target(args.arch);
  // SASS needs a CUDA tool; without one, say so before compiling or writing anything.
  std::optional<rt::Disassembler> disassembler;
  if (std::find(args.emit.begin(), args.emit.end(), "sass") != args.emit.end()) {
    disassembler = rt::find_disassembler();
    if (!disassembler) {
      std::cerr << "error: --emit sass: neither cuobjdump nor nvdisasm was found in " << rt::disassembler_search_text()
                << "; install the CUDA toolkit's binary utilities, or set CUDA_ROOT to the toolkit. Nothing was written.\n";
      return kNoGpu;
    }
  }
  // --sms: the device's decisions for a GPU of that many SMs (its SM count, and with
  // --clusters-fit how many clusters of each size it runs), before anything is compiled or written.
  if (!args.clusters_fit.empty() && args.sms <= 0)
    throw rt::RuntimeError(rt::ErrorKind::Usage, "--clusters-fit: describes the GPU of --sms N; give --sms too");
  if (args.sms > 0) {
    const samples::Sample::DeviceFacts facts = modelled_device(args.sms, args.clusters_fit);
    if (std::optional<samples::Sample::DeviceChoice> d = spec.sample->for_device(spec.config, facts)) {
      std::cout << "auto      " << d->line << "\n";
      spec.config = d->config;
    } else {
      std::cout << "auto      nothing: " << spec.sample->name() << " leaves nothing in this spec to the device\n";
    }
  }
  rt::Cache cache = rt::Cache::from_env();
  samples::Compiled c = samples::compile_sample(*spec.sample, spec.config, target, &cache);
  // The disassembler runs before anything is written too: if it fails, nothing is.
  const std::string sass = disassembler ? rt::disassemble(c.result.cubin, *disassembler) : "";

  ensure_output_dir(args.out_dir);
  const std::string& name = c.lowered.kernel.name;
  // Refuse before writing anything, so that a bad target leaves no partial output.
  for (const std::string& kind : args.emit) {
    check_writable(args.out_dir, name + emit_extension(kind));
  }
  for (const std::string& kind : args.emit) {
    std::string path;
    if (kind == "ir") path = write_output(args.out_dir, name + ".ir", ir::to_string(c.lowered.kernel));
    if (kind == "cuda") path = write_output(args.out_dir, name + ".cu", c.lowered.cuda);
    if (kind == "ptx") path = write_output(args.out_dir, name + ".ptx", c.result.ptx);
    if (kind == "cubin") path = write_output(args.out_dir, name + ".cubin", c.result.cubin);
    if (kind == "sass") path = write_output(args.out_dir, name + ".sass", sass);
    std::cout << "wrote " << path << (kind == "sass" ? " (" + disassembler->path + ")" : std::string()) << "\n";
  }
  std::cout << "compiled " << name << " for " << target.arch << " in " << compile_time_text(c.times, c.result.from_cache)
            << (c.result.from_cache ? " (cache hit)" : " (NVRTC " + rt::nvrtc_version() + ")") << "\n";
  print_checks(std::cout, c.lowered);
  if (!c.result.log.empty()) std::cerr << c.result.log;
  return kOk;
}

}  // namespace tj::cli

#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "cli/report.h"
#include "cli/spec.h"
#include "cli/target_choice.h"
#include "dsl/ir/printer.h"
#include "samples/runner.h"

namespace tj::cli {

int cmd_compile(const CompileArgs& args) {
  Spec spec = load_spec(args.spec);
  codegen::Target target = choose_target(args.arch);
  rt::Cache cache = rt::Cache::from_env();
  samples::Compiled c = samples::compile_sample(*spec.sample, spec.config, target, &cache);

  ensure_output_dir(args.out_dir);
  const std::string& name = c.lowered.kernel.name;
  // Refuse before writing anything, so that a bad target leaves no partial output.
  for (const std::string& kind : args.emit) {
    const char* ext = kind == "ir" ? ".ir" : kind == "cuda" ? ".cu" : kind == "ptx" ? ".ptx" : ".cubin";
    check_writable(args.out_dir, name + ext);
  }
  for (const std::string& kind : args.emit) {
    std::string path;
    if (kind == "ir") path = write_output(args.out_dir, name + ".ir", ir::to_string(c.lowered.kernel));
    if (kind == "cuda") path = write_output(args.out_dir, name + ".cu", c.lowered.cuda);
    if (kind == "ptx") path = write_output(args.out_dir, name + ".ptx", c.result.ptx);
    if (kind == "cubin") path = write_output(args.out_dir, name + ".cubin", c.result.cubin);
    std::cout << "wrote " << path << "\n";
  }
  std::cout << "compiled " << name << " for " << target.arch << " in " << compile_time_text(c.times, c.result.from_cache)
            << (c.result.from_cache ? " (cache hit)" : " (NVRTC " + rt::nvrtc_version() + ")") << "\n";
  print_transaction_checks(std::cout, c.lowered);
  print_race_checks(std::cout, c.lowered);
  if (!c.result.log.empty()) std::cerr << c.result.log;
  return kOk;
}

}  // namespace tj::cli

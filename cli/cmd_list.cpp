#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "samples/sample.h"

namespace tj::cli {

int cmd_list() {
  for (const samples::Sample* s : samples::all_samples()) {
    std::cout << s->name() << "\n    " << s->summary() << "\n";
    for (const samples::ParamSpec& p : s->params())
      std::cout << "    params." << p.name << " (default " << p.default_value << ", " << p.min << ".." << p.max
                << "): " << p.doc << "\n";
  }
  return kOk;
}

}  // namespace tj::cli

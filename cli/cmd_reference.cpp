#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "codegen/op_table.h"

namespace tj::cli {

int cmd_reference() {
  std::cout << codegen::dsl_reference_markdown();
  return kOk;
}

}  // namespace tj::cli

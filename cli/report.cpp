#include "cli/report.h"

namespace tj::cli {

void print_transaction_checks(std::ostream& out, const codegen::Lowered& lowered) {
  if (lowered.transactions.empty()) out << "tx check  no barrier receives transaction bytes\n";
  for (const codegen::TransactionCheck& c : lowered.transactions) out << "tx check  " << codegen::to_string(c) << "\n";
}

}  // namespace tj::cli

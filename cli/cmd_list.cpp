#include <iostream>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "generators/sample.h"
#include "samples/builtin.h"

namespace tj::cli {
namespace {

// "(default 4096, 1..65536)", or with choices "(default tn, one of tn = 0, nn = 1)".
std::string range_of(const samples::ParamSpec& p) {
  if (p.choices.empty())
    return "(default " + std::to_string(p.default_value) + ", " + std::to_string(p.min) + ".." + std::to_string(p.max) + ")";
  const bool named = p.default_value >= 0 && size_t(p.default_value) < p.choices.size();
  std::string out = "(default " + (named ? p.choices[size_t(p.default_value)] : std::to_string(p.default_value)) + ", one of ";
  for (size_t i = 0; i < p.choices.size(); ++i) out += (i ? ", " : "") + p.choices[i] + " = " + std::to_string(i);
  return out + ")";
}

}  // namespace

void print_samples(std::ostream& out, const std::vector<const samples::Sample*>& samples) {
  for (const samples::Sample* s : samples) {
    out << s->name() << "\n    " << s->summary() << "\n";
    for (const samples::ParamSpec& p : s->params()) out << "    params." << p.name << " " << range_of(p) << ": " << p.doc << "\n";
    for (const samples::RealParamSpec& p : s->real_params())
      out << "    params." << p.name << " (default " << p.default_value << ", a number in " << p.min << ".." << p.max
          << "): " << p.doc << "\n";
  }
}

int cmd_list() {
  print_samples(std::cout, samples::all_samples());
  return kOk;
}

}  // namespace tj::cli

// The tilejit subcommands. Each returns the process exit code; errors travel
// as exceptions and main() maps them to codes (see exit_codes.h).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tj::samples {
class Sample;
}

namespace tj::cli {

struct CompileArgs {
  std::string spec;
  std::string arch;                  // empty: TILEJIT_ARCH, the device's, or sm_90a
  std::vector<std::string> emit;     // some of emit_kinds()
  std::string out_dir = "tilejit-out";
  int sms = 0;  // > 0: decide what the spec leaves to the device for a GPU of this many SMs
  // --clusters-fit: how many clusters of each size (CTAs) such a GPU runs at once, "2=66,4=30";
  // empty: not known (clusters of 2 then count as half the SMs, larger ones are not weighed).
  std::string clusters_fit;
};

struct RunArgs {
  std::string spec;
  int iters = 20;
  bool verify = true;
  unsigned long long seed = 1;
  std::string out_dir = "tilejit-out";  // where PTX goes when there is no GPU
  bool tuned = true;                    // false: --no-tuned
  std::optional<int> device;            // --device; nullopt: TILEJIT_DEVICE, else 0
  std::string timeline;                 // --timeline: where the SVG goes; empty: none
};

struct TuneArgs {
  std::string spec;
  int iters = 50;            // timed launches per candidate
  std::string db;            // empty: TILEJIT_TUNING_DB, else <cache dir>/tuning.json
  double max_seconds = 0;    // 0: no limit
  std::optional<int> device; // --device; nullopt: TILEJIT_DEVICE, else 0
  bool list = false;         // --list: print the candidates, run nothing
  int sms = 0;               // --sms: with --list, the candidates for a GPU of that many SMs
  std::string clusters_fit;  // --clusters-fit: with --sms, how many clusters of each size it runs
};

// What `compile --emit` takes: ir, cuda, ptx, cubin, sass; and each one's file extension.
const std::vector<std::string>& emit_kinds();
std::string emit_extension(const std::string& kind);

int cmd_list();
// Prints docs/dsl-reference.md, written from the op table (codegen/op_table.def).
int cmd_reference();
// What `tilejit list` prints for `samples`: each one's name and summary, and every
// parameter with its default and its range, choices or, for a real one, its interval.
void print_samples(std::ostream& out, const std::vector<const samples::Sample*>& samples);
int cmd_info(const std::string& spec, std::optional<int> device);  // spec may be empty
int cmd_compile(const CompileArgs& args);
int cmd_run(const RunArgs& args);
// Sweeps the sample's tuning candidates for the spec's problem on the GPU, verifying and
// timing each; prints them ranked and records the fastest verified one in the tuning DB.
int cmd_tune(const TuneArgs& args);

}  // namespace tj::cli

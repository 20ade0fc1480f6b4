// libFuzzer target: spec text -> parse_spec -> the sample's kernel -> verify_launch -> lower.
//
// Everything up to NVRTC runs (NVRTC itself is too slow to fuzz through). A SpecError,
// UserError or RuntimeError is the expected answer to bad input; anything else (another
// exception, an ir::InternalError, a crash, a leak, UB, a timeout) is a finding. Build with
// -DTILEJIT_FUZZ=ON and clang; see tests/fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "codegen/passes/verify_launch.h"
#include "dsl/diagnostic.h"
#include "dsl/ir/ir.h"
#include "runtime/error.h"

namespace {

[[noreturn]] void finding(const char* what, const char* message) {
  std::fprintf(stderr, "fuzz_spec: FINDING: %s: %s\n", what, message);
  std::abort();  // libFuzzer saves the input as crash-<sha1>
}

// TILEJIT_FUZZ_REPORT=1: one line per input saying how far it got (to see what a corpus
// reaches: `tilejit_fuzz_spec corpus/*`).
bool report_outcomes = false;
void outcome(const char* what) {
  if (report_outcomes) std::fprintf(stderr, "fuzz_spec: outcome: %s\n", what);
}

void build_and_lower(const std::string& text) {
  tj::cli::Spec spec = tj::cli::parse_spec(text, "fuzz.json");
  tj::ir::Kernel kernel = spec.sample->build(spec.config);
  std::vector<tj::Diagnostic> diags = tj::codegen::verify_launch(kernel, spec.config.grid_ctas());
  if (!diags.empty()) throw tj::UserError(std::move(diags));
  tj::codegen::Lowered lowered = tj::codegen::lower(kernel, tj::codegen::Target::sm90a());
  if (lowered.cuda.empty()) finding("lower() returned no CUDA", spec.sample->name().c_str());
  outcome("lowered");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // The lowering reads these; a fuzzing run must not depend on the caller's shell.
  unsetenv("TILEJIT_DUMP_IR");
  unsetenv("TILEJIT_DEBUG_HANGS");
  unsetenv("TILEJIT_ARCH");
  const char* report = std::getenv("TILEJIT_FUZZ_REPORT");
  report_outcomes = report && std::string(report) == "1";
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    build_and_lower(text);
  } catch (const tj::cli::SpecError&) {  // expected: the spec is bad
    outcome("SpecError");
  } catch (const tj::UserError&) {  // expected: the kernel or launch is impossible
    outcome("UserError");
  } catch (const tj::rt::RuntimeError&) {  // expected: a runtime check refused it
    outcome("RuntimeError");
  } catch (const tj::ir::InternalError& e) {
    finding("ir::InternalError", e.what());
  } catch (const std::exception& e) {
    finding("unexpected exception", e.what());
  } catch (...) {
    finding("unexpected exception", "not a std::exception");
  }
  return 0;
}

// The code tilejit generates compiles without a warning: a user who reads NVRTC's log
// (`tilejit compile` prints it) sees only what their own kernel caused. Every spec the
// samples ship with and every compute-sanitizer stand-in, lowered for both targets and
// compiled to PTX (the warnings come from NVRTC's front end; no ptxas run needed).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "dsl/diagnostic.h"
#include "generators/runner.h"
#include "tests/source_dir.h"

using namespace tj;

TEST_CASE("every shipped spec's generated code compiles without an NVRTC warning", "[samples][nvrtc]") {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"samples/specs", "tests/sanitizer"})
    for (const auto& e : std::filesystem::directory_iterator(tj::test::source_dir() + "/" + dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  unsigned compiled = 0, refused = 0, other_target = 0;
  for (const auto& f : files) {
    const cli::Spec spec = cli::load_spec(f.string());
    for (const codegen::Target& t : {codegen::Target::sm90a(), codegen::Target::sm100a()}) {
      const std::vector<std::string> only = spec.sample->targets();  // gemm_sm100: sm_100a alone
      if (!only.empty() && std::find(only.begin(), only.end(), t.arch) == only.end()) {
        ++other_target;
        continue;
      }
      // Where the sample decides on the device, what it builds for the H200's 132 SMs.
      const auto decided = spec.sample->for_device(spec.config, 132);
      const ir::Kernel kernel = spec.sample->build(decided ? decided->config : spec.config);
      std::optional<codegen::Lowered> lowered;
      try {
        lowered = codegen::lower(kernel, t);
      } catch (const UserError& e) {
        // Kernels written for wgmma (warpgroup accumulators of 64 rows, mma_wait, register
        // fragments) are refused for sm_100a with messages that name tcgen05's way.
        INFO(f.filename().string() << " for " << t.arch << ": " << e.what());
        REQUIRE(t.arch == "sm_100a");
        REQUIRE(std::string(e.what()).find("tcgen05") != std::string::npos);
        ++refused;
        continue;
      }
      const codegen::Lowered& l = *lowered;
      rt::CompileRequest r = samples::compile_request(l, t);
      r.arch = t.arch == "sm_90a" ? "compute_90a" : "compute_100a";
      const rt::CompileResult out = rt::compile(r, nullptr);
      INFO(f.filename().string() << " for " << t.arch << ": NVRTC's log:\n" << out.log);
      CHECK_FALSE(out.ptx.empty());
      CHECK(out.log.find("warning") == std::string::npos);
      ++compiled;
    }
  }
  // Every spec for its targets: sm_90a (all but gemm_sm100's), and for sm_100a the kernels
  // without wgmma-shaped tiles (the gemm_sm100 specs among them).
  CHECK(other_target == 2);  // gemm_sm100.json and gemm_sm100_multicast.json
  CHECK(compiled >= files.size() + 5);
  CHECK(compiled + refused + other_target == 2 * files.size());
}

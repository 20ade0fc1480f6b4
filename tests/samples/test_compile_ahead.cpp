// Compiles on worker threads ahead of their use (what `tilejit tune` runs the GPU behind):
// the same results as compiling one by one, failures as messages, nothing left running.
#include <catch2/catch.hpp>

#include "codegen/target.h"
#include "generators/compile_ahead.h"
#include "generators/runner.h"
#include "runtime/cache.h"
#include "samples/builtin.h"
#include "tests/runtime/test_support.h"

using tj::rt::test::TempDir;
using tj::samples::CompileAhead;
using tj::samples::CompileOutcome;
using tj::samples::Config;

namespace {

const tj::samples::Sample& ring() { return *tj::samples::find_sample("dsmem_ring"); }

std::vector<Config> ring_configs() {
  std::vector<Config> out;
  for (int64_t elems : {1024, 2048, 3072, 4096, 5120}) {
    Config c = tj::samples::default_config(ring());
    c.params["elems"] = elems;
    out.push_back(c);
  }
  out[2].params["vector"] = 3;  // refused by the sample's rules: a compile that fails
  return out;
}

}  // namespace

TEST_CASE("compile ahead: the results of one-by-one compiles, in order, failures as messages", "[samples][tuning]") {
  TempDir tmp;
  const tj::codegen::Target target = *tj::codegen::Target::parse("sm_90a");
  const std::vector<Config> configs = ring_configs();
  for (unsigned ahead : {0u, 2u, 8u}) {
    INFO("ahead " << ahead);
    CompileAhead compiles(ring(), configs, target, tj::rt::Cache(tmp / ("cache" + std::to_string(ahead))), ahead);
    for (size_t i = 0; i < configs.size(); ++i) {
      INFO("config " << i);
      CompileOutcome got = compiles.get(i);
      CHECK(got.seconds > 0);
      if (i == 2) {
        CHECK_FALSE(got.compiled);
        CHECK(got.error.find("params.vector: must be 1 or 4, got 3") != std::string::npos);
        continue;
      }
      REQUIRE(got.compiled);
      CHECK(got.error.empty());
      const tj::samples::Compiled alone = tj::samples::compile_sample(ring(), configs[i], target, nullptr);
      CHECK(got.compiled->result.cubin == alone.result.cubin);
      CHECK(got.compiled->lowered.dynamic_smem == alone.lowered.dynamic_smem);
    }
    CHECK(compiles.finish() == 0);  // all were taken
  }
}

TEST_CASE("compile ahead: stopping early waits for what started and starts nothing more", "[samples][tuning]") {
  TempDir tmp;
  const tj::codegen::Target target = *tj::codegen::Target::parse("sm_90a");
  const std::vector<Config> configs = ring_configs();
  tj::rt::Cache cache(tmp / "cache");
  {
    CompileAhead compiles(ring(), configs, target, cache, 1);
    REQUIRE(compiles.get(0).compiled);
    CHECK(compiles.finish() > 0);  // config 1 had started
    CHECK(compiles.finish() == 0);
  }
  // Exactly configs 0 and 1 reached the cache: a second run finds them there.
  CompileAhead again(ring(), configs, target, cache, 0);
  CHECK(again.get(0).compiled->result.from_cache);
  CHECK(again.get(1).compiled->result.from_cache);
  CHECK_FALSE(again.get(3).compiled->result.from_cache);
}

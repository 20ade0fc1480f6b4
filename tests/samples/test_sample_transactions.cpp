// The transaction accounting of every sample spec, pinned: which barriers are verified,
// and which are not and why (what `tilejit compile` prints as "tx check" lines). A new
// spec, or a barrier that stops being verified, fails here until this list says so.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <filesystem>
#include <map>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "generators/runner.h"

using namespace tj;

namespace {

// Every spec a sample ships with, and the test-only ones for the GPU session.
const std::vector<std::string> kSpecDirs = {"samples/specs", "tests/gpu/specs"};

const std::map<std::string, std::vector<std::string>> kPinned = {
    {"cluster_reduce.json", {}},
    {"dsmem_ring.json", {}},
    {"fault_none.json", {}},
    {"fault_null_store.json", {}},
    {"fault_hang.json", {}},
    {"race_demo_dsmem_racy.json", {}},
    {"race_demo_dsmem_fixed.json", {}},
    {"race_demo_tma_racy.json", {"barrier 'full[0]' in the kernel body: verified"}},
    {"race_demo_tma_fixed.json", {"barrier 'full[0]' in the kernel body: verified"}},
    // A GEMM built for beta 0 has no C path: only the pipeline's barrier (multicast across
    // the cluster included: gemm.json's cluster is 1x2).
    {"gemm_auto.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},  // cluster 1x1
    {"gemm.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    // The fused epilogue (bias, GELU) reads its vector with plain loads: no barrier of its own.
    {"gemm_bias_gelu.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    // The residual R comes in by TMA through the map C, chunk by chunk, like C with beta != 0.
    {"gemm_bias_gelu_residual.json",
     {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified",
      "barrier 'c_full' in the loop at gemm_kernel.cpp:470: verified"}},
    // Split-K with beta 0: the epilogue that only the last CTA of a tile runs reads no C.
    {"gemm_splitk.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    {"gemm_splitk_atomic.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    {"gemm_streamk.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    // Three consumer warpgroups: the pipeline's barrier as with two.
    {"gemm_tall.json", {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    // Split-K in the cluster: each plane's shares land on the other's barrier by st.async.
    {"gemm_splitk_cluster.json",
     {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified",
      "barrier 'split_full' in the loop at gemm_kernel.cpp:470: verified"}},
    {"gemm_sm100.json", {"barrier 'tj_dyn_full' in the loop at gemm_sm100.cpp:87: verified", "barrier 'full' in the loop at gemm_sm100.cpp:88: verified"}},
    {"gemm_sm100_multicast.json", {"barrier 'tj_dyn_full' in the loop at gemm_sm100.cpp:87: verified", "barrier 'full' in the loop at gemm_sm100.cpp:88: verified"}},
    // The dynamic schedule's claim (16 bytes, one answer per unit) and the k-block pipeline.
    {"gemm_dynamic.json",
     {"barrier 'tj_dyn_full' in the loop at gemm_kernel.cpp:510: verified",
      "barrier 'full' in the loop at gemm_kernel.cpp:511: verified"}},
    // beta != 0: both barriers, C's per-chunk loads included.
    {"gemm_beta.json",
     {"barrier 'full' in the loop at gemm_kernel.cpp:511: verified",
      "barrier 'c_full' in the loop at gemm_kernel.cpp:470: verified"}},
    // The one-thread copy: both loops' loads sit under `tile < ntiles` with their
    // arrive_expect_tx (unchecked before: the guard cannot be evaluated).
    {"tma_copy.json",
     {"barrier 'full' in the loop at tma_copy.cpp:92: verified",
      "barrier 'full' in the loop at tma_copy.cpp:94: verified"}},
    // The unit's Q (a phase per unit of the persistent walk) and the K/V pipeline.
    {"attention.json",
     {"barrier 'q_full' in the loop at attention_kernel.cpp:143: verified",
      "barrier 'full_k' in the loop at attention_kernel.cpp:158: verified",
      "barrier 'full_v' in the loop at attention_kernel.cpp:158: verified"}},
    // Plain loads and stores; its two CTA barriers (rows over several warps) are no mbarriers.
    {"softmax.json", {}},
    // The dynamic schedule's answers in a cluster of one: stores and a plain arrive, no bytes.
    {"uneven.json", {}},
    {"tma_copy_ws.json", {"barrier 'pipe_full' in the loop at tma_copy.cpp:59: verified"}},
    {"tma_multicast.json", {"barrier 'full[0]' in the kernel body: verified"}},
    {"tma_multicast_unicast.json", {"barrier 'full[0]' in the kernel body: verified"}},
};

std::vector<std::string> checks_of(const std::string& path) {
  cli::Spec spec = cli::load_spec(path);
  samples::check_sample_config(*spec.sample, spec.config);
  const std::vector<std::string> only = spec.sample->targets();  // gemm_sm100: sm_100a
  codegen::Lowered lowered =
      codegen::lower(spec.sample->build(spec.config), only.empty() ? codegen::Target::sm90a() : *codegen::Target::parse(only.front()));
  std::vector<std::string> out;
  for (const codegen::TransactionCheck& c : lowered.transactions) out.push_back(codegen::to_string(c));
  return out;
}

}  // namespace

TEST_CASE("every sample spec's transaction accounting is pinned", "[samples][transactions]") {
  std::map<std::string, std::string> found;  // file name -> path
  for (const std::string& dir : kSpecDirs)
    for (const auto& entry : std::filesystem::directory_iterator(tj::test::source_dir() + "/" + dir))
      if (entry.path().extension() == ".json") found[entry.path().filename().string()] = entry.path().string();
  for (const auto& [name, path] : found) {
    INFO(path);
    auto pinned = kPinned.find(name);
    REQUIRE(pinned != kPinned.end());  // a new spec: add its list above
    CHECK(checks_of(path) == pinned->second);
  }
  CHECK(found.size() == kPinned.size());
}

// scripts/gpu_session.sh skips the large GEMM specs under compute-sanitizer and runs a
// small one from tests/sanitizer instead, saying it is the same generated kernel: it must be,
// as `tilejit run --no-tuned` builds it on the H200 (the decisions for its 132 SMs made).
TEST_CASE("each large GEMM spec's sanitizer stand-in generates the same kernel", "[samples][sanitizer]") {
  const std::map<std::string, std::string> stand_ins = {{"gemm.json", "gemm_small.json"},
                                                        {"gemm_auto.json", "gemm_small_auto.json"},
                                                        {"gemm_beta.json", "gemm_small_beta.json"},
                                                        {"gemm_bias_gelu_residual.json", "gemm_small_residual.json"},
                                                        {"gemm_splitk.json", "gemm_small_splitk.json"},
                                                        {"gemm_splitk_atomic.json", "gemm_small_splitk_atomic.json"},
                                                        {"gemm_streamk.json", "gemm_small_streamk.json"},
                                                        {"gemm_tall.json", "gemm_small_tall.json"},
                                                        {"gemm_splitk_cluster.json", "gemm_small_splitk_cluster.json"},
                                                        {"attention.json", "attention_small.json"},
                                                        {"softmax.json", "softmax_small.json"}};
  auto cuda_of = [](const std::string& path) {
    cli::Spec spec = cli::load_spec(path);
    if (std::optional<samples::Sample::DeviceChoice> d = spec.sample->for_device(spec.config, 132)) spec.config = d->config;
    samples::check_sample_config(*spec.sample, spec.config);
    return codegen::lower(spec.sample->build(spec.config), codegen::Target::sm90a()).cuda;
  };
  const std::string root = tj::test::source_dir();
  for (const auto& [large, small] : stand_ins) {
    INFO(large << " vs " << small);
    CHECK(cuda_of(root + "/samples/specs/" + large) == cuda_of(root + "/tests/sanitizer/" + small));
  }
}

// The cluster epochs over loops that walk the cluster's ranks: a small constant loop
// whose index names the peer is checked trip by trip, as if written out.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "tests/codegen/race_corpus_support.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

// All-gather in a cluster of `cs`: every thread stores its value into each peer's
// `gather` in a DSL loop over the ranks and arrives on that peer's 'full'; each CTA
// waits on its own 'full' and reads every slot. Racy: the reader does not wait.
ir::Kernel all_gather(bool racy, Marks& marks, unsigned cs) {
  KernelBuilder k("all_gather");
  k.threads(128).cluster(cs);
  auto in = k.param<float*>("in");
  auto out = k.param<float*>("out");
  auto gather = k.shared<float>("gather", cs * 128);
  auto full = k.mbarriers("full", 1, cs * 128);
  const i32 tid = thread_idx_x();
  const f32 v = in[block_idx_x() * 128 + tid];
  for_(0, int32_t(cs), [&](i32 r) {
    MARK("store"); map_shared_rank(gather, r)[cluster_ctarank() * 128 + tid] = v;
    arrive(map_shared_rank(full, r)[0]);
  });
  if (!racy) wait(full[0]);
  MARK("read"); out[block_idx_x() * 128 + tid] = gather[tid] + gather[(cs - 1) * 128 + tid];
  return k.build();
}

}  // namespace

TEST_CASE("corrected: an all-gather over a DSL loop of the ranks, handed over on each peer's barrier", "[codegen][verify][races]") {
  for (unsigned cs : {2u, 4u, 8u}) {
    INFO(cs);
    lowers([&](bool r, Marks& m) { return all_gather(r, m, cs); });
  }
}

TEST_CASE("racy: the all-gather's reader does not wait for the peers' stores", "[codegen][verify][races]") {
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(all_gather(true, marks, 2));
  REQUIRE(!d.empty());
  CHECK(d[0].loc.line == marks.line["read"]);
  CHECK(d[0].message.find("race on shared buffer 'gather'") != std::string::npos);
  CHECK(d[0].message.find("test_race_peer_loops.cpp:" + std::to_string(marks.line["store"])) != std::string::npos);
}

TEST_CASE("racy: a peer's stores handed over to a wait_local, which acquires at CTA scope only", "[codegen][verify][races]") {
  auto build = [](bool racy, Marks& marks) {
    KernelBuilder k("local_acquire");
    k.threads(64).cluster(2);
    auto box = k.shared<uint32_t>("box", 64);
    auto full = k.mbarriers("full", 1, 64);
    auto out = k.param<uint32_t*>("out");
    if_(cluster_ctarank() == 0, [&] {
      MARK("store"); map_shared_rank(box, 1)[thread_idx_x()] = u32(7u);
      arrive(map_shared_rank(full, 1)[0]);
    }).else_([&] {
      MARK("wait"); if (racy) wait_local(full[0]); else wait(full[0]);
      MARK("read"); out[thread_idx_x()] = box[thread_idx_x()];
    });
    return k.build();
  };
  Marks marks;
  std::vector<Diagnostic> d = lower_errors(build(true, marks));
  REQUIRE(d.size() == 1);
  CHECK(d[0].loc.line == marks.line["read"]);
  CHECK(d[0].message.find("the wait_local at test_race_peer_loops.cpp:" + std::to_string(marks.line["wait"]) +
                          " on 'full' acquires at CTA scope only") != std::string::npos);
  CHECK(d[0].fix.rfind("use wait() instead of wait_local() at line " + std::to_string(marks.line["wait"]), 0) == 0);
  lowers(build);
}

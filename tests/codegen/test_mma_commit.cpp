// mma_commit (tcgen05.commit, sm_100a): one arrival on a barrier once the thread's earlier
// tcgen05 MMAs complete, in this CTA or (multicast) in each CTA of a mask. What it lowers
// to, the PTX NVRTC makes of it in an sm_100a cubin (compiled here; nothing ran on a
// Blackwell GPU), the arrival accounting of the race check (a commit is an arrival like
// any other, multicast ones in each CTA of the mask), and each refusal's exact text.
#include <catch2/catch.hpp>

#include "codegen/lower.h"
#include "dsl/dsl.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using namespace tj::dsl;
using codegen::Target;

namespace {

unsigned commit_line = 0, wait_line = 0, done_line = 0;
std::string at(unsigned line) { return "test_mma_commit.cpp:" + std::to_string(line); }

// A pair (or one CTA) whose leader's thread 0 commits to `done`, declared with `count`
// arrivals; every CTA of the cluster waits on its own `done`.
ir::Kernel commit_kernel(unsigned cluster, CtaGroup group, bool multicast, unsigned count) {
  KernelBuilder k("commit");
  k.threads(128);
  if (cluster > 1) k.cluster(cluster);
  auto done = k.mbarriers("done", 1, count); done_line = __LINE__;
  if_(thread_idx_x() == 0 && is_pair_leader(), [&] {
    if (multicast) {
      mma_commit_multicast(done[0], group, u32(3u) << cast<uint32_t>(pair_leader_rank())); commit_line = __LINE__;
    } else {
      mma_commit(done[0], group); commit_line = __LINE__;
    }
  });
  wait(done[0]); wait_line = __LINE__;
  if (cluster > 1) cluster_sync();
  return k.build();
}

std::string arrivals(const codegen::Lowered& l) {
  for (const codegen::race::RaceCheck& c : l.races) {
    const std::string s = to_string(c);
    if (s.rfind("arrivals on barrier 'done'", 0) == 0) return s;
  }
  return "no arrival check of done";
}

}  // namespace

TEST_CASE("mma_commit on sm_100a: tcgen05.commit, one CTA and the pair's multicast, in the PTX of a cubin",
          "[codegen][tcgen05][sm100a][nvrtc]") {
  struct Case {
    unsigned cluster;
    CtaGroup group;
    bool multicast;
    const char* cuda;
    const char* ptx;
  };
  const Case cases[] = {
      {1, CtaGroup::One, false, "tj::tcgen05_commit<1>(&done[0]);",
       "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"},
      {2, CtaGroup::Two, true, "tj::tcgen05_commit_multicast<2>(&done[0], (unsigned short)(",
       "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cluster, c.multicast);
    codegen::Lowered l = codegen::lower(commit_kernel(c.cluster, c.group, c.multicast, 1), Target::sm100a());
    CHECK(test::contains(l.cuda, c.cuda));
    rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm100a()), nullptr);
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    CHECK(test::count(r.ptx, c.ptx) == 1);
  }
}

TEST_CASE("mma_commit: the race check counts it as an arrival, multicast in each CTA of the mask", "[codegen][races][tcgen05]") {
  // The leader's multicast reaches both CTAs of each pair: one arrival each, as declared.
  CHECK(arrivals(codegen::lower(commit_kernel(2, CtaGroup::Two, true, 1), Target::sm100a())) ==
        "arrivals on barrier 'done' in the kernel body: verified (1 per phase)");
  CHECK(arrivals(codegen::lower(commit_kernel(4, CtaGroup::Two, true, 1), Target::sm100a())) ==
        "arrivals on barrier 'done' in the kernel body: verified (1 per phase)");
  // Declared with 2 arrivals: one phase gets 1 in every CTA.
  std::vector<Diagnostic> d = test::lower_errors(commit_kernel(2, CtaGroup::Two, true, 2), Target::sm100a());
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].str() == at(commit_line) + ": error: barrier 'done[0]' receives 1 arrivals per phase in CTA rank 0 in the kernel "
                                        "body, but it completes a phase after 2 (mbarriers at " + at(done_line) + "): a wait on "
                                        "that phase never completes (the kernel hangs)\n"
                                        "  fix: make one phase receive exactly 2 arrivals in every CTA: declare 'done' with 1 "
                                        "arrivals, or change which threads arrive (1 arrivals reach it in CTA rank 0 now)");
  // Without multicast only the leader's barrier gets the arrival: the odd CTA's wait never completes.
  d = test::lower_errors(commit_kernel(2, CtaGroup::Two, false, 1), Target::sm100a());
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].message == "the wait at " + at(wait_line) + " on barrier 'done' never completes in CTA rank 1: nothing arrives on "
                        "'done' in that CTA (copies complete bytes, not arrivals)");
}

TEST_CASE("mma_commit: refused on sm_90a, with another CTA group than the tensor memory's, and without pairs",
          "[codegen][verify][tcgen05]") {
  std::vector<Diagnostic> d = test::lower_errors(commit_kernel(1, CtaGroup::One, false, 1), Target::sm90a());
  REQUIRE(d.size() == 1);
  CHECK(d[0].str() == at(commit_line) + ": error: mma_commit is tcgen05 (tcgen05.commit), which sm_90a lacks\n"
                                        "  fix: on sm_90a MMAs complete through mma_wait(n) (wgmma groups), and a stage goes back "
                                        "with arrive after it; or compile for sm_100a");

  // Tensor memory of one group, a commit of the other.
  KernelBuilder k("mixed");
  k.threads(128).cluster(2);
  auto slot = k.shared<uint32_t>("tmem_addr", 1);
  auto done = k.mbarriers("done", 1, 1);
  unsigned alloc_line = 0, mixed_line = 0;
  if_(thread_idx_x() / 32 == 0, [&] { tmem_alloc(slot[0], 128, CtaGroup::Two); alloc_line = __LINE__; });
  if_(thread_idx_x() == 0, [&] { mma_commit(done[0], CtaGroup::One); mixed_line = __LINE__; });
  wait(done[0]);
  sync_threads();
  if_(thread_idx_x() / 32 == 0, [&] { tmem_dealloc(slot[0], 128, CtaGroup::Two); });
  d = test::lower_errors(k.build(), Target::sm100a());
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].str() == at(mixed_line) + ": error: the mma_commit at " + at(mixed_line) + " uses cta_group::1, but the tmem_alloc at " +
                          at(alloc_line) + " uses cta_group::2: a kernel works with one CTA group\n"
                          "  fix: use CtaGroup::Two for every tcgen05 op (or the other group for all of them)");

  // cta_group::2 in a cluster of one CTA.
  d = test::lower_errors(commit_kernel(1, CtaGroup::Two, false, 1), Target::sm100a());
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE_FALSE(d.empty());
  CHECK(d[0].str() == at(commit_line) + ": error: cta_group::2 works on the CTA pairs of a cluster, and this kernel's cluster "
                                        "(1x1x1, 1 CTA) has none\n"
                                        "  fix: give the kernel a cluster of an even number of CTAs (2x1x1 for one pair), or use "
                                        "CtaGroup::One");
}

// The timeline on the GPU (generators/timeline.h): the uneven sample under both
// schedules and clusters of 1 and 2, and the GEMM under static and stream-K schedules.
// Each recorded launch's output is still right; every CTA of every cluster records each
// unit of its cluster exactly once; no record is lost; the longest span holds the longest
// busy-wait of the uneven kernel; and the makespan is at least the bound the spans give.
#include "tests/gpu/gpu_fixture.h"

#include <algorithm>
#include <map>
#include <set>

#include "generators/timeline.h"
#include "samples/uneven.h"
#include "tests/codegen/gemm_test_support.h"

namespace {

using namespace tj;

samples::Timeline record(const samples::Sample& s, const samples::Config& c) {
  samples::Timeline t = samples::record_timeline(s, c, gpu_test::target(), gpu_test::device(), nullptr, 1, true);
  INFO(t.report.check.detail);
  CHECK(t.report.verified);
  CHECK(t.report.check.ok);
  CHECK(t.records <= t.capacity);
  const int sms = gpu_test::device().info().sm_count;
  std::vector<double> durations;
  uint64_t first = UINT64_MAX, last = 0;
  for (const samples::TimelineUnit& u : t.units) {
    CHECK(u.sm < uint32_t(sms));
    CHECK(u.end >= u.start);
    durations.push_back(double(u.end - u.start));
    first = std::min(first, u.start), last = std::max(last, u.end);
  }
  // The spans are time the units used: no schedule beats the bound they give.
  const samples::MakespanBound b = samples::makespan_bound(durations, sms);
  CHECK(double(last - first) >= b.bound_ns);
  return t;
}

}  // namespace

TEST_CASE("timeline: the uneven sample records every unit once per CTA, both schedules, clusters 1 and 2 [gpu]",
          "[gpu][timeline][uneven]") {
  const samples::Sample* s = samples::find_sample("uneven");
  REQUIRE(s);
  for (unsigned cluster : {1u, 2u})
    for (int64_t schedule : {0, 1}) {
      DYNAMIC_SECTION("cluster " << cluster << (schedule ? ", dynamic" : ", static")) {
        samples::Config c = samples::default_config(*s);
        c.cluster = {cluster, 1, 1};
        c.params["tiles_m"] = 9, c.params["tiles_n"] = 31, c.params["unit_ns"] = 4000;
        c.params["schedule"] = schedule;
        const samples::Timeline t = record(*s, c);
        // 9 x 16 cluster tiles (31 columns padded to whole clusters) x CTAs per cluster.
        const int64_t cluster_tiles = 9 * ((31 + cluster - 1) / cluster);
        CHECK(int64_t(t.units.size()) == cluster_tiles * cluster);
        std::map<uint32_t, std::set<uint64_t>> ctas_of;  // unit -> the CTAs that recorded it
        for (const samples::TimelineUnit& u : t.units) CHECK(ctas_of[u.unit].insert(u.cta).second);
        CHECK(int64_t(ctas_of.size()) == cluster_tiles);
        for (const auto& [unit, ctas] : ctas_of) CHECK(ctas.size() == cluster);
        // Every unit's busy-wait (at least its cost: 4 us x (row + 1) for the causal
        // cost) lies inside a recorded unit: the longest span holds the largest cost.
        uint64_t longest = 0;
        for (const samples::TimelineUnit& u : t.units) longest = std::max(longest, u.end - u.start);
        CHECK(longest >= 9 * 4000u);
      }
    }
}

TEST_CASE("timeline: the GEMM static and stream-K, each launch still right, every recorded unit on a real SM [gpu]",
          "[gpu][timeline][gemm]") {
  const samples::Sample* s = samples::find_sample("gemm");
  REQUIRE(s);
  for (int64_t schedule : {1, 2}) {  // static, stream_k
    DYNAMIC_SECTION((schedule == 1 ? "static" : "stream_k")) {
      const samples::Config c =
          test::gemm_config({{"m", 300}, {"n", 520}, {"k", 1000}, {"bn", 256}, {"schedule", schedule}}, {1, 2, 1});
      const samples::Timeline t = record(*s, c);
      // 3 x 3 tiles of 128 x 256, in 2 x 3 cluster tiles of 2 CTAs (the last row padded):
      // every cluster tile recorded, by both CTAs of each cluster that ran it (stream-K:
      // of every cluster whose share reached it).
      std::set<uint32_t> units;
      for (const samples::TimelineUnit& u : t.units) units.insert(u.unit);
      CHECK(units == std::set<uint32_t>{0, 1, 2, 3, 4, 5});
      if (schedule == 1) CHECK(t.units.size() == 12);
      else CHECK(t.units.size() >= 12);
    }
  }
}

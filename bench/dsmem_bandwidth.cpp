// DSMEM ring-exchange bandwidth against the same exchange through global
// memory, measured interleaved in one run on one GPU.
//
// Each CTA writes `elems` u32 per round into its cluster neighbour (DSMEM:
// st.shared::cluster; global: its neighbour's slot of a global buffer), then
// the cluster barrier; `rounds` rounds per launch. Aggregate TB/s counts the
// bytes stored per launch over the median launch time. The grid is as many
// clusters as can be co-resident, so every CTA runs at once.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "generators/runner.h"
#include "runtime/device.h"
#include "runtime/driver.h"
#include "runtime/module.h"
#include "samples/builtin.h"

namespace {

using namespace tj;

struct Variant {
  const samples::Sample* sample;
  samples::Config config;
  samples::Compiled compiled;
  std::unique_ptr<rt::Module> module;
  std::unique_ptr<samples::Instance> inst;
  rt::ArgPack args;
  rt::LaunchConfig lc;
  std::vector<double> ms;  // one median per repetition
  bool ok = false;
  std::string detail;
};

samples::Config make_config(const samples::Sample& s, unsigned cluster, int64_t elems, int64_t rounds, int64_t vec) {
  samples::Config c = samples::default_config(s);
  c.cluster = {cluster, 1, 1};
  c.threads = 1024;
  c.non_portable = cluster > 8;
  c.params["elems"] = elems;
  c.params["rounds"] = rounds;
  c.params["vector"] = vec;
  return c;
}

// Compiles, sizes the grid to the co-resident maximum, loads, checks once.
void setup(Variant& v, const rt::Context& ctx, const codegen::Target& t, int max_clusters) {
  v.config.grid_clusters = {1, 1, 1};
  v.compiled = samples::compile_sample(*v.sample, v.config, t, nullptr);
  v.module = std::make_unique<rt::Module>(rt::Module::load(ctx, v.compiled.result.cubin, v.compiled.lowered.kernel.name,
                                                             v.compiled.lowered.kernel.params.size()));
  v.lc = samples::launch_config(v.config, v.compiled);
  rt::prepare(*v.module, v.lc);
  int active = rt::max_active_clusters(*v.module, v.lc);
  v.config.grid_clusters = {static_cast<unsigned>(std::min(active, max_clusters)), 1, 1};
  v.lc = samples::launch_config(v.config, v.compiled);
  v.inst = v.sample->instantiate(v.config, 42);
  v.args = v.inst->args();
  v.inst->poison();
  rt::launch(*v.module, v.lc, v.args);
  rt::synchronize(*v.module);
  samples::Check c = v.inst->verify();
  v.ok = c.ok;
  v.detail = c.detail;
}

double tbps(const Variant& v) {
  std::vector<double> s = v.ms;
  std::sort(s.begin(), s.end());
  double med = s[s.size() / 2];
  return v.inst->bytes_per_launch() / (med * 1e-3) / 1e12;
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!rt::driver_available(&why)) {
    std::printf("dsmem_bandwidth needs a GPU: %s\n", why.c_str());
    return 3;
  }
  try {
    rt::Context ctx;
    auto target = codegen::Target::parse(ctx.arch());
    if (!target) {
      std::printf("dsmem_bandwidth: %s is not a tilejit target\n", ctx.arch().c_str());
      return 3;
    }
    const int64_t elems = 32768;  // 128 KiB per CTA: one CTA per SM
    const int64_t rounds = 32;
    const int reps = 7, iters = 10;
    std::printf("device %s (%s, %d SMs); %lld u32 per CTA per round, %lld rounds, 1024 threads\n",
                ctx.info().name.c_str(), target->arch.c_str(), ctx.info().sm_count, (long long)elems, (long long)rounds);

    const samples::Sample* ring = samples::find_sample("dsmem_ring");
    const samples::Sample* global = samples::find_sample("global_ring");
    std::vector<std::vector<Variant>> rows;  // per cluster size: {dsmem v4, dsmem u32, global v4}
    for (unsigned cs : {2u, 4u, 8u, 16u}) {
      std::vector<Variant> row(3);
      row[0].sample = ring, row[0].config = make_config(*ring, cs, elems, rounds, 4);
      row[1].sample = ring, row[1].config = make_config(*ring, cs, elems, rounds, 1);
      row[2].sample = global, row[2].config = make_config(*global, cs, elems, rounds, 4);
      setup(row[0], ctx, *target, 1 << 20);
      // The other two run on exactly the same grid.
      setup(row[1], ctx, *target, static_cast<int>(row[0].config.grid_clusters.x));
      setup(row[2], ctx, *target, static_cast<int>(row[0].config.grid_clusters.x));
      rows.push_back(std::move(row));
    }
    // Interleave: every variant once per repetition.
    for (int rep = 0; rep < reps; ++rep)
      for (auto& row : rows)
        for (Variant& v : row) v.ms.push_back(rt::time_launches(*v.module, v.lc, v.args, iters).median_ms);

    std::printf("\n%-8s %-6s %-10s %-14s %-14s %-14s %s\n", "cluster", "CTAs", "MB/launch", "DSMEM v4 TB/s",
                "DSMEM u32 TB/s", "global v4 TB/s", "DSMEM v4 / global");
    bool all_ok = true;
    for (auto& row : rows) {
      for (Variant& v : row) all_ok &= v.ok;
      double d4 = tbps(row[0]), d1 = tbps(row[1]), g = tbps(row[2]);
      std::printf("%-8u %-6u %-10.1f %-14.2f %-14.2f %-14.2f %.2fx\n", row[0].config.cluster.x,
                  row[0].config.num_ctas(), row[0].inst->bytes_per_launch() / 1e6, d4, d1, g, d4 / g);
    }
    for (auto& row : rows)
      for (Variant& v : row)
        if (!v.ok) std::printf("CHECK FAILED %s cluster %u: %s\n", v.sample->name().c_str(), v.config.cluster.x, v.detail.c_str());
    std::printf("\nall results checked against the host reference: %s\n", all_ok ? "PASSED" : "FAILED");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 5;
  }
}

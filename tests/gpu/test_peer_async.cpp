// DSMEM bulk copies and st.async on the GPU: every CTA sends a 1 KiB block
// (cp.async.bulk shared::cta -> shared::cluster) and 64 single values
// (st.async) into its right-hand neighbour, both completing on the
// neighbour's mbarrier, which announced the 1280 bytes with expect_tx.
#include <vector>

#include "dsl/dsl.h"
#include "runtime/buffer.h"
#include "tests/gpu/gpu_fixture.h"

namespace {

using namespace tj;

ir::Kernel peer_async_kernel(unsigned cluster) {
  using namespace tj::dsl;
  KernelBuilder k("peer_async");
  k.threads(64).cluster(cluster);
  auto out = k.param<uint32_t*>("out");
  auto src = k.shared<uint32_t>("src", 256);
  auto dst = k.shared<uint32_t>("dst", 256);
  auto vals = k.shared<uint32_t>("vals", 64);
  auto landed = k.mbarriers("landed", 1, 1);

  i32 tid = thread_idx_x();
  i32 rank = cluster_ctarank();
  i32 right = (rank + 1) % cluster_nctarank();
  for_(tid, 256, 64, [&](i32 i) { src[i] = cast<uint32_t>(rank * 1000 + i); });
  fence_proxy_async();  // the bulk copy reads src through the async proxy
  sync_threads();
  if_(tid == 0, [&] { arrive_expect_tx(landed[0], u32(1024u + 64u * 4u)); });
  auto peer_bar = map_shared_rank(landed, right);
  if_(tid == 0, [&] { bulk_copy_to_peer(map_shared_rank(dst, right)[0], src[0], 1024, peer_bar[0]); });
  st_async(map_shared_rank(vals, right)[tid], cast<uint32_t>(rank * 7 + tid), peer_bar[0]);
  wait(landed[0]);
  i32 base = block_idx_x() * 320;
  for_(tid, 256, 64, [&](i32 i) { out[base + i] = dst[i]; });
  out[base + 256 + tid] = vals[tid];
  return k.build();
}

}  // namespace

TEST_CASE("bulk copies and st.async land in the neighbour and complete its barrier [gpu]", "[gpu][dsmem][async]") {
  const unsigned cluster = GENERATE(2u, 4u, 8u);
  const unsigned clusters = 3;
  CAPTURE(cluster);
  codegen::Lowered lowered = codegen::lower(peer_async_kernel(cluster), gpu_test::target());
  rt::CompileResult c = rt::compile(samples::compile_request(lowered, gpu_test::target()), nullptr);
  REQUIRE(c.ptx.find("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes") != std::string::npos);
  REQUIRE(c.ptx.find("st.async.shared::cluster.mbarrier::complete_tx::bytes") != std::string::npos);
  rt::Module m = rt::Module::load(gpu_test::context(), c.cubin, "peer_async");
  const unsigned ctas = cluster * clusters;
  rt::DeviceBuffer out(size_t(ctas) * 320 * 4);
  out.fill_u8(0xEE);
  rt::LaunchConfig lc;
  lc.grid_clusters = {clusters, 1, 1};
  lc.cluster = {cluster, 1, 1};
  lc.block = {64, 1, 1};
  rt::ArgPack args;
  args.push(out.ptr());
  rt::launch(m, lc, args);
  rt::synchronize(m);
  std::vector<uint32_t> got = out.download_as<uint32_t>();
  unsigned bad = 0;
  for (unsigned cta = 0; cta < ctas; ++cta) {
    const unsigned rank = cta % cluster, left = (rank + cluster - 1) % cluster;
    for (unsigned i = 0; i < 256; ++i) bad += got[cta * 320 + i] != left * 1000 + i;
    for (unsigned t = 0; t < 64; ++t) bad += got[cta * 320 + 256 + t] != left * 7 + t;
  }
  CHECK(bad == 0);
}

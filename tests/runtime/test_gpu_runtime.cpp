// The runtime end to end on a GPU: compile, load, launch with clusters, check the numbers.
// Built into the GPU binary (tests/gpu); without a driver each case also says it was skipped.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <unistd.h>

#include "runtime/buffer.h"
#include "runtime/cache.h"
#include "runtime/compiler.h"
#include "runtime/device.h"
#include "runtime/device_modules.h"
#include "runtime/driver.h"
#include "runtime/launch.h"
#include "runtime/module.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

namespace {

#define TJ_REQUIRE_GPU()                                                                          \
  do {                                                                                            \
    std::string why;                                                                              \
    if (!driver_available(&why)) {                                                                \
      WARN("skipped, no GPU: " << why);                                                           \
      return;                                                                                     \
    }                                                                                             \
  } while (0)

// Each CTA publishes a value in its shared memory, then reads its right neighbour's through
// DSMEM (mapa + ld.shared::cluster), between two cluster barriers.
const char* kRingSource = R"(
extern "C" __global__ void dsmem_ring(unsigned* out) {
  __shared__ unsigned value;
  unsigned rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) value = blockIdx.x * 1000 + rank;
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  unsigned local = (unsigned)__cvta_generic_to_shared(&value);
  unsigned remote, got;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"((rank + 1) % size));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(got) : "r"(remote) : "memory");
  // Peers may still be reading our value: do not exit before they are done.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) out[blockIdx.x] = got;
}
)";

// Writes the dynamic shared memory's size (as the kernel sees it) after touching its end.
const char* kSmemSource = R"(
extern "C" __global__ void smem_probe(unsigned* out, unsigned bytes) {
  extern __shared__ unsigned char smem[];
  unsigned dyn;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
  if (threadIdx.x == 0) { smem[bytes - 1] = 7; out[0] = dyn + smem[bytes - 1] - 7; }
}
)";

struct Fixture {
  Context ctx;
  Module load(const std::string& name, const std::string& source, std::string arch = "") {
    CompileRequest request;
    request.kernel_name = name;
    request.source = source;
    request.arch = arch.empty() ? ctx.arch() : arch;
    return Module::load(ctx, compile(request, nullptr).cubin, name);
  }
};

// Launches tiny_request()'s add_magic over n ints in clusters of `cluster` CTAs of 128
// threads, and checks every one.
void run_add_magic(const Module& module, int n, unsigned cluster) {
  DeviceBuffer out(n * sizeof(int));
  out.fill_u8(0xff);
  LaunchConfig config;
  config.cluster = {cluster, 1, 1};
  config.block = {128, 1, 1};
  config.grid_clusters = {(unsigned(n) + 128 * cluster - 1) / (128 * cluster), 1, 1};
  ArgPack args;
  args.push(out.ptr()).push(n);
  launch(module, config, args);
  synchronize(module);
  std::vector<int> got = out.download_as<int>();
  for (int i = 0; i < n; ++i) REQUIRE(got[i] == i + 0x5eed);
}

} // namespace

TEST_CASE("the device reports itself", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  const DeviceInfo& info = ctx.info();
  INFO(info.name << " cc " << info.cc_major << "." << info.cc_minor);
  CHECK(info.cc_major >= 9);
  CHECK(info.sm_count > 0);
  CHECK(info.max_smem_per_block_optin >= 48 * 1024);
  CHECK(info.total_mem > (size_t(1) << 30));
  CHECK(is_supported_arch(ctx.arch()));
  CHECK(default_arch() == ctx.arch());
}

TEST_CASE("compile, load and launch a kernel with an in-memory header", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  TempDir tmp;
  Cache cache(tmp / "cache");
  CompileRequest request = tiny_request(ctx.arch());
  Module module = Module::load(ctx, compile(request, &cache).cubin, "add_magic");
  // A cubin from the cache loads and runs the same as a fresh one.
  REQUIRE(compile(request, &cache).from_cache);
  CHECK(module.num_regs() > 0);
  CHECK(module.static_smem() == 0);

  run_add_magic(module, 1000, 2);
}

TEST_CASE("DSMEM ring over cluster sizes 1..16", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module ring = f.load("dsmem_ring", kRingSource);
  for (unsigned cluster : {1u, 2u, 4u, 8u, 12u, 16u}) {
    INFO("cluster " << cluster);
    const unsigned clusters = 5;
    DeviceBuffer out(clusters * cluster * sizeof(unsigned));
    out.fill_u8(0);
    LaunchConfig config;
    config.grid_clusters = {clusters, 1, 1};
    config.cluster = {cluster, 1, 1};
    config.block = {64, 1, 1};
    CHECK(max_active_clusters(ring, config) > 0);
    ArgPack args;
    args.push(out.ptr());
    launch(ring, config, args);
    synchronize(ring);
    std::vector<unsigned> got = out.download_as<unsigned>();
    for (unsigned b = 0; b < clusters * cluster; ++b) {
      unsigned rank = b % cluster;
      unsigned neighbour = b - rank + (rank + 1) % cluster;
      REQUIRE(got[b] == neighbour * 1000 + (rank + 1) % cluster);
    }
  }
}

TEST_CASE("dynamic shared memory up to the opt-in limit", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module probe = f.load("smem_probe", kSmemSource);
  unsigned limit = unsigned(f.ctx.info().max_smem_per_block_optin);
  DeviceBuffer out(sizeof(unsigned));
  for (unsigned bytes : {1024u, 100u * 1024, limit}) {
    LaunchConfig config;
    config.block = {32, 1, 1};
    config.cluster = {2, 1, 1};
    config.dynamic_smem = bytes;
    ArgPack args;
    args.push(out.ptr()).push(bytes);
    launch(probe, config, args);
    synchronize(probe);
    CHECK(out.download_as<unsigned>()[0] == bytes);
  }
  // One byte over: refused before the driver is asked, with the numbers.
  LaunchConfig config;
  config.block = {32, 1, 1};
  config.dynamic_smem = limit + 1;
  ArgPack args;
  args.push(out.ptr()).push(limit + 1);
  try {
    launch(probe, config, args);
    FAIL("over the limit must throw");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Launch);
    CHECK(contains(e.what(), "kernel 'smem_probe': asks for " + std::to_string(limit + 1)));
    CHECK(contains(e.what(), "allows " + std::to_string(limit) + " per CTA"));
  }
}

TEST_CASE("occupancy of big clusters with big shared memory", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module probe = f.load("smem_probe", kSmemSource);
  LaunchConfig config;
  config.block = {128, 1, 1};
  config.dynamic_smem = unsigned(f.ctx.info().max_smem_per_block_optin);
  config.cluster = {2, 1, 1};
  int two = max_active_clusters(probe, config);
  config.cluster = {16, 1, 1};
  int sixteen = max_active_clusters(probe, config);
  INFO("clusters of 2: " << two << ", of 16: " << sixteen);
  CHECK(two == f.ctx.info().sm_count / 2); // one full-smem CTA per SM
  CHECK(sixteen > 0);
  CHECK(sixteen * 16 <= f.ctx.info().sm_count);
}

TEST_CASE("arguments are checked against the kernel's parameters", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module probe = f.load("smem_probe", kSmemSource);
  LaunchConfig config;
  DeviceBuffer out(sizeof(unsigned));
  ArgPack too_few;
  too_few.push(out.ptr());
  try {
    launch(probe, config, too_few);
    FAIL("one argument for two parameters must throw");
  } catch (const RuntimeError& e) {
    CHECK(std::string(e.what()) ==
          "kernel 'smem_probe': takes 2 parameter(s) but 1 argument(s) were pushed");
  }
  ArgPack wrong_size;
  wrong_size.push(out.ptr()).push(uint64_t(4));
  try {
    launch(probe, config, wrong_size);
    FAIL("an 8-byte value for a 4-byte parameter must throw");
  } catch (const RuntimeError& e) {
    CHECK(std::string(e.what()) ==
          "kernel 'smem_probe': argument 1 is 8 bytes but the kernel's parameter 1 is 4 bytes");
  }
}

TEST_CASE("loading errors name the kernel and the fix", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  CompileRequest request = tiny_request(f.ctx.arch());
  std::string cubin = compile(request, nullptr).cubin;
  try {
    Module::load(f.ctx, cubin, "no_such_kernel");
    FAIL("an unknown kernel name must throw");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Launch);
    CHECK(contains(e.what(), "cuModuleGetFunction failed for kernel 'no_such_kernel': CUDA_ERROR_NOT_FOUND"));
    CHECK(contains(e.what(), "extern \"C\""));
  }
  if (f.ctx.arch() == "sm_90a") {
    // An sm_100a cubin cannot run on Hopper: the error says so.
    std::string blackwell = compile(tiny_request("sm_100a"), nullptr).cubin;
    try {
      Module::load(f.ctx, blackwell, "add_magic");
      FAIL("an sm_100a cubin must not load on sm_90a");
    } catch (const RuntimeError& e) {
      INFO(e.what());
      CHECK(contains(e.what(), "cuModuleLoadData failed for kernel 'add_magic'"));
      CHECK(contains(e.what(), "another architecture"));
    }
  }
}

TEST_CASE("buffers round-trip and refuse oversized copies", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Context ctx;
  std::vector<float> values(4096);
  std::iota(values.begin(), values.end(), 0.5f);
  DeviceBuffer buffer(values.size() * sizeof(float));
  buffer.upload(values);
  CHECK(buffer.download_as<float>() == values);
  buffer.fill_u8(0);
  CHECK(buffer.download_as<uint32_t>() == std::vector<uint32_t>(4096, 0));
  DeviceBuffer moved = std::move(buffer);
  CHECK(buffer.ptr() == 0);
  CHECK(moved.bytes() == values.size() * sizeof(float));
  std::vector<float> bigger(values.size() + 1);
  try {
    moved.upload(bigger);
    FAIL("an oversized upload must throw");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Usage);
  }
}

TEST_CASE("timing returns ordered, positive statistics", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module ring = f.load("dsmem_ring", kRingSource);
  DeviceBuffer out(132 * 4 * sizeof(unsigned));
  LaunchConfig config;
  config.grid_clusters = {33, 1, 1};
  config.cluster = {4, 1, 1};
  config.block = {128, 1, 1};
  ArgPack args;
  args.push(out.ptr());
  Timing t = time_launches(ring, config, args, 11);
  INFO("median " << t.median_ms << " ms");
  CHECK(t.iters == 11);
  CHECK(t.min_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
  CHECK(t.median_ms < 10); // a trivial kernel
}

namespace {

// ~108 registers per thread (ptxas, sm_90a): 1024 threads of it cannot fit one SM's 64K.
const char* kHeavySource = R"(
extern "C" __global__ void heavy(const float* in, float* out) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = in[i * 1024 + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 96; ++i) s = s * v[i] + v[95 - i] * v[(i * 7) % 96];
  out[threadIdx.x] = s;
}
)";

} // namespace

TEST_CASE("a config that cannot be co-scheduled is refused before launch", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module heavy = f.load("heavy", kHeavySource);
  INFO("registers per thread: " << heavy.num_regs());
  REQUIRE(heavy.num_regs() * 1024 > f.ctx.info().max_regs_per_sm);
  LaunchConfig config;
  config.cluster = {2, 1, 1};
  config.block = {1024, 1, 1};
  CHECK(max_active_clusters(heavy, config) == 0);
  ArgPack args;
  args.push(CUdeviceptr(0)).push(CUdeviceptr(0));
  try {
    launch(heavy, config, args);
    FAIL("must be refused");
  } catch (const RuntimeError& e) {
    INFO(e.what());
    CHECK(e.kind() == ErrorKind::Launch);
    CHECK(contains(e.what(), "kernel 'heavy': this device ("));
    CHECK(contains(e.what(), "cannot co-schedule one cluster of 2 CTAs (2x1x1)"));
    CHECK(contains(e.what(), "cuOccupancyMaxActiveClusters returned 0"));
    CHECK(contains(e.what(), "The registers per CTA exceed one SM"));
  }
}

// Run only in a child process by the next test: a device fault poisons the context for
// the rest of the process.
TEST_CASE("device fault (child process)", "[.][gpu-fault-child]") {
  TJ_REQUIRE_GPU();
  Fixture f;
  Module fault = f.load("fault", R"(
extern "C" __global__ void fault(int* p) { *(volatile int*)p = 1; }
)");
  ArgPack args;
  args.push(CUdeviceptr(0x10));
  launch(fault, LaunchConfig{}, args);
  try {
    synchronize(fault);
    FAIL("an illegal address must be reported");
  } catch (const RuntimeError& e) {
    INFO(e.what());
    CHECK(e.kind() == ErrorKind::Device);
    CHECK(contains(e.what(), "cuCtxSynchronize failed for kernel 'fault': CUDA_ERROR_ILLEGAL_ADDRESS (700)"));
  }
}

TEST_CASE("a device fault is a Device error that names the kernel", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  char self[4096] = {};
  REQUIRE(readlink("/proc/self/exe", self, sizeof self - 1) > 0); // resolved here, not by the shell
  std::FILE* child = popen(("'" + std::string(self) + "' '[gpu-fault-child]' 2>&1").c_str(), "r");
  REQUIRE(child);
  std::string output;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, child)) > 0) output.append(buf, n);
  int status = pclose(child);
  INFO(output);
  CHECK(status == 0);
  CHECK(contains(output, "All tests passed"));
  CHECK(contains(output, "1 test case"));
}

TEST_CASE("a kernel compiled once per arch is loaded on each device it runs on", "[runtime][gpu]") {
  TJ_REQUIRE_GPU();
  int count = 0;
  check(driver().cuDeviceGetCount(&count), "cuDeviceGetCount");
  REQUIRE(count >= 1);
  // One compile per arch present; each device loads its arch's cubin once.
  std::map<std::string, std::unique_ptr<DeviceModules>> by_arch;
  for (int d = 0; d < count; ++d) {
    Context ctx(d);
    if (!is_supported_arch(ctx.arch())) {
      WARN("device " << d << " (" << ctx.info().name << ") is " << ctx.arch() << ": not a tilejit target, not run");
      continue;
    }
    std::unique_ptr<DeviceModules>& kernel = by_arch[ctx.arch()];
    if (!kernel) {
      CompileRequest request = tiny_request(ctx.arch());
      kernel = std::make_unique<DeviceModules>(ctx.arch(), compile(request, nullptr).cubin, "add_magic", 2);
    }
    INFO("device " << d << ": " << ctx.info().name);
    const Module& m = kernel->on(ctx);
    CHECK(&kernel->on(ctx) == &m);  // loaded once per device
    CHECK(m.device().ordinal == d);
    run_add_magic(m, 300, 1);
  }
  size_t loaded = 0;
  for (const auto& [arch, k] : by_arch) loaded += k->loaded_count();
  CHECK(loaded >= 1);
  // A cubin of the other arch is refused before the driver sees it, naming both.
  Context ctx;
  const std::string other = ctx.arch() == "sm_90a" ? "sm_100a" : "sm_90a";
  DeviceModules wrong(other, "not a cubin", "add_magic", 2);
  CHECK_THROWS_WITH(wrong.on(ctx), Catch::Contains("the kernel was compiled for " + other) &&
                                       Catch::Contains("compile it for " + ctx.arch()));
  CHECK(wrong.loaded_count() == 0);
}

// The host API on the GPU: tj::jit, typed launches, tensors, tensor maps made from a
// kernel's declared view, timing, and the errors a wrong argument gets before launch.
#include <catch2/catch.hpp>

#include <cmath>

#include "runtime/driver.h"
#include "tests/api/api_kernels.h"

namespace {

bool refused(const std::function<void()>& f, const std::string& part) {
  try {
    f();
  } catch (const tj::RuntimeError& e) {
    INFO(e.what());
    CHECK(e.kind() == tj::ErrorKind::Usage);
    return std::string(e.what()).find(part) != std::string::npos;
  }
  return false;
}

// What the ring kernel writes for `ctas` CTAs in clusters of `cluster`: CTA c receives from
// its left neighbour in the cluster.
std::vector<uint32_t> ring_result(unsigned ctas, unsigned cluster, int n, uint32_t salt) {
  std::vector<uint32_t> want(size_t(ctas) * n);
  for (unsigned cta = 0; cta < ctas; ++cta) {
    const unsigned rank = cta % cluster, left = cta - rank + (rank + cluster - 1) % cluster;
    for (int i = 0; i < n; ++i) want[size_t(cta) * n + i] = left * 100000u + unsigned(i) + salt;
  }
  return want;
}

}  // namespace

TEST_CASE("tj::jit launches a cluster kernel with a tensor and a scalar [gpu]", "[gpu][api]") {
  const unsigned cluster = GENERATE(1u, 2u, 4u, 8u);
  const unsigned clusters = 7;
  const int n = 1000;
  CAPTURE(cluster);
  tj::JitKernel f = tj::jit(tj::api_test::ring(cluster, n));
  CHECK(f.compiled().target.arch == f.device().arch());
  tj::Tensor out = tj::Tensor::empty<uint32_t>({clusters * cluster, uint64_t(n)});
  out.fill_bytes(0xAB);
  f.launch(clusters, out, 11u);
  f.synchronize();
  tj::Check check = tj::compare(out.download<uint32_t>(), ring_result(clusters * cluster, cluster, n, 11u), {}, "ring");
  INFO(check.detail);
  CHECK(check.ok);
  CHECK(f.max_active_clusters() > 0);
}

TEST_CASE("tj::jit on a stream, with bound arguments, timed [gpu]", "[gpu][api]") {
  tj::JitKernel f = tj::jit(tj::api_test::ring(4, 4096));
  tj::Tensor out = tj::Tensor::empty<uint32_t>({33 * 4, 4096});
  f(nullptr, 33, out, 3);
  f.synchronize();
  CHECK(out.download<uint32_t>()[4096] == 0u * 100000u + 0u + 3u);  // CTA 1 received from CTA 0
  tj::BoundArgs args = f.bind(out, 5u);
  tj::Timing t = f.time(33, args, 10);
  CHECK(t.iters == 10);
  CHECK(t.min_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
  CHECK(out.download<uint32_t>()[4096] == 5u);
  // Arguments bound for another kernel are refused.
  tj::JitKernel g = tj::jit(tj::api_test::ring(2, 64));
  CHECK(refused([&] { g.launch(1, args); }, "were passed to kernel 'api_ring'"));
}

// The way the CLI launches a sample: the instance's own rt::ArgPack, bound through the same
// checks (samples::bind_instance); and launch_repeated, as the GEMM benchmark times.
TEST_CASE("encoded arguments launch like typed ones, also through launch_repeated [gpu]", "[gpu][api]") {
  const unsigned cluster = 4, clusters = 9;
  const int n = 512;
  tj::JitKernel f = tj::jit(tj::api_test::ring(cluster, n));
  tj::Tensor out = tj::Tensor::empty<uint32_t>({clusters * cluster, uint64_t(n)});
  tj::rt::ArgPack packed;
  packed.push(out.data()).push(uint32_t(9));
  tj::BoundArgs args = f.bind_vector(tj::encoded_args(packed));
  out.fill_bytes(0xAB);
  f.launch(clusters, args);
  f.synchronize();
  const std::vector<uint32_t> want = ring_result(clusters * cluster, cluster, n, 9u);
  tj::Check check = tj::compare(out.download<uint32_t>(), want, {}, "ring, encoded arguments");
  INFO(check.detail);
  CHECK(check.ok);

  out.fill_bytes(0xAB);
  f.launch_repeated(clusters, args, 5);
  f.synchronize();
  check = tj::compare(out.download<uint32_t>(), want, {}, "ring, 5 launches");
  INFO(check.detail);
  CHECK(check.ok);

  // A value of the wrong size is refused before the launch, naming the parameter.
  tj::rt::ArgPack wide;
  wide.push(out.data()).push(uint64_t(9));
  CHECK(refused([&] { f.bind_vector(tj::encoded_args(wide)); }, "parameter 1 'salt' (u32, declared at"));
  tj::JitKernel g = tj::jit(tj::api_test::ring(2, 64));
  CHECK(refused([&] { g.launch_repeated(1, args, 2); }, "were passed to kernel 'api_ring'"));
  f.synchronize();
}

TEST_CASE("a tensor passed for a TMA view becomes its tensor map [gpu]", "[gpu][api]") {
  const uint64_t rows = 64, cols = 96;  // 8 x 3 boxes of 8 x 32
  std::vector<float> in(rows * cols);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(i % 977) * 0.25f;
  tj::Tensor src = tj::Tensor::from_host<float>({rows, cols}, in);
  tj::Tensor out = tj::Tensor::empty<float>({rows, cols});
  out.fill_bytes(0xFF);
  tj::JitKernel f = tj::jit(tj::api_test::tma_scale());
  f.launch(unsigned(rows / 8 * cols / 32), src, out, int(cols), 2.0f);
  f.synchronize();
  std::vector<float> want(in.size());
  for (size_t i = 0; i < in.size(); ++i) want[i] = in[i] * 2.0f;
  tj::Check check = tj::compare(out.download<float>(), want, {}, "scaled tensor");
  INFO(check.detail);
  CHECK(check.ok);
  // The same through an explicitly made map.
  CUtensorMap map = src.tensor_map(f.kernel().tensor_maps[0]);
  out.fill_bytes(0xFF);
  f.launch(unsigned(rows / 8 * cols / 32), map, out, int(cols), 2.0f);
  f.synchronize();
  CHECK(tj::compare(out.download<float>(), want).ok);
}

TEST_CASE("wrong arguments are refused before the launch, naming the parameter [gpu]", "[gpu][api]") {
  tj::JitKernel f = tj::jit(tj::api_test::tma_scale());
  tj::Tensor src = tj::Tensor::empty<float>({64, 96});
  tj::Tensor half = tj::Tensor::empty<tj::dsl::bf16>({64, 96});
  tj::Tensor out = tj::Tensor::empty<float>({64, 96});
  CHECK(refused([&] { f.launch(24, src, out, 96); }, "takes 4 argument(s) (src: tensor_map, out: f32*, cols: i32, scale: f32) but 3"));
  CHECK(refused([&] { f.launch(24, half, out, 96, 1.0f); }, "tensor map 'src'"));
  CHECK(refused([&] { f.launch(24, src, half, 96, 1.0f); }, "parameter 1 'out' (f32*"));
  CHECK(refused([&] { f.launch(24, src, out, 96.0, 1.0f); }, "parameter 2 'cols' (i32"));
  CHECK(refused([&] { src.download<int32_t>(); }, "cannot download i32 values for the tensor f32[64, 96]"));
  // Nothing was launched: the device is still fine.
  f.synchronize();
}

// Workspace parameters: bound by the runtime, sized per launch, zeroed once when
// allocated (the kernel leaves its counter at 0), one set per stream.
TEST_CASE("workspaces are allocated, zeroed, kept and grown by the runtime, one set per stream [gpu]", "[gpu][api][workspace]") {
  tj::JitKernel f = tj::jit(tj::api_test::workspaces());
  CHECK(f.signature() == "out: u32*, n: i32, salt: u32");
  const int big = 10000;
  tj::Tensor out = tj::Tensor::empty<uint32_t>({uint64_t(big) + 1});
  auto expect = [&](int n, uint32_t ctas, uint32_t salt) {
    const std::vector<uint32_t> got = out.download<uint32_t>();
    CHECK(got[0] == ctas + salt);  // every CTA counted in on a counter that started at 0
    size_t wrong = 0;
    for (int i = 0; i < n; ++i) wrong += got[size_t(i) + 1] != uint32_t(i) * 3u + salt;
    CHECK(wrong == 0);
  };
  f.launch(7, out, 5000, 11u);
  f.synchronize();
  expect(5000, 7, 11);
  CHECK(f.workspace_bytes() == 5000 * 4 + 4);
  // Again: the same buffers (the counter back at 0), nothing new allocated.
  f.launch(9, out, 5000, 12u);
  f.synchronize();
  expect(5000, 9, 12);
  CHECK(f.workspace_bytes() == 5000 * 4 + 4);
  // A launch that needs more grows the scratch buffer; one that needs less keeps it.
  f.launch(3, out, big, 13u);
  f.synchronize();
  expect(big, 3, 13);
  CHECK(f.workspace_bytes() == big * 4 + 4);
  f.launch(5, out, 100, 14u);
  f.synchronize();
  expect(100, 5, 14);
  CHECK(f.workspace_bytes() == big * 4 + 4);
  // Another stream gets buffers of its own; back-to-back launches on it share them.
  CUstream stream = nullptr;
  REQUIRE(tj::rt::driver().cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
  tj::BoundArgs args = f.bind(out, 2000, 15u);
  f.launch_repeated(4, args, 3, stream);
  REQUIRE(tj::rt::driver().cuStreamSynchronize(stream) == CUDA_SUCCESS);
  expect(2000, 4, 15);
  CHECK(f.workspace_bytes() == big * 4 + 4 + 2000 * 4 + 4);
  // The bound arguments keep the caller's values; the workspace slots are the runtime's.
  tj::Timing t = f.time(6, args, 5, 1, stream);
  CHECK(t.iters == 5);
  expect(2000, 6, 15);
  CHECK(tj::rt::driver().cuStreamDestroy(stream) == CUDA_SUCCESS);
}

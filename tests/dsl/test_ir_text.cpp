// IR built through the DSL, checked as the exact text of tj::ir::to_string.
#include <catch2/catch.hpp>

#include <regex>
#include <string>

#include "dsl/dsl.h"
#include "dsl/ir/printer.h"

using namespace tj;
using namespace tj::dsl;

namespace {

// The IR text without the "    // file.cpp:NN" origin comments (tested in test_locations.cpp).
std::string without_locs(const std::string& text) {
  return std::regex_replace(text, std::regex("    // [^\n]*"), "");
}

// "    // test_ir_text.cpp:NN", the origin comment the printer appends.
std::string at(int line) { return "    // test_ir_text.cpp:" + std::to_string(line); }

}  // namespace

TEST_CASE("an axpy kernel prints as exact IR text, origins included", "[dsl][ir]") {
  const int l_kernel = __LINE__ + 1;
  KernelBuilder k("axpy");
  k.threads(256).cluster(4);
  auto x = k.param<float*>("x");
  auto y = k.param<float*>("y");
  auto a = k.param<float>("a");
  auto n = k.param<int32_t>("n");
  i32 i = block_idx_x() * block_dim_x() + thread_idx_x();
  const int l_if = __LINE__ + 1;
  if_(i < n, [&] {
    y[i] = a * x[i] + y[i];  const int l_store = __LINE__;
    (void)l_store;
    CHECK(l_store == l_if + 1);
  });
  ir::Kernel kern = k.build();

  const std::string idx = "((%ctaid.x * %ntid.x) + %tid.x)";
  CHECK(ir::to_string(kern) ==
        "kernel axpy(x: global f32*, y: global f32*, a: f32, n: i32) block(256,1,1) cluster(4,1,1) {\n"
        "  if (" + idx + " < n) {" + at(l_if) + "\n"
        "    y[" + idx + "] = ((a * x[" + idx + "]) + y[" + idx + "])" + at(l_if + 1) + "\n"
        "  }\n"
        "}\n");
  CHECK(kern.name == "axpy");
  CHECK(kern.loc.line == unsigned(l_kernel));
  REQUIRE(kern.params.size() == 4);
  CHECK(kern.params[2].type == ir::Type::of(ir::Scalar::F32));
  CHECK(kern.params[0].type == ir::Type::pointer(ir::Scalar::F32, ir::Space::Global));
}

TEST_CASE("default launch shape is 128 threads, cluster 1", "[dsl][ir]") {
  KernelBuilder k("empty");
  ir::Kernel kern = k.build();
  CHECK(ir::to_string(kern) == "kernel empty() block(128,1,1) cluster(1,1,1) {\n}\n");
  CHECK(kern.block == ir::Dim3{128, 1, 1});
  CHECK(kern.cluster == ir::Dim3{1, 1, 1});
  CHECK_FALSE(kern.non_portable_cluster);
}

TEST_CASE("3-D threads, 3-D cluster and the non-portable opt-in print in the header", "[dsl][ir]") {
  KernelBuilder k("shape");
  k.threads(32, 4, 2).cluster(3, 3, 1).allow_non_portable_cluster();
  ir::Kernel kern = k.build();
  CHECK(ir::to_string(kern) == "kernel shape() block(32,4,2) cluster(3,3,1) non_portable {\n}\n");
  CHECK(kern.block.count() == 256);
  CHECK(kern.cluster.count() == 9);
}

TEST_CASE("shared and dynamic shared buffers are listed in declaration order with their sizes", "[dsl][ir]") {
  KernelBuilder k("bufs");
  auto a = k.shared<float>("a", 3);
  auto b = k.dynamic_shared<bf16>("b", 5);
  auto c = k.shared<uint64_t>("c", 1);
  auto d = k.dynamic_shared<int32_t>("d", 7);
  ir::Kernel kern = k.build();
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel bufs() block(128,1,1) cluster(1,1,1) {\n"
        "  shared a: f32[3]\n"
        "  dynamic_shared b: bf16[5]\n"
        "  shared c: u64[1]\n"
        "  dynamic_shared d: i32[7]\n"
        "}\n");
  // Static: a (12 B) at 0, c (8 B) at 16 -> 24, rounded to 32. Dynamic: b (10 B) at 0, d (28 B) at 16 -> 44 -> 48.
  CHECK(kern.static_shared_bytes() == 32);
  CHECK(kern.dynamic_shared_bytes() == 48);
  REQUIRE(kern.find_shared("d") != nullptr);
  CHECK(kern.find_shared("d")->bytes() == 28);
  CHECK(kern.find_shared("d")->dynamic);
  CHECK(kern.find_shared("nope") == nullptr);
  CHECK(a.space() == ir::Space::Shared);
  CHECK(b.space() == ir::Space::Shared);
  CHECK(c.expr()->type.str() == "shared u64*");
  CHECK(d.expr()->type.str() == "shared i32*");
}

TEST_CASE("var, assignment, i32 and i64 for_ loops and if_/else_", "[dsl][ir]") {
  KernelBuilder k("flow");
  auto out = k.param<int32_t*>("out");
  auto n = k.param<int32_t>("n");
  auto acc = var(i32(0), "acc");
  for_(0, n, 2, [&](i32 i) { acc = acc + i; });
  for_(i64(0), i64(10), i64(3), [&](i64 j) { out[j] = cast<int32_t>(j); });
  for_(1, 4, [&](i32 i) { acc = acc * i; });
  if_(acc > 10, [&] { out[0] = acc; }).else_([&] { out[0] = -acc; });
  if_(n == 0, [&] { out[1] = 7; });
  ir::Kernel kern = k.build();
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel flow(out: global i32*, n: i32) block(128,1,1) cluster(1,1,1) {\n"
        "  let acc: i32 = 0\n"
        "  for i in [0, n) step 2 {\n"
        "    acc = (acc + i)\n"
        "  }\n"
        "  for i0 in [0l, 10l) step 3l {\n"
        "    out[i0] = i32(i0)\n"
        "  }\n"
        "  for i1 in [1, 4) step 1 {\n"
        "    acc = (acc * i1)\n"
        "  }\n"
        "  if (acc > 10) {\n"
        "    out[0] = acc\n"
        "  } else {\n"
        "    out[0] = -acc\n"
        "  }\n"
        "  if (n == 0) {\n"
        "    out[1] = 7\n"
        "  }\n"
        "}\n");
}

TEST_CASE("nested loops get fresh index names and may reuse the outer index", "[dsl][ir]") {
  KernelBuilder k("nest");
  auto out = k.param<float*>("out");
  auto i_var = var(i32(3));       // takes the default hint "v"
  auto v_var = var(i32(4));       // "v" is taken: "v0"
  for_(0, 2, [&](i32 i) {
    for_(i, 8, 4, [&](i32 j) { out[i * 8 + j] = cast<float>(j + i_var + v_var); });
  });
  ir::Kernel kern = k.build();
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel nest(out: global f32*) block(128,1,1) cluster(1,1,1) {\n"
        "  let v: i32 = 3\n"
        "  let v0: i32 = 4\n"
        "  for i in [0, 2) step 1 {\n"
        "    for i1 in [i, 8) step 4 {\n"
        "      out[((i * 8) + i1)] = f32(((i1 + v) + v0))\n"
        "    }\n"
        "  }\n"
        "}\n");
}

TEST_CASE("cast, select, min, max and operators print with their types", "[dsl][ir]") {
  KernelBuilder k("exprs");
  auto f = k.param<float*>("f");
  auto u = k.param<uint32_t*>("u");
  auto l = k.param<int64_t*>("l");
  auto ul = k.param<uint64_t*>("ul");
  auto n = k.param<int32_t>("n");
  f[0] = select(n == 0, f32(1.0f), max<float>(f[1], 0.5f));
  f[1] = min(cast<float>(n), f32(-2.25f)) / 3.0f;
  u[0] = (u[1] << 3u) | (u[2] >> 1u) ^ ~u[3];
  u[1] = cast<uint32_t>(n) % 7u & 255u;
  l[0] = cast<int64_t>(n) - 5;
  ul[0] = ul[1] + 1ul;
  f[2] = cast<float>(cast<bf16>(f[3]));
  if_((n >= 1 && n <= 9) || !(n != 4), [&] { f[3] = -f[4]; });
  ir::Kernel kern = k.build();
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel exprs(f: global f32*, u: global u32*, l: global i64*, ul: global u64*, n: i32) "
        "block(128,1,1) cluster(1,1,1) {\n"
        "  f[0] = select((n == 0), 1f, max(f[1], 0.5f))\n"
        "  f[1] = (min(f32(n), -2.25f) / 3f)\n"
        "  u[0] = ((u[1] << 3u) | ((u[2] >> 1u) ^ ~u[3]))\n"
        "  u[1] = ((u32(n) % 7u) & 255u)\n"
        "  l[0] = (i64(n) - 5l)\n"
        "  ul[0] = (ul[1] + 1ul)\n"
        "  f[2] = f32(bf16(f[3]))\n"
        "  if (((n >= 1) && (n <= 9)) || !(n != 4)) {\n"
        "    f[3] = -f[4]\n"
        "  }\n"
        "}\n");
}

TEST_CASE("cast to the same type adds no node", "[dsl][ir]") {
  i32 v(ir::IntImm::make(ir::Scalar::I32, 5));
  CHECK(cast<int32_t>(v).expr() == v.expr());
  CHECK(ir::to_string(cast<int64_t>(v).expr()) == "i64(5)");
}

TEST_CASE("special registers print as their PTX names, the cluster ones marked", "[dsl][ir]") {
  struct Row {
    i32 reg;
    const char* ptx;
    bool cluster;
  };
  const Row rows[] = {
      {thread_idx_x(), "%tid.x", false},           {thread_idx_y(), "%tid.y", false},
      {thread_idx_z(), "%tid.z", false},           {block_dim_x(), "%ntid.x", false},
      {block_idx_y(), "%ctaid.y", false},          {grid_dim_z(), "%nctaid.z", false},
      {lane_id(), "%laneid", false},               {cluster_ctarank(), "%cluster_ctarank", true},
      {cluster_nctarank(), "%cluster_nctarank", true}, {cluster_id_x(), "%clusterid.x", true},
      {num_clusters_y(), "%nclusterid.y", true},   {cluster_ctaid_z(), "%cluster_ctaid.z", true},
      {cluster_dim_x(), "%cluster_nctaid.x", true},
  };
  for (const Row& r : rows) {
    INFO(r.ptx);
    CHECK(ir::to_string(r.reg.expr()) == r.ptx);
    CHECK(r.reg.expr()->type == ir::Type::of(ir::Scalar::I32));
    const ir::SpecialReg* s = r.reg.expr()->as<ir::SpecialReg>();
    REQUIRE(s != nullptr);
    CHECK(ir::sreg_ptx(s->reg) == r.ptx);
    CHECK(ir::sreg_needs_cluster(s->reg) == r.cluster);
  }
  CHECK(ir::sreg_name(ir::SpecialRegKind::ClusterCtaRank) == "cluster_ctarank");
  CHECK(ir::sreg_name(ir::SpecialRegKind::ClusterDimZ) == "cluster_dim_z");
}

TEST_CASE("map_shared_rank, atomic_add and the cluster barriers", "[dsl][ir][cluster]") {
  KernelBuilder k("dsm");
  k.threads(32).cluster(2);
  auto out = k.param<float*>("out");
  auto buf = k.shared<float>("buf", 32);
  auto cnt = k.dynamic_shared<uint32_t>("cnt", 4);
  auto peer = map_shared_rank(buf, cluster_ctarank() ^ 1);
  peer[thread_idx_x()] = 1.0f;
  atomic_add(peer[0], 2.5f);
  atomic_add(map_shared_rank(cnt, 0)[1], 1u);
  atomic_add(out[thread_idx_x()], peer[thread_idx_x()]);
  cluster_arrive();
  cluster_wait();
  cluster_arrive_relaxed();
  cluster_arrive(ir::MemoryOrder::Relaxed);
  cluster_wait();
  cluster_sync();
  sync_threads();
  ir::Kernel kern = k.build();
  CHECK(peer.space() == ir::Space::Cluster);
  CHECK(peer.expr()->type.str() == "shared::cluster f32*");
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel dsm(out: global f32*) block(32,1,1) cluster(2,1,1) {\n"
        "  shared buf: f32[32]\n"
        "  dynamic_shared cnt: u32[4]\n"
        "  map_shared_rank(buf, (%cluster_ctarank ^ 1))[%tid.x] = 1f\n"
        "  atomic_add(map_shared_rank(buf, (%cluster_ctarank ^ 1))[0], 2.5f)\n"
        "  atomic_add(map_shared_rank(cnt, 0)[1], 1u)\n"
        "  atomic_add(out[%tid.x], map_shared_rank(buf, (%cluster_ctarank ^ 1))[%tid.x])\n"
        "  cluster_arrive.release()\n"
        "  cluster_wait.acquire()\n"
        "  cluster_arrive.relaxed()\n"
        "  cluster_arrive.relaxed()\n"
        "  cluster_wait.acquire()\n"
        "  cluster_sync()\n"
        "  sync_threads()\n"
        "}\n");
}

TEST_CASE("assigning one element to another stores the loaded value", "[dsl][ir]") {
  KernelBuilder k("copy");
  auto src = k.param<int32_t*>("src");
  auto dst = k.param<int32_t*>("dst");
  dst[thread_idx_x()] = src[thread_idx_x() + 1];
  auto a = var(src[0], "a");
  auto b = var(i32(0), "b");
  b = a;
  ir::Kernel kern = k.build();
  CHECK(without_locs(ir::to_string(kern)) ==
        "kernel copy(src: global i32*, dst: global i32*) block(128,1,1) cluster(1,1,1) {\n"
        "  dst[%tid.x] = src[(%tid.x + 1)]\n"
        "  let a: i32 = src[0]\n"
        "  let b: i32 = 0\n"
        "  b = a\n"
        "}\n");
}

TEST_CASE("float literals print with 9 significant digits", "[dsl][ir]") {
  CHECK(ir::to_string(f32(0.1f).expr()) == "0.100000001f");
  CHECK(ir::to_string(f32(1e30f).expr()) == "1.00000002e+30f");
  CHECK(ir::to_string(f32(-0.0f).expr()) == "-0f");
  CHECK(ir::to_string(i64(-3).expr()) == "-3l");
  CHECK(ir::to_string(u64(uint64_t(1) << 40).expr()) == "1099511627776ul");
  CHECK(ir::to_string(boolean(true).expr()) == "true");
}

TEST_CASE("a builder nested inside another records into the inner one, then hands back", "[dsl][ir]") {
  KernelBuilder outer("outer");
  auto o = outer.param<int32_t*>("o");
  o[0] = 1;
  {
    KernelBuilder inner("inner");
    auto p = inner.param<int32_t*>("p");
    p[0] = 2;
    CHECK(without_locs(ir::to_string(inner.build())) ==
          "kernel inner(p: global i32*) block(128,1,1) cluster(1,1,1) {\n  p[0] = 2\n}\n");
  }
  o[1] = 3;
  CHECK(without_locs(ir::to_string(outer.build())) ==
        "kernel outer(o: global i32*) block(128,1,1) cluster(1,1,1) {\n  o[0] = 1\n  o[1] = 3\n}\n");
}

// The bounds check (codegen/passes/verify_bounds.h): shared-memory accesses that
// certainly fall outside their buffer, ranks outside the cluster, misaligned bulk
// copies. Each with its exact text; and what it must accept or cannot decide.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_verify_bounds.cpp:" + std::to_string(line); }

// The one diagnostic of `k`, as "<line>: <message> | <fix>", or "lowered".
std::string only_error(const ir::Kernel& k) {
  std::vector<Diagnostic> d = lower_errors(k);
  if (d.empty()) return "lowered";
  REQUIRE(d.size() == 1);
  return d[0].loc.str() + ": " + d[0].message + " | " + d[0].fix;
}

}  // namespace

TEST_CASE("bounds: a constant index past a shared buffer, here and in a peer", "[codegen][verify][bounds]") {
  {
    KernelBuilder k("local_oob");
    auto out = k.param<float*>("out");
    const unsigned decl = __LINE__ + 1;
    auto parts = k.shared<float>("parts", 4);
    parts[thread_idx_x() % 4] = 1.0f;
    sync_threads();
    const unsigned use = __LINE__ + 1;
    out[0] = parts[4];
    CHECK(only_error(k.build()) == at(use) + ": load of 'parts' reaches element 4 in CTA rank 0, outside the buffer: 'parts' "
                                             "(declared at " + at(decl) + ") has 4 elements | keep the index within 0..3, "
                                             "or declare the buffer larger");
  }
  {
    KernelBuilder k("peer_oob");
    k.cluster(2);
    auto out = k.param<float*>("out");
    const unsigned decl = __LINE__ + 1;
    auto inbox = k.shared<float>("inbox", 4);
    inbox[thread_idx_x() % 4] = 1.0f;
    cluster_sync();
    const unsigned use = __LINE__ + 1;
    if_(thread_idx_x() == 0, [&] { out[block_idx_x()] = map_shared_rank(inbox, (cluster_ctarank() + 1) % 2)[7]; });
    cluster_sync();
    CHECK(only_error(k.build()) == at(use) + ": load of a peer's 'inbox' reaches element 7 in CTA rank 0 (thread 0), outside the "
                                             "buffer: 'inbox' (declared at " + at(decl) + ") has 4 elements | keep the "
                                             "index within 0..3, or declare the buffer larger");
  }
}

TEST_CASE("bounds: a thread index past the buffer names the first thread that reaches it", "[codegen][verify][bounds]") {
  KernelBuilder k("threads_oob");
  k.threads(128);
  auto in = k.param<float*>("in");
  const unsigned decl = __LINE__ + 1;
  auto buf = k.shared<float>("buf", 100);
  const unsigned use = __LINE__ + 1;
  buf[thread_idx_x()] = in[thread_idx_x()];
  CHECK(only_error(k.build()) == at(use) + ": store of 'buf' reaches element 100 in CTA rank 0 (thread 100), outside the "
                                           "buffer: 'buf' (declared at " + at(decl) + ") has 100 elements | keep the index "
                                           "within 0..99, or declare the buffer larger");
  // Guarded, it is fine; behind a parameter, it is not evaluated (not checked here).
  KernelBuilder g("guarded");
  g.threads(128);
  auto in2 = g.param<float*>("in");
  auto n = g.param<int32_t>("n");
  auto buf2 = g.shared<float>("buf", 100);
  if_(thread_idx_x() < 100, [&] { buf2[thread_idx_x()] = in2[thread_idx_x()]; });
  if_(thread_idx_x() == 0, [&] { buf2[n] = 1.0f; });
  CHECK(only_error(g.build()) == "lowered");
}

TEST_CASE("bounds: an index computed in f32 is evaluated where every step is an exact integer", "[codegen][verify][bounds]") {
  // times: the f32 factor of the thread index; guard: the store under cast<float>(tid) < 64.0f.
  auto build = [](float times, bool guard, unsigned& decl, unsigned& use) {
    KernelBuilder k("float_index");
    k.threads(128);
    auto out = k.param<uint32_t*>("out");
    decl = __LINE__ + 1;
    auto sh = k.shared<uint32_t>("sh", 256);
    use = __LINE__ + 1;
    auto store = [&] { sh[cast<int32_t>(cast<float>(thread_idx_x()) * times)] = 1u; };
    if (guard) if_(cast<float>(thread_idx_x()) < 64.0f, store);
    else store();
    sync_threads();
    out[thread_idx_x()] = sh[thread_idx_x()];
    return k.build();
  };
  unsigned decl = 0, use = 0;
  const std::string got = only_error(build(4.0f, false, decl, use));
  CHECK(got ==
        at(use) + ": store of 'sh' reaches element 256 in CTA rank 0 (thread 64), outside the buffer: 'sh' (declared at " +
            at(decl) + ") has 256 elements | keep the index within 0..255, or declare the buffer larger");
  CHECK(only_error(build(2.0f, false, decl, use)) == "lowered");
  CHECK(only_error(build(4.0f, true, decl, use)) == "lowered");
  // Not an exact integer (tid * 2.5 rounds): not evaluated, not checked.
  CHECK(only_error(build(2.5f, false, decl, use)) == "lowered");
}

TEST_CASE("bounds: an mbarrier past its array", "[codegen][verify][bounds]") {
  KernelBuilder k("bar_oob");
  auto out = k.param<float*>("out");
  const unsigned decl = __LINE__ + 1;
  auto bar = k.mbarriers("got", 1, 1);
  const unsigned use = __LINE__ + 1;
  if_(thread_idx_x() == 0, [&] { arrive(bar[1]); });
  wait(bar[0]);
  out[0] = 1.0f;
  std::vector<Diagnostic> d = lower_errors(k.build());
  REQUIRE(!d.empty());
  CHECK(d[0].loc.str() == at(use));
  CHECK(d[0].message == "arrive of 'got' reaches element 1 in CTA rank 0 (thread 0), outside the buffer: 'got' (declared at " + at(decl) +
                            ") has 1 element");
}

TEST_CASE("bounds: ranks that are not literals, evaluated per CTA and loop trip", "[codegen][verify][bounds]") {
  const std::string fix = "use a rank below 4, e.g. (cluster_ctarank() + 1) % cluster_nctarank()";
  {
    KernelBuilder k("rank_plus_one");
    k.cluster(4);
    auto out = k.param<float*>("out");
    auto partial = k.shared<float>("partial", 128);
    partial[thread_idx_x()] = 1.0f;
    cluster_sync();
    const unsigned use = __LINE__ + 1;
    if_(thread_idx_x() == 0, [&] { out[block_idx_x()] = map_shared_rank(partial, cluster_ctarank() + 1)[0]; });
    cluster_sync();
    CHECK(only_error(k.build()) == at(use) + ": load through map_shared_rank names CTA rank 4 in CTA rank 3 (thread 0), outside the "
                                             "cluster of 4 CTAs (ranks 0..3) | " + fix);
  }
  {
    KernelBuilder k("rank_loop");
    k.cluster(4);
    auto out = k.param<float*>("out");
    auto partial = k.shared<float>("partial", 128);
    partial[thread_idx_x()] = 1.0f;
    cluster_sync();
    const unsigned use = __LINE__ + 3;
    if_(cluster_ctarank() == 0 && thread_idx_x() == 0, [&] {
      auto t = var(f32(0.0f), "t");
      for_(0, 5, [&](i32 r) { t = t + map_shared_rank(partial, r)[0]; });
      out[0] = t;
    });
    cluster_sync();
    CHECK(only_error(k.build()) == at(use) + ": load through map_shared_rank names CTA rank 4 in CTA rank 0 (thread 0), outside the "
                                             "cluster of 4 CTAs (ranks 0..3) | " + fix);
  }
  {
    // The same gather within the cluster lowers.
    KernelBuilder k("rank_ok");
    k.cluster(4);
    auto out = k.param<float*>("out");
    auto partial = k.shared<float>("partial", 128);
    partial[thread_idx_x()] = 1.0f;
    cluster_sync();
    if_(cluster_ctarank() == 0 && thread_idx_x() == 0, [&] {
      auto t = var(f32(0.0f), "t");
      for_(0, 4, [&](i32 r) { t = t + map_shared_rank(partial, r)[0]; });
      out[0] = t;
    });
    cluster_sync();
    CHECK(only_error(k.build()) == "lowered");
  }
}

TEST_CASE("bounds: a bulk copy past its destination, and one not 16-byte aligned", "[codegen][verify][bounds]") {
  auto kernel = [](const char* name, unsigned inbox_elems, int offset, unsigned* use, unsigned* decl) {
    KernelBuilder k(name);
    k.cluster(4);
    auto in = k.param<float*>("in");
    auto out = k.param<float*>("out");
    auto partial = k.shared<float>("partial", 128);
    *decl = __LINE__ + 1;
    auto inbox = k.shared<float>("inbox", inbox_elems);
    auto bar = k.mbarriers("got", 1, 1);
    partial[thread_idx_x()] = in[thread_idx_x()];
    if_(cluster_ctarank() == 0 && thread_idx_x() == 0, [&] { arrive_expect_tx(bar[0], u32(64u)); });
    cluster_sync();
    *use = __LINE__ + 3;
    if_(thread_idx_x() == 0, [&] {
      fence_proxy_async();
      bulk_copy_to_peer(map_shared_rank(inbox, 0)[cluster_ctarank() * 4 + offset], partial[0], 16, map_shared_rank(bar, 0)[0]);
    });
    if_(cluster_ctarank() == 0 && thread_idx_x() == 0, [&] {
      wait(bar[0]);
      out[0] = inbox[0];
    });
    cluster_sync();
    return k.build();
  };
  unsigned use = 0, decl = 0;
  ir::Kernel over = kernel("bulk_overflow", 4, 0, &use, &decl);
  CHECK(only_error(over) == at(use) + ": bulk copy of a peer's 'inbox' reaches elements 4..7 in CTA rank 1 (thread 0), outside the "
                                      "buffer: 'inbox' (declared at " + at(decl) + ") has 4 elements | keep the index within "
                                      "0..0 (the access covers 4 elements), or declare the buffer larger");
  ir::Kernel misaligned = kernel("bulk_misaligned", 20, 1, &use, &decl);
  CHECK(only_error(misaligned) == at(use) + ": bulk copy at element 1 of a peer's 'inbox' (byte 4) in CTA rank 0 (thread 0): "
                                            "cp.async.bulk needs 16-byte aligned shared addresses | start it at an element "
                                            "whose byte offset is a multiple of 16");
  CHECK(only_error(kernel("bulk_fits", 16, 0, &use, &decl)) == "lowered");
}

TEST_CASE("bounds: a TMA box loaded as a part the tile does not have", "[codegen][verify][bounds]") {
  // A constant part is refused where it is written; one that depends on the CTA, per rank.
  auto kernel = [](bool constant, unsigned* use, unsigned* decl) {
    KernelBuilder k(constant ? "part_const" : "part_rank");
    k.threads(128).cluster(2);
    *decl = __LINE__ + 1;
    SharedTile b = k.shared_tile<bf16>("b", 128, 64);
    TileMap bmap = k.tile_map("B", b, 64);  // parts 0 and 1
    auto full = k.mbarriers("full", 1, 1);
    *use = __LINE__ + 4;
    k.role("main", 1, 0, [&](i32) {
      if_(thread_idx_x() == 0, [&] {
        arrive_expect_tx(full[0], u32(tile_load_bytes(bmap)));
        tma_load_tile(stage(b, 0), bmap, 0, 0, full[0], constant ? i32(2) : cluster_ctarank() + 1);
      });
      wait(full[0]);
    });
    return k.build();
  };
  unsigned use = 0, decl = 0;
  std::string got;
  try {
    kernel(true, &use, &decl);
  } catch (const UserError& e) {
    got = e.what();
  }
  CHECK(got == at(use) + ": error: part 2 of tile 'b': its 128 rows in boxes of 64 rows (tile map 'B') hold parts 0..1\n"
                         "  fix: load parts 0 to 1 of the tile");
  ir::Kernel k = kernel(false, &use, &decl);
  CHECK(only_error(k) == at(use) + ": TMA load of 'b' reaches elements 8192..12287 in CTA rank 1 (thread 0), outside the "
                                   "buffer: 'b' (declared at " + at(decl) + ") has 8192 elements | keep the index within "
                                   "0..4096 (the access covers 4096 elements), or declare the buffer larger");
}

TEST_CASE("bounds: a TMA box needs 128-byte aligned shared memory", "[codegen][verify][bounds]") {
  auto kernel = [](unsigned align, int offset, unsigned* use, unsigned* decl) {
    KernelBuilder k("tma_align");
    TensorMap map = k.tensor_map<float>("src", {32, 8});
    *decl = __LINE__ + 1;
    auto buf = k.dynamic_shared<float>("buf", 4096, align);
    auto bar = k.mbarriers("bar", 1, 1);
    *use = __LINE__ + 3;
    if_(thread_idx_x() == 0, [&] {
      arrive_expect_tx(bar[0], u32(1024u));
      tma_load(buf[offset], map, {0, 0}, bar[0]);
    });
    wait(bar[0]);
    return k.build();
  };
  unsigned use = 0, decl = 0;
  // The DSL aligns a TMA box's buffer itself (here declared with 16 bytes).
  ir::Kernel low = kernel(16, 0, &use, &decl);
  REQUIRE(low.find_shared("buf"));
  CHECK(low.find_shared("buf")->align == 128);
  CHECK(only_error(low) == "lowered");
  ir::Kernel off = kernel(16, 4, &use, &decl);
  CHECK(only_error(off) == at(use) + ": TMA load at element 4 of 'buf' (byte 16) in CTA rank 0 (thread 0): a TMA box needs "
                               "128-byte aligned shared addresses | start it at an element whose byte offset is a multiple of 128");
  CHECK(only_error(kernel(128, 32, &use, &decl)) == "lowered");
}

TEST_CASE("bounds: a ring's index past its array in a loop whose bound is known at run time", "[codegen][verify][bounds]") {
  // full[it % ring] on three barriers: the fourth barrier does not exist once the loop runs four trips.
  auto ring = [](int32_t mod, unsigned& line, unsigned& loop) {
    KernelBuilder k("ring_index");
    k.threads(32);
    auto n = k.param<int32_t>("n");
    auto full = k.mbarriers("full", 3, 32);
    loop = __LINE__ + 1;
    for_(0, n, [&](i32 it) {
      line = __LINE__ + 1;
      arrive(full[it % mod]);
    });
    return k.build();
  };
  unsigned line = 0, loop = 0;
  const ir::Kernel bad = ring(4, line, loop);
  CHECK(only_error(bad) == at(line) + ": arrive of 'full' reaches element 3 in CTA rank 0 when the loop at " + at(loop) +
                               " (bound known at run time) runs 4 trips or more, outside the buffer: 'full' (declared at " +
                               at(loop - 2) + ") has 3 elements | keep the index within 0..2, or declare the buffer larger");
  // The same ring over its own size stays inside it; an index that grows with the trip is
  // not enumerated (it has no bound before run time).
  CHECK(only_error(ring(3, line, loop)) == "lowered");
}

TEST_CASE("bounds: an index kept in a local stepped once per trip of a loop", "[codegen][verify][bounds]") {
  // idx starts at the thread index and moves by `step` before (or after) each access; the
  // buffer holds 512 elements, so the fifth 128-element step leaves it.
  auto stepped = [](int32_t trips, int32_t step, bool access_first, unsigned& line, unsigned& decl) {
    KernelBuilder k("stepped_index");
    k.threads(128);
    auto out = k.param<uint32_t*>("out");
    decl = __LINE__ + 1;
    auto sh = k.shared<uint32_t>("sh", 512);
    auto idx = var(thread_idx_x(), "idx");
    for_(0, trips, [&](i32) {
      if (access_first) {
        line = __LINE__ + 1;
        sh[idx] = 1u;
        idx = idx + step;
      } else {
        idx = idx + step;
        line = __LINE__ + 1;
        sh[idx] = 1u;
      }
    });
    sync_threads();
    out[block_idx_x() * 128 + thread_idx_x()] = sh[thread_idx_x()];
    return k.build();
  };
  unsigned line = 0, decl = 0;
  const ir::Kernel bad = stepped(4, 128, false, line, decl);
  CHECK(only_error(bad) == at(line) + ": store of 'sh' reaches element 512 in CTA rank 0 (thread 0), outside the buffer: 'sh' "
                               "(declared at " + at(decl) + ") has 512 elements | keep the index within 0..511, or declare the buffer larger");
  // Accessing before the step reaches 384 + 127 at most; three steps after it, the same.
  CHECK(only_error(stepped(4, 128, true, line, decl)) == "lowered");
  CHECK(only_error(stepped(3, 128, false, line, decl)) == "lowered");
  // Stepping down below 0.
  CHECK(only_error(stepped(2, -128, false, line, decl)) == at(line) + ": store of 'sh' reaches element -128 in CTA rank 0 (thread 0), "
                                                              "outside the buffer: 'sh' (declared at " + at(decl) +
                                                              ") has 512 elements | keep the index within 0..511, or declare the buffer larger");
}

// The collectives check (codegen/passes/verify_collectives.h): operations a warp, a
// warpgroup or the CTA runs together, reached by part of it. Each with its exact text;
// and what it must accept or cannot decide.
#include <catch2/catch.hpp>

#include "tests/codegen/codegen_test_support.h"

#include "codegen/lower.h"
#include "dsl/dsl.h"

using namespace tj;
using namespace tj::dsl;
using tj::codegen::Target;
using namespace tj::test;

namespace {

std::string at(unsigned line) { return "test_verify_collectives.cpp:" + std::to_string(line); }

// The diagnostics of `k` for `t`, one per line as "<line>: <message> | <fix>"; "lowered" when none.
std::string errors(const ir::Kernel& k, const Target& t = Target::sm90a()) {
  std::vector<Diagnostic> d = lower_errors(k, t);
  if (d.empty()) return "lowered";
  std::string out;
  for (const Diagnostic& x : d) out += (out.empty() ? "" : "\n") + x.loc.str() + ": " + x.message + " | " + x.fix;
  return out;
}

const char* kWarpgroupFix =
    "call it where every thread of the warpgroup gets (e.g. under the role or a condition on the warpgroup index), and "
    "guard only what one thread does";

}  // namespace

TEST_CASE("collectives: a warpgroup's mma and a named barrier under a condition on the thread", "[codegen][verify][collectives]") {
  KernelBuilder k("one_thread");
  SharedTile a = k.shared_tile<bf16>("a", 64, 64), b = k.shared_tile<bf16>("b", 64, 64);
  Accumulator acc = k.accumulator("acc", 64, 64);
  unsigned cond = 0;
  k.role("main", 1, 0, [&](i32) {
    cond = __LINE__ + 1;
    if_(thread_idx_x() == 0, [&] {
      mma(acc, stage(a, 0), stage(b, 0), false);
      role_sync();
    });
    mma_wait(0);
  });
  CHECK(errors(k.build()) ==
        at(cond + 1) + ": mma runs in 1 of the 128 threads of warpgroup 0 (CTA rank 0), split by the condition at " + at(cond) +
            ": an MMA is issued by a whole warpgroup, every thread of it or none; on the GPU this hangs or is undefined | " +
            kWarpgroupFix + "\n" + at(cond + 2) + ": the named barrier runs in 1 of the 128 threads of role 'main' (CTA rank 0), "
            "split by the condition at " + at(cond) + ": role_sync and the turns are met by every warpgroup of the role, every "
            "thread of it or none; on the GPU this hangs or is undefined | call it where every warpgroup of the role gets: "
            "outside conditions on the thread or warpgroup index");
}

TEST_CASE("collectives: sync_threads under a condition on the thread, and shuffles in part of their mask", "[codegen][verify][collectives]") {
  {
    KernelBuilder k("half_sync");
    auto out = k.param<float*>("out");
    const unsigned cond = __LINE__ + 1;
    if_(thread_idx_x() < 64, [&] { sync_threads(); });
    out[thread_idx_x()] = 1.0f;
    CHECK(errors(k.build()) == at(cond) + ": sync_threads runs in 64 of the 128 threads of the CTA (CTA rank 0), split by the "
                                          "condition at " + at(cond) + ": every thread of the CTA must reach it, every thread "
                                          "of it or none; on the GPU this hangs or is undefined | call it where every thread "
                                          "of the CTA gets: outside conditions on the thread index");
  }
  {
    KernelBuilder k("half_warp_sum");
    auto out = k.param<float*>("out");
    const unsigned cond = __LINE__ + 1;
    if_(lane_id() < 16, [&] { out[thread_idx_x()] = warp_sum(f32(1.0f)); });
    CHECK(errors(k.build()) == at(cond) + ": warp_sum with mask 0xffffffff runs in 16 of its 32 lanes in warp 0 (CTA rank 0), "
                                          "split by the condition at " + at(cond) + ": every lane of the mask must execute it; "
                                          "on the GPU this hangs or is undefined | call it where every lane of the mask gets, or "
                                          "give it the mask of the lanes that do");
    // The same with the mask of the lanes that run it lowers.
    KernelBuilder ok("masked_warp_sum");
    auto out2 = ok.param<float*>("out");
    if_(lane_id() < 16, [&] { out2[thread_idx_x()] = warp_sum(f32(1.0f), u32(0xffffu)); });
    CHECK(errors(ok.build()) == "lowered");
  }
  {
    KernelBuilder k("partial_warp");
    k.threads(100);
    auto out = k.param<float*>("out");
    const unsigned use = __LINE__ + 1;
    if_(thread_idx_x() >= 0, [&] { out[thread_idx_x()] = warp_sum(f32(1.0f)); });
    CHECK(errors(k.build()) == at(use) + ": warp_sum with mask 0xffffffff in warp 3, which has 4 threads (a CTA of 100 "
                                         "threads): the mask names lanes that do not exist, and the shuffle waits for them | "
                                         "use a block of whole warps (a multiple of 32 threads), or a mask of the lanes the warp has");
  }
}

TEST_CASE("collectives: what is accepted, and what depends on data is not decided", "[codegen][verify][collectives]") {
  // Warpgroup-uniform conditions, the role's own, a parameter's: fine.
  KernelBuilder k("uniform");
  k.threads(256);
  auto n = k.param<int32_t>("n");
  auto out = k.param<float*>("out");
  SharedTile a = k.shared_tile<bf16>("a", 64, 64), b = k.shared_tile<bf16>("b", 64, 64);
  Accumulator acc = k.accumulator("acc", 64, 64);
  k.role("main", 2, 0, [&](i32 wg) {
    if_(wg == 0, [&] {
      mma(acc, stage(a, 0), stage(b, 0), false);
      mma_wait(0);
    });
    role_sync();
  });
  if_(n > 3, [&] { sync_threads(); });
  if_(thread_idx_x() < 64, [&] { out[thread_idx_x()] = warp_max(f32(2.0f)); });
  CHECK(errors(k.build()) == "lowered");
  // tcgen05 (sm_100a) issues an MMA from one thread.
  KernelBuilder t("one_issuer");
  SharedTile ta = t.shared_tile<bf16>("a", 128, 64), tb = t.shared_tile<bf16>("b", 128, 64);
  Accumulator tacc = t.accumulator("acc", 128, 128);
  auto done = t.mbarriers("done", 1, 1);
  t.role("main", 1, 0, [&](i32) {
    if_(thread_idx_x() == 0, [&] {
      mma(tacc, stage(ta, 0), stage(tb, 0), false);
      mma_commit(done[0], CtaGroup::One);
    });
    wait(done[0]);
  });
  const std::string got = errors(t.build(), Target::sm100a());
  CHECK(got.find("runs in 1 of the 128 threads") == std::string::npos);
}

TEST_CASE("fragments in registers belong to one role", "[codegen][verify][fragments]") {
  const std::string tail = ": it lives in registers, each role's warpgroups hold their own copy, so this one never sees what "
                           "the other wrote | use it within one role, or hand its values over through shared memory "
                           "(store_accumulator or store_rows, then a barrier both roles pass)";
  {
    KernelBuilder k("cross_role");
    k.threads(256);
    auto out = k.param<float*>("out");
    RowFragment m = k.row_fragment("m", 64);
    const unsigned fill_line = __LINE__ + 1;
    k.role("a", 1, 0, [&](i32) { fill(m, f32(3.0f)); });
    const unsigned store_line = __LINE__ + 1;
    k.role("b", 1, 0, [&](i32) { store_rows(m, out, [&](const Elem& e) { return cast<int64_t>(e.row); }); });
    CHECK(errors(k.build()) == at(store_line) + ": row fragment 'm' is used here by role 'b', but role 'a' used it at " +
                                   at(fill_line) + tail);
  }
  {
    // An accumulator of one role read by another's row reduction.
    KernelBuilder k("cross_acc");
    k.threads(256);
    SharedTile a = k.shared_tile<bf16>("a", 64, 64), b = k.shared_tile<bf16>("b", 64, 64);
    Accumulator s = k.accumulator("s", 64, 64);
    RowFragment m = k.row_fragment("m", 64);
    const unsigned mma_line = __LINE__ + 2;
    k.role("mma", 1, 0, [&](i32) {
      mma(s, stage(a, 0), stage(b, 0), false);
      mma_wait(0);
    });
    const unsigned read_line = __LINE__ + 1;
    k.role("reader", 1, 0, [&](i32) { row_max(m, s); });
    const std::string got = errors(k.build());
    CHECK(got.find(at(read_line) + ": accumulator 's' is used here by role 'reader', but role 'mma' used it at " + at(mma_line) +
                   tail) != std::string::npos);
  }
}

TEST_CASE("collectives: turns taken by one warpgroup of the role", "[codegen][verify][collectives]") {
  KernelBuilder k("one_turn");
  k.threads(256);
  auto out = k.param<float*>("out");
  unsigned cond = 0;
  k.role("math", 2, 0, [&](i32 wg) {
    Turns t = k.turns();
    cond = __LINE__ + 1;
    if_(wg == 1, [&] {
      wait_turn(t);
      out[thread_idx_x()] = 1.0f;
      pass_turn(t);
    });
  });
  const std::string got = errors(k.build());
  INFO(got);
  CHECK(got.rfind(at(cond + 1) + ": the named barrier runs in 128 of the 256 threads of role 'math' (CTA rank 0), split by the "
                  "condition at " + at(cond) + ": role_sync and the turns are met by every warpgroup of the role", 0) == 0);
}

TEST_CASE("turns are waited for then passed on in order", "[codegen][verify][collectives]") {
  auto refusal = [](int variant, unsigned* line) -> std::string {
    try {
      KernelBuilder k("turn_order");
      k.threads(256);
      auto out = k.param<float*>("out");
      k.role("math", 2, 0, [&](i32) {
        Turns t = k.turns();
        if (variant == 0) {  // pass without wait
          *line = __LINE__ + 1;
          pass_turn(t);
        } else if (variant == 1) {  // wait twice
          wait_turn(t);
          *line = __LINE__ + 1;
          wait_turn(t);
          pass_turn(t);
        } else if (variant == 2) {  // never passed on
          *line = __LINE__ + 1;
          wait_turn(t);
          out[thread_idx_x()] = 1.0f;
        } else {  // in order, in a loop
          for_(0, 4, [&](i32 i) {
            wait_turn(t);
            out[thread_idx_x() + i * 256] = 1.0f;
            pass_turn(t);
          });
        }
      });
      k.build();
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  };
  unsigned line = 0;
  std::string got = refusal(0, &line);
  CHECK(got == at(line) + ": error: pass_turn without a wait_turn before it: a warpgroup passes only the turn it took, or the "
                          "turns order nothing\n  fix: wait for the turn (wait_turn) before the work it orders, then pass it");
  got = refusal(1, &line);
  CHECK(got == at(line) + ": error: wait_turn while the turn taken at " + at(line - 2) + " is not passed on: the next warpgroup "
                          "still waits for it, and this one waits for a turn that comes only after it\n  fix: pass the turn "
                          "(pass_turn) after the work it orders, before waiting for the next one");
  got = refusal(2, &line);
  CHECK(got == at(line) + ": error: the turn taken here (wait_turn) is never passed on: the next warpgroup waits for it "
                          "forever\n  fix: pass it (pass_turn) after the work it orders");
  CHECK(refusal(3, &line) == "no error");
}

TEST_CASE("collectives: shfl_xor's partner lanes lie in its mask", "[codegen][verify][collectives]") {
  KernelBuilder k("xor_partner");
  auto out = k.param<float*>("out");
  const unsigned use = __LINE__ + 1;
  out[thread_idx_x()] = shfl_xor(f32(1.0f), 16, u32(0x0000ffffu));
  CHECK(errors(k.build()) == at(use) + ": shfl_xor with lane mask 16 and mask 0x0000ffff: lane 0 reads lane 16, which is not in "
                                       "the mask, so what it reads is undefined | give a mask that holds every lane's partner, or "
                                       "a lane mask that stays inside it");
  KernelBuilder ok("xor_inside");
  auto out2 = ok.param<float*>("out");
  out2[thread_idx_x()] = shfl_xor(f32(1.0f), 8, u32(0x0000ffffu));
  CHECK(errors(ok.build()) == "lowered");
}

TEST_CASE("collectives: a loop whose trip count differs between the threads of the group", "[codegen][verify][collectives]") {
  KernelBuilder k("uneven_loops");
  k.threads(128);
  auto out = k.param<float*>("out");
  auto v = var(f32(1.0f), "v");
  const unsigned lanes = __LINE__ + 1;
  for_(0, thread_idx_x() % 4, [&](i32) { v = warp_sum(f32(v)); });
  const unsigned halves = __LINE__ + 1;
  for_(0, thread_idx_x() / 64 + 1, [&](i32) { sync_threads(); });
  // Bounds from the warp index are the same in every lane: fine.
  for_(0, thread_idx_x() / 32, [&](i32) { v = warp_max(f32(v)); });
  out[thread_idx_x()] = v;
  CHECK(errors(k.build()) ==
        at(lanes) + ": warp_sum with mask 0xffffffff runs a different number of times in the lanes of warp 0 (CTA rank 0): "
                    "the loop at " + at(lanes) + " runs 0 iterations in thread 0 and 1 in thread 1; every lane of the mask must "
                    "execute it each time; on the GPU this hangs or is undefined | give the loop the same bounds in every lane of "
                    "the mask (from the warp index, not the lane's)\n" +
            at(halves) + ": sync_threads runs a different number of times in the threads of the CTA (CTA rank 0): the loop at " +
            at(halves) + " runs 1 iterations in thread 0 and 2 in thread 64; every thread of the CTA must reach it, every "
                         "thread of it or none; on the GPU this hangs or is undefined | give the loop the same bounds in every "
                         "thread of the CTA (from the warp or warpgroup index, not the thread's), and guard only what one thread does");
}

TEST_CASE("collectives: a warpgroup barrier met by two warpgroups, and an index outside the role", "[codegen][verify][collectives]") {
  KernelBuilder k("shared_index");
  k.threads(256);
  unsigned line = 0;
  k.role("math", 2, 0, [&](i32) {
    line = __LINE__ + 1;
    warpgroup_sync(i32(0));
  });
  CHECK(errors(k.build()) ==
        at(line) + ": the named barrier 8 here is met by 256 threads (warpgroups 0 and 1), but it counts 128: any 4 warps "
                   "release it, not the ones meant to meet | give each warpgroup its own barrier: warpgroup_sync(wg) with the "
                   "role's warpgroup index (role_sync() for the whole role)");
  KernelBuilder fine("own_index");
  fine.threads(256);
  fine.role("math", 2, 0, [&](i32 wg) { warpgroup_sync(wg); });
  CHECK(errors(fine.build()) == "lowered");
  KernelBuilder out("outside");
  out.threads(256);
  try {
    out.role("math", 2, 0, [&](i32) { warpgroup_sync(i32(5)); });
    FAIL("warpgroup_sync(5) in a role of 2 warpgroups was accepted");
  } catch (const UserError& e) {
    CHECK(e.diagnostics()[0].message == "warpgroup_sync(5) in role 'math' of 2 warpgroups");
    CHECK(e.diagnostics()[0].fix == "pass the warpgroup's index in the role, 0 to 1 (the role body's argument)");
  }
}

TEST_CASE("collectives: a tcgen05 mma issued by every thread, and a commit from a thread that issued none", "[codegen][verify][collectives]") {
  auto build = [](bool all_issue, unsigned committer, unsigned& mma_line, unsigned& commit_line) {
    KernelBuilder t("issuers");
    SharedTile ta = t.shared_tile<bf16>("a", 128, 64), tb = t.shared_tile<bf16>("b", 128, 64);
    Accumulator tacc = t.accumulator("acc", 128, 128);
    auto done = t.mbarriers("done", 1, 1);
    t.role("main", 1, 0, [&](i32) {
      if (all_issue) {
        mma_line = __LINE__ + 1;
        mma(tacc, stage(ta, 0), stage(tb, 0), false);
      } else {
        mma_line = __LINE__ + 1;
        if_(thread_idx_x() == 0, [&] { mma(tacc, stage(ta, 0), stage(tb, 0), false); });
      }
      commit_line = __LINE__ + 1;
      if_(thread_idx_x() == committer, [&] { mma_commit(done[0], CtaGroup::One); });
      wait(done[0]);
    });
    return t.build();
  };
  unsigned mma_line = 0, commit_line = 0;
  std::string got = errors(build(true, 0, mma_line, commit_line), Target::sm100a());
  CHECK(got == at(mma_line) + ": mma runs in 128 threads of CTA rank 0: a tcgen05 MMA is issued by one thread for the whole CTA, "
                              "so each of them issues the whole MMA again into the accumulator | issue it from one thread: "
                              "if_(thread_idx_x() == 0, ...) around the mma and its mma_commit");
  got = errors(build(false, 32, mma_line, commit_line), Target::sm100a());
  CHECK(got == at(commit_line) + ": mma_commit runs in thread 32, which issues no MMA (the mma at " + at(mma_line) +
                                 " is issued by thread 0): a commit tracks the MMAs of its own thread, so it arrives at once, "
                                 "before they complete | call mma_commit in the thread that issues the MMAs");
  CHECK(errors(build(false, 0, mma_line, commit_line), Target::sm100a()) == "lowered");
}

TEST_CASE("collectives: conditions and trip counts read from memory at an index that differs between the threads",
          "[codegen][verify][collectives]") {
  const char* kDataFix = "decide it from values that are the same in every lane of the mask (read at one index for all of them, "
                         "or reduced over the warp into a local before the condition: var(warp_max(x))), and guard only what each "
                         "lane does alone";
  {  // A warp reduction under a condition on each lane's own element.
    KernelBuilder k("warp_max_data");
    auto x = k.param<float*>("x");
    auto out = k.param<float*>("out");
    const unsigned line = __LINE__ + 1;
    f32 v = x[block_idx_x() * 128 + thread_idx_x()];
    if_(v > 0.0f, [&] { out[thread_idx_x()] = warp_max(v); });
    CHECK(errors(k.build()) ==
          at(line + 1) + ": warp_max with mask 0xffffffff may run in only some of its lanes in warp 0 (CTA rank 0), or a "
                         "different number of times: the condition at " + at(line + 1) + " reads data that differs between them "
                         "(x[...] is read at index 0 in thread 0 and at index 1 in thread 1, " + at(line) + "); every lane of the "
                         "mask must execute it each time; on the GPU this hangs or is undefined | " + kDataFix);
    // A value is an expression: `f32 m = warp_max(w)` is reduced where it is used, here
    // under the condition. Into a local before the if_, every lane reduces: lowers.
    auto every_lane = [](bool local) {
      KernelBuilder ok("warp_max_every_lane");
      auto x2 = ok.param<float*>("x");
      auto out2 = ok.param<float*>("out");
      f32 w = x2[block_idx_x() * 128 + thread_idx_x()];
      f32 m = local ? f32(var(warp_max(w), "m")) : warp_max(w);
      if_(w > 0.0f, [&] { out2[thread_idx_x()] = m; });
      return errors(ok.build());
    };
    CHECK(every_lane(true) == "lowered");
    CHECK(every_lane(false).find("warp_max with mask 0xffffffff may run in only some of its lanes") != std::string::npos);
  }
  {  // A shuffle in a loop to each lane's own length; the fix loops to the warp's longest.
    KernelBuilder k("shfl_per_lane_loop");
    auto len = k.param<int32_t*>("len");
    auto out = k.param<float*>("out");
    auto acc = var(f32(0.0f), "acc");
    const unsigned line = __LINE__ + 1;
    for_(0, len[thread_idx_x()], [&](i32 j) { acc = acc + shfl_down(acc + cast<float>(j), i32(1)); });
    out[thread_idx_x()] = acc;
    CHECK(errors(k.build()) ==
          at(line) + ": shfl_down with mask 0xffffffff may run in only some of its lanes in warp 0 (CTA rank 0), or a different "
                     "number of times: the loop at " + at(line) + " takes its trip count from data that differs between them "
                     "(len[...] is read at index 0 in thread 0 and at index 1 in thread 1, " + at(line) + "); every lane of the "
                     "mask must execute it each time; on the GPU this hangs or is undefined | " + kDataFix);
    KernelBuilder ok("shfl_warp_longest");
    auto len2 = ok.param<int32_t*>("len");
    auto out2 = ok.param<float*>("out");
    auto acc2 = var(f32(0.0f), "acc");
    i32 mine = len2[thread_idx_x()];
    for_(0, warp_max(mine), [&](i32 j) {
      acc2 = acc2 + shfl_down(acc2 + select(j < mine, cast<float>(j), f32(0.0f)), i32(1));
    });
    out2[thread_idx_x()] = acc2;
    CHECK(errors(ok.build()) == "lowered");
  }
  {  // role_sync under a flag read per warpgroup, and turns counted per warpgroup.
    KernelBuilder k("role_data");
    k.threads(256);
    auto flag = k.param<uint32_t*>("flag");
    auto len = k.param<int32_t*>("len");
    auto out = k.param<uint32_t*>("out");
    unsigned sync_line = 0, turn_line = 0;
    k.role("work", 2, 0, [&](i32 wg) {
      sync_line = __LINE__ + 1;
      if_(flag[block_idx_x() * 2 + wg] != 0u, [&] { role_sync(); });
      Turns t = k.turns();
      turn_line = __LINE__ + 1;
      for_(0, len[wg], [&](i32 it) {
        wait_turn(t);
        out[wg * 64 + it] = 1u;
        pass_turn(t);
      });
    });
    const std::string got = errors(k.build());
    CHECK(got.rfind(at(sync_line) + ": the named barrier may run in only some of the 256 threads of role 'work' (CTA rank 0), or a "
                                    "different number of times: the condition at " + at(sync_line) + " reads data that differs "
                                    "between them (flag[...] is read at index 0 in thread 0 and at index 1 in thread 128, " +
                        at(sync_line) + "); role_sync and the turns are met by every warpgroup of the role, every thread of it "
                                        "or none; on the GPU this hangs or is undefined | decide it from values that are the "
                                        "same in every thread of the role (read at one index for all of them, or combined "
                                        "into a local before the condition), and guard only what each thread does alone",
                    0) == 0);
    CHECK(got.find(at(turn_line + 1) + ": the named barrier may run in only some of the 256 threads of role 'work' (CTA rank 0), "
                                       "or a different number of times: the loop at " + at(turn_line) + " takes its trip count "
                                       "from data that differs between them (len[...] is read at index 0 in thread 0 and at "
                                       "index 1 in thread 128") != std::string::npos);
    // Both warpgroups take the same count of turns, and a flag read at one index: lowers.
    KernelBuilder ok("role_uniform");
    ok.threads(256);
    auto flag2 = ok.param<uint32_t*>("flag");
    auto len2 = ok.param<int32_t*>("len");
    auto out2 = ok.param<uint32_t*>("out");
    ok.role("work", 2, 0, [&](i32 wg) {
      if_(flag2[block_idx_x()] != 0u, [&] { role_sync(); });
      Turns t = ok.turns();
      for_(0, max(len2[0], len2[1]), [&](i32 it) {
        wait_turn(t);
        if_(it < len2[wg], [&] { out2[wg * 64 + it] = 1u; });
        pass_turn(t);
      });
    });
    CHECK(errors(ok.build()) == "lowered");
  }
  {  // A warp's own element decides nothing for the warp when read at the warp's index.
    KernelBuilder k("warp_flag");
    auto flag = k.param<uint32_t*>("flag");
    auto out = k.param<float*>("out");
    if_(flag[thread_idx_x() / 32] != 0u, [&] { out[thread_idx_x()] = warp_sum(f32(1.0f)); });
    CHECK(errors(k.build()) == "lowered");
  }
}

TEST_CASE("collectives: two warpgroups storing their accumulators into the same rows at once", "[codegen][verify][collectives]") {
  // rows: the store's destination rows per warpgroup (-1: the stage's first rows for both);
  // turns: the stores inside wait_turn ... pass_turn.
  auto build = [](int rows, bool turns, unsigned& line) {
    KernelBuilder k("two_wg_store");
    k.threads(256);
    SharedTile a = k.shared_tile<bf16>("a", 128, 64), b = k.shared_tile<bf16>("b", 128, 64);
    SharedTile d = k.shared_tile<float>("d", 128, 128);
    Accumulator acc = k.accumulator("acc", 64, 128);
    k.role("math", 2, 0, [&](i32 wg) {
      Turns t = k.turns();
      mma(acc, stage(a, 0).rows(wg * 64), stage(b, 0), false);
      mma_wait(0);
      if (turns) wait_turn(t);
      line = __LINE__ + 1;
      store_accumulator(rows < 0 ? stage(d, 0) : stage(d, 0).rows(wg * rows), acc, f32(1.0f));
      if (turns) pass_turn(t);
    });
    return k.build();
  };
  unsigned line = 0;
  std::string got = errors(build(-1, false, line));
  CHECK(got == at(line) + ": store_accumulator runs in warpgroups 0 and 1 of role 'math' at once (CTA rank 0), both into rows 0 to "
                          "63 of stage 0 of 'd': each overwrites the other's elements | give each warpgroup its own rows "
                          "(stage(d, s).rows(wg * 64)) or its own stage, or store in turns (wait_turn ... pass_turn)");
  got = errors(build(32, false, line));
  CHECK(got.find("both into rows 32 to 63 of stage 0 of 'd'") != std::string::npos);
  CHECK(errors(build(64, false, line)) == "lowered");
  CHECK(errors(build(-1, true, line)) == "lowered");
}

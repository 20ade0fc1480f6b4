// A kernel of turns (k.turns, wait_turn, pass_turn), shared by the CPU tests (what is
// emitted) and the GPU test (the order the warpgroups really took).
#pragma once

#include "dsl/dsl.h"

namespace tj::test {

// One CTA of `warpgroups` warpgroups in one role, `rounds` turns each: in its turn, a
// warpgroup's thread 0 claims the next slot of `log` from `counter` (a global atomic)
// and writes its warpgroup index there. Taken in order, log is 0, 1, .., n - 1, 0, 1, ...
inline ir::Kernel turn_log_kernel(unsigned warpgroups, int32_t rounds) {
  using namespace tj::dsl;
  KernelBuilder k("turn_log");
  k.threads(128 * warpgroups);
  Ptr<uint32_t> counter = k.param<uint32_t*>("counter");
  Ptr<int32_t> log = k.param<int32_t*>("log");
  k.role("workers", warpgroups, 0, [&](i32 wg) {
    Turns turn = k.turns();
    for_(0, rounds, [&](i32) {
      wait_turn(turn);
      if_(thread_idx_x() % 128 == 0, [&] {
        u32 slot = atomic_fetch_add(counter[0], u32(1u), ir::MemoryOrder::Relaxed, ir::MemoryScope::Gpu);
        log[cast<int32_t>(slot)] = wg;
      });
      pass_turn(turn);
    });
  });
  return k.build();
}

}  // namespace tj::test

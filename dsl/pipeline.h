// A multi-stage producer/consumer pipeline: `stages` slots, each with a full
// barrier (the producer's copies complete on it) and an empty barrier (the
// consumers release the slot on it). Iteration `it` uses slot it % stages; the
// phases are tracked by the barriers' waits, so user code never sees parity.
//
//   Pipeline p(k, "pipe", 4, /*consumer_arrivals=*/1);
//   producer: p.acquire(it); arrive_expect_tx(p.full(it), bytes); tma_load(..., p.full(it));
//   consumer: p.wait_full(it); ...use slot p.slot(it)...; p.release(it);
#pragma once

#include <string>

#include "dsl/async.h"

namespace tj::dsl {

class Pipeline {
 public:
  // `consumer_arrivals`: how many arrivals release a slot (consumer threads that call release).
  Pipeline(KernelBuilder& k, const std::string& name, unsigned stages, unsigned consumer_arrivals,
           SrcLoc loc = SrcLoc::current());

  unsigned stages() const { return stages_; }
  // The slot iteration `it` uses.
  i32 slot(const i32& it) const { return it % int32_t(stages_); }
  // The full barrier of iteration `it`'s slot: announce bytes and complete copies on it.
  BarrierRef full(const i32& it) const { return full_[slot(it)]; }
  BarrierRef empty(const i32& it) const { return empty_[slot(it)]; }

  // Producer: wait until iteration `it`'s slot has been released by the consumers
  // of iteration it - stages (the first `stages` iterations find it free).
  void acquire(const i32& it, SrcLoc loc = SrcLoc::current()) const;
  // Consumer: wait until iteration `it`'s copies have landed.
  void wait_full(const i32& it, SrcLoc loc = SrcLoc::current()) const;
  // Consumer: give iteration `it`'s slot back to the producer.
  void release(const i32& it, SrcLoc loc = SrcLoc::current()) const;

 private:
  unsigned stages_;
  Ptr<mbarrier_t> full_, empty_;
};

}  // namespace tj::dsl

// Clocks on DSL values: the GPU's nanosecond timer and the SM a thread runs on, for
// kernels that measure themselves (a schedule's timeline, a busy-wait of a set length).
// Each call reads the register anew, in program order.
#pragma once

#include <source_location>

#include "dsl/values.h"

namespace tj::dsl {

// %globaltimer: nanoseconds of a GPU-wide timer (u64), the same clock on every SM.
u64 global_timer(std::source_location loc = std::source_location::current());
// %smid: the SM this thread runs on (u32, below the device's SM count).
u32 sm_id(std::source_location loc = std::source_location::current());

}  // namespace tj::dsl

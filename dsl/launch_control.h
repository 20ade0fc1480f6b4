// Cluster launch control (sm_100a only), the primitive under for_each_tile(dynamic(...))
// on Blackwell: one thread asks the hardware to cancel the launch of a cluster that has
// not started and takes its work. The answer (16 bytes) lands in a u32 shared buffer
// and completes 16 transaction bytes on a barrier, like a TMA load:
//
//   if_(thread_idx_x() == 0, [&] {
//     arrive_expect_tx(full[0], u32(16u));
//     clc_try_cancel(answer[0], full[0]);
//   });
//   wait(full[0]);
//   u32x4 r = pack_u32x4(answer[0], answer[1], answer[2], answer[3]);
//   if_(clc_is_canceled(r), [&] { next = clc_first_ctaid_x(r) / cluster_dim_x(); });
//
// On sm_90a these are refused; for_each_tile(dynamic(...)) claims from a counter there.
#pragma once

#include "dsl/async.h"

namespace tj::dsl {

// Asks to cancel a pending cluster of this grid; the answer goes to response[i .. i+3]
// (i a multiple of 4), completing 16 bytes on `bar`. multicast (clusters of more than
// one CTA): the answer lands in every CTA of the cluster, each on its own barrier at the
// same offset. Never issue another after an answer that says "not canceled".
void clc_try_cancel(const Ref<uint32_t>& response, const BarrierRef& bar, bool multicast = false,
                    SrcLoc loc = SrcLoc::current());
// Whether the answer claimed a cluster.
boolean clc_is_canceled(const u32x4& answer, SrcLoc loc = SrcLoc::current());
// %ctaid.x of the claimed cluster's first CTA: meaningful only when clc_is_canceled.
i32 clc_first_ctaid_x(const u32x4& answer, SrcLoc loc = SrcLoc::current());

}  // namespace tj::dsl

// The sm_100a MMA family: tcgen05.mma with shared-memory descriptors derived from the
// tiles' layouts, accumulators in tensor memory, issued by the thread that calls mma
// (one thread: the tensor core runs the whole tile), completed through mma_commit to an
// mbarrier, and an epilogue in which each thread of a warpgroup reads one accumulator
// row (a tensor-memory lane) with tcgen05.ld and writes it into a 128-byte-swizzled tile.
// Compile-verified only: no Blackwell GPU has run this code.
//
// Tensor memory for the accumulators is the family's: insert_tensor_memory allocates
// one block for all of them at kernel entry (warp 0, into the shared slot tj_tmem) and
// frees it at exit; accumulator i takes columns [offset, offset + n) of that block.
#pragma once

#include <map>
#include <string>

#include "codegen/mma/family.h"

namespace tj::codegen::mma {

const Family& tcgen05_family();

// The shared u32 slot that receives the accumulators' tensor-memory address.
inline constexpr const char* kTmemSlot = "tj_tmem";

struct TmemPlan {
  std::map<std::string, unsigned> column;  // each tile accumulator's first column
  unsigned used = 0;                       // columns the accumulators take together
  unsigned columns = 0;                    // the allocation: a power of two >= max(used, 32); 0 without accumulators
  unsigned cta_group = 1;                  // 2 when the kernel issues pair MMAs (mma_pair)
};
// The accumulators' place in tensor memory, in declaration order. columns is 0 when
// used passes 512 (verify_tensor_memory reports it).
TmemPlan tmem_plan(const ir::Kernel& k);

}  // namespace tj::codegen::mma

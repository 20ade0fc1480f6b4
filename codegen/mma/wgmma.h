// The sm_90a MMA family: wgmma.mma_async with shared-memory descriptors derived from
// the tiles' layouts (A from registers through ldmatrix where that saves shared-memory
// reads), accumulators in registers (m x n / 128 f32 per thread of a warpgroup),
// completion by wgmma.commit_group / wait_group, and an epilogue that writes the
// register fragments into a shared tile of any TMA swizzle (128, 64 or 32 bytes, or none).
#pragma once

#include "codegen/mma/family.h"

namespace tj::codegen::mma {

const Family& wgmma_family();

}  // namespace tj::codegen::mma

// What the TMA samples share: the tensor and box a config describes, tile
// coordinates in the DSL, the host tensor, its tensor-map description, and the
// box image a TMA load leaves in shared memory.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda.h>

#include "dsl/values.h"
#include "generators/sample.h"
#include "runtime/tensor_map.h"

namespace tj::samples {

struct TmaShape {
  unsigned elem_bytes = 2;
  unsigned rank = 2;
  std::vector<uint64_t> dims;  // innermost first
  std::vector<unsigned> box;   // innermost first
  ir::Swizzle swizzle = ir::Swizzle::None;

  uint64_t box_bytes() const;
  uint64_t tensor_bytes() const;
  uint64_t tiles() const;  // boxes needed to cover the tensor
};

// Reads elem_bytes, rank, cols/rows/depth, box_*, swizzle from the config
// (those a sample does not take default to 1 / none).
TmaShape tma_shape(const Config& c);
std::vector<ConfigProblem> check_tma_shape(const Config& c);

// The coordinates (innermost first) of box number `tile` (wrapping around the tensor).
std::vector<dsl::i32> tile_coords(const TmaShape& s, const dsl::i32& tile);

// A tensor of pseudo-random bytes.
std::vector<uint8_t> make_tensor_bytes(const TmaShape& s, uint64_t seed);
rt::TensorMapDesc tensor_desc(const TmaShape& s, CUdeviceptr address);
// The bytes box `tile` leaves in shared memory: swizzled, zeros past the edges.
std::vector<uint8_t> expected_box_image(const TmaShape& s, const std::vector<uint8_t>& tensor, uint64_t tile);

}  // namespace tj::samples

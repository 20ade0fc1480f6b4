// ---- phase bits ----------------------------------------------------------------
// Plain C++, no PTX: the host tests include this file too (inside namespace tj).
#ifdef __CUDACC__
#define TJ_PHASE_FN __host__ __device__ __forceinline__
#else
#define TJ_PHASE_FN inline
#endif

// The phase bits that flip when `count` consecutive barriers of a ring of n (1 to 32),
// from barrier first % n on and wrapping, complete one phase each: every barrier
// count / n times, and the count % n from first one time more (skip_phases).
TJ_PHASE_FN u32 skipped_phase_bits(u32 first, u32 count, u32 n) {
  const u64 all = (1ull << n) - 1ull, window = (1ull << (count % n)) - 1ull;
  const u32 at = first % n;
  // 64-bit: a ring of 32 shifts by at most 32.
  u64 flip = ((window << at) | (window >> (n - at))) & all;
  if ((count / n) & 1u) flip ^= all;
  return u32(flip);
}

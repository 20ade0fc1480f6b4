// The softmax sample on the GPU against softmax in double (the instance's check: every
// element of every row within the bound of samples/softmax.h, and the bytes past y's end
// untouched): column counts that do and do not fill the vectors and the row's threads
// (1000, 4097, 33, 1), row counts that do not fill the last CTA (7), one and several
// warps per row, every vector width of f32 and bf16, 128 to 1024 threads.
#include "tests/gpu/gpu_fixture.h"

#include "samples/builtin.h"

namespace {

struct SoftmaxCase {
  int64_t rows, cols;
  const char* dtype;
  unsigned threads = 128;
  int64_t warps_per_row = 0;  // 0: the sample's choice
};

void check(const SoftmaxCase& s, uint64_t seed) {
  DYNAMIC_SECTION(s.rows << " x " << s.cols << " " << s.dtype << ", " << s.threads << " threads, warps_per_row "
                          << s.warps_per_row) {
    const int64_t dtype = std::string(s.dtype) == "bf16" ? 1 : 0;
    auto r = tj::gpu_test::run("softmax", 1, 1, s.threads,
                               {{"rows", s.rows}, {"cols", s.cols}, {"dtype", dtype}, {"warps_per_row", s.warps_per_row}}, seed);
    REQUIRE(r.verified);
    INFO(r.check.detail);
    CHECK(r.check.ok);
  }
}

}  // namespace

TEST_CASE("softmax: ragged rows and columns, f32 and bf16, one or many warps per row [gpu]", "[gpu][softmax]") {
  const std::vector<SoftmaxCase> cases = {
      {7, 1000, "f32"},             // a warp a row, 4 rows a CTA: the last CTA has 3; 250 vectors over 32 lanes
      {7, 4097, "f32"},             // scalar accesses over 4 warps, 33 per thread, the last one ragged
      {7, 33, "f32"},               // one warp, 2 values a lane, 31 lanes past the end
      {1, 1, "f32"},                // y = 1
      {5, 1002, "f32"},             // 8-byte vectors
      {64, 4096, "f32"},            // the spec's kernel
      {9, 4096, "f32", 256, 2},     // 2 warps a row, 4 rows a CTA: rows past the last one in a CTA with barriers
      {3, 4096, "f32", 128, 1},     // 128 values a thread
      {100, 16384, "f32", 512},     // 16 warps a row
      {3, 32768, "f32", 1024},      // 32 warps a row
      {7, 4096, "bf16"},            // 8 per 16-byte vector
      {9, 1000, "bf16", 256},
      {5, 4100, "bf16"},            // 4 per vector, ragged
      {3, 78, "bf16"},              // 2 per vector
      {3, 77, "bf16"},              // scalar
      {5, 16384, "bf16", 1024},     // 16 warps a row, 32 values a thread
  };
  for (size_t i = 0; i < cases.size(); ++i) check(cases[i], 700 + i);
}

TEST_CASE("softmax: the spec's shape (8192 x 4096 f32) and the bench's [gpu]", "[gpu][softmax]") {
  check({8192, 4096, "f32"}, 800);
  check({16384, 1024, "f32"}, 801);
  check({4096, 16384, "f32", 512}, 802);
  check({8192, 4096, "bf16"}, 803);
}

// Random problems: rows and columns (1 to 65536 columns, ragged against every vector and
// warp), f32 or bf16, 128 to 1024 threads, the sample's warps per row. A problem the sample
// refuses (a row too long for the CTA's registers) is drawn again, and the count of those is
// printed. TILEJIT_FUZZ_CASES sets how many run (default 12), TILEJIT_FUZZ_SEED the first
// seed (default 1).
TEST_CASE("softmax: random problems against softmax in double [gpu]", "[gpu][softmax][fuzz]") {
  tj::gpu_test::FuzzDraws draws(12, 0x50f7);
  const uint64_t count = draws.count, seed = draws.seed;
  auto pick = [&](uint64_t n) { return draws.pick(n); };
  const tj::samples::Sample* s = tj::samples::find_sample("softmax");
  REQUIRE(s != nullptr);
  uint64_t refused = 0;
  for (uint64_t i = 0; i < count;) {
    const int64_t cols = pick(2) == 0 ? 1 + pick(4096) : 1 + pick(65536);
    SoftmaxCase c{1 + pick(cols > 4096 ? 300 : 3000), cols, pick(2) == 0 ? "f32" : "bf16", 128u << pick(4)};
    tj::samples::Config config = tj::samples::default_config(*s);
    config.threads = c.threads;
    config.params["rows"] = c.rows, config.params["cols"] = c.cols, config.params["dtype"] = std::string(c.dtype) == "bf16";
    if (!s->check_config(config).empty()) {
      ++refused;
      continue;
    }
    check(c, seed * 1000 + i++);
  }
  WARN(refused << " drawn problems refused by the sample (rows too long for their CTA) and drawn again");
}

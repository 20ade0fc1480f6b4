// tilejit_bench_gemm's options without a GPU: the shape list, the spec it builds for the
// GEMM sample (read back through the spec parser, with a stand-in sample), and the
// spread of timings.
#include <catch2/catch.hpp>

#include "bench/gemm_options.h"
#include "bench/interleaved_timing.h"
#include "cli/spec.h"
#include "tests/samples/fake_gemm_sample.h"

using namespace tj::bench;
using tj::samples::test::FakeGemm;

namespace {

const FakeGemm kGemm;

tj::samples::Config config_of(const MatmulSize& size, const std::string& layout, const std::string& config) {
  return tj::cli::parse_spec(gemm_spec(kGemm, size, layout, config), "bench", {&kGemm}).config;
}

}  // namespace

TEST_CASE("bench shapes: the default list and MxNxK,...", "[bench]") {
  std::vector<std::string> names;
  for (const MatmulSize& s : default_sizes()) names.push_back(s.str());
  CHECK(names == std::vector<std::string>{"4096x4096x4096", "6144x6144x6144", "8192x8192x8192", "4224x4224x4096",
                                          "8192x8192x1024", "1024x1024x8192", "2048x2048x2048"});
  const std::vector<MatmulSize> s = parse_sizes("128x256x64,1x2147483647x3");
  REQUIRE(s.size() == 2);
  CHECK((s[0].m == 128 && s[0].n == 256 && s[0].k == 64));
  CHECK((s[1].m == 1 && s[1].n == 2147483647 && s[1].k == 3));
  const std::string why = " is not MxNxK with M, N and K whole numbers from 1 to 2147483647";
  CHECK_THROWS_WITH(parse_sizes("4096x0x8"), "--shapes: '4096x0x8'" + why);
  CHECK_THROWS_WITH(parse_sizes("4096x4096"), "--shapes: '4096x4096'" + why);
  CHECK_THROWS_WITH(parse_sizes("1x2x3x4"), "--shapes: '1x2x3x4'" + why);
  CHECK_THROWS_WITH(parse_sizes("8x8x8,"), "--shapes: ''" + why);
  CHECK_THROWS_WITH(parse_sizes("8x-8x8"), "--shapes: '8x-8x8'" + why);
  CHECK_THROWS_WITH(parse_sizes("8x8x2147483648"), "--shapes: '8x8x2147483648'" + why);
  CHECK_THROWS_WITH(parse_sizes("8x8x99999999999999999999999"), "--shapes: '8x8x99999999999999999999999'" + why);
}

TEST_CASE("the bench's spec sets the size, the layout and --config", "[bench]") {
  const tj::samples::Config c = config_of({512, 256, 128}, "nn", "bm=192,alpha=0.5,beta=-1,cluster=2x1,threads=384");
  CHECK(c.param("m") == 512);
  CHECK(c.param("n") == 256);
  CHECK(c.param("k") == 128);
  CHECK(c.param("layout") == 1);
  CHECK(c.param("bm") == 192);
  CHECK(c.real("alpha") == 0.5);
  CHECK(c.real("beta") == -1.0);
  CHECK(c.cluster == tj::ir::Dim3{2, 1, 1});
  CHECK(c.grid_clusters == tj::ir::Dim3{1, 1, 1});
  CHECK(c.threads == 384);
  const tj::samples::Config d = config_of({64, 64, 64}, "tn", "");
  CHECK(d.param("layout") == 0);
  CHECK(d.param("bm") == 128);
  CHECK(d.real("alpha") == 1.0);
}

TEST_CASE("bad --config values are refused naming the flag or the spec path", "[bench]") {
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "bm"), "--config: 'bm' is not key=value");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "bm="), "--config: 'bm=' is not key=value");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "bm=128,bm=64"),
                    "--config: bm is given twice, or also set by --shapes/--layout");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "k=64"), "--config: k is given twice, or also set by --shapes/--layout");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "layout=nn"),
                    "--config: layout is given twice, or also set by --shapes/--layout");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "bm=\"1\""),
                    "--config: bm=\"1\": a value is a number or a name of letters, digits and _.+-");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "cluster=2x0"),
                    "--config: cluster=2x0 is not N, NxM or NxMxL with whole numbers from 1 to 1024");
  CHECK_THROWS_WITH(gemm_spec(kGemm, {8, 8, 8}, "tn", "cluster=1x1x1x1"),
                    "--config: cluster=1x1x1x1 is not N, NxM or NxMxL with whole numbers from 1 to 1024");
  // Values that are not JSON numbers travel as names, and the parser says what is wrong.
  CHECK_THROWS_WITH(config_of({8, 8, 8}, "tn", "bm=+64"), "bench: $.params.bm: expected an integer, got a string");
  CHECK_THROWS_WITH(config_of({8, 8, 8}, "tn", "alpha=fast"), "bench: $.params.alpha: expected a number, got a string");
  CHECK_THROWS_WITH(config_of({8, 8, 8}, "tn", "bm=96"), "bench: $.params.bm: must be a multiple of 64");
  CHECK_THROWS_WITH(config_of({8, 8, 8}, "tn", "gamma=1"),
                    "bench: $.params.gamma: unknown parameter of gemm; it takes: m, n, k, layout, bm, alpha, beta");
}

TEST_CASE("the bench seed takes every 64-bit value and nothing else", "[bench]") {
  CHECK(parse_seed("0") == 0);
  CHECK(parse_seed("18446744073709551615") == UINT64_MAX);
  const std::string why = " is not a whole number from 0 to 18446744073709551615";
  CHECK_THROWS_WITH(parse_seed("18446744073709551616"), "--seed: '18446744073709551616'" + why);
  CHECK_THROWS_WITH(parse_seed("-1"), "--seed: '-1'" + why);
  CHECK_THROWS_WITH(parse_seed("1e3"), "--seed: '1e3'" + why);
  CHECK_THROWS_WITH(parse_seed(""), "--seed: ''" + why);
}

TEST_CASE("a timing spread: min, median, max", "[bench]") {
  const Spread odd = spread({3, 1, 2});
  CHECK((odd.min == 1 && odd.median == 2 && odd.max == 3));
  const Spread even = spread({4, 1, 3, 2});
  CHECK((even.min == 1 && even.median == 2.5 && even.max == 4));
  const Spread one = spread({7});
  CHECK((one.min == 7 && one.median == 7 && one.max == 7));
}

TEST_CASE("the per-repetition ratio pairs each rep's two blocks: A's speed over B's", "[bench]") {
  Interleaved t;
  t.a_ms = {2.0, 4.0, 1.0};  // A slows down with the card, B too: the pairs keep the ratio
  t.b_ms = {3.0, 6.0, 0.5};
  const std::vector<double> r = t.paired_speedups();
  REQUIRE(r.size() == 3);
  CHECK(r[0] == 1.5);
  CHECK(r[1] == 1.5);
  CHECK(r[2] == 0.5);
  const Spread s = spread(r);
  CHECK((s.min == 0.5 && s.median == 1.5 && s.max == 1.5));
}

// Tensor-memory ops (tcgen05, sm_100a): what they lower to and the PTX NVRTC makes of
// them for sm_100a (compiled to a cubin here; nothing ran on a Blackwell GPU), and each
// refusal with its exact text: sm_90a, sizes that are not a power of two from 32 to 512,
// two CTA groups in one kernel, a pair group without pairs, more than 512 columns.
#include <catch2/catch.hpp>

#include "dsl/dsl.h"
#include "generators/runner.h"
#include "runtime/compiler.h"
#include "tests/codegen/codegen_test_support.h"

using namespace tj;
using namespace tj::dsl;
using codegen::Target;

namespace {

// The lines of tmem_kernel's first alloc and its dealloc, as diagnostics name them.
unsigned alloc_line = 0, dealloc_line = 0;
std::string at(unsigned line) { return "test_tensor_memory.cpp:" + std::to_string(line); }

// One warp allocates `columns` (twice where `second` is set), relinquishes, every
// thread reads the address after a CTA barrier and stores it, and the warp frees it.
ir::Kernel tmem_kernel(CtaGroup group, unsigned cluster, unsigned columns, CtaGroup dealloc_group, unsigned second = 0) {
  KernelBuilder k("tmem");
  k.threads(128);
  if (cluster > 1) k.cluster(cluster);
  auto slot = k.shared<uint32_t>("tmem_addr", 2);
  auto out = k.param<uint32_t*>("out");
  if_(thread_idx_x() / 32 == 0, [&] {
    alloc_line = __LINE__; tmem_alloc(slot[0], columns, group);
    if (second) tmem_alloc(slot[1], second, group);
    tmem_relinquish(group);
  });
  sync_threads();
  out[thread_idx_x()] = slot[0];
  sync_threads();
  if_(thread_idx_x() / 32 == 0, [&] {
    dealloc_line = __LINE__; tmem_dealloc(slot[0], columns, dealloc_group);
  });
  return k.build();
}

std::string one_error(const ir::Kernel& k, const Target& t) {
  std::vector<Diagnostic> d = test::lower_errors(k, t);
  for (const Diagnostic& e : d) UNSCOPED_INFO(e.str());
  REQUIRE(d.size() == 1);
  return d[0].str();
}

}  // namespace

TEST_CASE("tensor memory on sm_100a: the tcgen05 alloc, relinquish and dealloc in the PTX of a cubin (one CTA, a CTA pair)",
          "[codegen][tcgen05][sm100a][nvrtc]") {
  for (unsigned group : {1u, 2u}) {
    CAPTURE(group);
    const CtaGroup g = CtaGroup(group);
    codegen::Lowered l = codegen::lower(tmem_kernel(g, group, 256, g), Target::sm100a());
    const std::string n = std::to_string(group);
    CHECK(test::contains(l.cuda, "tj::tmem_alloc<" + n + ">(&tmem_addr[0], 256u);"));
    CHECK(test::contains(l.cuda, "tj::tmem_relinquish<" + n + ">();"));
    CHECK(test::contains(l.cuda, "tj::tmem_dealloc<" + n + ">(tmem_addr[0], 256u);"));
    rt::CompileResult r = rt::compile(samples::compile_request(l, Target::sm100a()), nullptr);
    INFO(r.log);
    REQUIRE_FALSE(r.cubin.empty());
    CHECK(test::count(r.ptx, "tcgen05.alloc.cta_group::" + n + ".sync.aligned.shared::cta.b32") == 1);
    CHECK(test::count(r.ptx, "tcgen05.relinquish_alloc_permit.cta_group::" + n + ".sync.aligned") == 1);
    CHECK(test::count(r.ptx, "tcgen05.dealloc.cta_group::" + n + ".sync.aligned.b32") == 1);
  }
}

TEST_CASE("tensor memory on sm_90a: refused, naming register accumulators and wgmma", "[codegen][tcgen05]") {
  const ir::Kernel k = tmem_kernel(CtaGroup::One, 1, 128, CtaGroup::One);
  std::vector<Diagnostic> d = test::lower_errors(k, Target::sm90a());
  REQUIRE(d.size() == 3);
  const std::string alloc = at(alloc_line);
  CHECK(d[0].str() == alloc + ": error: tmem_alloc is tcgen05 (tensor memory), which sm_90a lacks\n"
                              "  fix: on sm_90a accumulators live in registers: declare them with k.accumulator(...) and use "
                              "mma() (wgmma), with nothing to allocate; or compile for sm_100a");
  CHECK(test::contains(d[1].message, "tmem_relinquish is tcgen05 (tensor memory), which sm_90a lacks"));
  CHECK(test::contains(d[2].message, "tmem_dealloc is tcgen05 (tensor memory), which sm_90a lacks"));
}

TEST_CASE("tensor memory: column counts that are not a power of two from 32 to 512 are DSL errors", "[codegen][tcgen05][dsl]") {
  auto error_of = [](unsigned columns) {
    try {
      tmem_kernel(CtaGroup::One, 1, columns, CtaGroup::One);
    } catch (const UserError& e) {
      REQUIRE(e.diagnostics().size() == 1);
      return e.diagnostics()[0].message + " | " + e.diagnostics()[0].fix;
    }
    return std::string("no error");
  };
  CHECK(error_of(48) == "tmem_alloc of 48 columns: tensor memory is allocated in powers of two from 32 to 512 columns | use 64 columns");
  CHECK(error_of(16) == "tmem_alloc of 16 columns: tensor memory is allocated in powers of two from 32 to 512 columns | use 32 columns");
  CHECK(error_of(1024) ==
        "tmem_alloc of 1024 columns: tensor memory is allocated in powers of two from 32 to 512 columns | a CTA has 512 "
        "columns: split the accumulators over fewer columns, or over a CTA pair (CtaGroup::Two)");
  CHECK(error_of(512) == "no error");
  CHECK(error_of(32) == "no error");
}

TEST_CASE("tensor memory: one CTA group per kernel, pairs for cta_group::2, 512 columns per CTA", "[codegen][tcgen05]") {
  // The dealloc in the other group.
  ir::Kernel mixed = tmem_kernel(CtaGroup::Two, 2, 64, CtaGroup::One);
  const std::string alloc = at(alloc_line), dealloc = at(dealloc_line);
  CHECK(one_error(mixed, Target::sm100a()) ==
        dealloc + ": error: the tmem_dealloc at " + dealloc + " uses cta_group::1, but the tmem_alloc at " + alloc +
            " uses cta_group::2: a kernel works with one CTA group\n"
            "  fix: use CtaGroup::Two for every tcgen05 op (or the other group for all of them)");
  // The pair group in a cluster of one CTA, then of three.
  for (unsigned cluster : {1u, 3u}) {
    ir::Kernel lonely = tmem_kernel(CtaGroup::Two, cluster, 64, CtaGroup::Two);
    const std::string ctas = std::to_string(cluster) + "x1x1, " + std::to_string(cluster) + (cluster == 1 ? " CTA" : " CTAs");
    CHECK(one_error(lonely, Target::sm100a()) ==
          at(alloc_line) + ": error: cta_group::2 works on the CTA pairs of a cluster, and this kernel's cluster (" +
              ctas + ") has none\n  fix: give the kernel a cluster of an even number of CTAs (2x1x1 for one pair), or use CtaGroup::One");
  }
  // 512 + 32 columns.
  ir::Kernel big = tmem_kernel(CtaGroup::One, 1, 512, CtaGroup::One, 32);
  const std::string cuda = codegen::lower(tmem_kernel(CtaGroup::One, 1, 256, CtaGroup::One, 256), Target::sm100a()).cuda;
  CHECK(test::count(cuda, "tj::tmem_alloc<1>(") == 2);  // 256 + 256 fit
  std::vector<Diagnostic> d = test::lower_errors(big, Target::sm100a());
  REQUIRE(d.size() == 1);
  CHECK(test::contains(d[0].message, " the kernel allocates 544 columns of tensor memory (each tmem_alloc counted once): a CTA has 512"));
  CHECK(d[0].fix == "allocate fewer columns, or one allocation that the accumulators share");
}

// The GEMM host side on a GPU, without the GEMM kernel: cuBLAS writes D through the
// instance (run_cublas), and the instance's verify() must accept it (every type,
// layout and beta) and reject the poisoned D.
#include <catch2/catch.hpp>

#include "gpu_fixture.h"
#include "runtime/cublas.h"
#include "runtime/driver.h"
#include "samples/gemm_host.h"
#include "tests/samples/gemm_interface_kernel.h"

using namespace tj;
using samples::GemmLayout;
using ir::Scalar;

TEST_CASE("gemm host: cuBLAS's D passes verify, a poisoned D fails it", "[gpu][gemm]") {
  gpu_test::context().make_current();
  rt::Cublas blas;
  for (auto [in, out] : {std::pair{Scalar::BF16, Scalar::BF16}, {Scalar::BF16, Scalar::F32}, {Scalar::F16, Scalar::F16}})
    for (GemmLayout layout : {GemmLayout::TN, GemmLayout::NN})
      for (double beta : {0.0, 0.5}) {
        samples::GemmShape s;
        s.m = 160, s.n = 136, s.k = 200, s.in = in, s.out = out, s.layout = layout, s.alpha = 1.5, s.beta = beta;
        INFO(ir::scalar_name(in) << "->" << ir::scalar_name(out) << (layout == GemmLayout::TN ? " tn" : " nn") << " beta " << beta);
        std::unique_ptr<samples::Instance> inst =
            samples::make_gemm_instance(s, samples::test::gemm_interface_kernel(in, out, layout), 3);
        auto* g = dynamic_cast<samples::GemmInstance*>(inst.get());
        REQUIRE(g != nullptr);
        CHECK(g->flops_per_launch() == 2.0 * 160 * 136 * 200);
        const double out_bytes = ir::scalar_bytes(out) * 160.0 * 136;
        CHECK(g->bytes_per_launch() == 2.0 * 200 * (160 + 136) + out_bytes * (beta != 0 ? 2 : 1));
        rt::ArgPack args = g->args();
        // Tensor maps A, B, D, C; m, n, k, alpha, beta (split-K's workspace and counters
        // are the runtime's to bind).
        REQUIRE(args.size() == 9);
        for (size_t i = 0; i < 4; ++i) CHECK(args.bytes_of(i) == sizeof(CUtensorMap));
        for (size_t i = 4; i < 9; ++i) CHECK(args.bytes_of(i) == 4);

        g->poison();
        samples::Check poisoned = g->verify();
        CHECK_FALSE(poisoned.ok);
        // 0xFF bytes are a NaN with the sign bit set: printed "-nan".
        CHECK_THAT(poisoned.detail, Catch::Contains("21760 of 21760 differ; D[0, 0]: got -nan, want "));
        CHECK_THAT(poisoned.detail, Catch::Contains("cuBLAS's reference vs the host in double at 64 elements: all 64 match"));
        // Elements outside the tolerance get the host's sum in double as a second opinion,
        // up to 4096 of them: a NaN is within no tolerance.
        CHECK_THAT(poisoned.detail, Catch::Contains("outside the tolerance of cuBLAS's sum, checked against the host's sum in "
                                                    "double: 4096 element(s) (the most it checks), 0 within its tolerance"));

        g->run_cublas(blas, nullptr);
        rt::check(rt::driver().cuCtxSynchronize(), "cuCtxSynchronize");
        samples::Check ok = g->verify();
        INFO(ok.detail);
        CHECK(ok.ok);
        CHECK_THAT(ok.detail, Catch::StartsWith("D (160 x 136 " + std::string(ir::scalar_name(out)) +
                                                ") vs cuBLAS in f32, within ulp_out(|ref|) + 2^-20 * |alpha|*(|A||B|) + "
                                                "2^-8 * |beta*C|: all 21760 match"));
        CHECK_THAT(ok.detail, !Catch::Contains("second opinion") && !Catch::Contains("checked against the host's sum"));
      }
}

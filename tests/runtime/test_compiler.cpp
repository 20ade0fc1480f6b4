// NVRTC compilation: PTX and cubin for both targets, error excerpts, the dump directory.
// None of this needs a GPU.
#include <catch2/catch.hpp>

#include "runtime/compiler.h"
#include "runtime/error.h"
#include "runtime/files.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

namespace {

bool is_cuda_elf(const std::string& cubin) {
  // ELF magic, then e_machine (bytes 18-19, little-endian) = EM_CUDA (190).
  return cubin.size() > 20 && cubin.compare(0, 4, "\x7f" "ELF") == 0 &&
         uint8_t(cubin[18]) == 190 && cubin[19] == 0;
}

} // namespace

TEST_CASE("nvrtc_version is MAJOR.MINOR", "[runtime][compiler]") {
  std::string v = nvrtc_version();
  REQUIRE(v.find('.') != std::string::npos);
  CHECK(std::stoi(v) >= 12);
}

TEST_CASE("default NVRTC options come first, then the request's", "[runtime][compiler]") {
  CompileRequest request = tiny_request("sm_100a");
  request.options = {"-DFOO=1"};
  CHECK(nvrtc_options(request) ==
        std::vector<std::string>{"--std=c++20", "-lineinfo", "-arch=sm_100a", "-DFOO=1"});
}

TEST_CASE("compiles a kernel with an in-memory header for sm_90a (runs on the H200)",
          "[runtime][compiler]") {
  CompileResult r = compile(tiny_request("sm_90a"), nullptr);
  CHECK(contains(r.ptx, ".target sm_90a"));
  CHECK(contains(r.ptx, ".entry add_magic"));
  CHECK(contains(r.ptx, "24301")); // the header's constant reached the code
  CHECK(contains(r.ptx, ".loc"));  // -lineinfo
  CHECK(is_cuda_elf(r.cubin));
  CHECK_FALSE(r.from_cache);
  CHECK(r.key.size() == 64);
  CHECK(r.kernel_name == "add_magic");
  CHECK(r.seconds > 0);
}

TEST_CASE("compiles for sm_100a with NVRTC alone (cannot run on the H200)", "[runtime][compiler]") {
  CompileResult r = compile(tiny_request("sm_100a"), nullptr);
  CHECK(contains(r.ptx, ".target sm_100a"));
  CHECK(contains(r.ptx, "24301"));
  CHECK(is_cuda_elf(r.cubin));
}

TEST_CASE("a compute_ arch gives PTX and no cubin", "[runtime][compiler]") {
  CompileResult r = compile(tiny_request("compute_90a"), nullptr);
  CHECK(contains(r.ptx, ".target sm_90a"));
  CHECK(r.cubin.empty());
}

TEST_CASE("a syntax error shows the log and the marked source line", "[runtime][compiler]") {
  CompileRequest request = tiny_request();
  request.kernel_name = "broken";
  request.source = "extern \"C\" __global__ void broken(int* out) {\n"
                   "  int a = 1;\n"
                   "  int b = a +;\n"
                   "  out[0] = b;\n"
                   "}\n";
  try {
    compile(request, nullptr);
    FAIL("expected a compile error");
  } catch (const RuntimeError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(e.kind() == ErrorKind::Compile);
    CHECK(contains(msg, "nvrtcCompileProgram failed for kernel 'broken'"));
    CHECK(contains(msg, "broken.cu(3): error"));               // NVRTC's log
    CHECK(contains(msg, "broken.cu:3:\n"));                    // the excerpt's heading
    CHECK(contains(msg, "  >      3 |   int b = a +;\n"));     // the marked line
    CHECK(contains(msg, "         1 | extern \"C\" __global__")); // context before it
    CHECK(contains(msg, "         5 | }"));                       // and after it
  }
}

TEST_CASE("an error inside an in-memory header is shown from that header", "[runtime][compiler]") {
  CompileRequest request = tiny_request();
  request.headers = {{"tilejit/test_magic.cuh", "#pragma once\nnamespace tj_test {\n"
                                                "__device__ int plus_magic(int x) { return x + ; }\n}\n"}};
  try {
    compile(request, nullptr);
    FAIL("expected a compile error");
  } catch (const RuntimeError& e) {
    std::string msg = e.what();
    INFO(msg);
    CHECK(e.kind() == ErrorKind::Compile);
    CHECK(contains(msg, "tilejit/test_magic.cuh:3:\n"));
    CHECK(contains(msg, "  >      3 | __device__ int plus_magic"));
  }
}

TEST_CASE("annotate_errors marks each error line once and ignores warnings", "[runtime][compiler]") {
  std::vector<Header> files = {{"k.cu", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n"}};
  std::string log = "k.cu(5): warning #177-D: variable declared but never referenced\n"
                    "k.cu(8): error: identifier \"x\" is undefined\n"
                    "k.cu(8): error: something else on the same line\n"
                    "other.cu(2): error: not one of ours\n";
  std::string out = annotate_errors(log, files);
  CHECK(out == "k.cu:8:\n"
               "         5 | l5\n"
               "         6 | l6\n"
               "         7 | l7\n"
               "  >      8 | l8\n"
               "         9 | l9\n");
  CHECK(annotate_errors("k.cu(4): warning: w\n", files).empty());
}

TEST_CASE("TILEJIT_DUMP_DIR receives .cu, .ptx, .cubin and .log", "[runtime][compiler]") {
  TempDir tmp;
  std::string dump = tmp / "dump/nested";
  ScopedEnv env("TILEJIT_DUMP_DIR", dump);
  CompileRequest request = tiny_request();
  CompileResult r = compile(request, nullptr);
  CHECK(files::read(dump + "/add_magic.cu") == request.source);
  CHECK(files::read(dump + "/add_magic.ptx") == r.ptx);
  CHECK(files::read(dump + "/add_magic.cubin") == r.cubin);
  CHECK(files::read(dump + "/add_magic.log") == r.log);
}

TEST_CASE("a failed compile dumps its source and log", "[runtime][compiler]") {
  TempDir tmp;
  ScopedEnv env("TILEJIT_DUMP_DIR", tmp.path());
  CompileRequest request = tiny_request();
  request.kernel_name = "broken";
  request.source = "__global__ void broken() { int x = ; }\n";
  CHECK_THROWS_AS(compile(request, nullptr), RuntimeError);
  CHECK(files::read(tmp / "broken.cu") == request.source);
  auto log = files::read(tmp / "broken.log");
  REQUIRE(log);
  CHECK(contains(*log, "broken.cu(1): error"));
  CHECK_FALSE(files::read(tmp / "broken.ptx"));
}

TEST_CASE("an empty arch is a usage error", "[runtime][compiler]") {
  CompileRequest request = tiny_request("");
  try {
    compile(request, nullptr);
    FAIL("expected an error");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Usage);
    CHECK(contains(e.what(), "sm_90a"));
  }
}

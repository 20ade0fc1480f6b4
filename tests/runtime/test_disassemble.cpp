// Finding cuobjdump / nvdisasm (PATH, then $CUDA_ROOT/bin) and running one on a cubin.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include "runtime/device_modules.h"
#include "runtime/disassemble.h"
#include "runtime/error.h"
#include "tests/runtime/test_support.h"

using namespace tj::rt;
using namespace tj::rt::test;

namespace {

void write_script(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  REQUIRE(chmod(path.c_str(), 0755) == 0);
}

}  // namespace

TEST_CASE("disassembler: cuobjdump before nvdisasm, PATH before CUDA_ROOT/bin", "[runtime][sass]") {
  TempDir tmp;
  const std::string a = tmp / "a", cuda = tmp / "cuda";
  REQUIRE(llvm::sys::fs::create_directories(a) == std::error_code());
  REQUIRE(llvm::sys::fs::create_directories(cuda + "/bin") == std::error_code());
  CHECK_FALSE(find_disassembler(a, cuda).has_value());
  CHECK_FALSE(find_disassembler("", tmp / "nowhere").has_value());

  write_script(cuda + "/bin/nvdisasm", "exit 0");
  std::optional<Disassembler> d = find_disassembler(a, cuda);
  REQUIRE(d.has_value());
  CHECK(d->tool == "nvdisasm");
  CHECK(d->path == cuda + "/bin/nvdisasm");

  write_script(cuda + "/bin/cuobjdump", "exit 0");
  CHECK(find_disassembler(a, cuda)->path == cuda + "/bin/cuobjdump");
  write_script(a + "/cuobjdump", "exit 0");
  CHECK(find_disassembler("/nonexistent:" + a, cuda)->path == a + "/cuobjdump");

  CHECK(disassembler_search_text("", "/opt/cuda") == "PATH (empty), /opt/cuda/bin (from CUDA_ROOT)");
  CHECK(disassembler_search_text("/usr/bin:/bin", "") == "PATH (/usr/bin:/bin), /usr/local/cuda/bin (CUDA_ROOT unset)");
}

TEST_CASE("disassembler: a failing tool is an error with its message", "[runtime][sass]") {
  TempDir tmp;
  write_script(tmp / "cuobjdump", "echo 'cuobjdump fatal   : not an ELF file' >&2; exit 1");
  const Disassembler d{"cuobjdump", tmp / "cuobjdump"};
  try {
    disassemble("not a cubin", d);
    FAIL("no error");
  } catch (const RuntimeError& e) {
    CHECK(e.kind() == ErrorKind::Compile);
    CHECK(std::string(e.what()) == d.path + " failed on the cubin (exit code 1):\ncuobjdump fatal   : not an ELF file\n");
  }
  write_script(tmp / "nvdisasm", "exit 0");
  CHECK_THROWS_WITH(disassemble("x", Disassembler{"nvdisasm", tmp / "nvdisasm"}),
                    tmp / "nvdisasm" + " printed no SASS for the cubin");
}

TEST_CASE("disassembler: the sm_90a cubin of a kernel disassembles to SASS", "[runtime][sass]") {
  std::optional<Disassembler> d = find_disassembler();
  if (!d) {
    WARN("SKIPPED: neither cuobjdump nor nvdisasm in " << disassembler_search_text());
    return;
  }
  const std::string sass = disassemble(compile(tiny_request("sm_90a"), nullptr).cubin, *d);
  CHECK(sass.find("add_magic") != std::string::npos);
  CHECK(sass.find("EXIT") != std::string::npos);
}

TEST_CASE("device modules: a cubin runs only on its own arch", "[runtime][device]") {
  DeviceInfo h200;
  h200.ordinal = 1;
  h200.name = "NVIDIA H200";
  h200.cc_major = 9;
  CHECK(arch_mismatch("sm_90a", h200).empty());
  CHECK(arch_mismatch("sm_100a", h200) ==
        "the kernel was compiled for sm_100a, and device 1 (NVIDIA H200) is sm_90a; compile it for sm_90a too (a cubin "
        "is built per arch)");
}

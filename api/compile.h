// From a built kernel to PTX and a cubin in one call, with no GPU needed:
// verify + lower (codegen) -> CUDA C++ with the prelude -> NVRTC, through the disk cache.
#pragma once

#include <optional>
#include <string>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "dsl/ir/kernel.h"
#include "runtime/compiler.h"

namespace tj {

namespace rt {
class Cache;
}

// What compile() does; every field has the CLI's default.
struct CompileOptions {
  // "sm_90a" or "sm_100a". Empty: TILEJIT_ARCH, else the default device's arch, else sm_90a.
  std::string arch;
  // The disk cache (on by default, as in the CLI): a hit skips NVRTC.
  bool cache = true;
  // Where the cache lives. Empty: TILEJIT_CACHE_DIR, else $XDG_CACHE_HOME/tilejit, else
  // ~/.cache/tilejit.
  std::string cache_dir;
  // Bounded mbarrier waits that trap with the barrier's name instead of hanging.
  // Unset: TILEJIT_DEBUG_HANGS=1 turns them on.
  std::optional<bool> debug_hangs;
};

// Where the time went, in seconds.
struct CompileTimes {
  double build = 0;    // building the IR (set by callers that build it; compile() leaves 0)
  double lower = 0;    // verification passes, rewrites and CUDA emission
  double compile = 0;  // NVRTC, or the disk-cache lookup on a hit (result.from_cache)
  double total() const { return build + lower + compile; }
};

// A compiled kernel: the IR after the rewrites, the CUDA C++, the PTX and the cubin.
struct CompiledKernel {
  codegen::Target target;
  codegen::Lowered lowered;  // lowered.kernel: the IR as emitted; lowered.cuda: the source
  rt::CompileResult result;  // ptx, cubin, NVRTC log, whether it came from the cache
  CompileTimes times;

  const std::string& name() const { return lowered.kernel.name; }
  const std::string& cuda() const { return lowered.cuda; }
  const std::string& ptx() const { return result.ptx; }
  const std::string& cubin() const { return result.cubin; }
  const ir::Kernel& kernel() const { return lowered.kernel; }
};

// The target `arch` names ("" = the default as in CompileOptions::arch); a name tilejit
// does not generate code for is RuntimeError(Usage) listing the ones it does.
codegen::Target target_for(const std::string& arch);

// The NVRTC request for lowered code: the source plus the embedded prelude.
rt::CompileRequest compile_request(const codegen::Lowered& lowered, const codegen::Target& target);

// Verifies and lowers `kernel` for options.arch and compiles it. A DSL mistake throws
// UserError (each diagnostic with the user's source line), an NVRTC failure
// rt::RuntimeError(Compile). Needs no GPU.
CompiledKernel compile(const ir::Kernel& kernel, const CompileOptions& options = {});

// The same for an explicit target and cache (null: none) and lowering options.
CompiledKernel compile(const ir::Kernel& kernel, const codegen::Target& target, rt::Cache* cache,
                       const codegen::LowerOptions& lower = {});

}  // namespace tj

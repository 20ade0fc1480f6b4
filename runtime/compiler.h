// CUDA C++ text -> PTX + cubin with NVRTC, through the disk cache.
// Needs no GPU and no libcuda.
#pragma once

#include <string>
#include <vector>

namespace tj::rt {

class Cache;

// An in-memory header; `name` is what the source #includes, matched exactly.
struct Header {
  std::string name;
  std::string content;
};

struct CompileRequest {
  std::string kernel_name;          // used in messages and file names (program is "<kernel_name>.cu")
  std::string source;               // CUDA C++ text
  std::vector<Header> headers;      // in-memory headers, e.g. "tilejit/prelude.cuh"
  std::string arch;                 // "sm_90a" or "sm_100a": PTX + cubin; "compute_XX": PTX only
  std::vector<std::string> options; // extra NVRTC options, after the defaults
};

struct CompileResult {
  std::string kernel_name;  // the request's
  std::string ptx;
  std::string cubin;        // ELF; empty for a compute_XX arch
  std::string log;          // NVRTC's log (warnings), possibly empty
  std::string key;          // Cache::key_of(request)
  bool from_cache = false;
  double seconds = 0;       // wall time of this call (compile or cache lookup)
};

// NVRTC (12.9 and later) keeps its own results in the CUDA driver's compute cache
// when a driver is present, so a "cold" compile on a GPU machine may be a lookup:
// it timed 25 ms on the H200 against 0.7-1.1 s for a real compile, and its log then
// has no ptxas report. tilejit has its own cache; its programs (CLI, tests, benches)
// call this first, which turns NVRTC's off (CUDA_CACHE_DISABLE=1) unless the user
// set CUDA_CACHE_DISABLE. Returns whether NVRTC's cache is off. Call before the first
// compile and before the driver starts: both read the variable once.
bool disable_nvrtc_result_cache();

// NVRTC's version as "MAJOR.MINOR", e.g. "13.0".
std::string nvrtc_version();

// The NVRTC options compile() passes, defaults first then request.options.
std::vector<std::string> nvrtc_options(const CompileRequest& request);

// Compiles `request`, or returns the cached result when `cache` (may be null) has it.
// A failed compile throws RuntimeError(Compile) with the log and the offending source
// lines, and stores nothing. With TILEJIT_DUMP_DIR set, writes <kernel>.cu/.ptx/.cubin/.log
// there for every call, cache hits included.
CompileResult compile(const CompileRequest& request, Cache* cache);

// The source lines around each "<file>(LINE): error" in an NVRTC log, numbered, with
// '>' on LINE. `files` maps a file name in the log to its text. Empty if none matched.
std::string annotate_errors(const std::string& log, const std::vector<Header>& files);

} // namespace tj::rt

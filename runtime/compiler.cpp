#include "runtime/compiler.h"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <set>

#include <nvrtc.h>

#include "runtime/cache.h"
#include "runtime/error.h"
#include "runtime/files.h"

namespace tj::rt {

namespace {

// The one checking helper for NVRTC calls. `detail` carries the log for a failed compile.
void check(nvrtcResult result, const char* call, std::string_view kernel,
           std::string_view detail = {}) {
  if (result == NVRTC_SUCCESS) return;
  std::string message = std::string(call) + " failed for kernel '" + std::string(kernel) +
                        "': " + nvrtcGetErrorString(result);
  if (!detail.empty()) message += "\n" + std::string(detail);
  throw RuntimeError(ErrorKind::Compile, std::move(message));
}

struct ProgramDeleter {
  void operator()(_nvrtcProgram* p) const { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<_nvrtcProgram, ProgramDeleter>;

// A fixed, absolute name: NVRTC would otherwise prefix the working directory
// in the PTX's .file line, and the output (and the cache) would depend on it.
std::string program_name(const CompileRequest& request) {
  return "/tilejit/" + files::safe_file_name(request.kernel_name) + ".cu";
}

// NVRTC's sizes count a trailing NUL; the strings we keep do not.
std::string without_nul(std::string s) {
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string program_log(nvrtcProgram program, std::string_view kernel) {
  size_t size = 0;
  check(nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize", kernel);
  std::string log(size, '\0');
  if (size) check(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog", kernel);
  log = without_nul(std::move(log));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return log;
}

// Writes the compile's files to TILEJIT_DUMP_DIR, if set. Asked for by the user, so a
// failure is an error, not a warning.
void dump(const CompileRequest& request, const CompileResult* result, const std::string& log) {
  const char* dir = std::getenv("TILEJIT_DUMP_DIR");
  if (!dir || !*dir) return;
  std::string base = files::join(dir, files::safe_file_name(request.kernel_name));
  auto write = [&](const std::string& path, std::string_view content) {
    if (auto ec = files::write_atomic(path, content))
      throw RuntimeError(ErrorKind::Io, "cannot write '" + path + "' (TILEJIT_DUMP_DIR): " +
                                            ec.message());
  };
  if (auto ec = files::make_dirs(dir))
    throw RuntimeError(ErrorKind::Io, "cannot create TILEJIT_DUMP_DIR '" + std::string(dir) +
                                          "': " + ec.message());
  write(base + ".cu", request.source);
  write(base + ".log", log);
  if (!result) return;
  write(base + ".ptx", result->ptx);
  if (!result->cubin.empty()) write(base + ".cubin", result->cubin);
}

CompileResult run_nvrtc(const CompileRequest& request) {
  const std::string& kernel = request.kernel_name;
  std::vector<const char*> header_texts, header_names;
  for (const Header& header : request.headers) {
    header_texts.push_back(header.content.c_str());
    header_names.push_back(header.name.c_str());
  }
  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, request.source.c_str(), program_name(request).c_str(),
                           int(header_texts.size()), header_texts.data(), header_names.data()),
        "nvrtcCreateProgram", kernel);
  Program program(raw);

  std::vector<std::string> options = nvrtc_options(request);
  std::vector<const char*> option_ptrs;
  for (const std::string& option : options) option_ptrs.push_back(option.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(raw, int(option_ptrs.size()), option_ptrs.data());

  CompileResult result;
  result.kernel_name = kernel;
  result.log = program_log(raw, kernel);
  if (compiled != NVRTC_SUCCESS) {
    dump(request, nullptr, result.log);
    std::vector<Header> files = request.headers;
    files.push_back({program_name(request), request.source});
    std::string detail = result.log;
    if (std::string excerpt = annotate_errors(result.log, files); !excerpt.empty())
      detail += "\n" + excerpt;
    check(compiled, "nvrtcCompileProgram", kernel, detail);
  }

  size_t size = 0;
  check(nvrtcGetPTXSize(raw, &size), "nvrtcGetPTXSize", kernel);
  result.ptx.assign(size, '\0');
  check(nvrtcGetPTX(raw, result.ptx.data()), "nvrtcGetPTX", kernel);
  result.ptx = without_nul(std::move(result.ptx));

  // Only a real sm_ arch produces machine code; compute_ gives PTX alone.
  if (request.arch.rfind("sm_", 0) == 0) {
    check(nvrtcGetCUBINSize(raw, &size), "nvrtcGetCUBINSize", kernel);
    result.cubin.assign(size, '\0');
    if (size) check(nvrtcGetCUBIN(raw, result.cubin.data()), "nvrtcGetCUBIN", kernel);
  }
  return result;
}

} // namespace

std::string nvrtc_version() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    check(nvrtcVersion(&major, &minor), "nvrtcVersion", "");
    return std::to_string(major) + "." + std::to_string(minor);
  }();
  return version;
}

bool disable_nvrtc_result_cache() {
  if (const char* set = std::getenv("CUDA_CACHE_DISABLE")) return std::string(set) == "1";
  return ::setenv("CUDA_CACHE_DISABLE", "1", 0) == 0;
}

std::vector<std::string> nvrtc_options(const CompileRequest& request) {
  std::vector<std::string> options = {"--std=c++20", "-lineinfo", "-arch=" + request.arch};
  options.insert(options.end(), request.options.begin(), request.options.end());
  return options;
}

CompileResult compile(const CompileRequest& request, Cache* cache) {
  auto start = std::chrono::steady_clock::now();
  if (request.arch.empty())
    throw RuntimeError(ErrorKind::Usage, "kernel '" + request.kernel_name +
                                             "': no target arch given; use sm_90a or sm_100a");
  std::string key = Cache::key_of(request);

  std::optional<CompileResult> result;
  if (cache) result = cache->lookup(key);
  if (!result) {
    result = run_nvrtc(request);
    result->key = key;
    if (cache) cache->store(key, *result);
  }
  result->kernel_name = request.kernel_name;
  result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  dump(request, &*result, result->log);
  return std::move(*result);
}

} // namespace tj::rt

#include "runtime/disassemble.h"

#include <cstdlib>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Program.h>

#include "runtime/error.h"
#include "runtime/files.h"

namespace tj::rt {
namespace {

std::vector<std::string> search_dirs(std::string_view path_env, std::string_view cuda_root) {
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= path_env.size()) {
    size_t end = path_env.find(':', start);
    if (end == std::string_view::npos) end = path_env.size();
    if (end > start) dirs.emplace_back(path_env.substr(start, end - start));  // an empty item is not "."
    start = end + 1;
  }
  dirs.push_back(files::join(cuda_root.empty() ? std::string_view("/usr/local/cuda") : cuda_root, "bin"));
  return dirs;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty()) llvm::sys::fs::remove(path);
  }
};

}  // namespace

std::string disassembler_search_text(std::string_view path_env, std::string_view cuda_root) {
  std::vector<std::string> dirs = search_dirs(path_env, cuda_root);
  return "PATH (" + (path_env.empty() ? std::string("empty") : std::string(path_env)) + "), " + dirs.back() +
         (cuda_root.empty() ? " (CUDA_ROOT unset)" : " (from CUDA_ROOT)");
}

std::optional<Disassembler> find_disassembler(std::string_view path_env, std::string_view cuda_root) {
  std::vector<std::string> dirs = search_dirs(path_env, cuda_root);
  std::vector<llvm::StringRef> refs(dirs.begin(), dirs.end());
  for (const char* tool : {"cuobjdump", "nvdisasm"})
    if (llvm::ErrorOr<std::string> p = llvm::sys::findProgramByName(tool, refs)) return Disassembler{tool, *p};
  return std::nullopt;
}

std::optional<Disassembler> find_disassembler() {
  return find_disassembler(env_or_empty("PATH"), env_or_empty("CUDA_ROOT"));
}

std::string disassembler_search_text() {
  return disassembler_search_text(env_or_empty("PATH"), env_or_empty("CUDA_ROOT"));
}

std::string disassemble(const std::string& cubin, const Disassembler& tool) {
  TempFile in, out, err;
  for (auto [file, suffix] : {std::pair{&in, "cubin"}, std::pair{&out, "sass"}, std::pair{&err, "log"}})
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("tilejit-disasm", suffix, file->path))
      throw RuntimeError(ErrorKind::Io, "cannot create a temporary file for " + tool.tool + ": " + ec.message());
  if (std::error_code ec = files::write_atomic(std::string(in.path), cubin))
    throw RuntimeError(ErrorKind::Io, "cannot write " + std::string(in.path) + ": " + ec.message());

  std::vector<llvm::StringRef> args = {tool.path};
  if (tool.tool == "cuobjdump") args.push_back("-sass");
  args.push_back(in.path);
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out.path),
                                                      llvm::StringRef(err.path)};
  std::string why;
  const int rc = llvm::sys::ExecuteAndWait(tool.path, args, std::nullopt, redirects, /*SecondsToWait=*/120, 0, &why);
  std::string text = files::read(std::string(out.path)).value_or("");
  if (rc != 0) {
    std::string log = files::read(std::string(err.path)).value_or("");
    throw RuntimeError(ErrorKind::Compile, tool.path + " failed on the cubin (" +
                                               (rc < 0 ? why.empty() ? "it could not run" : why : "exit code " + std::to_string(rc)) +
                                               ")" + (log.empty() ? "" : ":\n" + log));
  }
  if (text.empty()) throw RuntimeError(ErrorKind::Compile, tool.path + " printed no SASS for the cubin");
  return text;
}

}  // namespace tj::rt

#include "runtime/files.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace tj::rt::files {

namespace fs = llvm::sys::fs;

std::optional<std::string> read(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return std::nullopt;
  return (*buffer)->getBuffer().str();
}

std::error_code write_atomic(const std::string& path, std::string_view content) {
  int fd = -1;
  llvm::SmallString<256> temp;
  // Same directory as the target so that rename() stays within one file system.
  if (auto ec = fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp)) return ec;
  std::error_code error;
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << llvm::StringRef(content.data(), content.size());
    out.close();
    error = out.error();
    out.clear_error(); // reported through the return value, not by aborting
  }
  if (!error) error = fs::rename(temp, path);
  if (error) fs::remove(temp);
  return error;
}

std::error_code make_private_dirs(const std::string& path) {
  return fs::create_directories(path, /*IgnoreExisting=*/true, fs::perms::owner_all);
}

std::error_code make_dirs(const std::string& path) {
  return fs::create_directories(path, /*IgnoreExisting=*/true);
}

std::error_code make_unique_dir(const std::string& parent, std::string_view prefix,
                                std::string& created) {
  std::error_code ec;
  for (int attempt = 0; attempt < 64; ++attempt) {
    llvm::SmallString<256> candidate;
    fs::createUniquePath(join(parent, std::string(prefix) + "%%%%%%%%%%%%"), candidate,
                         /*MakeAbsolute=*/false);
    ec = fs::create_directory(candidate, /*IgnoreExisting=*/false, fs::perms::owner_all);
    if (!ec) {
      created = candidate.str().str();
      return ec;
    }
    if (ec != std::errc::file_exists) return ec;
  }
  return ec;
}

std::string safe_file_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "kernel";
  return out;
}

std::string join(std::string_view parent, std::string_view child) {
  llvm::SmallString<256> path(llvm::StringRef(parent.data(), parent.size()));
  llvm::sys::path::append(path, llvm::StringRef(child.data(), child.size()));
  return path.str().str();
}

} // namespace tj::rt::files

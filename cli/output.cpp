#include "cli/output.h"

#include <filesystem>

#include "runtime/error.h"
#include "runtime/files.h"

namespace tj::cli {

void ensure_output_dir(const std::string& dir) {
  if (dir.empty()) throw rt::RuntimeError(rt::ErrorKind::Usage, "-o: the output folder name is empty");
  if (std::error_code ec = rt::files::make_dirs(dir))
    throw rt::RuntimeError(rt::ErrorKind::Io, "-o " + dir + ": cannot create the output folder: " + ec.message());
}

void check_writable(const std::string& dir, const std::string& name) {
  std::string path = rt::files::join(dir, name);
  std::error_code ec;
  std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw rt::RuntimeError(rt::ErrorKind::Io, "cannot write " + path + ": it exists and is not a regular file");
}

std::string write_output(const std::string& dir, const std::string& name, const std::string& content) {
  std::string path = rt::files::join(dir, name);
  if (std::error_code ec = rt::files::write_atomic(path, content))
    throw rt::RuntimeError(rt::ErrorKind::Io, "cannot write " + path + ": " + ec.message());
  return path;
}

}  // namespace tj::cli

// Writing the CLI's output files: the folder is made first, every file is
// published atomically, and an unwritable folder is a clear error.
#pragma once

#include <string>

namespace tj::cli {

// Creates `dir` (and parents) or throws RuntimeError(Io) naming it.
void ensure_output_dir(const std::string& dir);
// Throws RuntimeError(Io) if dir/name exists and is not a regular file (so a
// write there would fail after others succeeded).
void check_writable(const std::string& dir, const std::string& name);
// Writes dir/name atomically; returns the path written.
std::string write_output(const std::string& dir, const std::string& name, const std::string& content);

}  // namespace tj::cli

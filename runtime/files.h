// Small file-system helpers shared by the cache and the dump directory. Internal to runtime/.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace tj::rt::files {

// The whole file, or nullopt if it cannot be read.
std::optional<std::string> read(const std::string& path);

// Writes `content` to a temp file next to `path`, then renames it over `path`, so a reader
// sees the old file or the new one, never half of one.
std::error_code write_atomic(const std::string& path, std::string_view content);

// mkdir -p with mode 0700 for the directories it creates (the cache holds code we run).
std::error_code make_private_dirs(const std::string& path);

// mkdir -p with the default mode.
std::error_code make_dirs(const std::string& path);

// A unique, new, empty directory `<parent>/<prefix>XXXXXXXX` (mode 0700).
std::error_code make_unique_dir(const std::string& parent, std::string_view prefix,
                                std::string& created);

// `name` with every character outside [A-Za-z0-9_.-] replaced by '_', never empty.
std::string safe_file_name(std::string_view name);

// "<parent>/<child>".
std::string join(std::string_view parent, std::string_view child);

} // namespace tj::rt::files

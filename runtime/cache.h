// Content-addressed disk cache of compile results.
// Entry: <dir>/<key[0:2]>/<key>/{kernel.ptx, kernel.cubin, kernel.log, meta}; published by
// renaming a finished temp dir into place, so readers never see a half-written entry.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "runtime/compiler.h"

namespace tj::rt {

// TILEJIT_CACHE_DIR, else $XDG_CACHE_HOME/tilejit, else ~/.cache/tilejit; "" when none
// of them is known. Computed only: nothing is created.
std::string cache_dir_from_env();

class Cache {
public:
  // Creates `dir` (mode 0700) if needed. An unusable dir disables the cache with one
  // warning on stderr; it never throws.
  explicit Cache(std::string dir);

  // A cache in cache_dir_from_env().
  static Cache from_env();

  // SHA-256 hex over everything that changes the output: a format tag, kernel name (it is
  // the program name, which ends up in the PTX's .file line), source, each header's name and
  // content, nvrtc_version(), arch and options in order. No absolute path unless the caller
  // put one in the options.
  static std::string key_of(const CompileRequest& request);

  // A verified entry, or nullopt. A corrupt entry is removed (one warning) and is a miss.
  std::optional<CompileResult> lookup(const std::string& key) const;

  // Publishes an entry atomically; losing a race to another writer is fine. A write failure
  // disables the cache with one warning; it never throws.
  void store(const std::string& key, const CompileResult& result);

  const std::string& dir() const { return dir_; }
  bool enabled() const;

  // Where the entry for `key` lives (whether or not it exists).
  std::string entry_dir(const std::string& key) const;

private:
  struct State;
  void disable(const std::string& why) const;

  std::string dir_;
  std::shared_ptr<State> state_; // shared by copies: one warning per cache dir
};

} // namespace tj::rt

// Loading plugins: shared libraries whose generators join the registry
// (<tilejit/plugin.h> is their side of it).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "generators/registry.h"

namespace tj::samples {

// A plugin that cannot be used. what() reads "plugin <path>: <problem>".
class PluginError : public std::runtime_error {
 public:
  PluginError(const std::string& path, const std::string& problem);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Loads the shared library at `path` (a file path; a bare name means ./name, never a
// library search), checks its entry point and API version, runs its registration and
// adds its generators to `registry` (the process's is samples/builtin.h's registry()).
// Throws PluginError for a missing or unloadable file, no entry point, another API
// version, a registration that throws, a duplicate or malformed generator, no generator
// at all, or the same library loaded twice. The library stays loaded for the life of
// the process.
void load_plugin(Registry& registry, const std::string& path);

// The plugins a command loads: TILEJIT_PLUGINS (paths separated by ':'; empty items
// skipped) first, then `flags` (--plugin, in order).
std::vector<std::string> plugin_paths(const std::vector<std::string>& flags);

}  // namespace tj::samples

#include "generators/plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "generators/plugin_abi.h"
#include "generators/registry.h"

namespace tj::samples {
namespace {

// The libraries loaded so far, by dlopen handle: the path each was first loaded as.
std::map<void*, std::string>& loaded() {
  static std::map<void*, std::string> handles;
  return handles;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? e : "unknown dlopen error";
}

}  // namespace

PluginError::PluginError(const std::string& path, const std::string& problem)
    : std::runtime_error("plugin " + path + ": " + problem), path_(path) {}

void load_plugin(Registry& registry, const std::string& path) {
  if (path.empty()) throw PluginError("''", "the path is empty; give the shared library's file name");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw PluginError(path, std::string("cannot read the file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw PluginError(path, "is a directory, not a shared library");
  // dlopen searches the library path for a name without '/'; a plugin is a file.
  const std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  // RTLD_NOW: a symbol the executable does not export fails here, not at first call.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw PluginError(path, "cannot be loaded as a shared library: " + dl_error());
  if (auto it = loaded().find(handle); it != loaded().end())
    throw PluginError(path, "is already loaded (as " + it->second + "); give each plugin once");
  dlerror();
  void* sym = dlsym(handle, TILEJIT_PLUGIN_ENTRY_NAME);
  if (!sym)
    throw PluginError(path, "has no entry point '" TILEJIT_PLUGIN_ENTRY_NAME
                            "'; define it with TILEJIT_PLUGIN(name, register_fn) from <tilejit/plugin.h>");
  const tilejit_plugin_info* info = reinterpret_cast<tilejit_plugin_entry_fn>(sym)();
  if (!info) throw PluginError(path, "its entry point returned no plugin info");
  // Only api_version is read before it is known to match: later versions may lay out the rest differently.
  if (info->api_version != TILEJIT_PLUGIN_API_VERSION)
    throw PluginError(path, "was built for plugin API version " + std::to_string(info->api_version) +
                                "; this tilejit loads version " + std::to_string(TILEJIT_PLUGIN_API_VERSION) +
                                "; rebuild it against this tilejit's <tilejit/plugin.h>");
  if (info->info_size != sizeof(tilejit_plugin_info) || !info->register_generators)
    throw PluginError(path, "its plugin info is malformed (size " + std::to_string(info->info_size) + ", expected " +
                                std::to_string(sizeof(tilejit_plugin_info)) + ", or no registration function)");
  const std::string label = info->name && *info->name ? " ('" + std::string(info->name) + "')" : "";
  const size_t before = registry.all().size();
  try {
    registry.register_from(path, [&](Registrar& r) { info->register_generators(r); });
  } catch (const RegistryError& e) {
    throw PluginError(path, std::string("registration refused: ") + e.what());
  } catch (const std::exception& e) {
    throw PluginError(path, std::string("registration threw an exception: ") + e.what());
  } catch (...) {
    throw PluginError(path, "registration threw an exception that is not a std::exception");
  }
  if (registry.all().size() == before) throw PluginError(path, "registered no generators" + label);
  loaded()[handle] = path;  // never dlclose'd: the registry holds objects whose code lives there
}

std::vector<std::string> plugin_paths(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TILEJIT_PLUGINS")) {
    std::string item;
    for (const char* p = env;; ++p) {
      if (*p == ':' || *p == '\0') {
        if (!item.empty()) out.push_back(item);
        item.clear();
        if (*p == '\0') break;
      } else {
        item += *p;
      }
    }
  }
  out.insert(out.end(), flags.begin(), flags.end());
  return out;
}

}  // namespace tj::samples

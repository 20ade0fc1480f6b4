#include "runtime/open_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace tj::rt {

std::vector<std::string> library_names(const char* env, const std::vector<std::string>& sonames) {
  if (const char* forced = std::getenv(env); forced && *forced) return {forced};
  std::vector<std::string> names = sonames;
  for (const std::string& soname : sonames) names.push_back("/usr/local/cuda/lib64/" + soname);
  return names;
}

OpenedLibrary open_first_library(const std::vector<std::string>& names, const std::vector<const char*>& symbols) {
  OpenedLibrary o;
  auto note = [&](const std::string& why) { o.tried += (o.tried.empty() ? "" : "; ") + why; };
  for (const std::string& name : names) {
    void* lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* why = dlerror();
      note("dlopen(" + name + ") failed: " + (why ? why : "unknown reason"));
      continue;
    }
    std::string missing;
    for (const char* symbol : symbols)
      if (!dlsym(lib, symbol)) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    if (!missing.empty()) {
      note(name + " lacks " + missing);
      dlclose(lib);
      continue;
    }
    o.handle = lib;
    o.name = name;
    o.tried.clear();
    return o;
  }
  if (names.empty()) o.tried = "no library names to try";
  return o;
}

}  // namespace tj::rt

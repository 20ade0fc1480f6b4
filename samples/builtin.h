// The built-in samples: the kernels of samples/, in ladder order, and the process's
// registry that holds them. The framework (generators/) knows no kernel; this list is
// where the built-ins join its registry, as a plugin's generators do.
#pragma once

#include <string>
#include <vector>

#include "generators/registry.h"
#include "generators/sample.h"

namespace tj::samples {

// Adds the built-in samples, in ladder order (a registration function, as a plugin's).
void register_builtin_samples(Registrar& r);

// The process's registry, with the built-in samples registered on first use; plugins
// (generators/plugin_loader.h) add theirs to it.
Registry& registry();

// Every registered generator: the built-in samples in ladder order, then those of
// loaded plugins.
const std::vector<const Sample*>& all_samples();
const Sample* find_sample(const std::string& name);

}  // namespace tj::samples

// Specs: JSON files naming a sample and its launch shape and parameters.
//
//   { "kernel": "dsmem_ring", "cluster": 4, "clusters": 33, "threads": 256,
//     "non_portable": false, "params": { "elems": 4096 } }
//
// "cluster" and "clusters" (the grid counted in clusters) take an integer or
// [x, y, z]; "grid" gives the grid in CTAs instead of "clusters". A parameter is
// an integer, one of its named choices, or a number for a real-valued one. Unknown
// keys and wrong types are errors naming the JSON path.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "generators/sample.h"

namespace tj::cli {

struct Spec {
  std::string file;          // as given on the command line
  const samples::Sample* sample = nullptr;
  samples::Config config;
  std::string description;
};

// A spec that cannot be used. what() reads "<file>: <json path>: <message>".
class SpecError : public std::runtime_error {
 public:
  SpecError(const std::string& file, const std::string& json_path, const std::string& message);
  const std::string& json_path() const { return json_path_; }

 private:
  std::string json_path_;
};

// Parses and checks spec text; `file` only names it in messages.
Spec parse_spec(const std::string& text, const std::string& file);
// The same, with "kernel" looked up among `samples` instead of every registered sample.
Spec parse_spec(const std::string& text, const std::string& file, const std::vector<const samples::Sample*>& samples);
// Reads and parses a spec file (at most 1 MiB).
Spec load_spec(const std::string& file);

}  // namespace tj::cli

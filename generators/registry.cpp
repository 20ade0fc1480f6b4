#include "generators/registry.h"

#include <cmath>
#include <set>

namespace tj::samples {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

std::string generator_problem(const Sample& g) {
  const std::string name = g.name();
  // The name is the spec's "kernel" and usually the CUDA symbol: an identifier.
  if (!is_identifier(name))
    return "generator name '" + name + "' is not an identifier of 1 to 64 letters, digits and '_' (not starting with a digit)";
  std::set<std::string> seen;
  for (const ParamSpec& p : g.params()) {
    const std::string where = "generator '" + name + "': parameter '" + p.name + "'";
    if (!is_identifier(p.name)) return where + ": the name is not an identifier";
    if (!seen.insert(p.name).second) return where + " is declared twice";
    if (p.min > p.max) return where + ": its range [" + std::to_string(p.min) + ", " + std::to_string(p.max) + "] is empty";
    if (p.default_value < p.min || p.default_value > p.max)
      return where + ": the default " + std::to_string(p.default_value) + " is outside its range [" +
             std::to_string(p.min) + ", " + std::to_string(p.max) + "]";
    if (!p.choices.empty() && (p.min != 0 || p.max != int64_t(p.choices.size()) - 1))
      return where + ": " + std::to_string(p.choices.size()) + " named choices need the range [0, " +
             std::to_string(p.choices.size() - 1) + "]";
  }
  for (const RealParamSpec& p : g.real_params()) {
    const std::string where = "generator '" + name + "': parameter '" + p.name + "'";
    if (!is_identifier(p.name)) return where + ": the name is not an identifier";
    if (!seen.insert(p.name).second) return where + " is declared twice";
    if (!std::isfinite(p.min) || !std::isfinite(p.max) || !(p.min <= p.max) || !(p.default_value >= p.min) ||
        !(p.default_value <= p.max))
      return where + ": the default " + std::to_string(p.default_value) + " is not inside a finite range [" +
             std::to_string(p.min) + ", " + std::to_string(p.max) + "]";
  }
  return "";
}

void Registry::commit(const std::string& origin, std::vector<std::unique_ptr<Sample>> added) {
  std::set<std::string> in_batch;
  for (const std::unique_ptr<Sample>& g : added) {
    if (!g) throw RegistryError("a null generator was registered");
    if (std::string why = generator_problem(*g); !why.empty()) throw RegistryError(why);
    const std::string name = g->name();
    if (find(name))
      throw RegistryError("generator '" + name + "' is already registered (" +
                          (origin_of(name) == "built-in" ? std::string("a built-in sample") : "by " + origin_of(name)) + ")");
    if (!in_batch.insert(name).second) throw RegistryError("generator '" + name + "' is registered twice");
  }
  for (std::unique_ptr<Sample>& g : added) {
    view_.push_back(g.get());
    origins_.push_back(origin);
    owned_.push_back(std::move(g));
  }
}

const Sample* Registry::find(const std::string& name) const {
  for (const Sample* s : view_)
    if (s->name() == name) return s;
  return nullptr;
}

std::string Registry::origin_of(const std::string& name) const {
  for (size_t i = 0; i < view_.size(); ++i)
    if (view_[i]->name() == name) return origins_[i];
  return "";
}

}  // namespace tj::samples

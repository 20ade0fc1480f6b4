#include "generators/tuning.h"

#include <algorithm>
#include <cstdio>

namespace tj::samples {

namespace {

constexpr const char* kParamPrefix = "params.";

// "bm" for "params.bm"; "" for a field that is not a parameter ("cluster").
std::string param_name(const std::string& field) {
  return field.rfind(kParamPrefix, 0) == 0 ? field.substr(std::char_traits<char>::length(kParamPrefix)) : "";
}

const ParamSpec* find_param(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const ParamSpec& p : specs)
    if (p.name == name) return &p;
  return nullptr;
}

std::string cluster_text(const ir::Dim3& d) {
  std::string out = std::to_string(d.x) + "x" + std::to_string(d.y);
  return d.z == 1 ? out : out + "x" + std::to_string(d.z);
}

bool same_field(const Config& a, const Config& b, const std::string& field) {
  if (field == "cluster") return a.cluster == b.cluster;
  const std::string p = param_name(field);
  return a.params.count(p) && b.params.count(p) && a.params.at(p) == b.params.at(p);
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

}  // namespace

std::vector<std::string> varying_fields(const Sample& s, const std::vector<Config>& configs) {
  std::vector<std::string> out;
  for (const std::string& f : s.tuned_fields())
    for (const Config& c : configs)
      if (!same_field(c, configs.front(), f)) {
        out.push_back(f);
        break;
      }
  return out;
}

std::vector<Config> default_first(const Sample& s, std::vector<Config> candidates, const Config& chosen) {
  const std::vector<std::string> fields = s.tuned_fields();
  auto same = [&](const Config& c) {
    return std::all_of(fields.begin(), fields.end(), [&](const std::string& f) { return same_field(c, chosen, f); });
  };
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(), same), candidates.end());
  candidates.insert(candidates.begin(), chosen);
  return candidates;
}

std::string describe_fields(const Sample& s, const Config& c, const std::vector<std::string>& fields) {
  const std::vector<ParamSpec> specs = s.params();
  std::vector<std::string> parts;
  for (const std::string& f : fields) {
    if (f == "cluster") {
      parts.push_back("cluster " + cluster_text(c.cluster));
      continue;
    }
    const std::string name = param_name(f);
    const int64_t v = c.param(name);
    const ParamSpec* p = find_param(specs, name);
    const bool named = p && v >= 0 && size_t(v) < p->choices.size();
    parts.push_back(name + "=" + (named ? p->choices[size_t(v)] : std::to_string(v)));
  }
  return join(parts, " ");
}

TuningRecord record_of(const Sample& s, const Config& c, const std::string& device) {
  TuningRecord r;
  r.device = device;
  r.sample = s.name();
  r.problem_class = s.problem_class(c);
  for (const std::string& f : s.tuned_fields()) {
    if (f == "cluster") r.cluster = c.cluster;
    else r.params[param_name(f)] = c.param(param_name(f));
  }
  return r;
}

AppliedRecord apply_record(const Sample& s, const Config& c, const TuningRecord& r) {
  const std::vector<std::string> fields = s.tuned_fields();
  const std::vector<ParamSpec> specs = s.params();
  Config out = c;
  if (std::find(fields.begin(), fields.end(), "cluster") != fields.end()) out.cluster = r.cluster;
  for (const auto& [name, value] : r.params) {
    const ParamSpec* p = find_param(specs, name);
    if (!p || std::find(fields.begin(), fields.end(), kParamPrefix + name) == fields.end())
      return {std::nullopt, "it sets params." + name + ", which " + s.name() + " does not tune"};
    if (value < p->min || value > p->max)
      return {std::nullopt, "its params." + name + " = " + std::to_string(value) + " is out of range [" +
                                std::to_string(p->min) + ", " + std::to_string(p->max) + "]"};
    out.params[name] = value;
  }
  std::vector<ConfigProblem> problems = s.check_config(out);
  if (!problems.empty()) return {std::nullopt, problems[0].field + ": " + problems[0].message};
  return {std::move(out), ""};
}

TunedChoice decide_tuned(const Sample& s, const Config& c, const TunedQuery& q) {
  TunedChoice choice;
  choice.config = c;
  auto say = [&](TunedChoice::Kind kind, std::string line) {
    choice.kind = kind;
    choice.line = std::move(line);
    return choice;
  };
  const std::vector<Config> candidates = s.tuning_candidates(c);
  if (candidates.empty()) return choice;
  if (!q.enabled) return say(TunedChoice::Kind::Disabled, "not used (--no-tuned)");
  std::vector<std::string> named;
  for (const std::string& f : s.tuned_fields())
    if (c.named.count(f)) named.push_back(f);
  if (!named.empty()) return say(TunedChoice::Kind::SpecChooses, "not used: the spec sets " + join(named, ", ") + " itself");
  if (q.device.empty()) return say(TunedChoice::Kind::NoDevice, "none used: no GPU here, so no device to look up");

  const TuningDb& db = q.db();
  const std::string cls = s.problem_class(c);
  const std::string key = q.device + ", " + s.name() + " " + cls;
  if (db.path().empty())
    return say(TunedChoice::Kind::NoRecord, "none: no place for a tuning DB is known (set TILEJIT_TUNING_DB or HOME)");
  const TuningRecord* r = db.find(q.device, s.name(), cls);
  if (!r) {
    if (!db.problem().empty()) return say(TunedChoice::Kind::NoRecord, "none: the tuning DB " + db.path() + " is unusable (see the warning)");
    return say(TunedChoice::Kind::NoRecord, "none for " + key + " in " + db.path() + " (`tilejit tune SPEC` records one); the spec's config runs");
  }
  AppliedRecord applied = apply_record(s, c, *r);
  if (!applied.config)
    return say(TunedChoice::Kind::Unusable, "the record for " + key + " in " + db.path() + " does not apply (" + applied.why_not +
                                                "); the spec's config runs");
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.1f", r->rate);
  choice.config = std::move(*applied.config);
  return say(TunedChoice::Kind::Applied, describe_fields(s, choice.config, varying_fields(s, candidates)) + " (from " + db.path() +
                                             ", " + rate + " " + r->unit + " on " + r->date + ")");
}

}  // namespace tj::samples

// The CUDA emitted for every sample spec, every test spec and every GEMM config that
// `tilejit tune` (or the bench's ladder) can build, against committed goldens under
// tests/codegen/goldens/. A refactoring of the generator must leave these unchanged;
// a change that means to alter the generated code regenerates them, and the diff of
// the goldens is then the review of what changed in the kernels:
//
//   TILEJIT_UPDATE_GOLDENS=1 build/tests/tilejit_unit_tests "[golden]"
//
// Source locations in the text ("gemm_kernel.cpp:219") are replaced by "<loc>": moving
// a sample's code to another line or file is not a change of the kernel.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli/spec.h"
#include "codegen/lower.h"
#include "dsl/diagnostic.h"
#include "generators/sample.h"
#include "samples/builtin.h"
#include "samples/gemm.h"

namespace fs = std::filesystem;
using tj::samples::Config;
using tj::samples::Sample;

namespace {

const fs::path kGoldens = fs::path(tj::test::source_dir()) / "tests" / "codegen" / "goldens";

std::string normalized(const std::string& text) {
  static const std::regex loc(R"([A-Za-z0-9_./+-]+\.(cpp|h|hpp|cc):[0-9]+)");
  return std::regex_replace(text, loc, "<loc>");
}

// The generated CUDA of `c` for `target`, or the diagnostics that refuse it.
std::string emitted(const Sample& s, const Config& c, const tj::codegen::Target& target) {
  try {
    return tj::codegen::lower(s.build(c), target).cuda;
  } catch (const tj::UserError& e) {
    return std::string("// refused:\n") + e.what() + "\n";
  }
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "line N: golden ... / now ..." for the first line that differs.
std::string first_difference(const std::string& golden, const std::string& now) {
  std::istringstream a(golden), b(now);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ga = bool(std::getline(a, la)), gb = bool(std::getline(b, lb));
    if (!ga && !gb) return "identical";
    if (!ga || !gb || la != lb)
      return "line " + std::to_string(line) + ":\n  golden: " + (ga ? la : "<end>") + "\n  now:    " + (gb ? lb : "<end>");
  }
}

// "1x2"; with planes along z (split-K in the cluster) "1x1x2".
std::string dims(const tj::ir::Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + (d.z > 1 ? "x" + std::to_string(d.z) : "");
}

// A file name for a GEMM config: the fields that change what is built (multicast as built:
// auto builds what on does).
std::string gemm_key(const Config& c) {
  std::string key = "bm" + std::to_string(c.param("bm")) + "_bn" + std::to_string(c.param("bn")) + "_bk" +
                    std::to_string(c.param("bk")) + "_st" + std::to_string(c.param("stages")) + "_cw" +
                    std::to_string(c.param("consumers")) + "_c" + dims(c.cluster) + "_g" + std::to_string(c.param("group")) +
                    "_ws" + std::to_string(c.param("warp_specialized")) + "_p" + std::to_string(c.param("persistent")) +
                    "_mc" + std::to_string(int(tj::samples::gemm_tiling(c).multicast)) + "_sp" + std::to_string(c.param("splits")) + "_si" +
                    std::to_string(c.param("split_issue"));
  if (c.param("pingpong") == 1) key += "_pp";  // cooperative configs keep their names
  if (tj::samples::gemm_tiling(c).atomic_sum) key += "_at";  // and so do those with a slot per split
  if (c.param("swap") == 1) key += "_sw";                     // and those computing D
  return key;
}

struct Case {
  std::string name;  // the golden's file name, without ".cu"
  const Sample* sample;
  Config config;
  tj::codegen::Target target;
};

std::vector<Case> spec_cases() {
  std::vector<Case> out;
  const tj::codegen::Target targets[] = {tj::codegen::Target::sm90a(), tj::codegen::Target::sm100a()};
  for (const char* dir : {"samples/specs", "tests/cli/good_specs"}) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fs::path(tj::test::source_dir()) / dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const tj::cli::Spec spec = tj::cli::load_spec(f.string());
      const std::string base = std::string(dir == std::string("samples/specs") ? "spec_" : "testspec_") + f.stem().string();
      for (const auto& t : targets) {
        out.push_back({base + "_" + t.arch, spec.sample, spec.config, t});
        // What `tilejit run` builds on the H200 (132 SMs) when the sample decides on the device.
        if (auto d = spec.sample->for_device(spec.config, 132))
          out.push_back({base + "_132sms_" + t.arch, spec.sample, d->config, t});
      }
    }
  }
  return out;
}

// Every config the GEMM's tuner tries for problems of each kind (types, layout, beta,
// few tiles with a long K), and the ladder's steps (scripts/gpu_session.sh).
std::vector<Case> gemm_cases() {
  const Sample* gemm = tj::samples::find_sample("gemm");
  REQUIRE(gemm != nullptr);
  struct Problem {
    const char* tag;
    int64_t m, n, k, dtype, out, layout;
    double alpha, beta;
  };
  const Problem problems[] = {
      {"bf16_bf16_tn", 4096, 4096, 4096, 0, 0, 0, 1.0, 0.0},  {"bf16_bf16_tn_fewtiles", 1024, 1024, 8192, 0, 0, 0, 1.0, 0.0},
      {"bf16_f32_tn_beta", 2048, 2048, 1024, 0, 2, 0, 1.5, -0.5}, {"f16_f16_nn", 4096, 4096, 4096, 1, 1, 1, 1.0, 0.0},
      {"bf16_bf16_nn_fewtiles", 1024, 1024, 8192, 0, 0, 1, 1.0, 0.0},
  };
  std::map<std::string, Case> unique;
  for (const Problem& p : problems) {
    Config base = tj::samples::default_config(*gemm);
    base.params["m"] = p.m, base.params["n"] = p.n, base.params["k"] = p.k;
    base.params["dtype"] = p.dtype, base.params["out"] = p.out, base.params["layout"] = p.layout;
    base.reals["alpha"] = p.alpha, base.reals["beta"] = p.beta;
    base.cluster = {1, 2, 1};
    std::vector<Config> configs = gemm->tuning_candidates(base);
    REQUIRE(!configs.empty());
    // The ladder: one warpgroup with 1 and 4 stages, warp-specialized, persistent, clustered.
    auto step = [&](std::map<std::string, int64_t> set, tj::ir::Dim3 cluster) {
      Config c = base;
      c.params["bn"] = 256;
      for (const auto& [k, v] : set) c.params[k] = v;
      c.cluster = cluster;
      if (gemm->check_config(c).empty()) configs.push_back(c);
    };
    step({{"warp_specialized", 0}, {"stages", 1}, {"bn", 128}, {"persistent", 0}}, {1, 1, 1});
    step({{"warp_specialized", 0}, {"stages", 4}, {"bn", 128}, {"persistent", 0}}, {1, 1, 1});
    step({{"persistent", 0}}, {1, 1, 1});
    step({{"persistent", 1}}, {1, 1, 1});
    step({{"split_issue", 0}}, {1, 2, 1});
    step({{"splits", 0}}, {1, 2, 1});
    for (const Config& c : configs) {
      const std::string name = std::string("gemm_") + p.tag + "_" + gemm_key(c);
      unique.emplace(name, Case{name, gemm, c, tj::codegen::Target::sm90a()});
    }
  }
  std::vector<Case> out;
  for (auto& [name, c] : unique) out.push_back(std::move(c));
  return out;
}

void check_goldens(const std::vector<Case>& cases) {
  const char* update = std::getenv("TILEJIT_UPDATE_GOLDENS");
  const bool write = update && std::string(update) == "1";
  if (write) fs::create_directories(kGoldens);
  for (const Case& c : cases) {
    const std::string now = normalized(emitted(*c.sample, c.config, c.target));
    const fs::path file = kGoldens / (c.name + ".cu");
    if (write) {
      std::ofstream(file, std::ios::binary) << now;
      continue;
    }
    INFO("golden " << file.string());
    REQUIRE(fs::exists(file));
    const std::string golden = slurp(file);
    INFO(first_difference(golden, now));
    CHECK(golden == now);
  }
}

}  // namespace

TEST_CASE("the CUDA emitted for every spec matches its golden", "[golden][codegen]") {
  const std::vector<Case> cases = spec_cases();
  CHECK(cases.size() >= 28);  // 14 specs x 2 targets, plus the device decisions
  check_goldens(cases);
}

TEST_CASE("the CUDA emitted for every GEMM config the tuner and the ladder build matches its golden",
          "[golden][codegen][gemm]") {
  const std::vector<Case> cases = gemm_cases();
  CHECK(cases.size() >= 40);
  check_goldens(cases);
}

TEST_CASE("every golden file belongs to a case (none left behind by a rename)", "[golden][codegen]") {
  std::set<std::string> names;
  for (const Case& c : spec_cases()) names.insert(c.name + ".cu");
  for (const Case& c : gemm_cases()) names.insert(c.name + ".cu");
  REQUIRE(fs::is_directory(kGoldens));
  for (const auto& e : fs::directory_iterator(kGoldens)) {
    INFO(e.path().filename().string());
    CHECK(names.count(e.path().filename().string()) == 1);
  }
}

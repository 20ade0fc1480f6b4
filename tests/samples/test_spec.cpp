// Spec parsing (tj::cli::parse_spec): defaults, the forms of each key, and the
// exact message of each error, which names the JSON path.
#include <catch2/catch.hpp>

#include "tests/source_dir.h"

#include <set>

#include "cli/spec.h"
#include "generators/sample.h"
#include "samples/builtin.h"

using tj::cli::parse_spec;
using tj::cli::Spec;
using tj::cli::SpecError;
using tj::ir::Dim3;

namespace {

// The SpecError parse_spec throws for `text` (file "s.json"), as what(); "parsed" otherwise.
std::string error_of(const std::string& text) {
  try {
    parse_spec(text, "s.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "parsed";
}

std::string path_of(const std::string& text) {
  try {
    parse_spec(text, "s.json");
  } catch (const SpecError& e) {
    return e.json_path();
  }
  return "parsed";
}

std::string sample_names() {
  std::string names;
  for (const tj::samples::Sample* s : tj::samples::all_samples()) names += (names.empty() ? "" : ", ") + s->name();
  return names;
}

std::string nested(int depth) {
  // {"kernel": "dsmem_ring", "params": {"elems": [[...]]}}: the root and params are two levels.
  return R"({"kernel": "dsmem_ring", "params": {"elems": )" + std::string(depth - 2, '[') + "1" +
         std::string(depth - 2, ']') + "}}";
}

}  // namespace

TEST_CASE("a minimal spec gets the sample's defaults", "[samples][spec]") {
  Spec s = parse_spec(R"({"kernel": "dsmem_ring"})", "min.json");
  REQUIRE(s.sample != nullptr);
  CHECK(s.sample->name() == "dsmem_ring");
  CHECK(s.file == "min.json");
  CHECK(s.description.empty());
  CHECK(s.config.cluster == Dim3{2, 1, 1});
  CHECK(s.config.grid_clusters == Dim3{2, 1, 1});
  CHECK(s.config.grid_ctas() == Dim3{4, 1, 1});
  CHECK(s.config.num_ctas() == 4);
  CHECK(s.config.threads == 128);
  CHECK_FALSE(s.config.non_portable);
  CHECK(s.config.param("elems") == 4096);
  CHECK(s.config.param("rounds") == 1);
  // Every parameter of the sample has a value, and it is the default.
  CHECK(s.config.params.size() == s.sample->params().size());
  for (const tj::samples::ParamSpec& p : s.sample->params()) CHECK(s.config.param(p.name) == p.default_value);

  Spec r = parse_spec(R"({"kernel": "cluster_reduce"})", "r.json");
  CHECK(r.sample->name() == "cluster_reduce");
  CHECK(r.config.params == std::map<std::string, int64_t>{{"elems", 8192}});
}

TEST_CASE("every key of a full spec is read", "[samples][spec]") {
  Spec s = parse_spec(R"({
    "description": "ring of eight",
    "kernel": "dsmem_ring",
    "cluster": 8,
    "clusters": 16,
    "threads": 512,
    "non_portable": true,
    "params": { "elems": 1024, "rounds": 3 }
  })", "full.json");
  CHECK(s.description == "ring of eight");
  CHECK(s.config.cluster == Dim3{8, 1, 1});
  CHECK(s.config.grid_clusters == Dim3{16, 1, 1});
  CHECK(s.config.num_ctas() == 128);
  CHECK(s.config.threads == 512);
  CHECK(s.config.non_portable);
  CHECK(s.config.param("elems") == 1024);
  CHECK(s.config.param("rounds") == 3);
}

TEST_CASE("a spec records which fields it named, by spec key", "[samples][spec]") {
  using Named = std::set<std::string>;
  CHECK(parse_spec(R"({"kernel": "dsmem_ring"})", "a").config.named.empty());
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "description": "d", "params": {}})", "a").config.named.empty());
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "cluster": 4, "threads": 256, "params": {"rounds": 3}})", "a").config.named ==
        Named{"cluster", "threads", "params.rounds"});
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "grid": 8, "non_portable": false})", "a").config.named ==
        Named{"grid", "non_portable"});
  // Named with its default value is still named: the spec chose it.
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "clusters": 2, "params": {"elems": 4096}})", "a").config.named ==
        Named{"clusters", "params.elems"});
}

TEST_CASE("cluster and clusters take an integer or one to three dimensions", "[samples][spec]") {
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "cluster": 4})", "a").config.cluster == Dim3{4, 1, 1});
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "cluster": [4]})", "a").config.cluster == Dim3{4, 1, 1});
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "cluster": [4, 1, 1]})", "a").config.cluster == Dim3{4, 1, 1});
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "clusters": [3]})", "a").config.grid_clusters == Dim3{3, 1, 1});
  // Shapes the JSON reader accepts are then checked against the sample's own rules, by JSON path.
  CHECK_THROWS_WITH(parse_spec(R"({"kernel": "dsmem_ring", "cluster": [2, 2]})", "a"),
                    "a: $.cluster: dsmem_ring takes a 1-D cluster [n, 1, 1]");
  CHECK_THROWS_WITH(parse_spec(R"({"kernel": "dsmem_ring", "clusters": [3, 5]})", "a"),
                    "a: $.clusters: dsmem_ring takes a 1-D grid of clusters");
  // A JSON number with no fraction is an integer.
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "threads": 256.0})", "a").config.threads == 256);
}

TEST_CASE("grid gives the launch in CTAs and is converted to clusters", "[samples][spec]") {
  Spec s = parse_spec(R"({"kernel": "dsmem_ring", "cluster": 4, "grid": 132})", "g.json");
  CHECK(s.config.grid_clusters == Dim3{33, 1, 1});
  CHECK(s.config.grid_ctas() == Dim3{132, 1, 1});
  // The order of keys does not matter: cluster is applied before grid is divided.
  Spec t = parse_spec(R"({"grid": [8], "kernel": "dsmem_ring", "cluster": [2]})", "g.json");
  CHECK(t.config.grid_clusters == Dim3{4, 1, 1});
  CHECK_THROWS_WITH(parse_spec(R"({"grid": [8, 6, 4], "kernel": "dsmem_ring", "cluster": [2, 3, 4]})", "g.json"),
                    "g.json: $.cluster: dsmem_ring takes a 1-D cluster [n, 1, 1]; and $.clusters: dsmem_ring takes a 1-D grid of clusters");
  // Without a cluster key the default cluster (2) divides the grid.
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "grid": 10})", "g.json").config.grid_clusters == Dim3{5, 1, 1});
}

TEST_CASE("the sample specs in samples/specs parse", "[samples][spec]") {
  const std::string dir = tj::test::source_dir() + "/samples/specs/";
  Spec ring = tj::cli::load_spec(dir + "dsmem_ring.json");
  CHECK(ring.sample->name() == "dsmem_ring");
  CHECK(ring.config.cluster == Dim3{4, 1, 1});
  CHECK(ring.config.grid_clusters == Dim3{33, 1, 1});
  CHECK(ring.config.num_ctas() == 132);
  CHECK(ring.config.threads == 256);
  CHECK(ring.config.param("elems") == 4096);
  CHECK(ring.config.param("rounds") == 1);
  Spec reduce = tj::cli::load_spec(dir + "cluster_reduce.json");
  CHECK(reduce.sample->name() == "cluster_reduce");
  CHECK(reduce.config.cluster == Dim3{4, 1, 1});
  CHECK(reduce.config.grid_clusters == Dim3{33, 1, 1});
  CHECK(reduce.config.threads == 256);
  CHECK(reduce.config.param("elems") == 65536);
  CHECK(reduce.description.rfind("Each CTA sums 65536 floats", 0) == 0);
}

TEST_CASE("JSON that is not a spec object", "[samples][spec][errors]") {
  CHECK(error_of("").rfind("s.json: $: not valid JSON: ", 0) == 0);
  CHECK(error_of(R"({"kernel": "dsmem_ring",)").rfind("s.json: $: not valid JSON: ", 0) == 0);
  CHECK(error_of(R"({"kernel": "dsmem_ring" "cluster": 2})").rfind("s.json: $: not valid JSON: ", 0) == 0);
  CHECK(error_of(R"([{"kernel": "dsmem_ring"}])") == "s.json: $: expected an object at the top level, got an array");
  CHECK(error_of("42") == "s.json: $: expected an object at the top level, got a number");
  CHECK(error_of("null") == "s.json: $: expected an object at the top level, got null");
  CHECK(error_of("{}") == "s.json: $.kernel: missing; name a sample (see `tilejit list`)");
}

TEST_CASE("unknown keys, kernels and parameters", "[samples][spec][errors]") {
  CHECK(error_of(R"({"kernel": "dsmem_ring", "clusterz": 2})") ==
        "s.json: $.clusterz: unknown key; expected one of kernel, cluster, clusters, grid, threads, non_portable, "
        "params, description");
  CHECK(error_of(R"({"kernel": "sgemm"})") == "s.json: $.kernel: unknown kernel 'sgemm'; known: " + sample_names());
  CHECK(sample_names().rfind("dsmem_ring, cluster_reduce", 0) == 0);
  std::string ring_params;
  for (const auto& p : tj::samples::find_sample("dsmem_ring")->params())
    ring_params += (ring_params.empty() ? "" : ", ") + p.name;
  CHECK(ring_params.rfind("elems, rounds", 0) == 0);
  CHECK(error_of(R"({"kernel": "dsmem_ring", "params": {"elem": 4}})") ==
        "s.json: $.params.elem: unknown parameter of dsmem_ring; it takes: " + ring_params);
  CHECK(error_of(R"({"kernel": "cluster_reduce", "params": {"rounds": 4}})") ==
        "s.json: $.params.rounds: unknown parameter of cluster_reduce; it takes: elems");
}

TEST_CASE("wrong types name the key and what was found", "[samples][spec][errors]") {
  const std::string k = R"({"kernel": "dsmem_ring", )";
  CHECK(error_of(R"({"kernel": 7})") == "s.json: $.kernel: expected a string, got a number");
  CHECK(error_of(R"({"kernel": null})") == "s.json: $.kernel: expected a string, got null");
  CHECK(error_of(k + R"("cluster": "4"})") == "s.json: $.cluster: expected an integer or [x, y, z], got a string");
  CHECK(error_of(k + R"("cluster": 2.5})") == "s.json: $.cluster: expected an integer, got 2.500000");
  CHECK(error_of(k + R"("cluster": [2, "2"]})") == "s.json: $.cluster[1]: expected an integer, got a string");
  CHECK(error_of(k + R"("clusters": true})") == "s.json: $.clusters: expected an integer or [x, y, z], got a boolean");
  CHECK(error_of(k + R"("grid": {"x": 4}})") == "s.json: $.grid: expected an integer or [x, y, z], got an object");
  CHECK(error_of(k + R"("threads": "256"})") == "s.json: $.threads: expected an integer, got a string");
  CHECK(error_of(k + R"("threads": [256]})") == "s.json: $.threads: expected an integer, got an array");
  CHECK(error_of(k + R"("non_portable": "yes"})") == "s.json: $.non_portable: expected true or false, got a string");
  CHECK(error_of(k + R"("non_portable": 1})") == "s.json: $.non_portable: expected true or false, got a number");
  CHECK(error_of(k + R"("params": [1]})") == "s.json: $.params: expected an object, got an array");
  CHECK(error_of(k + R"("params": {"elems": "4096"}})") == "s.json: $.params.elems: expected an integer, got a string");
  CHECK(error_of(k + R"("description": 3})") == "s.json: $.description: expected a string, got a number");
  CHECK(path_of(k + R"("cluster": [2, "2"]})") == "$.cluster[1]");
}

TEST_CASE("out-of-range numbers give the range", "[samples][spec][errors]") {
  const std::string k = R"({"kernel": "dsmem_ring", )";
  CHECK(error_of(k + R"("cluster": [0]})") == "s.json: $.cluster[0]: 0 is out of range [1, 1024]");
  CHECK(error_of(k + R"("cluster": 0})") == "s.json: $.cluster: 0 is out of range [1, 1024]");
  CHECK(error_of(k + R"("cluster": [2, 0, 1]})") == "s.json: $.cluster[1]: 0 is out of range [1, 1024]");
  CHECK(error_of(k + R"("cluster": [1, 1, 1, 1]})") == "s.json: $.cluster: expected 1 to 3 dimensions, got 4");
  CHECK(error_of(k + R"("cluster": []})") == "s.json: $.cluster: expected 1 to 3 dimensions, got 0");
  CHECK(error_of(k + R"("threads": 0})") == "s.json: $.threads: 0 is out of range [1, 1024]");
  CHECK(error_of(k + R"("threads": -32})") == "s.json: $.threads: -32 is out of range [1, 1024]");
  CHECK(error_of(k + R"("threads": 1025})") == "s.json: $.threads: 1025 is out of range [1, 1024]");
  CHECK(error_of(k + R"("clusters": 1000000000000})") ==
        "s.json: $.clusters: 1000000000000 is out of range [1, 2147483647]");
  CHECK(error_of(k + R"("grid": [4, -2]})") == "s.json: $.grid[1]: -2 is out of range [1, 2147483647]");
  CHECK(error_of(k + R"("params": {"elems": 58113}})") == "s.json: $.params.elems: 58113 is out of range [1, 58112]");
  CHECK(error_of(k + R"("params": {"rounds": 0}})") == "s.json: $.params.rounds: 0 is out of range [1, 100000]");
  CHECK(parse_spec(k + R"("params": {"elems": 58112}})", "s.json").config.param("elems") == 58112);
}

TEST_CASE("grid and clusters conflicts and limits", "[samples][spec][errors]") {
  const std::string k = R"({"kernel": "dsmem_ring", )";
  CHECK(error_of(k + R"("clusters": 2, "grid": 4})") ==
        "s.json: $.grid: give either \"clusters\" (the grid in clusters) or \"grid\" (in CTAs), not both");
  CHECK(error_of(k + R"("cluster": 2, "grid": 7})") ==
        "s.json: $.grid: grid of (7,1,1) CTAs is not divisible by the cluster shape (2,1,1) (x: 7 % 2 = 1); "
        "give \"clusters\" instead, or a multiple");
  CHECK(error_of(k + R"("cluster": [1, 4], "grid": [3, 6]})") ==
        "s.json: $.grid: grid of (3,6,1) CTAs is not divisible by the cluster shape (1,4,1) (y: 6 % 4 = 2); "
        "give \"clusters\" instead, or a multiple");
  CHECK(error_of(k + R"("cluster": 2, "clusters": 1073741824})") ==
        "s.json: $.clusters: the grid has more than 2^31 - 1 CTAs along x");
  CHECK(error_of(k + R"("cluster": [1, 2], "clusters": [1, 40000]})") ==
        "s.json: $.clusters: the grid has more than 65535 CTAs along y or z");
  CHECK(error_of(k + R"("cluster": [1, 1, 2], "grid": [1, 1, 65536]})") ==
        "s.json: $.grid: the grid has more than 65535 CTAs along y or z");
  CHECK(parse_spec(k + R"("cluster": 1, "clusters": 2147483647})", "s.json").config.grid_ctas().x == 2147483647u);
}

TEST_CASE("nesting is limited to 32 levels, outside strings", "[samples][spec][errors]") {
  CHECK(error_of(nested(32)) == "s.json: $.params.elems: expected an integer, got an array");
  CHECK(error_of(nested(33)) == "s.json: $: nested deeper than 32 levels");
  CHECK(error_of(nested(40)) == "s.json: $: nested deeper than 32 levels");
  // Brackets inside strings, escaped quotes included, are text.
  Spec s = parse_spec(R"({"kernel": "dsmem_ring", "description": "\")" + std::string(40, '[') + R"(\""})", "s.json");
  CHECK(s.description == "\"" + std::string(40, '[') + "\"");
}

TEST_CASE("specs larger than 1 MiB are refused", "[samples][spec][errors]") {
  std::string big = R"({"kernel": "dsmem_ring", "description": ")" + std::string(1 << 20, 'x') + "\"}";
  CHECK(error_of(big) == "s.json: $: spec is larger than 1 MiB");
}

TEST_CASE("load_spec: missing files and directories", "[samples][spec][errors]") {
  auto load_error = [](const std::string& file) -> std::string {
    try {
      tj::cli::load_spec(file);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "loaded";
  };
  CHECK(load_error("/nonexistent/spec.json") ==
        "/nonexistent/spec.json: $: cannot read the file: No such file or directory");
  const std::string dir = tj::test::source_dir() + "/samples/specs";
  CHECK(load_error(dir) == dir + ": $: is a directory, not a spec file");
}

TEST_CASE("duplicate keys are refused at their JSON path", "[samples][spec]") {
  CHECK_THROWS_WITH(parse_spec(R"({"kernel": "dsmem_ring", "kernel": "cluster_reduce"})", "d.json"),
                    "d.json: $.kernel: duplicate key");
  CHECK_THROWS_WITH(parse_spec(R"({"kernel": "dsmem_ring", "params": {"elems": 4, "elems": 8}})", "d.json"),
                    "d.json: $.params.elems: duplicate key");
  // The same key in different objects, or a key-like text inside a string, is fine.
  CHECK(parse_spec(R"({"kernel": "dsmem_ring", "description": "\"kernel\": x", "params": {"elems": 8}})", "d.json")
            .config.param("elems") == 8);
}

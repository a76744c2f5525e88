#include "report/model/references.h"

#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "experiment/yaml_documents.h"
#include "runner_error.h"

namespace mt {
namespace {

// Reads one file, failing with FILE:LINE: what is wrong.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    const YAML::Mark m = at.Mark();
    if (m.line < 0) throw RunnerError(kExitUsage, fmt::format("{}: {}", path_, message));
    throw RunnerError(kExitUsage, fmt::format("{}:{}: {}", path_, m.line + 1, message));
  }

  void only(const YAML::Node& map, const std::string& what, const std::set<std::string>& allowed) const {
    if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping", what));
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (!allowed.count(key)) {
        std::string names;
        for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
        fail(kv.first, fmt::format("unknown field `{}` in {} (known: {})", key, what, names));
      }
    }
  }

  std::string text(const YAML::Node& map, const std::string& key, bool required) const {
    const YAML::Node v = map[key];
    if (!v) {
      if (required) fail(map, fmt::format("missing field `{}`", key));
      return "";
    }
    if (!v.IsScalar()) fail(v, fmt::format("`{}` must be a single value", key));
    return v.as<std::string>();
  }

  double number(const YAML::Node& v, const std::string& key) const {
    if (!v.IsScalar()) fail(v, fmt::format("`{}` must be a number", key));
    const std::string s = v.as<std::string>();
    try {
      size_t used = 0;
      double d = std::stod(s, &used);
      if (used == s.size()) return d;
    } catch (const std::exception&) {}
    fail(v, fmt::format("`{}` must be a number, not \"{}\"", key, s));
  }

  std::optional<double> optional_number(const YAML::Node& map, const std::string& key) const {
    const YAML::Node v = map[key];
    if (!v) return std::nullopt;
    return number(v, key);
  }

  ReferenceScope scope(const YAML::Node& node) const {
    only(node, "`applies_to`",
         {"workload", "strategy", "ranks", "gpu_model", "cpu_model", "model", "result", "operation", "dtype", "bytes",
          "min_bytes", "max_bytes"});
    ReferenceScope s;
    s.workload = text(node, "workload", true);
    if (s.workload != "train" && s.workload != "comm")
      fail(node["workload"], fmt::format("`workload` must be train or comm, not \"{}\"", s.workload));
    s.strategy = text(node, "strategy", false);
    if (auto r = optional_number(node, "ranks")) {
      if (*r < 1 || *r != int(*r)) fail(node["ranks"], "`ranks` must be a whole number of at least 1");
      s.ranks = int(*r);
    }
    s.gpu_model = text(node, "gpu_model", false);
    s.cpu_model = text(node, "cpu_model", false);
    if (s.gpu_model.empty() && s.cpu_model.empty())
      fail(node, "`applies_to` must name the hardware: `gpu_model` or `cpu_model`");
    s.model = text(node, "model", false);
    if (const YAML::Node result = node["result"]) {
      if (!result.IsMap()) fail(result, "`result` must map result fields to values");
      for (const auto& kv : result) {
        if (!kv.second.IsScalar())
          fail(kv.second, fmt::format("`result.{}` must be a single value", kv.first.as<std::string>()));
        s.result[kv.first.as<std::string>()] = kv.second.as<std::string>();
      }
    }
    s.operation = text(node, "operation", false);
    s.dtype = text(node, "dtype", false);
    s.bytes = optional_number(node, "bytes");
    s.min_bytes = optional_number(node, "min_bytes");
    s.max_bytes = optional_number(node, "max_bytes");
    return s;
  }

  ReferenceEntry entry(const YAML::Node& node) const {
    only(node, "a reference", {"id", "metric", "value", "range", "applies_to", "source", "note"});
    ReferenceEntry e;
    e.line = node.Mark().line + 1;
    e.id = text(node, "id", true);
    e.metric = text(node, "metric", true);
    if (!is_reference_metric(e.metric))
      fail(node["metric"],
           fmt::format("unknown metric \"{}\" (known: tokens_per_sec, busbw_gbps, algbw_gbps)", e.metric));
    const YAML::Node value = node["value"], range = node["range"];
    if (bool(value) == bool(range)) fail(node, "give either `value` or `range: [low, high]`");
    if (value) {
      e.low = e.high = number(value, "value");
    } else {
      if (!range.IsSequence() || range.size() != 2) fail(range, "`range` must be [low, high]");
      e.low = number(range[0], "range");
      e.high = number(range[1], "range");
      if (!(e.low < e.high)) fail(range, "`range` must be [low, high] with low < high");
    }
    if (!(e.low > 0)) fail(value ? value : range, "a reference value must be positive");
    if (!node["applies_to"]) fail(node, "missing field `applies_to`");
    e.scope = scope(node["applies_to"]);
    const bool row = is_row_metric(e.metric);
    if (row != (e.scope.workload == "comm"))
      fail(node["metric"], fmt::format("metric {} does not apply to workload {}", e.metric, e.scope.workload));
    if (row && e.scope.operation.empty())
      fail(node["applies_to"], "a collective's reference must name its `operation`");
    if (!node["source"]) fail(node, "missing field `source`: every reference cites where it comes from");
    const YAML::Node source = node["source"];
    only(source, "`source`", {"title", "url", "date"});
    e.source = {text(source, "title", true), text(source, "url", false), text(source, "date", false)};
    e.note = text(node, "note", false);
    return e;
  }

 private:
  std::string path_;
};

}  // namespace

bool is_row_metric(const std::string& metric) { return metric == "busbw_gbps" || metric == "algbw_gbps"; }

bool is_reference_metric(const std::string& metric) { return metric == "tokens_per_sec" || is_row_metric(metric); }

ReferenceFile read_references(const std::filesystem::path& file) {
  ReferenceFile out;
  out.path = file.string();
  std::ifstream in(file);
  if (!in) throw RunnerError(kExitUsage, fmt::format("{}: cannot read the references file", out.path));
  std::stringstream text;
  text << in.rdbuf();
  Reader reader(out.path);
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    throw RunnerError(kExitUsage, fmt::format("{}:{}: not valid YAML: {}", out.path, e.mark.line + 1, e.msg));
  }
  if (const auto second = second_document(out.path))  // a figure there would go unused
    throw RunnerError(kExitUsage,
                      fmt::format("{}:{}: {}", out.path, second->line, second_document_problem("a references file")));
  if (!root.IsMap())
    throw RunnerError(kExitUsage, fmt::format("{}: must be a mapping with `version` and `references`", out.path));
  reader.only(root, "the references file", {"version", "references"});
  out.version = reader.text(root, "version", true);
  const YAML::Node list = root["references"];
  if (!list) reader.fail(root, "missing field `references`");
  if (!list.IsSequence()) reader.fail(list, "`references` must be a list");
  std::set<std::string> ids;
  for (const auto& node : list) {
    ReferenceEntry e = reader.entry(node);
    if (!ids.insert(e.id).second) reader.fail(node["id"], fmt::format("duplicate id \"{}\"", e.id));
    out.entries.push_back(std::move(e));
  }
  return out;
}

}  // namespace mt

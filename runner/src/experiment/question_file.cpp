#include "experiment/question_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "experiment/question_loader.h"
#include "experiment/yaml_documents.h"
#include "experiment/yaml_reader.h"

namespace mt {
namespace {

std::vector<Value> scalars(const YAML::Node& node) {
  std::vector<Value> out;
  if (node.IsScalar()) out.push_back({node.Scalar(), pos_of(node)});
  if (node.IsSequence()) {
    for (const auto& v : node) {
      if (v.IsScalar()) out.push_back({v.Scalar(), pos_of(v)});
    }
  }
  return out;
}

// A study as far as its questions need it; nothing else of it is checked here.
Study sketch_study(const YAML::Node& node) {
  Study s;
  s.pos = pos_of(node);
  if (node["name"] && node["name"].IsScalar()) s.name = node["name"].Scalar();
  if (node["workload"] && node["workload"].IsScalar()) s.workload = node["workload"].Scalar();
  if (const YAML::Node d = node["defaults"]; d && d.IsMap()) {
    for (const auto& kv : d) {
      if (kv.second.IsScalar()) s.defaults.push_back({kv.first.Scalar(), {kv.second.Scalar(), pos_of(kv.second)}});
    }
  }
  if (const YAML::Node m = node["matrix"]; m && m.IsMap()) {
    for (const auto& kv : m) s.axes.push_back({kv.first.Scalar(), scalars(kv.second), pos_of(kv.first)});
  }
  if (const YAML::Node z = node["zip"]; z && z.IsMap()) {
    for (const auto& group : z) {
      ZipGroup g{group.first.Scalar(), {}, pos_of(group.first)};
      if (group.second.IsMap()) {
        for (const auto& kv : group.second) g.axes.push_back({kv.first.Scalar(), scalars(kv.second), pos_of(kv.first)});
      }
      s.zips.push_back(std::move(g));
    }
  }
  if (const YAML::Node inc = node["include"]; inc && inc.IsSequence()) {
    for (const auto& entry : inc) {
      if (!entry.IsMap()) continue;
      Assignment a{{}, pos_of(entry)};
      for (const auto& kv : entry) {
        if (kv.second.IsScalar()) a.values.push_back({kv.first.Scalar(), {kv.second.Scalar(), pos_of(kv.second)}});
      }
      s.include.push_back(std::move(a));
    }
  }
  if (const YAML::Node metrics = node["metrics"]; metrics && metrics.IsMap()) {
    for (const auto& kv : metrics) {
      const YAML::Node better = kv.second.IsMap() ? kv.second["better"] : YAML::Node();
      s.metrics.push_back({kv.first.Scalar(), "", "", better && better.IsScalar() ? better.Scalar() : ""});
    }
  }
  return s;
}

}  // namespace

QuestionFile read_question_file(const std::filesystem::path& file) {
  QuestionFile out;
  YamlReader r(file.string());
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    r.error({}, "experiment file not found");
    out.errors = r.errors();
    return out;
  } catch (const YAML::Exception& e) {
    r.error(pos_of(e.mark), fmt::format("invalid YAML: {}", e.msg));
    out.errors = r.errors();
    return out;
  }
  if (const auto second = second_document(file.string())) {  // its questions could be there
    r.error(*second, second_document_problem());
    out.errors = r.errors();
    return out;
  }
  Experiment exp;
  exp.file = file;
  const YAML::Node studies = root.IsMap() ? root["studies"] : YAML::Node();
  if (!studies || !studies.IsSequence()) {
    r.error({1, 1}, "the experiment needs 'studies': questions are asked of its studies");
    out.errors = r.errors();
    return out;
  }
  for (const auto& node : studies) {
    if (node.IsMap()) exp.studies.push_back(sketch_study(node));
  }
  if (root["questions"]) read_questions(r, root["questions"], exp, nullptr, out.questions);
  std::size_t index = 0;
  for (const auto& node : studies) {
    if (!node.IsMap()) continue;
    if (node["questions"]) read_questions(r, node["questions"], exp, &exp.studies[index], out.questions);
    ++index;
  }
  out.errors = r.errors();
  return out;
}

}  // namespace mt

#include "experiment/yaml_documents.h"

#include <fstream>
#include <string>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "experiment/yaml_reader.h"

namespace mt {
namespace {

// Where a document's first node is, and where it holds nothing (`---` last in the file) where that is.
class FirstNode : public YAML::EventHandler {
 public:
  std::optional<SourcePos> found, empty;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    if (!empty) empty = pos_of(mark);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (!found) found = pos_of(mark);
  }
};

}  // namespace

std::optional<SourcePos> second_document(const std::string& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  YAML::Parser parser(in);
  FirstNode first, second;
  try {
    if (!parser.HandleNextDocument(first)) return std::nullopt;
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  // A `---` last in the file adds an empty document, which is nothing; anything more is refused
  // where it starts. Asked only so far: on some text (`, b` after a `---`) yaml-cpp hands out empty
  // documents for ever without moving on.
  try {
    if (!parser.HandleNextDocument(second)) return std::nullopt;
    if (second.found) return second.found;
    FirstNode third;
    if (!parser.HandleNextDocument(third)) return std::nullopt;
    return third.found ? third.found : third.empty;
  } catch (const YAML::Exception& e) {
    return pos_of(e.mark);
  }
}

std::string second_document_problem(const std::string& kind) {
  return "a second YAML document starts here (after a `---` line, or where a line is indented less than the file's "
         "first): " +
         kind + " is one document, and this would be ignored";
}

}  // namespace mt

#include "experiment/yaml_anchors.h"

#include <fstream>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "experiment/yaml_reader.h"

namespace mt {
namespace {

bool before(SourcePos a, SourcePos b) { return std::tie(a.line, a.column) < std::tie(b.line, b.column); }

// Every anchor with the span of its value and the aliases that use it, from the parser's events.
class AnchorEvents : public YAML::EventHandler {
 public:
  std::map<YAML::anchor_t, AliasedAnchor> anchors;

  void OnDocumentStart(const YAML::Mark& mark) override { reached(mark); }
  void OnDocumentEnd() override { ended_.clear(); }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    reached(mark);
    if (auto it = anchors.find(anchor); it != anchors.end()) it->second.aliases.push_back(pos_of(mark));
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { name_ = name; }

 private:
  std::string name_;                   // of the anchor the next node carries
  std::vector<YAML::anchor_t> open_;   // the collections being read, 0 for those without an anchor
  std::vector<YAML::anchor_t> ended_;  // anchored values whose end is where the next event starts

  // End events carry no position: an anchored value ends where the next thing starts.
  void reached(const YAML::Mark& mark) {
    for (YAML::anchor_t anchor : ended_) anchors[anchor].value_end = pos_of(mark);
    ended_.clear();
  }
  void start(const YAML::Mark& mark, YAML::anchor_t anchor) {
    reached(mark);
    if (anchor != YAML::NullAnchor) anchors[anchor] = {name_, pos_of(mark), {}, {}};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    start(mark, anchor);
    if (anchor != YAML::NullAnchor) ended_.push_back(anchor);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    start(mark, anchor);
    open_.push_back(anchor);
  }
  void close() {
    if (open_.empty()) return;
    if (open_.back() != YAML::NullAnchor) ended_.push_back(open_.back());
    open_.pop_back();
  }
};

}  // namespace

bool AliasedAnchor::holds(SourcePos pos) const {
  return pos.line > 0 && !before(pos, anchor) && (value_end.line == 0 || before(pos, value_end));
}

std::vector<AliasedAnchor> aliased_anchors(const std::string& file) {
  std::ifstream in(file);
  if (!in) return {};
  AnchorEvents events;
  try {
    YAML::Parser parser(in);
    // The first document alone, as YAML::LoadFile reads it (yaml_documents.h refuses more). Asked
    // for further documents, yaml-cpp can hand out empty ones for ever on some text (`, b` after
    // a `---`).
    parser.HandleNextDocument(events);
  } catch (const YAML::Exception&) {
    return {};
  }
  std::vector<AliasedAnchor> out;
  for (auto& [id, anchor] : events.anchors) {
    if (!anchor.aliases.empty()) out.push_back(std::move(anchor));
  }
  return out;
}

std::string alias_notes(const std::string& file, const std::vector<AliasedAnchor>& anchors, SourcePos pos) {
  std::string out;
  for (const AliasedAnchor& a : anchors) {
    if (!a.holds(pos)) continue;
    for (const SourcePos& alias : a.aliases) {
      out += fmt::format(
          "\n{}:{}:{}: note: the value at line {} is anchor &{}, used here too (alias *{}): the problem "
          "may come from this use",
          file, alias.line, alias.column, a.anchor.line, a.name, a.name);
    }
  }
  return out;
}

}  // namespace mt

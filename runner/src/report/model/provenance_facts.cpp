#include "report/model/provenance_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/render/markdown_table.h"

namespace mt {
namespace {

struct Meaning {
  std::string what;
  std::string fix;
};

const std::string kRebuild = "(`scripts/setup.sh` builds both programs as Release)";
const std::string kWrapper =
    "run through the docker wrapper (`docker/run.sh`), which passes the image in (`MT_IMAGE_REF`, `MT_IMAGE_ID`, "
    "`MT_BASE_IMAGE`)";

// Names a capture records, and the descriptions reports derive for records that lack them.
const std::map<std::string, Meaning>& meanings() {
  static const std::map<std::string, Meaning> table = {
      {"source_commit",
       {"ran an experiment that is in no git repository (or without git)",
        "keep the experiment file in a git repository and commit it (`git init`, `git add`, `git commit`)"}},
      {"clean_tree",
       {"ran an experiment whose repository had uncommitted changes",
        "commit the experiment's repository before running (`git commit`)"}},
      {"build_revision",
       {"ran an engine that does not report the commit it was built from",
        "build the engine from a git checkout " + kRebuild}},
      {"build_revision_matches_source",
       {"ran an engine built from another commit of the experiment's own repository",
        "rebuild the engine at the experiment's commit " + kRebuild +
            ", or keep the experiment in a repository of its own"}},
      {"clean_build",
       {"ran an engine built from a tree with uncommitted changes",
        "rebuild the engine from a clean checkout " + kRebuild}},
      {"engine_binary_hash",
       {"ran an engine binary that could not be read to hash it", "make the engine binary readable to `mtrun`"}},
      {"program_hash",
       {"ran a program that could not be read to hash it",
        "name a program `mtrun` can read: a path, or a name on `PATH`"}},
      {"program_hash (the command's own program was not hashed)",
       {"were recorded before a command's own program was hashed (only the engine's hash is known)",
        "run them again with this `mtrun` (`mtrun rerun` or a new campaign)"}},
      {"script_hash", {"ran a script that could not be read to hash it", "make the script readable to `mtrun`"}},
      {"image_ref", {"ran in a container whose image reference is not known", kWrapper}},
      {"image_id", {"ran in a container whose image ID is not known", kWrapper}},
      {"base_image", {"ran in a container whose base image is not known", kWrapper}},
      {"hosts",
       {"do not say which hosts their ranks ran on",
        "have the program write `hosts` in its result JSON, as `mtengine` does"}},
      {"command", {"have no recorded command", "run them again with this `mtrun`"}},
      {"provenance record (only the result's environment is known)",
       {"have no provenance record, only the environment their result reports",
        "run them again with this `mtrun`, which records provenance for every attempt"}},
      {"marked incomplete", {"were marked incomplete without a reason", "run them again with this `mtrun`"}},
  };
  return table;
}

// Older records and the report's own checks describe some facts in words: the same fact.
std::string canonical(const std::string& name) {
  if (name == "clean tree (uncommitted changes)") return "clean_tree";
  if (name == "build_revision = source_commit") return "build_revision_matches_source";
  if (name == "clean tree (engine built from uncommitted changes)") return "clean_build";
  return name;
}

// The recorded name a reader can search for: a description's words in brackets left out.
std::string field_name(const std::string& name) { return name.substr(0, name.find(" (")); }

Meaning meaning_of(const std::string& key) {
  if (key == "software_stack") {
    return {"ran a program that does not report all of its software stack in its result's `environment`",
            "have the program report them (the fields each program must report: `docs/provenance.md`)"};
  }
  if (key.rfind("override:", 0) == 0) {
    return {fmt::format("were run with the docker wrapper's override {}", code(key.substr(9))),
            "fix what it overrode (commit, rebuild the image) and run without the override (`docker/README.md`)"};
  }
  auto it = meanings().find(key);
  if (it != meanings().end()) return it->second;
  return {"lack a field provenance requires", "see what each program must record (`docs/provenance.md`)"};
}

}  // namespace

std::vector<MissingFact> missing_facts(const std::vector<std::vector<std::string>>& missing_per_trial) {
  std::vector<MissingFact> facts;
  std::map<std::string, std::set<std::string>> fields;  // key → the recorded names it covers
  for (const auto& missing : missing_per_trial) {
    std::set<std::string> counted;
    for (const auto& raw : missing) {
      std::string name = canonical(raw);
      std::string key = name.rfind("software_stack.", 0) == 0 ? "software_stack" : name;
      // A description ("provenance record", "marked incomplete") names no field to search for.
      if (std::string field = field_name(name); field.find(' ') == std::string::npos) fields[key].insert(field);
      if (!counted.insert(key).second) continue;
      auto it = std::find_if(facts.begin(), facts.end(), [&](const MissingFact& f) { return f.key == key; });
      if (it == facts.end()) {
        facts.push_back({key, "", "", "", 0});
        it = facts.end() - 1;
      }
      ++it->trials;
    }
  }
  for (auto& fact : facts) {
    for (const auto& name : fields[fact.key]) fact.fields += (fact.fields.empty() ? "" : ", ") + code(name);
    Meaning m = meaning_of(fact.key);
    fact.what = m.what;
    fact.fix = m.fix;
  }
  return facts;
}

std::string fact_line(const MissingFact& fact, int included) {
  return fmt::format("- {} of {} trial{} {}{}: {}.", fact.trials, included, included == 1 ? "" : "s", fact.what,
                     fact.fields.empty() ? "" : " (" + fact.fields + ")", fact.fix);
}

}  // namespace mt

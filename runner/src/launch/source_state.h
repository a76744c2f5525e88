#pragma once
// The state of the source tree an experiment lives in: its git commit and whether it has
// uncommitted changes (and a hash of them). Part of a campaign's identity and of provenance.
#include <filesystem>
#include <string>

namespace mt {

struct SourceState {
  std::string commit = "unknown";  // "unknown" outside a git work tree or without git
  bool dirty = false;
  std::string diff_hash;  // hash of `git diff HEAD` when dirty

  // What identifies the code: the commit, plus the diff hash when the tree is dirty — so an
  // uncommitted change also starts a new campaign.
  std::string revision() const { return dirty ? commit + "+" + diff_hash : commit; }
};

SourceState inspect_source(const std::filesystem::path& dir);

}  // namespace mt

#pragma once
// The state of the source tree an experiment lives in: the git repository holding it, its commit
// and whether it has uncommitted changes (and a hash of them). Part of a campaign's identity and of
// provenance.
#include <filesystem>
#include <string>

namespace mt {

struct SourceState {
  std::string commit = "unknown";  // "unknown" outside a git work tree or without git
  bool dirty = false;
  std::string diff_hash;           // hash of `git diff HEAD` when dirty
  std::filesystem::path toplevel;  // the work tree's top directory; empty outside one
  // Which repository: its `origin` remote without user name or password, or else the top-level
  // path; empty outside a git work tree.
  std::string repository;

  // What identifies the code: the commit, plus the diff hash when the tree is dirty — so an
  // uncommitted change also starts a new campaign.
  std::string revision() const { return dirty ? commit + "+" + diff_hash : commit; }
};

SourceState inspect_source(const std::filesystem::path& dir);

// Whether `revision` is a commit the repository of `source` holds: then a program built from that
// revision was built from this repository, and the experiment's commit should be the one it was
// built from. False outside a repository, without git, or for an unknown revision.
bool repository_has_commit(const SourceState& source, const std::string& revision);

// A remote URL as it may be recorded: "https://user:token@host/x.git" → "https://host/x.git".
std::string without_credentials(const std::string& url);

}  // namespace mt

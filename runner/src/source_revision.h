#pragma once
// The git commit of the tree an experiment file lives in: part of a campaign's identity, so a code
// change starts a new campaign while older results stay queryable.
#include <filesystem>
#include <string>

namespace mt {

// "unknown" when the directory is not in a git work tree or git is missing.
std::string source_revision(const std::filesystem::path& dir);

}  // namespace mt

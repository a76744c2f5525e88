#pragma once
// What `mtrun --version` says: the release, the commit this binary was built from (and whether
// the tree had uncommitted changes), and the database schema version it reads and writes.
#include <string>

namespace mt {

// Compiled in at build time (cmake/WriteBuildRevision.cmake).
const char* build_revision();
bool build_tree_dirty();

// "mtrun 0.1.0\n  revision   <commit>[ (dirty tree)]\n  database   schema version N"
std::string program_version_text();

}  // namespace mt

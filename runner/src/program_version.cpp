#include "program_version.h"

#include <fmt/format.h>

#include "store/schema.h"

#ifndef MT_PROGRAM_VERSION
#error "MT_PROGRAM_VERSION (the project's version) must be defined by the build"
#endif

namespace mt {

std::string program_version_text() {
  return fmt::format("mtrun {}\n  revision   {}{}\n  database   schema version {}", MT_PROGRAM_VERSION,
                     build_revision(), build_tree_dirty() ? " (dirty tree)" : "", latest_schema_version());
}

}  // namespace mt

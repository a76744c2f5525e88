#pragma once
// yaml-cpp hands an alias (`*b`) the very node its anchor (`&b`) names, position included, so a
// mistake in a value used through an alias is reported where the anchor wrote it, once per use,
// and the alias is never named. Which use a check was looking at cannot be told from the node. The
// file's events, read again, say which anchors are used again and what text each one's value spans,
// so a report inside one can name the aliases that use it.
#include <string>
#include <vector>

#include "experiment/diagnostic.h"

namespace mt {

struct AliasedAnchor {
  std::string name;
  SourcePos anchor;                // where `&name` is written
  SourcePos value_end;             // where the next thing after its value starts; line 0: the end of the file
  std::vector<SourcePos> aliases;  // each `*name`, in file order

  bool holds(SourcePos pos) const;
};

// The anchors of `file` that an alias uses, in file order; none where it cannot be read or parsed
// (the load says why).
std::vector<AliasedAnchor> aliased_anchors(const std::string& file);

// A line per alias of each anchor whose value holds `pos`, each led by a newline and placed at the
// alias ("\nFILE:9:15: note: the value at line 5 is anchor &b, used here too (alias *b): ..."); ""
// where `pos` is in no aliased anchor.
std::string alias_notes(const std::string& file, const std::vector<AliasedAnchor>& anchors, SourcePos pos);

}  // namespace mt

#pragma once
// Names for groups shown side by side in one chart: what tells each apart from the others, and
// nothing more. The study when several are shown, the strategy, and of the other
// axes only those that vary among the groups, as "name=value", leaving out an axis whose value
// follows from one already named (axes zipped together, like a model's width and depth). Two
// groups never share a name unless they differ in nothing but ranks.
#include <map>
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

// Group -> its name among `groups`; `with_ranks` adds "×N" where the groups' rank counts differ;
// without `with_strategy` (a table with a strategy column of its own) the strategy is left out, and
// a group with nothing left to name is named by its study.
std::map<const Group*, std::string> distinct_names(const std::vector<const Group*>& groups, bool with_ranks,
                                                   bool with_strategy = true);

// Group -> the axes that tell its configuration from the others' ("d_model=256 precision=fp32"),
// leaving out axes whose values follow from those named (zipped axes); empty for a group whose
// configuration has no axes.
std::map<const Group*, std::string> distinct_configs(const std::vector<const Group*>& groups);

// "d_model=256 precision=fp32" -> {{"d_model", "256"}, {"precision", "fp32"}}, in order.
std::vector<std::pair<std::string, std::string>> config_axes(const std::string& config);

}  // namespace mt

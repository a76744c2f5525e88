#pragma once
// "Against published references": each group whose hardware and configuration a published figure
// applies to (references.h), with our mean, the figure, our share of it and its source.
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/references.h"

namespace mt {

// One group held against one published figure.
struct ReferenceMatch {
  const Group* group = nullptr;
  const ReferenceEntry* entry = nullptr;
  double ours = 0;       // the group's mean (collectives: the best mean over the sizes in scope)
  std::string hardware;  // the group's GPU (or CPU) model
  std::string measured;  // collectives: "all_reduce, 1 GiB, out of place"; empty for training
};

// The hardware a group ran on: its trials' GPU model, else "CPU" and its CPU model.
std::string group_hardware(const Group& group);

// Every (group, entry) pair that applies, groups in report order, entries in file order.
std::vector<ReferenceMatch> match_references(const std::vector<Group>& groups, const ReferenceFile& references);

// The section; one line when the file has entries for these workloads and none applies; nothing
// when it has none for them.
std::string render_references_section(const std::vector<Group>& groups, const ReferenceFile& references);

}  // namespace mt

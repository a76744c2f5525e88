#pragma once
// Trials that are repeats of each other — the same study, workload and parameters, differing only in
// the repeat index — form a group; every figure in a report is a statistic over one group.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

// A configuration as warnings name it: "strategies fsdp ×4 gradient_sync_mode=every" — the study, the
// strategy with its ranks where there is one (else the ranks above one), then the other axes.
std::string configuration_name(const std::string& study, const std::string& strategy, int ranks,
                               const std::string& config);

// Values of one metric over a group's succeeded trials, with the trial each came from.
struct Sample {
  std::vector<double> values;
  std::vector<const ReportTrial*> trials;
};

struct Group {
  std::string key;  // the trials' group_key
  std::string study;
  std::string workload;
  std::string kind;  // report section: the workload, or "fault" for fault-injection scenarios
  std::string strategy;
  int ranks = 1;
  std::string config;                         // the study's other axes, "gradient_sync_mode=every"; empty when none
  std::vector<const ReportTrial*> succeeded;  // the trials whose numbers are used
  int total = 0;                              // trials in the group, succeeded or not
  std::vector<const ReportTrial*> disturbed;  // succeeded on a disturbed machine, left out of `succeeded`
  const ReportTrial* planned = nullptr;       // its first trial, whatever became of it: the parameters
  int failed = 0;  // trials without a succeeded attempt whose latest failed (also timed out, crashed, not launched)

  const ReportTrial& first() const { return *succeeded.front(); }
  // "ddp_scaling gradient_sync_mode=every": what tells this group from others with the same strategy and ranks.
  std::string label() const;
  // The configuration in a sentence: "strategies fsdp ×4 gradient_sync_mode=every" (configuration_name).
  std::string name() const;
  Sample sample(const std::string& metric) const;
  // Distinct values of a result field (dotted path for nested ones), joined with '/'; empty when no
  // trial's result carries it.
  std::string result_text(const std::string& path) const;
  // "2" when every trial succeeded, else "2/3".
  std::string n_text() const;
};

// Whether a metric is a measurement rather than configuration or context (the schema version,
// world size, model config, the environment's numbers): what generic tables and comparisons show.
bool is_measurement(const std::string& metric);

// "fault" when the trial injects a fault (a parameter named fault*, or the fault workload); for a
// `command` trial whose result is a training or collective benchmark (a peer), "train" or "comm";
// else its workload.
std::string trial_kind(const ReportTrial& trial);

// The study's axes other than strategy and ranks with this trial's values, "gradient_sync_mode=every",
// control characters escaped (table_cell.h).
std::string trial_config(const ReportTrial& trial);
// A chain's or restarted trial's scenario: its study, and its other axes when it has any.
std::string scenario_label(const ReportTrial& trial);

// "every" for "gradient_sync_mode=every": the values alone, where charts have little room.
std::string config_values(const std::string& config);

// Text order with numbers compared as numbers: "bucket_cap_mb=4" before "bucket_cap_mb=25".
bool natural_less(const std::string& a, const std::string& b);

// Groups with at least one succeeded trial, in order of first appearance (campaign, then plan order).
// Trials whose machine was disturbed are left out of `succeeded` (and listed in `disturbed`) unless
// `keep_disturbed`; a group left with none is not returned (disturbed_groups lists it).
std::vector<Group> group_trials(const std::vector<ReportTrial>& trials, bool keep_disturbed = false);

// Whether an attempt's state is a failure (failed, timed out, crashed, not launched), as against one
// that succeeded, was interrupted or still runs.
bool attempt_failed(const std::optional<std::string>& state);

// Every group, also those without a succeeded trial (see `failed`, `disturbed` and `total` for what
// became of it): the configurations a campaign planned.
std::vector<Group> every_group(const std::vector<ReportTrial>& trials, bool keep_disturbed = false);

// Pointers to each of `groups`, in order: what the functions over a selection of groups take.
std::vector<const Group*> group_pointers(const std::vector<Group>& groups);

// Groups every one of whose succeeded trials ran on a disturbed machine: shown as such, not averaged.
std::vector<Group> disturbed_groups(const std::vector<ReportTrial>& trials);

// The names under `prefix` ("collectives_per_step.") of the metrics any succeeded trial of `groups`
// carries, without the prefix and sorted: what the results themselves hold, whatever the names.
// Only direct children: "a" for "prefix.a", not "a.b" for "prefix.a.b".
std::vector<std::string> metric_names_under(const std::vector<const Group*>& groups, const std::string& prefix);

// Groups of one kind, keeping order.
std::vector<const Group*> groups_of(const std::vector<Group>& groups, const std::string& kind);

}  // namespace mt

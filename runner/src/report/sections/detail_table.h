#pragma once
// The detail table: per group and metric, everything needed to judge a mean — n, mean, std, min,
// max, 95% confidence interval, coefficient of variation and the outliers by name.
#include <string>
#include <vector>

#include "report/model/groups.h"

namespace mt {

struct MetricSpec {
  std::string name;   // metric name in the store, e.g. "tokens_per_sec"
  std::string title;  // column title, e.g. "tokens/s"
  int decimals = 2;
};

// The specs of metrics the catalogue knows (metric_catalogue.h), in the order given.
std::vector<MetricSpec> catalogue_specs(const std::vector<std::string>& names);

// Rows for every group that has the metric; collapsed by default so the main tables stay readable.
std::string render_detail_table(const std::vector<const Group*>& groups, const std::vector<MetricSpec>& metrics);

// "label, strategy ×ranks": a group as the detail and compare tables name it.
std::string group_name(const Group& group);

}  // namespace mt

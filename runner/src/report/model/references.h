#pragma once
// Published figures to hold our numbers against (references/published.yaml): each entry names a
// metric, a value or a range, the hardware and configuration it applies to, and its source. Read for
// `mtrun report --references FILE`; the format is described in runner/REPORTS.md.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mt {

// What a published figure applies to. Unset fields match anything; `gpu_model` or `cpu_model` is
// always set, since a figure without its hardware says nothing about ours.
struct ReferenceScope {
  std::string workload;  // a report kind: "train" or "comm"
  std::string strategy;
  std::optional<int> ranks;
  std::string gpu_model;  // a part of the environment's gpu_model, any case ("A100")
  std::string cpu_model;  // a part of the environment's cpu_model, any case
  std::string model;      // the model or message in words, shown in the report
  // Result fields (dotted paths) and the value each must have: model shape, batch, precision.
  std::map<std::string, std::string> result;
  // Collectives: the operation, its element type, and the message sizes it applies to.
  std::string operation;
  std::string dtype;
  std::optional<double> bytes;
  std::optional<double> min_bytes;
  std::optional<double> max_bytes;
};

struct ReferenceSource {
  std::string title;
  std::string url;  // empty when the source has no public address
  std::string date;
};

struct ReferenceEntry {
  std::string id;
  std::string metric;  // tokens_per_sec, busbw_gbps, algbw_gbps
  double low = 0;      // a single value has low == high
  double high = 0;
  ReferenceScope scope;
  ReferenceSource source;
  std::string note;
  int line = 0;  // where the entry starts in its file

  bool is_range() const { return low != high; }
};

struct ReferenceFile {
  std::string path;  // as given
  std::string version;
  std::vector<ReferenceEntry> entries;
};

// Metrics an entry may name, and whether each is a collective's (read from result rows).
bool is_reference_metric(const std::string& metric);
bool is_row_metric(const std::string& metric);

// Reads and checks a references file. Throws RunnerError (exit 2) naming FILE:LINE for a file that
// cannot be read, is not YAML, or has an entry with a missing, unknown or ill-typed field.
ReferenceFile read_references(const std::filesystem::path& file);

}  // namespace mt

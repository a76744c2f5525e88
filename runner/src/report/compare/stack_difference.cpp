#include "report/compare/stack_difference.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "report/render/markdown_table.h"

namespace mt {
namespace {

// What decides the numbers by itself: the machine and the libraries that do the arithmetic.
const std::set<std::string> kBlockingFields = {"cpu_model", "gpu_model", "libtorch", "blas_vendor", "blas_version",
                                               "blas_core", "mpi",       "cuda",     "nccl",        "flush_denormal"};
// Worth naming, not by themselves a reason to refuse.
const std::set<std::string> kNotedFields = {"os", "kernel", "compiler", "driver", "python", "cpu_isa", "simd_kernels"};

using FieldValues = std::map<std::string, std::set<std::string>>;

// A recorded software stack (provenance row) or a result's environment: either kind of JSON object.
template <class Json>
void add_fields(const Json& stack, FieldValues& out) {
  for (const auto& [key, value] : stack.items()) {
    if ((!kBlockingFields.count(key) && !kNotedFields.count(key)) || value.is_null()) continue;
    std::string text = value.is_string() ? value.template get<std::string>() : value.dump();
    if (!text.empty() && text != "unknown") out[key].insert(text);
  }
}

// The stack each study's succeeded trials recorded. Studies of one campaign may run different
// programs (the engine and a PyTorch peer) that spell the same library differently, so campaigns
// are held against each other study by study.
std::map<std::string, FieldValues> field_values_by_study(const std::vector<ReportTrial>& trials) {
  std::map<std::string, FieldValues> out;
  for (const auto& t : trials) {
    if (!t.succeeded()) continue;
    FieldValues& values = out[t.study];
    if (t.provenance && t.provenance->software_stack.is_object() && !t.provenance->software_stack.empty()) {
      add_fields(t.provenance->software_stack, values);
    } else if (t.result.is_object() && t.result.contains("environment") && t.result["environment"].is_object()) {
      add_fields(t.result["environment"], values);
    }
  }
  return out;
}

FieldValues pooled(const std::map<std::string, FieldValues>& by_study) {
  FieldValues out;
  for (const auto& [study, values] : by_study) {
    for (const auto& [field, set] : values) out[field].insert(set.begin(), set.end());
  }
  return out;
}

// Per field, A's and B's values in the studies where they differ.
using Differing = std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>>;

void add_differing(const FieldValues& a, const FieldValues& b, Differing& out) {
  for (const auto& [field, values] : a) {
    auto other = b.find(field);
    if (other == b.end() || other->second == values) continue;
    out[field].first.insert(values.begin(), values.end());
    out[field].second.insert(other->second.begin(), other->second.end());
  }
}

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : "/") + v;
  return out;
}

}  // namespace

std::vector<StackDifference> stack_differences(const std::vector<ReportTrial>& a, const std::vector<ReportTrial>& b) {
  const auto va = field_values_by_study(a), vb = field_values_by_study(b);
  Differing differing;
  bool common_study = false;
  for (const auto& [study, values] : va) {
    auto other = vb.find(study);
    if (other == vb.end()) continue;
    common_study = true;
    add_differing(values, other->second, differing);
  }
  // Campaigns with no study in common (renamed, or of other experiments) are held against each
  // other as wholes.
  if (!common_study) add_differing(pooled(va), pooled(vb), differing);
  std::vector<StackDifference> blocking, noted;
  for (const auto& [field, values] : differing) {
    StackDifference d{field, joined(values.first), joined(values.second), kBlockingFields.count(field) > 0};
    (d.blocks ? blocking : noted).push_back(std::move(d));
  }
  blocking.insert(blocking.end(), noted.begin(), noted.end());
  return blocking;
}

bool any_blocking(const std::vector<StackDifference>& differences) {
  for (const auto& d : differences) {
    if (d.blocks) return true;
  }
  return false;
}

std::string describe_differences(const std::vector<StackDifference>& differences, bool blocking) {
  std::string out;
  for (const auto& d : differences) {
    if (d.blocks != blocking) continue;
    out += fmt::format("{}{}: A {}, B {}", out.empty() ? "" : "; ", d.field, code(d.a), code(d.b));
  }
  return out;
}

}  // namespace mt

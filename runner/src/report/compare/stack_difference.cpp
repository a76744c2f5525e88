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

FieldValues field_values(const std::vector<ReportTrial>& trials) {
  FieldValues out;
  for (const auto& t : trials) {
    if (!t.succeeded()) continue;
    if (t.provenance && t.provenance->software_stack.is_object() && !t.provenance->software_stack.empty()) {
      add_fields(t.provenance->software_stack, out);
    } else if (t.result.is_object() && t.result.contains("environment") && t.result["environment"].is_object()) {
      add_fields(t.result["environment"], out);
    }
  }
  return out;
}

std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : "/") + v;
  return out;
}

}  // namespace

std::vector<StackDifference> stack_differences(const std::vector<ReportTrial>& a, const std::vector<ReportTrial>& b) {
  const FieldValues va = field_values(a), vb = field_values(b);
  std::vector<StackDifference> blocking, noted;
  for (const auto& [field, values] : va) {
    auto other = vb.find(field);
    if (other == vb.end() || other->second == values) continue;
    StackDifference d{field, joined(values), joined(other->second), kBlockingFields.count(field) > 0};
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

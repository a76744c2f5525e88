#include "report/sections/machine_line.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "report/model/machine_context.h"

namespace mt {
namespace {

// A machine as one result describes it; a field its program did not record is empty. The family and
// model number tell apart CPUs that VMs name alike ("AMD EPYC": Zen 3, 4 and 5).
struct MachineRecord {
  std::array<std::string, 5> hardware;  // name, family, model number, logical CPUs, ISA
  std::string blas;                     // what ran on it, shown beside it

  // Whether `fuller` may be the same machine, told more fully: every field this record has, it has
  // alike, and it has more of them.
  bool is_part_of(const MachineRecord& fuller) const {
    int mine = 0, theirs = 0;
    for (size_t i = 0; i < hardware.size(); ++i) {
      if (!hardware[i].empty() && hardware[i] != fuller.hardware[i]) return false;
      mine += !hardware[i].empty();
      theirs += !fuller.hardware[i].empty();
    }
    if (!blas.empty() && blas != fuller.blas) return false;
    return theirs + !fuller.blas.empty() > mine + !blas.empty();
  }

  std::string text() const {
    const auto& [name, family, number, cores, isa] = hardware;
    std::string out = name;
    if (!family.empty() && !number.empty()) out += fmt::format(" (family {} model {})", family, number);
    if (!cores.empty()) out += fmt::format(", {} logical CPU{}", cores, cores == "1" ? "" : "s");
    if (!isa.empty()) out += " (" + isa + ")";
    if (!blas.empty()) out += ", " + blas;
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  }

  bool operator==(const MachineRecord& o) const { return hardware == o.hardware && blas == o.blas; }
};

MachineRecord record_of(const nlohmann::json& environment) {
  MachineRecord r;
  r.hardware = {environment_text(environment, "cpu_model"), environment_text(environment, "cpu_family"),
                environment_text(environment, "cpu_model_number"), environment_text(environment, "cpu_cores"),
                environment_text(environment, "cpu_isa")};
  const std::string blas = environment_text(environment, "blas_vendor");
  if (!blas.empty() && blas != kNotRecorded) r.blas = blas + " " + environment_text(environment, "blas_version");
  return r;
}

}  // namespace

std::string machine_line(const ReportData& data) {
  std::vector<MachineRecord> records;
  for (const auto& trial : data.trials) {
    MachineRecord r = record_of(trial_environment(trial));
    if (r.hardware[0].empty()) continue;
    if (std::find(records.begin(), records.end(), r) == records.end()) records.push_back(r);
  }
  // A partial record folds into the one fullest record it agrees with (fields agreeing is
  // transitive, so agreeing with a fuller record means agreeing with a fullest one); agreeing with
  // two, it cannot say which machine it ran on and stays on its own.
  auto fullest = [&](const MachineRecord& r) {
    return std::none_of(records.begin(), records.end(), [&](const auto& o) { return r.is_part_of(o); });
  };
  std::vector<std::string> machines;
  for (const auto& r : records) {
    const auto holders =
        std::count_if(records.begin(), records.end(), [&](const auto& o) { return r.is_part_of(o) && fullest(o); });
    if (holders == 1) continue;
    const std::string text = r.text();
    if (std::find(machines.begin(), machines.end(), text) == machines.end()) machines.push_back(text);
  }
  if (machines.empty()) return "";
  std::string out = machines.size() == 1 ? "Ran on " : fmt::format("Ran on {} machines: ", machines.size());
  for (size_t i = 0; i < machines.size(); ++i) out += (i ? "; " : "") + machines[i];
  return out + ".\n\n";
}

}  // namespace mt

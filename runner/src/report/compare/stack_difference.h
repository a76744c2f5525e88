#pragma once
// Did two campaigns run on the same kind of machine with the same software? Reads the software stack
// each succeeded trial recorded (its provenance row, else its result's environment) and names every
// field whose values differ between the campaigns, study by study (each study runs one program, and
// programs spell a library their own way; campaigns without a study in common, as wholes). A different CPU or GPU model, or a different
// LibTorch, BLAS (vendor, version, core), MPI, CUDA, NCCL or floating-point mode changes the numbers
// by itself: such a difference blocks a comparison unless it is asked for. Others (OS, kernel,
// compiler, driver, Python) are only named.
#include <string>
#include <vector>

#include "report/model/results_source.h"

namespace mt {

struct StackDifference {
  std::string field;  // "cpu_model", "blas_version"
  std::string a;      // the campaign's values, joined with '/'
  std::string b;
  bool blocks = false;
};

// Fields known on both sides with different values, blocking ones first, then in name order.
std::vector<StackDifference> stack_differences(const std::vector<ReportTrial>& a, const std::vector<ReportTrial>& b);

bool any_blocking(const std::vector<StackDifference>& differences);

// "cpu_model: A `X`, B `Y`; blas_version: …" over the blocking (or the other) differences.
std::string describe_differences(const std::vector<StackDifference>& differences, bool blocking);

}  // namespace mt

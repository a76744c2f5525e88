// The report's first statement of where its numbers come from: "Ran on AMD EPYC (family 26 model
// 2), 2 logical CPUs (avx512_bf16 …), MKL 2024.2." CPU figures compare only on one machine, so the
// reader learns it before any number.
#pragma once

#include <string>

#include "report/model/report_model.h"

namespace mt {

// Each distinct machine the trials' results describe, once, followed by "\n\n"; "" when none
// recorded a CPU. A program that records less of the same machine (a peer without the CPU family
// or the BLAS) is counted with the one fuller record it agrees with, not as a machine of its own.
std::string machine_line(const ReportData& data);

}  // namespace mt

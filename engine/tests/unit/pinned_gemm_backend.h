// For tests: one GEMM backend for every shape while the guard lives, then the table decides again.
#pragma once

#include <optional>

#include "training/model/gemm_backend.h"

namespace mt::testing {

struct PinnedGemmBackend {
  explicit PinnedGemmBackend(GemmBackend backend) { pin_gemm_backend(backend); }
  ~PinnedGemmBackend() { pin_gemm_backend(std::nullopt); }
  PinnedGemmBackend(const PinnedGemmBackend&) = delete;
  PinnedGemmBackend& operator=(const PinnedGemmBackend&) = delete;
};

}  // namespace mt::testing

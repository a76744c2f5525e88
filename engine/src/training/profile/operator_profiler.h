// LibTorch's own profiler (Kineto in LibTorch 2.x) around a stretch of training: every ATen
// operator call on the host (and on a GPU its kernels), written as Kineto's Chrome trace; the host
// operators are returned for the top-operator table. It costs far more per operator than our spans, so the engine records it in a step whose
// timings nothing reports (the last warmup step).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "training/profile/operator_stats.h"

namespace mt {

class OperatorProfiler {
 public:
  OperatorProfiler();
  ~OperatorProfiler();

  // Starts recording host operators, and with `device_kernels` the GPU's kernels and copies too
  // (through CUPTI, which the PyTorch wheel ships); throws std::runtime_error when this LibTorch
  // cannot.
  void start(bool device_kernels);
  bool recording() const { return recording_; }
  // Stops, writes the Chrome trace to `trace_path` and returns the operator calls recorded.
  std::vector<OperatorCall> stop(const std::string& trace_path);

 private:
  bool recording_ = false;
};

}  // namespace mt

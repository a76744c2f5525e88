// Where a rank's model runs, and what differs there: placement of the batches, timing of a step's
// phases, and the device's memory peaks. On the CPU, phases are host clock readings. On a GPU,
// work is asynchronous: phases are CUDA events on the compute stream, read after the one
// synchronize at the end of each step, so no phase boundary stalls the host.
#pragma once

#include <torch/torch.h>

#include <array>
#include <cstdint>
#include <memory>

namespace mt {

// rank_wait: this rank waiting at the step's start for the slowest one (a straggler shows here,
// and the whole step is as long as its slowest rank).
enum class StepPhase { data, compute, optimizer, rank_wait };
constexpr std::size_t kStepPhases = 4;

struct StepTimes {
  std::array<double, kStepPhases> phase_ms{};  // summed over the step's intervals of each phase
  double step_ms = 0;
  double operator[](StepPhase phase) const { return phase_ms[static_cast<std::size_t>(phase)]; }
};

struct DeviceMemoryPeaks {
  int64_t max_allocated_bytes = 0;  // tensors (the caching allocator's view); 0 on the CPU
  int64_t max_reserved_bytes = 0;   // what the allocator took from the driver
};

class DeviceRuntime {
 public:
  virtual ~DeviceRuntime() = default;

  virtual torch::Device device() const = 0;
  virtual bool is_gpu() const = 0;
  // A host batch on the device; on a GPU, copied from pinned memory without blocking the host.
  virtual torch::Tensor to_device(const torch::Tensor& host) = 0;

  virtual void begin_step() = 0;
  virtual void start(StepPhase phase) = 0;
  virtual void stop(StepPhase phase) = 0;
  // Waits for the device to finish the step, then returns its times.
  virtual StepTimes end_step() = 0;

  virtual DeviceMemoryPeaks memory_peaks() const = 0;
};

// The CPU, or (gpu) the CUDA device this process selected.
std::unique_ptr<DeviceRuntime> make_device_runtime(bool gpu);

}  // namespace mt

#include <chrono>
#include <stdexcept>

#include "training/device/device_runtime.h"

namespace mt {

#if MT_WITH_CUDA
std::unique_ptr<DeviceRuntime> make_gpu_device_runtime();
#endif

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

class CpuDeviceRuntime final : public DeviceRuntime {
 public:
  torch::Device device() const override { return torch::kCPU; }
  bool is_gpu() const override { return false; }
  torch::Tensor to_device(const torch::Tensor& host) override { return host; }

  void begin_step() override {
    times_ = StepTimes{};
    step_start_ = Clock::now();
  }
  void start(StepPhase phase) override { started_[index(phase)] = Clock::now(); }
  void stop(StepPhase phase) override {
    times_.phase_ms[index(phase)] += ms_between(started_[index(phase)], Clock::now());
  }
  StepTimes end_step() override {
    times_.step_ms = ms_between(step_start_, Clock::now());
    return times_;
  }

  DeviceMemoryPeaks memory_peaks() const override { return {}; }

 private:
  static std::size_t index(StepPhase phase) { return static_cast<std::size_t>(phase); }

  Clock::time_point step_start_;
  std::array<Clock::time_point, kStepPhases> started_{};
  StepTimes times_;
};

}  // namespace

std::unique_ptr<DeviceRuntime> make_device_runtime(bool gpu) {
  if (!gpu) return std::make_unique<CpuDeviceRuntime>();
#if MT_WITH_CUDA
  return make_gpu_device_runtime();
#else
  throw std::runtime_error("this build has no CUDA support");
#endif
}

}  // namespace mt

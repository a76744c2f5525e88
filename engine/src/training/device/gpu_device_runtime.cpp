// The CUDA side of DeviceRuntime (see device_runtime.h). Built only with CUDA.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>

#include <vector>

#include "training/device/device_runtime.h"

namespace mt {
namespace {

class GpuDeviceRuntime final : public DeviceRuntime {
 public:
  GpuDeviceRuntime() : device_(torch::kCUDA, c10::cuda::current_device()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device_.index());
  }

  torch::Device device() const override { return device_; }
  bool is_gpu() const override { return true; }
  torch::Tensor to_device(const torch::Tensor& host) override {
    return host.pin_memory().to(device_, /*non_blocking=*/true);
  }

  void begin_step() override {
    used_ = 0;
    intervals_.clear();
    record(step_start_);
  }
  void start(StepPhase phase) override {
    intervals_.push_back({phase, next_event(), nullptr});
    record(*intervals_.back().start);
  }
  void stop(StepPhase phase) override {
    for (auto it = intervals_.rbegin(); it != intervals_.rend(); ++it) {
      if (it->phase != phase || it->stop) continue;
      it->stop = next_event();
      record(*it->stop);
      return;
    }
  }
  StepTimes end_step() override {
    record(step_end_);
    step_end_.synchronize();  // the step boundary: the only host wait of the step
    StepTimes times;
    for (const auto& interval : intervals_)
      if (interval.stop)
        times.phase_ms[static_cast<std::size_t>(interval.phase)] += interval.start->elapsed_time(*interval.stop);
    times.step_ms = step_start_.elapsed_time(step_end_);
    return times;
  }

  DeviceMemoryPeaks memory_peaks() const override {
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_.index());
    constexpr auto kAll = static_cast<std::size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    return {stats.allocated_bytes[kAll].peak, stats.reserved_bytes[kAll].peak};
  }

 private:
  struct Interval {
    StepPhase phase;
    at::cuda::CUDAEvent* start;
    at::cuda::CUDAEvent* stop;
  };

  void record(at::cuda::CUDAEvent& event) { event.record(at::cuda::getCurrentCUDAStream(device_.index())); }

  // Events are reused from step to step: creating them is not free.
  at::cuda::CUDAEvent* next_event() {
    if (used_ == pool_.size()) pool_.push_back(std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault));
    return pool_[used_++].get();
  }

  torch::Device device_;
  at::cuda::CUDAEvent step_start_{cudaEventDefault}, step_end_{cudaEventDefault};
  std::vector<std::unique_ptr<at::cuda::CUDAEvent>> pool_;
  std::size_t used_ = 0;
  std::vector<Interval> intervals_;
};

}  // namespace

std::unique_ptr<DeviceRuntime> make_gpu_device_runtime() { return std::make_unique<GpuDeviceRuntime>(); }

}  // namespace mt

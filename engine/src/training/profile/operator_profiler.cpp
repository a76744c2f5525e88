#include "training/profile/operator_profiler.h"

#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>

#include <cstdlib>
#include <stdexcept>

namespace mt {
namespace {

namespace kineto = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

std::set<ActivityType> activities(bool device_kernels) {
  std::set<ActivityType> chosen{ActivityType::CPU};
  if (device_kernels) chosen.insert(ActivityType::CUDA);
  return chosen;
}

ProfilerConfig config() { return ProfilerConfig(ProfilerState::KINETO); }

// An ATen operator call; the other host activities are annotations around operators, which
// would count them twice.
constexpr auto kCpuOperator = static_cast<uint8_t>(libkineto::ActivityType::CPU_OP);

}  // namespace

OperatorProfiler::OperatorProfiler() {
  // Kineto logs, as errors, that it found no GPU when asked only for host activity. Quiet it
  // unless the user set its log level.
  setenv("KINETO_LOG_LEVEL", "5", 0);
}

OperatorProfiler::~OperatorProfiler() {
  if (recording_) {
    try {
      kineto::disableProfiler();
    } catch (...) {  // nothing to report from a destructor
    }
  }
}

void OperatorProfiler::start(bool device_kernels) {
  try {
    kineto::prepareProfiler(config(), activities(device_kernels));
    kineto::enableProfiler(config(), activities(device_kernels));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("LibTorch's profiler could not start: ") + e.what());
  }
  recording_ = true;
}

std::vector<OperatorCall> OperatorProfiler::stop(const std::string& trace_path) {
  recording_ = false;
  auto result = kineto::disableProfiler();
  if (!result) throw std::runtime_error("LibTorch's profiler returned no result");
  std::vector<OperatorCall> calls;
  for (const auto& event : result->events()) {
    if (event.activityType() != kCpuOperator) continue;
    calls.push_back({event.name(), event.startThreadId(), static_cast<int64_t>(event.startNs()),
                     static_cast<int64_t>(event.endNs())});
  }
  result->save(trace_path);
  return calls;
}

}  // namespace mt

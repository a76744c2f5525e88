// The GPUs this process can see and the one it uses. Torch-free and CUDA-free header: builds
// without CUDA answer "none" and refuse to select a device with a clear message.
#pragma once

#include <string>

namespace mt {

struct GpuInfo {
  int device_count = 0;
  std::string model;       // of the selected (or first) device
  std::string driver;      // CUDA driver API version the driver supports, e.g. "13.2"
  std::string runtime;     // CUDA runtime the engine loaded
  std::string nccl;        // NCCL library version loaded, e.g. "2.30.7"
  std::string nccl_built;  // NCCL headers the engine was compiled against
  double memory_gib = 0;
  std::string problem;  // why no GPU can be used, when none can
};

bool built_with_cuda();
bool built_with_nccl();
GpuInfo gpu_info();
// The NCCL library version loaded ("" without NCCL); needs no GPU.
std::string gpu_info_nccl_version();

// Makes device `local_rank` current for this process. Throws std::runtime_error naming the
// problem: no CUDA in this build, no GPU visible, or fewer GPUs than ranks on this host.
int select_cuda_device(int local_rank, int local_size);

}  // namespace mt

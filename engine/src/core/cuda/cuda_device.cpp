#include "core/cuda/cuda_device.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#if MT_WITH_CUDA
#include "core/cuda/cuda_check.h"
#endif
#include "core/process/job_abort.h"

namespace mt {
namespace {

#if MT_WITH_CUDA
std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }
#endif

}  // namespace

#if MT_WITH_CUDA
void cuda_failure(const std::string& library, const std::string& error, const char* call, const char* file, int line) {
  abort_job(fmt::format("{} error at {}:{} in {}: {}", library, file, line, call, error), 1);
}
#endif

bool built_with_cuda() { return MT_WITH_CUDA; }
bool built_with_nccl() { return MT_WITH_NCCL; }

GpuInfo gpu_info() {
  GpuInfo info;
#if MT_WITH_CUDA
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) info.driver = cuda_version_text(driver);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) info.runtime = cuda_version_text(runtime);
  const cudaError_t rc = cudaGetDeviceCount(&info.device_count);
  if (driver == 0) {
    info.device_count = 0;
    info.problem = "no GPU: no NVIDIA driver is loaded on this host";
    cudaGetLastError();
  } else if (rc != cudaSuccess) {
    info.device_count = 0;
    info.problem = fmt::format("no usable GPU: {}", cudaGetErrorString(rc));
    cudaGetLastError();  // clear the sticky error for later callers
  } else if (info.device_count == 0) {
    info.problem = "no GPU visible (CUDA_VISIBLE_DEVICES, driver)";
  } else {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceProp properties{};
    if (cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
      info.model = properties.name;
      info.memory_gib = static_cast<double>(properties.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    }
  }
  info.nccl = gpu_info_nccl_version();
#if MT_WITH_NCCL
  info.nccl_built = fmt::format("{}.{}.{}", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
#endif
#else
  info.problem = "this build has no CUDA support";
#endif
  return info;
}

std::string gpu_info_nccl_version() {
#if MT_WITH_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    return fmt::format("{}.{}.{}", nccl / 10000, (nccl % 10000) / 100, nccl % 100);
#endif
  return "";
}

int select_cuda_device(int local_rank, int local_size) {
#if MT_WITH_CUDA
  const GpuInfo info = gpu_info();
  if (info.device_count == 0) throw std::runtime_error(info.problem);
  if (info.device_count < local_size)
    throw std::runtime_error(
        fmt::format("{} ranks on this host but only {} GPU(s) visible: start at most {} ranks per host, or "
                    "make more GPUs visible (CUDA_VISIBLE_DEVICES)",
                    local_size, info.device_count, info.device_count));
  MT_CUDA_CHECK(cudaSetDevice(local_rank));
  return local_rank;
#else
  (void)local_rank;
  (void)local_size;
  throw std::runtime_error("this build has no CUDA support: rebuild with the CUDA-enabled PyTorch wheel");
#endif
}

}  // namespace mt

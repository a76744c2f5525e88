#include "core/comm/nccl/nccl_probe.h"

#include <fmt/format.h>

#include "core/comm/backends.h"
#include "core/cuda/cuda_check.h"

namespace mt {

bool nccl_probe(ControlChannel& control) {
  auto comm = make_communicator("nccl", control, /*timeout_s=*/30);
  const int n = control.world_size();
  const float mine = static_cast<float>(control.rank() + 1);
  float* device = nullptr;
  MT_CUDA_CHECK(cudaMalloc(&device, sizeof(float)));
  MT_CUDA_CHECK(cudaMemcpy(device, &mine, sizeof(float), cudaMemcpyHostToDevice));
  comm->all_reduce(device, 1, ElementType::f32)->wait();
  float result = 0;
  MT_CUDA_CHECK(cudaMemcpy(&result, device, sizeof(float), cudaMemcpyDeviceToHost));
  MT_CUDA_CHECK(cudaFree(device));
  const bool ok = control.min(result == static_cast<float>(n * (n + 1) / 2) ? 1.0 : 0.0) > 0;
  if (control.rank() == 0)
    fmt::print("  all-reduce       nccl over {} rank(s), device buffers: {}\n", n,
               ok ? "ok" : "WRONG RESULT: check NCCL_DEBUG=INFO output and the interfaces above");
  return ok;
}

}  // namespace mt

#include "workloads/comm/bench_buffer.h"

#include <cstring>
#include <stdexcept>

#if MT_WITH_CUDA
#include "core/cuda/cuda_check.h"
#endif

namespace mt {

BenchBuffer::BenchBuffer(std::size_t floats, bool device) : floats_(floats), device_(device) {
  if (!device_) {
    host_.assign(floats_ == 0 ? 1 : floats_, 0.0f);
    data_ = host_.data();
    return;
  }
#if MT_WITH_CUDA
  MT_CUDA_CHECK(cudaMalloc(&data_, (floats_ == 0 ? 1 : floats_) * sizeof(float)));
#else
  throw std::runtime_error("device buffers need a build with CUDA");
#endif
}

BenchBuffer::~BenchBuffer() {
#if MT_WITH_CUDA
  if (device_ && data_) cudaFree(data_);
#endif
}

void BenchBuffer::upload(const std::vector<float>& host) {
  const std::size_t bytes = std::min(host.size(), floats_) * sizeof(float);
  if (!device_) {
    std::memcpy(data_, host.data(), bytes);
    return;
  }
#if MT_WITH_CUDA
  MT_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes, cudaMemcpyHostToDevice));
#endif
}

std::vector<float> BenchBuffer::download() const {
  std::vector<float> out(floats_);
  if (!device_) {
    std::memcpy(out.data(), data_, floats_ * sizeof(float));
    return out;
  }
#if MT_WITH_CUDA
  MT_CUDA_CHECK(cudaMemcpy(out.data(), data_, floats_ * sizeof(float), cudaMemcpyDeviceToHost));
#endif
  return out;
}

}  // namespace mt

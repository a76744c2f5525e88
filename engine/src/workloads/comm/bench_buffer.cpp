#include "workloads/comm/bench_buffer.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#if MT_WITH_CUDA
#include "core/cuda/cuda_check.h"
#endif

namespace mt {
namespace {

// Host buffers start on a cache line, as LibTorch's CPU tensors do (c10 aligns them to 64 bytes), so
// a collective is measured on the memory training hands it. Alignment matters: Open MPI's shared-
// memory transport copies a large message with one process_vm_readv, and a destination 16 bytes off
// the source's cache line (malloc's alignment allows it) cost a 32 MiB broadcast on 2 ranks of a 2-vCPU
// EPYC Zen 5 a fifth of its busbw (21-23 GB/s against 25-29 with both buffers on cache lines).
constexpr std::size_t kHostAlignment = 64;

}  // namespace

BenchBuffer::BenchBuffer(std::size_t floats, bool device) : floats_(floats), device_(device) {
  if (!device_) {
    const std::size_t bytes =
        (std::max<std::size_t>(floats_, 1) * sizeof(float) + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
    host_.reset(static_cast<float*>(std::aligned_alloc(kHostAlignment, bytes)));
    if (!host_) throw std::bad_alloc();
    std::memset(host_.get(), 0, bytes);
    data_ = host_.get();
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
  if (bytes == 0) return;  // an empty vector's data() may be null, which memcpy must never see
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
  if (floats_ == 0) return out;  // nothing to copy, and out.data() may be null
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

// A benchmark buffer in the memory the communicator works on: host memory, or the GPU's.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

namespace mt {

class BenchBuffer {
 public:
  BenchBuffer(std::size_t floats, bool device);
  ~BenchBuffer();
  BenchBuffer(const BenchBuffer&) = delete;
  BenchBuffer& operator=(const BenchBuffer&) = delete;

  void* data() { return data_; }
  void upload(const std::vector<float>& host);
  std::vector<float> download() const;

 private:
  std::size_t floats_;
  bool device_;
  void* data_ = nullptr;
  struct FreeHost {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, FreeHost> host_;  // the storage itself, for host buffers
};

}  // namespace mt

#include "training/optim/grad_norm.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <numeric>

#include "core/kernels/sum_of_squares_kernel.h"

namespace mt {
namespace {

constexpr int64_t kChunkElements = 1 << 16;

struct Chunk {
  const float* data;
  int64_t n;
};

bool summed_on_host(const torch::Tensor& grad) {
  return grad.is_cpu() && grad.scalar_type() == torch::kFloat && grad.is_contiguous();
}

}  // namespace

torch::Tensor squared_gradient_norm(const std::vector<torch::Tensor>& parameters, const torch::Device& device) {
  const auto options = torch::TensorOptions().dtype(torch::kDouble).device(device);
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return torch::zeros({}, options);
  if (!std::all_of(grads.begin(), grads.end(), summed_on_host))
    return torch::stack(at::_foreach_norm(grads)).to(torch::kDouble).pow(2).sum();

  std::vector<Chunk> chunks;
  for (const auto& g : grads)
    for (int64_t begin = 0; begin < g.numel(); begin += kChunkElements)
      chunks.push_back({g.data_ptr<float>() + begin, std::min(kChunkElements, g.numel() - begin)});
  std::vector<double> sums(chunks.size());
  at::parallel_for(0, static_cast<int64_t>(chunks.size()), 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      const auto i = static_cast<std::size_t>(c);
      sums[i] = sum_of_squares(chunks[i].data, chunks[i].n);
    }
  });
  return torch::tensor(std::accumulate(sums.begin(), sums.end(), 0.0), options);
}

}  // namespace mt

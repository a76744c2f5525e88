#include "training/model/gelu.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include "core/kernels/gelu_kernel.h"

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Elements per task, as ATen's own elementwise grain.
constexpr int64_t kGrain = 32768;

class ErfGelu : public torch::autograd::Function<ErfGelu> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x) {
    RECORD_FUNCTION("mt::erf_gelu", std::vector<c10::IValue>());  // named in LibTorch's profiler
    auto y = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* out = y.data_ptr<float>();
    at::parallel_for(0, x.numel(), kGrain,
                     [&](int64_t first, int64_t last) { gelu_forward(in + first, out + first, last - first); });
    ctx->save_for_backward({x});
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    RECORD_FUNCTION("mt::erf_gelu_backward", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const auto x = ctx->get_saved_variables()[0];
    const auto dy = grad_outputs[0].contiguous();
    auto dx = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    const float* grad_in = dy.data_ptr<float>();
    float* grad_out = dx.data_ptr<float>();
    at::parallel_for(0, x.numel(), kGrain, [&](int64_t first, int64_t last) {
      gelu_backward(in + first, grad_in + first, grad_out + first, last - first);
    });
    return {dx};
  }
};

}  // namespace

torch::Tensor erf_gelu(const torch::Tensor& x) {
  if (!x.device().is_cpu() || x.scalar_type() != torch::kFloat) return torch::gelu(x);
  return ErfGelu::apply(x.contiguous());
}

}  // namespace mt

#include "training/model/cross_entropy.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include "core/kernels/cross_entropy_kernel.h"

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Rows per task: a few vocabulary-wide rows amortise the scheduling.
constexpr int64_t kRowGrain = 16;

class SoftmaxCrossEntropy : public torch::autograd::Function<SoftmaxCrossEntropy> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& logits, const torch::Tensor& targets,
                               bool overwrite_logits) {
    RECORD_FUNCTION("mt::softmax_cross_entropy", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const int64_t rows = logits.size(0), cols = logits.size(1);
    const float* data = logits.data_ptr<float>();
    const int64_t* target = targets.data_ptr<int64_t>();
    for (int64_t r = 0; r < rows; ++r)
      TORCH_CHECK(target[r] >= 0 && target[r] < cols, "softmax_cross_entropy: target ", target[r], " at row ", r,
                  " is outside [0, ", cols, ")");

    auto lse = torch::empty({rows}, logits.options());
    float* lse_data = lse.data_ptr<float>();
    at::parallel_for(0, rows, kRowGrain,
                     [&](int64_t first, int64_t last) { log_sum_exp_rows(data, cols, first, last, lse_data); });
    double total = 0;  // N terms of similar size: double keeps the mean exact to float
    for (int64_t r = 0; r < rows; ++r) total += lse_data[r] - data[r * cols + target[r]];

    ctx->save_for_backward({logits, targets, lse});
    ctx->saved_data["overwrite_logits"] = overwrite_logits;
    return torch::scalar_tensor(total / static_cast<double>(rows), logits.options());
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    RECORD_FUNCTION("mt::softmax_cross_entropy_backward", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const auto saved = ctx->get_saved_variables();
    const auto& logits = saved[0];
    const int64_t rows = logits.size(0), cols = logits.size(1);
    const float scale = grad_outputs[0].item<float>() / static_cast<float>(rows);
    // Each element is read before it is written, at the same place: the kernel runs in place.
    auto grad = ctx->saved_data["overwrite_logits"].toBool() ? logits : torch::empty_like(logits);
    const float* data = logits.data_ptr<float>();
    const float* lse = saved[2].data_ptr<float>();
    const int64_t* target = saved[1].data_ptr<int64_t>();
    float* out = grad.data_ptr<float>();
    at::parallel_for(0, rows, kRowGrain, [&](int64_t first, int64_t last) {
      softmax_minus_one_hot_rows(data, lse, target, cols, scale, first, last, out);
    });
    return {grad, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor softmax_cross_entropy(const torch::Tensor& logits, const torch::Tensor& targets,
                                    LogitsAfterBackward after) {
  TORCH_CHECK(logits.dim() == 2 && targets.dim() == 1 && logits.size(0) == targets.size(0),
              "softmax_cross_entropy: expected logits [N, V] and targets [N], got ", logits.sizes(), " and ",
              targets.sizes());
  if (!logits.device().is_cpu() || logits.size(0) == 0) return torch::nn::functional::cross_entropy(logits, targets);
  // bf16 logits (autocast) are widened first, as autocast does for cross_entropy.
  return SoftmaxCrossEntropy::apply(logits.to(torch::kFloat).contiguous(), targets.to(torch::kLong).contiguous(),
                                    after == LogitsAfterBackward::overwritten);
}

}  // namespace mt

#include "training/model/embedding.h"

#include "training/model/grad_in_place.h"

namespace mt {
namespace {

struct EmbeddingLookup : torch::autograd::Function<EmbeddingLookup> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& weight,
                               const torch::Tensor& ids) {
    ctx->save_for_backward({weight, ids});
    return at::embedding(weight, ids);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& weight = saved[0];
    const auto& ids = saved[1];
    const auto rows = grads[0].reshape({-1, weight.size(1)});
    // On the CPU only: a GPU's index_add_ sums repeated rows in no fixed order.
    if (auto grad = weight.is_cpu() ? grad_to_accumulate_into(weight, rows.scalar_type()) : torch::Tensor();
        grad.defined()) {
      grad.index_add_(0, ids.reshape({-1}), rows);
      return {torch::Tensor(), torch::Tensor()};  // the accumulator runs with nothing to add
    }
    return {at::embedding_dense_backward(rows, ids.reshape({-1}), weight.size(0), /*padding_idx=*/-1,
                                         /*scale_grad_by_freq=*/false),
            torch::Tensor()};
  }
};

}  // namespace

torch::Tensor embedding_lookup(const torch::Tensor& weight, const torch::Tensor& ids) {
  return EmbeddingLookup::apply(weight, ids);
}

}  // namespace mt

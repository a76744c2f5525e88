#include "training/model/activation_checkpoint.h"

#include <ATen/autocast_mode.h>
#include <torch/csrc/autograd/custom_function.h>

#include <memory>

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Lives as long as the runner that owns it, which outlives every backward of the model.
struct CheckpointTarget {
  BlockRunner inner;
};

class CheckpointedBlock : public torch::autograd::Function<CheckpointedBlock> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, CheckpointTarget* target, int64_t index,
                               Block* block) {
    ctx->save_for_backward({x});
    // Pointers travel as integers: saved_data holds IValues only.
    ctx->saved_data["target"] = reinterpret_cast<int64_t>(target);
    ctx->saved_data["block"] = reinterpret_cast<int64_t>(block->ptr().get());
    ctx->saved_data["index"] = index;
    // Dropout draws from the default generator of the device the block runs on.
    ctx->saved_data["rng"] = at::globalContext().defaultGenerator(x.device()).get_state();
    ctx->saved_data["autocast"] = at::autocast::is_autocast_enabled(x.device().type());
    torch::NoGradGuard no_grad;
    return target->inner(index, *block, x);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto* target = reinterpret_cast<CheckpointTarget*>(ctx->saved_data["target"].toInt());
    auto* impl = reinterpret_cast<BlockImpl*>(ctx->saved_data["block"].toInt());
    Block block(std::dynamic_pointer_cast<BlockImpl>(impl->shared_from_this()));
    const int64_t index = ctx->saved_data["index"].toInt();
    auto input = ctx->get_saved_variables()[0].detach().requires_grad_(true);

    // Replay the forward's dropout masks, then put the generator back where backward found it.
    const auto device = input.device();
    auto generator = at::globalContext().defaultGenerator(device);
    const auto resume_state = generator.get_state();
    generator.set_state(ctx->saved_data["rng"].toTensor());
    const bool autocast_before = at::autocast::is_autocast_enabled(device.type());
    at::autocast::set_autocast_enabled(device.type(), ctx->saved_data["autocast"].toBool());
    torch::Tensor output;
    {
      torch::AutoGradMode enable_grad(true);
      output = target->inner(index, block, input);
    }
    at::autocast::set_autocast_enabled(device.type(), autocast_before);
    generator.set_state(resume_state);

    // Parameter gradients accumulate into .grad directly, as in the plain run.
    torch::autograd::backward({output}, {grad_outputs[0]});
    return {input.grad(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

BlockRunner checkpointed_runner(BlockRunner inner) {
  auto target = std::make_shared<CheckpointTarget>(CheckpointTarget{std::move(inner)});
  return [target](int64_t index, Block& block, const torch::Tensor& x) {
    if (!torch::GradMode::is_enabled()) return target->inner(index, block, x);
    return CheckpointedBlock::apply(x, target.get(), index, &block);
  };
}

}  // namespace mt

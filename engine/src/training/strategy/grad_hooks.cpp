#include "training/strategy/grad_hooks.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace mt {
namespace {

class CallbackPostHook final : public torch::autograd::FunctionPostHook {
 public:
  explicit CallbackPostHook(std::function<void()> callback) : callback_(std::move(callback)) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    callback_();
    return outputs;
  }

 private:
  std::function<void()> callback_;
};

}  // namespace

GradHooks::GradHooks() = default;
GradHooks::~GradHooks() = default;

void GradHooks::after_accumulate(const torch::Tensor& parameter, std::function<void()> callback) {
  auto accumulator = torch::autograd::impl::grad_accumulator(parameter);
  TORCH_CHECK(accumulator, "parameter has no gradient accumulator (requires_grad off?)");
  accumulator->add_post_hook(std::make_unique<CallbackPostHook>(std::move(callback)));
  accumulators_.push_back(std::move(accumulator));
}

void GradHooks::before_accumulate(torch::Tensor& parameter, std::function<void()> callback) {
  parameter.register_hook([callback = std::move(callback)](const torch::Tensor&) { callback(); });
}

}  // namespace mt

#include "training/optim/fused_adamw.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <stdexcept>

#include "training/checkpoint/checkpoint_error.h"
#include "core/kernels/fused_adamw_kernel.h"

namespace mt {
namespace {

// Large enough to amortise scheduling, small enough to balance two threads on a small model.
constexpr int64_t kChunkElements = 1 << 15;

}  // namespace

FusedAdamW::FusedAdamW(std::vector<torch::Tensor> parameters, FusedAdamWOptions options)
    : parameters_(std::move(parameters)), options_(options) {
  int64_t total = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    if (p.scalar_type() != torch::kFloat || !p.is_contiguous())
      throw std::invalid_argument("fused AdamW: parameters must be contiguous fp32 tensors");
    offsets_.push_back(total);
    for (int64_t begin = 0; begin < p.numel(); begin += kChunkElements)
      chunks_.push_back({i, begin, std::min(p.numel(), begin + kChunkElements)});
    total += p.numel();
  }
  steps_.assign(parameters_.size(), 0);
  const auto placement =
      parameters_.empty() ? torch::TensorOptions().dtype(torch::kFloat) : parameters_.front().options();
  exp_avg_ = torch::zeros({total}, placement);
  exp_avg_sq_ = torch::zeros({total}, placement);
  if (!parameters_.empty() && !parameters_.front().device().is_cpu())
    for (std::size_t i = 0; i < parameters_.size(); ++i) device_steps_.push_back(torch::zeros({}, placement));
}

bool FusedAdamW::step(double grad_scale, bool clear_gradients) {
  RECORD_FUNCTION("mt::fused_adamw", std::vector<c10::IValue>());  // named in LibTorch's profiler
  if (!device_steps_.empty()) {
    step_on_device(grad_scale);
    return false;
  }
  std::vector<AdamWScalars> scalars(parameters_.size());
  std::vector<float*> param_data(parameters_.size(), nullptr);
  std::vector<float*> grad_data(parameters_.size(), nullptr);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const auto& grad = parameters_[i].grad();
    if (!grad.defined()) continue;
    if (grad.scalar_type() != torch::kFloat || !grad.is_contiguous())
      throw std::invalid_argument("fused AdamW: gradients must be contiguous fp32 tensors");
    const int64_t step = ++steps_[i];
    // Computed in double and rounded once, as torch passes these scalars to its kernels.
    const double bias_correction1 = 1 - std::pow(options_.beta1, static_cast<double>(step));
    const double bias_correction2 = 1 - std::pow(options_.beta2, static_cast<double>(step));
    scalars[i] = AdamWScalars{static_cast<float>(1 - options_.lr * options_.weight_decay),
                              static_cast<float>(options_.beta1),
                              static_cast<float>(1 - options_.beta1),
                              static_cast<float>(options_.beta2),
                              static_cast<float>(1 - options_.beta2),
                              static_cast<float>(std::sqrt(bias_correction2)),
                              static_cast<float>(options_.eps),
                              static_cast<float>(-options_.lr / bias_correction1),
                              static_cast<float>(grad_scale)};
    param_data[i] = parameters_[i].data_ptr<float>();
    grad_data[i] = grad.data_ptr<float>();
  }
  float* m = exp_avg_.data_ptr<float>();
  float* v = exp_avg_sq_.data_ptr<float>();
  at::parallel_for(0, static_cast<int64_t>(chunks_.size()), 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      const Chunk& chunk = chunks_[static_cast<std::size_t>(c)];
      if (!grad_data[chunk.tensor]) continue;
      const int64_t at = offsets_[chunk.tensor] + chunk.begin;
      float* param = param_data[chunk.tensor] + chunk.begin;
      float* grad = grad_data[chunk.tensor] + chunk.begin;
      const int64_t n = chunk.end - chunk.begin;
      if (clear_gradients) adamw_update_clearing_grad(param, grad, m + at, v + at, n, scalars[chunk.tensor]);
      else adamw_update(param, grad, m + at, v + at, n, scalars[chunk.tensor]);
    }
  });
  return clear_gradients;
}

// ATen's fused AdamW kernel for the device: the same math in one launch over all tensors. Its
// grad_scale divides the gradients, so clipping passes the reciprocal of its factor.
void FusedAdamW::step_on_device(double grad_scale) {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    if (!p.grad().defined()) continue;
    ++steps_[i];
    params.push_back(p);
    grads.push_back(p.grad());
    exp_avgs.push_back(exp_avg_.narrow(0, offsets_[i], p.numel()).view(p.sizes()));
    exp_avg_sqs.push_back(exp_avg_sq_.narrow(0, offsets_[i], p.numel()).view(p.sizes()));
    steps.push_back(device_steps_[i]);
  }
  if (params.empty()) return;
  torch::NoGradGuard no_grad;
  at::_foreach_add_(steps, 1);
  std::optional<torch::Tensor> divide_by;
  if (grad_scale != 1.0) divide_by = torch::full({}, 1.0 / grad_scale, exp_avg_.options());
  at::_fused_adamw_(params, grads, exp_avgs, exp_avg_sqs, {}, steps, options_.lr, options_.beta1, options_.beta2,
                    options_.weight_decay, options_.eps, /*amsgrad=*/false,
                    /*maximize=*/false, divide_by, std::nullopt);
}

std::vector<NamedTensor> FusedAdamW::state() const {
  return {{"optimizer/exp_avg", exp_avg_},
          {"optimizer/exp_avg_sq", exp_avg_sq_},
          {"optimizer/steps", torch::tensor(steps_, torch::TensorOptions().dtype(torch::kLong))}};
}

void FusedAdamW::load_state(const std::map<std::string, torch::Tensor>& tensors) {
  auto take = [&](const char* name, const torch::Tensor& into) {
    auto it = tensors.find(name);
    if (it == tensors.end()) throw CheckpointError(std::string("checkpoint lacks ") + name);
    if (it->second.sizes() != into.sizes() || it->second.scalar_type() != into.scalar_type())
      throw CheckpointError(std::string("checkpoint's ") + name + " does not fit this model's optimizer");
    return it->second;
  };
  torch::NoGradGuard no_grad;
  exp_avg_.copy_(take("optimizer/exp_avg", exp_avg_));
  exp_avg_sq_.copy_(take("optimizer/exp_avg_sq", exp_avg_sq_));
  const auto steps = take("optimizer/steps", torch::tensor(steps_, torch::TensorOptions().dtype(torch::kLong)));
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    steps_[i] = steps[static_cast<int64_t>(i)].item<int64_t>();
    if (!device_steps_.empty()) device_steps_[i].fill_(static_cast<double>(steps_[i]));
  }
}

namespace {

int64_t slice_numel(int64_t total, int world_size) { return (total + world_size - 1) / world_size; }

}  // namespace

std::vector<NamedTensor> FusedAdamW::state_slice(int rank, int world_size) const {
  const int64_t total = exp_avg_.numel(), slice = slice_numel(total, world_size);
  const int64_t begin = std::min(total, rank * slice), end = std::min(total, begin + slice);
  auto cut = [&](const torch::Tensor& moments) {
    auto out = torch::zeros({slice}, moments.options());
    out.narrow(0, 0, end - begin).copy_(moments.narrow(0, begin, end - begin));
    return out;
  };
  return {{"optimizer/exp_avg", cut(exp_avg_)},
          {"optimizer/exp_avg_sq", cut(exp_avg_sq_)},
          {"optimizer/steps", torch::tensor(steps_, torch::TensorOptions().dtype(torch::kLong))}};
}

void FusedAdamW::load_state_slices(const std::map<std::string, torch::Tensor>& tensors, Communicator& comm) {
  const int64_t total = exp_avg_.numel(), slice = slice_numel(total, comm.world_size());
  auto gather = [&](const char* name, torch::Tensor& into) {
    auto it = tensors.find(name);
    if (it == tensors.end()) throw CheckpointError(std::string("checkpoint lacks ") + name);
    if (it->second.numel() != slice || it->second.scalar_type() != into.scalar_type())
      throw CheckpointError(std::string("checkpoint's ") + name + " does not fit this model's optimizer");
    auto mine = it->second.to(into.device()).contiguous();
    auto whole = torch::empty({slice * comm.world_size()}, into.options());
    comm.all_gather(mine.data_ptr(), whole.data_ptr(), static_cast<std::size_t>(slice), ElementType::f32)->wait();
    torch::NoGradGuard no_grad;
    into.copy_(whole.narrow(0, 0, total));
  };
  gather("optimizer/exp_avg", exp_avg_);
  gather("optimizer/exp_avg_sq", exp_avg_sq_);
  auto steps = tensors.find("optimizer/steps");
  if (steps == tensors.end()) throw CheckpointError("checkpoint lacks optimizer/steps");
  if (steps->second.numel() != static_cast<int64_t>(steps_.size()) || steps->second.scalar_type() != torch::kLong)
    throw CheckpointError("checkpoint's optimizer/steps does not fit this model's optimizer");
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    steps_[i] = steps->second[static_cast<int64_t>(i)].item<int64_t>();
    if (!device_steps_.empty()) device_steps_[i].fill_(static_cast<double>(steps_[i]));
  }
}

int64_t FusedAdamW::state_bytes() const {
  int64_t total = 0;
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (steps_[i] > 0) total += 2 * parameters_[i].numel() * static_cast<int64_t>(sizeof(float));
  return total;
}

}  // namespace mt

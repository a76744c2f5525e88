#include "training/model/grad_in_place.h"

#include <mutex>
#include <shared_mutex>
#include <unordered_set>

namespace mt {
namespace {

std::shared_mutex registry_mutex;

std::unordered_multiset<const c10::TensorImpl*>& registered() {
  static std::unordered_multiset<const c10::TensorImpl*> parameters;
  return parameters;
}

}  // namespace

GradsAccumulatedInPlace::GradsAccumulatedInPlace(const std::vector<torch::Tensor>& parameters) {
  std::unique_lock lock(registry_mutex);
  for (const auto& p : parameters) {
    parameters_.push_back(p.unsafeGetTensorImpl());
    registered().insert(parameters_.back());
  }
}

GradsAccumulatedInPlace::~GradsAccumulatedInPlace() {
  std::unique_lock lock(registry_mutex);
  for (const auto* p : parameters_) registered().erase(registered().find(p));
}

torch::Tensor grad_to_accumulate_into(const torch::Tensor& parameter, torch::ScalarType dtype) {
  if (torch::GradMode::is_enabled()) return {};
  {
    std::shared_lock lock(registry_mutex);
    if (registered().count(parameter.unsafeGetTensorImpl()) == 0) return {};
  }
  const auto& grad = parameter.grad();
  if (!grad.defined() || !grad.is_contiguous() || grad.scalar_type() != dtype) return {};
  return grad;
}

}  // namespace mt

#include "training/strategy/flat_unit.h"

#include <algorithm>
#include <stdexcept>

namespace mt {
namespace {

int64_t bytes_of(int64_t numel) { return numel * static_cast<int64_t>(sizeof(float)); }

// Frees a tensor's memory but keeps its storage object, so views of it stay valid handles.
void release_storage(const torch::Tensor& t) {
  auto* storage = t.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(at::DataPtr(nullptr, t.device()));
  storage->set_nbytes(0);
}

void restore_storage(const torch::Tensor& t, int64_t numel) {
  auto* storage = t.storage().unsafeGetStorageImpl();
  const auto nbytes = static_cast<std::size_t>(bytes_of(numel));
  storage->set_data_ptr_noswap(storage->allocator()->allocate(nbytes));
  storage->set_nbytes(nbytes);
}

}  // namespace

void MemoryLedger::add_full_parameters(int64_t bytes) {
  full_parameter_live += bytes;
  full_parameter_peak = std::max(full_parameter_peak, full_parameter_live);
}

void MemoryLedger::add_gradients(int64_t bytes) {
  gradient_live += bytes;
  gradient_peak = std::max(gradient_peak, gradient_live);
}

FlatUnit::FlatUnit(std::vector<torch::Tensor> parameters, Communicator& comm, MemoryLedger& ledger, bool shard_is_view)
    : comm_(comm), ledger_(ledger), parameters_(std::move(parameters)), shard_is_view_(shard_is_view) {
  for (const auto& p : parameters_) numel_ += p.numel();
  const int64_t world = comm.world_size();
  shard_numel_ = (numel_ + world - 1) / world;
  padded_numel_ = shard_numel_ * world;

  torch::NoGradGuard no_grad;
  const auto options = parameters_.front().options().dtype(torch::kFloat);
  full_ = torch::zeros({padded_numel_}, options);
  full_grad_ = torch::zeros({padded_numel_}, options);
  int64_t offset = 0;
  for (auto& p : parameters_) {
    auto view = full_.narrow(0, offset, p.numel()).view(p.sizes());
    view.copy_(p);
    p.set_data(view);
    offset += p.numel();
  }
  ledger_.add_full_parameters(bytes_of(padded_numel_));
  release_storage(full_grad_);

  auto mine = full_.narrow(0, comm.rank() * shard_numel_, shard_numel_);
  shard_ = shard_is_view_ ? mine : mine.clone();
  shard_grad_ = torch::zeros({shard_numel_}, options);
  ledger_.add_gradients(bytes_of(shard_numel_));
}

WorkHandle FlatUnit::start_gather_parameters() {
  if (parameters_resident_) return nullptr;
  restore_storage(full_, padded_numel_);
  ledger_.add_full_parameters(bytes_of(padded_numel_));
  parameters_resident_ = true;
  return comm_.all_gather(shard_.data_ptr<float>(), full_.data_ptr<float>(), static_cast<std::size_t>(shard_numel_),
                          ElementType::f32);
}

void FlatUnit::gather_parameters() {
  if (auto work = start_gather_parameters()) work->wait();
}

void FlatUnit::release_parameters() {
  if (!parameters_resident_ || shard_is_view_) return;
  release_storage(full_);
  ledger_.add_full_parameters(-bytes_of(padded_numel_));
  parameters_resident_ = false;
}

void FlatUnit::ensure_gradients() {
  if (gradients_resident_) return;
  restore_storage(full_grad_, padded_numel_);
  full_grad_.zero_();
  ledger_.add_gradients(bytes_of(padded_numel_));
  int64_t offset = 0;
  for (auto& p : parameters_) {
    p.mutable_grad() = full_grad_.narrow(0, offset, p.numel()).view(p.sizes());
    offset += p.numel();
  }
  gradients_resident_ = true;
}

void FlatUnit::release_gradients() {
  if (!gradients_resident_) return;
  release_storage(full_grad_);
  ledger_.add_gradients(-bytes_of(padded_numel_));
  gradients_resident_ = false;
}

void FlatUnit::copy_gradient_shard() {
  torch::NoGradGuard no_grad;
  shard_grad_.copy_(full_grad_.narrow(0, comm_.rank() * shard_numel_, shard_numel_));
}

torch::Tensor FlatUnit::gather_gradient_shards() {
  auto full = torch::empty({padded_numel_}, shard_grad_.options());
  comm_
      .all_gather(shard_grad_.data_ptr<float>(), full.data_ptr<float>(), static_cast<std::size_t>(shard_numel_),
                  ElementType::f32)
      ->wait();
  return full;
}

WorkHandle FlatUnit::start_all_gather_in_place() {
  return comm_.all_gather(shard_.data_ptr<float>(), full_.data_ptr<float>(), static_cast<std::size_t>(shard_numel_),
                          ElementType::f32);
}

std::vector<torch::Tensor> shard_parameters(const std::vector<std::unique_ptr<FlatUnit>>& units) {
  std::vector<torch::Tensor> out;
  for (const auto& unit : units) {
    unit->shard().mutable_grad() = unit->shard_grad();
    out.push_back(unit->shard());
  }
  return out;
}

std::vector<NamedTensor> unit_shards(const std::vector<std::unique_ptr<FlatUnit>>& units) {
  std::vector<NamedTensor> out;
  for (std::size_t u = 0; u < units.size(); ++u) out.push_back({"model/unit_" + std::to_string(u), units[u]->shard()});
  return out;
}

namespace {

// Calls f(unit index, offset in the unit, model index) for every member of every unit; a model
// parameter is found by identity (units hold the model's own parameter tensors).
template <typename F>
void for_each_member(const std::vector<std::unique_ptr<FlatUnit>>& units,
                     const std::vector<torch::Tensor>& model_parameters, F f) {
  for (std::size_t u = 0; u < units.size(); ++u) {
    int64_t offset = 0;
    for (const auto& member : units[u]->parameters()) {
      auto same = [&](const torch::Tensor& p) { return p.unsafeGetTensorImpl() == member.unsafeGetTensorImpl(); };
      const auto it = std::find_if(model_parameters.begin(), model_parameters.end(), same);
      if (it == model_parameters.end())
        throw std::logic_error("flat unit holds a tensor that is not a model parameter");
      f(u, offset, static_cast<std::size_t>(it - model_parameters.begin()));
      offset += member.numel();
    }
  }
}

}  // namespace

std::vector<ParameterPlacement> unit_placements(const std::vector<std::unique_ptr<FlatUnit>>& units,
                                                const std::vector<torch::Tensor>& model_parameters) {
  std::vector<ParameterPlacement> out(model_parameters.size());
  for_each_member(units, model_parameters, [&](std::size_t u, int64_t offset, std::size_t index) {
    out[index] = {"model/unit_" + std::to_string(u), offset, units[u]->shard_numel()};
  });
  return out;
}

std::vector<torch::Tensor> gathered_gradients(const std::vector<std::unique_ptr<FlatUnit>>& units,
                                              const std::vector<torch::Tensor>& model_parameters) {
  std::vector<torch::Tensor> full;
  for (const auto& unit : units) full.push_back(unit->gather_gradient_shards());
  std::vector<torch::Tensor> out(model_parameters.size());
  for_each_member(units, model_parameters, [&](std::size_t u, int64_t offset, std::size_t index) {
    const auto& p = model_parameters[index];
    out[index] = full[u].narrow(0, offset, p.numel()).view(p.sizes()).clone();
  });
  return out;
}

StrategyReport flat_units_report(const std::vector<std::unique_ptr<FlatUnit>>& units, ParameterResidency residency,
                                 int64_t held_gradient_bytes, const MemoryLedger& ledger) {
  constexpr int64_t kFloatBytes = sizeof(float);
  StrategyReport out;
  for (const auto& unit : units) {
    out.bucket_bytes.push_back(unit->padded_numel() * kFloatBytes);
    const int64_t kept = residency == ParameterResidency::shard ? unit->shard_numel() : unit->padded_numel();
    out.parameter_bytes += kept * kFloatBytes;
  }
  out.gradient_bytes = held_gradient_bytes;
  out.peak_gradient_bytes = ledger.gradient_peak;
  out.peak_full_parameter_bytes = ledger.full_parameter_peak;
  // Sharded parameters are whole only while gathered; full residency gathers nothing.
  out.gathered_parameter_bytes = residency == ParameterResidency::shard ? ledger.full_parameter_peak : 0;
  return out;
}

}  // namespace mt

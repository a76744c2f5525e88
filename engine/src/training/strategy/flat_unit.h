// A group of parameters stored as one flat fp32 buffer on their device, padded to a multiple of the world size
// and split into equal contiguous shards, one per rank (FSDP units, ZeRO buckets). The model's
// parameters and their .grad become views into the unit's full buffers, so a collective on the
// flat buffer moves every parameter at once and the model code never changes. The full buffers
// can be released (their storage freed, views kept) and brought back; views then see the new
// memory, which is how FSDP frees gathered parameters between uses while autograd still holds
// references to them.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/comm/communicator.h"
#include "training/strategy/strategy.h"

namespace mt {

// Bytes of unsharded parameters and of gradients held at once, with their peaks.
struct MemoryLedger {
  int64_t full_parameter_live = 0, full_parameter_peak = 0;
  int64_t gradient_live = 0, gradient_peak = 0;
  void add_full_parameters(int64_t bytes);
  void add_gradients(int64_t bytes);
};

class FlatUnit {
 public:
  // shard_is_view: the shard aliases the full buffer (ZeRO, parameters always resident);
  // otherwise it is a tensor of its own that survives release_parameters() (FSDP).
  FlatUnit(std::vector<torch::Tensor> parameters, Communicator& comm, MemoryLedger& ledger, bool shard_is_view);

  const std::vector<torch::Tensor>& parameters() const { return parameters_; }
  int64_t numel() const { return numel_; }
  int64_t padded_numel() const { return padded_numel_; }
  int64_t shard_numel() const { return shard_numel_; }

  // This rank's slice: the tensor the optimizer steps, and its gradient.
  torch::Tensor& shard() { return shard_; }
  torch::Tensor& shard_grad() { return shard_grad_; }

  bool parameters_resident() const { return parameters_resident_; }
  // full <- all-gather(shards), allocating if released. The full parameters may be read once
  // the returned handle completes; nullptr when they were resident already.
  WorkHandle start_gather_parameters();
  void gather_parameters();  // the same, waited for
  void release_parameters();

  bool gradients_resident() const { return gradients_resident_; }
  void ensure_gradients();  // allocates zeroed full gradients if released; .grad views them
  void release_gradients();
  torch::Tensor& full_gradients() { return full_grad_; }

  // Every rank's shard gradient gathered into a new padded flat tensor (collective).
  torch::Tensor gather_gradient_shards();

  // shard_grad = full gradients[my shard] (after an all-reduce left every rank the average).
  void copy_gradient_shard();
  // After the optimizer stepped this rank's shard (aliasing the full buffer): every rank's
  // updated shard into the full buffer, in place.
  WorkHandle start_all_gather_in_place();

 private:
  Communicator& comm_;
  MemoryLedger& ledger_;
  std::vector<torch::Tensor> parameters_;
  int64_t numel_ = 0, padded_numel_ = 0, shard_numel_ = 0;
  torch::Tensor full_, full_grad_, shard_, shard_grad_;
  bool shard_is_view_;
  bool parameters_resident_ = true, gradients_resident_ = false;
};

// Each unit's shard with its shard gradient attached: what the optimizer steps on.
std::vector<torch::Tensor> shard_parameters(const std::vector<std::unique_ptr<FlatUnit>>& units);

// Each unit's shard under the name it is checkpointed as: model/unit_<index>.
std::vector<NamedTensor> unit_shards(const std::vector<std::unique_ptr<FlatUnit>>& units);

// Where each model parameter (model order) sits: in unit u's flat buffer at its offset there,
// the buffer saved as model/unit_<u> in shards of the unit's shard size.
std::vector<ParameterPlacement> unit_placements(const std::vector<std::unique_ptr<FlatUnit>>& units,
                                                const std::vector<torch::Tensor>& model_parameters);

// Every unit's shard gradients all-gathered into full gradients, one tensor per model parameter
// in model order (collective; the shards hold the averaged gradients the optimizer steps on).
std::vector<torch::Tensor> gathered_gradients(const std::vector<std::unique_ptr<FlatUnit>>& units,
                                              const std::vector<torch::Tensor>& model_parameters);

// Whether a rank keeps only its shard of each unit's parameters (FSDP) or all of them (ZeRO).
enum class ParameterResidency { shard, full };

// The memory report of a strategy built on flat units: one bucket per unit, the parameter bytes
// this rank keeps, and the gradient and gathered-parameter peaks from its ledger.
StrategyReport flat_units_report(const std::vector<std::unique_ptr<FlatUnit>>& units, ParameterResidency residency,
                                 int64_t held_gradient_bytes, const MemoryLedger& ledger);

}  // namespace mt

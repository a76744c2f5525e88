#include "training/strategy/parameter_broadcast.h"

namespace mt {

void broadcast_parameters(Communicator& comm, const std::vector<torch::Tensor>& parameters) {
  if (comm.world_size() == 1 || parameters.empty()) return;
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> flat_views;
  for (const auto& p : parameters) flat_views.push_back(p.detach().reshape({-1}));
  auto flat = torch::cat(flat_views);
  comm.broadcast(flat.data_ptr(), static_cast<std::size_t>(flat.numel()), ElementType::f32, /*root=*/0)->wait();
  int64_t offset = 0;
  for (const auto& p : parameters) {
    p.detach().copy_(flat.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace mt

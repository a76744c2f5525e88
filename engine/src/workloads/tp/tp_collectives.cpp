#include "workloads/tp/tp_collectives.h"

#include <torch/csrc/autograd/custom_function.h>

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

Communicator& comm_of(AutogradContext* ctx) {
  return *reinterpret_cast<Communicator*>(ctx->saved_data["comm"].toInt());
}

torch::Tensor all_reduced(const torch::Tensor& x, Communicator& comm) {
  auto out = x.contiguous().clone();
  comm.all_reduce(out.data_ptr(), static_cast<std::size_t>(out.numel()), ElementType::f32)->wait();
  comm.synchronize();
  return out;
}

// [B, S/n, ...] on every rank -> [B, S, ...], rank r's part at positions r·S/n.
torch::Tensor gathered_along_sequence(const torch::Tensor& x, Communicator& comm) {
  const int64_t n = comm.world_size();
  auto mine = x.transpose(0, 1).contiguous();  // [S/n, B, ...]: this rank's block is contiguous
  auto sizes = mine.sizes().vec();
  sizes[0] *= n;
  auto all = torch::empty(sizes, mine.options());
  comm.all_gather(mine.data_ptr(), all.data_ptr(), static_cast<std::size_t>(mine.numel()), ElementType::f32)->wait();
  comm.synchronize();
  return all.transpose(0, 1).contiguous();
}

// [B, S, ...] on every rank -> the sum over ranks of positions r·S/n .. (r+1)·S/n on rank r.
torch::Tensor reduce_scattered_along_sequence(const torch::Tensor& x, Communicator& comm) {
  const int64_t n = comm.world_size();
  auto full = x.transpose(0, 1).contiguous();  // [S, B, ...]
  auto sizes = full.sizes().vec();
  sizes[0] /= n;
  auto mine = torch::empty(sizes, full.options());
  comm.reduce_scatter(full.data_ptr(), mine.data_ptr(), static_cast<std::size_t>(mine.numel()), ElementType::f32)
      ->wait();
  comm.synchronize();
  return mine.transpose(0, 1).contiguous();
}

template <torch::Tensor (*Forward)(const torch::Tensor&, Communicator&),
          torch::Tensor (*Backward)(const torch::Tensor&, Communicator&)>
class Conjugate : public torch::autograd::Function<Conjugate<Forward, Backward>> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, int64_t comm) {
    ctx->saved_data["comm"] = comm;
    return Forward(x, *reinterpret_cast<Communicator*>(comm));
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {Backward(grads[0], comm_of(ctx)), torch::Tensor()};
  }
};

torch::Tensor identity(const torch::Tensor& x, Communicator&) { return x.clone(); }

int64_t handle(Communicator& comm) { return reinterpret_cast<int64_t>(&comm); }

}  // namespace

torch::Tensor copy_to_tp(const torch::Tensor& x, Communicator& comm) {
  return Conjugate<identity, all_reduced>::apply(x, handle(comm));
}
torch::Tensor reduce_from_tp(const torch::Tensor& x, Communicator& comm) {
  return Conjugate<all_reduced, identity>::apply(x, handle(comm));
}
torch::Tensor gather_sequence(const torch::Tensor& x, Communicator& comm) {
  return Conjugate<gathered_along_sequence, reduce_scattered_along_sequence>::apply(x, handle(comm));
}
torch::Tensor scatter_sequence(const torch::Tensor& x, Communicator& comm) {
  return Conjugate<reduce_scattered_along_sequence, gathered_along_sequence>::apply(x, handle(comm));
}

}  // namespace mt

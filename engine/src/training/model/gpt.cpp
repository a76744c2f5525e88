#include "training/model/gpt.h"

#include "training/model/bf16_emulation.h"
#include "training/model/causal_attention.h"
#include "training/model/cross_entropy.h"
#include "training/model/embedding.h"
#include "training/model/gelu.h"
#include "training/model/gemm_backend.h"

#include <ATen/autocast_mode.h>

namespace mt {
namespace {

torch::nn::LayerNorm layer_norm(int64_t d) { return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})); }

// GPT-2 style initialisation: N(0, 0.02) weights, zero biases, unit LayerNorm.
void init_weights(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& sub : module.modules(/*include_self=*/true)) {
    if (auto* linear = sub->as<torch::nn::Linear>()) {
      linear->weight.normal_(0.0, 0.02);
      if (linear->bias.defined()) linear->bias.zero_();
    } else if (auto* embedding = sub->as<torch::nn::Embedding>()) {
      embedding->weight.normal_(0.0, 0.02);
    }
  }
}

// x·Wᵀ + b on the GEMM backend chosen for each product (gemm_backend.h) where the trainer chose
// them (fp32 GEMMs on the CPU), else ATen's linear. Both fuse the bias into one addmm on MKL, for a
// contiguous [B, S, in] input; the C++ frontend's Linear module runs a matmul and then a separate
// bias add over the whole output.
torch::Tensor dense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  const bool chosen = gemm_dispatch_active() && x.scalar_type() == torch::kFloat && x.device().is_cpu() &&
                      !at::autocast::is_autocast_enabled(at::kCPU);
  return chosen ? dispatched_linear(x, weight, bias) : torch::linear(x, weight, bias);
}

// Under bf16 emulation, operands and product are rounded to bf16 (see bf16_emulation.h).
torch::Tensor linear(const torch::nn::Linear& layer, const torch::Tensor& x) {
  return bf16_round(dense(bf16_round(x), bf16_round(layer->weight), bf16_round(layer->bias)));
}

}  // namespace

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t d_model, int64_t n_heads, double dropout)
    : n_heads_(n_heads), dropout_(dropout) {
  qkv_ = register_module("qkv", torch::nn::Linear(d_model, 3 * d_model));
  out_ = register_module("out", torch::nn::Linear(d_model, d_model));
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  auto y = causal_attention(linear(qkv_, x), n_heads_, dropout_, is_training());
  return torch::dropout(linear(out_, y), dropout_, is_training());
}

BlockImpl::BlockImpl(int64_t d_model, int64_t n_heads, double dropout) : dropout_(dropout) {
  norm_attention_ = register_module("norm_attention", layer_norm(d_model));
  attention_ = register_module("attention", CausalSelfAttention(d_model, n_heads, dropout));
  norm_mlp_ = register_module("norm_mlp", layer_norm(d_model));
  fc_in_ = register_module("fc_in", torch::nn::Linear(d_model, 4 * d_model));
  fc_out_ = register_module("fc_out", torch::nn::Linear(4 * d_model, d_model));
}

torch::Tensor BlockImpl::forward(torch::Tensor x) {
  x = x + attention_(norm_attention_(x));
  auto hidden = erf_gelu(linear(fc_in_, norm_mlp_(x)));
  return x + torch::dropout(linear(fc_out_, hidden), dropout_, is_training());
}

GptImpl::GptImpl(const ModelConfig& config) : config_(config) {
  token_embedding_ = register_module("token_embedding", torch::nn::Embedding(config.vocab_size, config.d_model));
  position_embedding_ = register_module("position_embedding", torch::nn::Embedding(config.seq_length, config.d_model));
  blocks_ = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.n_layers; ++i)
    blocks_->push_back(Block(config.d_model, config.n_heads, config.dropout));
  final_norm_ = register_module("final_norm", layer_norm(config.d_model));
  block_runner_ = [](int64_t, Block& block, const torch::Tensor& x) { return block->forward(x); };
}

std::vector<Block> GptImpl::blocks() const {
  std::vector<Block> out;
  for (std::size_t i = 0; i < blocks_->size(); ++i)
    out.emplace_back(std::dynamic_pointer_cast<BlockImpl>(blocks_->ptr(i)));
  return out;
}

std::vector<torch::Tensor> GptImpl::root_parameters() {
  std::vector<torch::Tensor> out;
  for (auto* module : {token_embedding_.ptr().get(), position_embedding_.ptr().get()})
    for (const auto& p : module->parameters()) out.push_back(p);
  for (const auto& p : final_norm_->parameters()) out.push_back(p);
  return out;
}

torch::Tensor GptImpl::forward(const torch::Tensor& inputs) {
  const int64_t seq = inputs.size(1);
  auto positions = torch::arange(seq, torch::TensorOptions().dtype(torch::kLong));
  auto x =
      embedding_lookup(token_embedding_->weight, inputs) + embedding_lookup(position_embedding_->weight, positions);
  x = torch::dropout(x, config_.dropout, is_training());
  for (std::size_t i = 0; i < blocks_->size(); ++i) {
    Block block(std::dynamic_pointer_cast<BlockImpl>(blocks_->ptr(i)));
    x = block_runner_(static_cast<int64_t>(i), block, x);
  }
  x = final_norm_(x);
  // LM head tied to the token embedding: no weight or bias of its own.
  return bf16_round(dense(bf16_round(x), bf16_round(token_embedding_->weight), torch::Tensor()));
}

torch::Tensor GptImpl::loss(const torch::Tensor& inputs, const torch::Tensor& targets) {
  // The logits never leave this function, so their gradient may take their place.
  return softmax_cross_entropy(forward(inputs).view({-1, config_.vocab_size}), targets.reshape({-1}),
                               LogitsAfterBackward::overwritten);
}

Gpt make_gpt(const ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  Gpt model(config);
  init_weights(*model);
  return model;
}

int64_t parameter_count(torch::nn::Module& module) {
  int64_t total = 0;
  for (const auto& p : module.parameters()) total += p.numel();
  return total;
}

}  // namespace mt

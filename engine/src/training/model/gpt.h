// Single-device GPT: knows nothing of ranks; strategies apply parallelism from outside.
// Parameters are registered in a fixed order (embeddings, blocks in order, final norm) because
// strategies bucket and shard by that order.
#pragma once

#include <torch/torch.h>

#include <functional>

#include "training/model/model_config.h"

namespace mt {

class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  CausalSelfAttentionImpl(int64_t d_model, int64_t n_heads, double dropout);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  int64_t n_heads_;
  double dropout_;
  torch::nn::Linear qkv_{nullptr};
  torch::nn::Linear out_{nullptr};
};
TORCH_MODULE(CausalSelfAttention);

class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(int64_t d_model, int64_t n_heads, double dropout);
  torch::Tensor forward(torch::Tensor x);

 private:
  double dropout_;
  torch::nn::LayerNorm norm_attention_{nullptr};
  CausalSelfAttention attention_{nullptr};
  torch::nn::LayerNorm norm_mlp_{nullptr};
  torch::nn::Linear fc_in_{nullptr};
  torch::nn::Linear fc_out_{nullptr};
};
TORCH_MODULE(Block);

class GptImpl;

// Runs one transformer block. The default calls block->forward(x); a strategy or activation
// checkpointing wraps it to act around each block without the model knowing why.
using BlockRunner = std::function<torch::Tensor(int64_t index, Block& block, const torch::Tensor& x)>;

class GptImpl : public torch::nn::Module {
 public:
  explicit GptImpl(const ModelConfig& config);

  const BlockRunner& block_runner() const { return block_runner_; }
  void set_block_runner(BlockRunner runner) { block_runner_ = std::move(runner); }

  std::vector<Block> blocks() const;
  // Parameters outside the blocks (embeddings, final norm; the head is tied), registration order.
  std::vector<torch::Tensor> root_parameters();

  // inputs [B, S] token ids -> logits [B, S, V]
  torch::Tensor forward(const torch::Tensor& inputs);
  // mean next-token cross-entropy over all positions
  torch::Tensor loss(const torch::Tensor& inputs, const torch::Tensor& targets);

  const ModelConfig& config() const { return config_; }

 private:
  ModelConfig config_;
  torch::nn::Embedding token_embedding_{nullptr};
  torch::nn::Embedding position_embedding_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
  torch::nn::LayerNorm final_norm_{nullptr};
  BlockRunner block_runner_;
};
TORCH_MODULE(Gpt);

// Builds a model whose initial weights depend only on `seed`.
Gpt make_gpt(const ModelConfig& config, uint64_t seed);

int64_t parameter_count(torch::nn::Module& module);

}  // namespace mt

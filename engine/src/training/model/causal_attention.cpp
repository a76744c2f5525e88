#include "training/model/causal_attention.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/attention_kernel.h"
#include "core/kernels/small_gemm_kernel.h"

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Where one head's matrices live: q, k and v are [S, hd] slices of the [B, S, 3d] projection
// (row stride 3d); the head's output and output gradient are [S, hd] slices of [B, S, d].
struct HeadLayout {
  int64_t batch, seq, d, heads, head_dim;

  HeadLayout(const torch::Tensor& qkv, int64_t n_heads)
      : batch(qkv.size(0)), seq(qkv.size(1)), d(qkv.size(2) / 3), heads(n_heads), head_dim(d / n_heads) {}

  int64_t count() const { return batch * heads; }
  int64_t qkv_stride() const { return 3 * d; }
  // Offset of head `bh` (= b·H + h) in the projection; k and v follow at +d and +2d.
  int64_t qkv_offset(int64_t bh) const { return (bh / heads) * seq * 3 * d + (bh % heads) * head_dim; }
  int64_t out_offset(int64_t bh) const { return (bh / heads) * seq * d + (bh % heads) * head_dim; }
  int64_t scores_offset(int64_t bh) const { return bh * seq * seq; }
  float scale() const { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))); }
};

class FusedCausalAttention : public torch::autograd::Function<FusedCausalAttention> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& qkv, int64_t n_heads) {
    RECORD_FUNCTION("mt::fused_causal_attention", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const HeadLayout shape(qkv, n_heads);
    auto probs = torch::empty({shape.count() * shape.seq, shape.seq}, qkv.options());
    auto y = torch::empty({shape.batch, shape.seq, shape.d}, qkv.options());
    const float* in = qkv.data_ptr<float>();
    float* p = probs.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const int64_t ld = shape.qkv_stride();

    // Heads are independent: each thread takes whole heads, so a head's scores stay in its cache
    // from the product through the softmax to P v. Causality makes P lower-triangular: the
    // products skip the hidden half (see small_gemm's Triangle).
    at::parallel_for(0, shape.count(), 1, [&](int64_t first, int64_t last) {
      const int64_t S = shape.seq, hd = shape.head_dim;
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* v = q + 2 * shape.d;
        float* scores = p + shape.scores_offset(bh);
        // scores = scale · q kᵀ, then softmax over the visible keys, then y = P v
        small_gemm(Triangle::unused_c_upper, S, S, hd, shape.scale(), {q, ld, 1, q + shape.d, 1, ld, scores, S});
        causal_softmax_rows(scores, S, 0, S);
        small_gemm(Triangle::zero_a_upper, S, hd, S, 1.0f,
                   {scores, S, 1, v, ld, 1, out + shape.out_offset(bh), shape.d});
      }
    });
    ctx->save_for_backward({qkv, probs});
    ctx->saved_data["heads"] = n_heads;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    RECORD_FUNCTION("mt::fused_causal_attention_backward", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const auto saved = ctx->get_saved_variables();
    const auto& qkv = saved[0];
    const auto& probs = saved[1];
    const HeadLayout shape(qkv, ctx->saved_data["heads"].toInt());
    const auto grad_y = grad_outputs[0].contiguous();
    auto grad_qkv = torch::empty_like(qkv);  // every element is written below
    auto grad_scores = torch::empty_like(probs);
    const float* in = qkv.data_ptr<float>();
    const float* p = probs.data_ptr<float>();
    const float* dy = grad_y.data_ptr<float>();
    float* dqkv = grad_qkv.data_ptr<float>();
    float* ds = grad_scores.data_ptr<float>();
    const int64_t ld = shape.qkv_stride();

    at::parallel_for(0, shape.count(), 1, [&](int64_t first, int64_t last) {
      const int64_t S = shape.seq, hd = shape.head_dim;
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* k = q + shape.d;
        const float* v = q + 2 * shape.d;
        const float* dy_head = dy + shape.out_offset(bh);
        const float* weights = p + shape.scores_offset(bh);
        float* dscores = ds + shape.scores_offset(bh);
        float* dq = dqkv + shape.qkv_offset(bh);
        float* dk = dq + shape.d;
        float* dv = dq + 2 * shape.d;
        // dP = dy vᵀ over the visible keys; dv = Pᵀ dy, key j summing over the queries i >= j
        small_gemm(Triangle::unused_c_upper, S, S, hd, 1.0f, {dy_head, shape.d, 1, v, 1, ld, dscores, S});
        small_gemm(Triangle::zero_a_lower, S, hd, S, 1.0f, {weights, 1, S, dy_head, shape.d, 1, dv, ld});
        causal_softmax_backward_rows(weights, dscores, S, 0, S);
        // dq = scale · dS k; dk = scale · dSᵀ q
        small_gemm(Triangle::zero_a_upper, S, hd, S, shape.scale(), {dscores, S, 1, k, ld, 1, dq, ld});
        small_gemm(Triangle::zero_a_lower, S, hd, S, shape.scale(), {dscores, 1, S, q, ld, 1, dk, ld});
      }
    });
    return {grad_qkv, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor composite_causal_attention(const torch::Tensor& qkv, int64_t n_heads, double dropout, bool training) {
  const int64_t batch = qkv.size(0), seq = qkv.size(1), d = qkv.size(2) / 3;
  const int64_t head_dim = d / n_heads;
  // [B, S, 3d] -> [3, B·H, S, hd] in one copy. unbind's backward stacks the three gradients in
  // one pass, where indexing would zero-fill a full-size gradient for each of q, k and v.
  auto parts = qkv.view({batch, seq, 3, n_heads, head_dim})
                   .permute({2, 0, 3, 1, 4})
                   .reshape({3, batch * n_heads, seq, head_dim})
                   .unbind(0);
  const auto &q = parts[0], &k = parts[1], &v = parts[2];
  // Scale and causal mask fused into the product: scores = mask + (q kᵀ) / sqrt(hd).
  auto mask = torch::full({seq, seq}, -std::numeric_limits<float>::infinity(), qkv.options()).triu(/*diagonal=*/1);
  auto scores = torch::baddbmm(mask, q, k.transpose(1, 2), /*beta=*/1,
                               /*alpha=*/1.0 / std::sqrt(static_cast<double>(head_dim)));
  auto weights = torch::dropout(torch::softmax(scores, -1), dropout, training);
  return torch::bmm(weights, v).view({batch, n_heads, seq, head_dim}).transpose(1, 2).reshape({batch, seq, d});
}

torch::Tensor causal_attention(const torch::Tensor& qkv, int64_t n_heads, double dropout, bool training) {
  TORCH_CHECK(qkv.dim() == 3 && qkv.size(2) % (3 * n_heads) == 0,
              "causal_attention: expected [B, S, 3d] with d divisible by ", n_heads, " heads, got ", qkv.sizes());
  const bool fused =
      qkv.device().is_cpu() && qkv.scalar_type() == torch::kFloat && !(training && dropout > 0) && qkv.numel() > 0;
  if (!fused) return composite_causal_attention(qkv, n_heads, dropout, training);
  return FusedCausalAttention::apply(qkv.contiguous(), n_heads);
}

}  // namespace mt

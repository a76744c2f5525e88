#include "training/model/causal_attention.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

// Queries are taken a block of rows at a time, so that a block's scores (its rows × the keys it
// sees) stay in the core's L2 cache from one product through the softmax to the next, and the
// transposed products (Pᵀ dy, dSᵀ q) read a few rows of P per step, not one element from each of
// S rows, pages apart. Up to S = 384 a head is one block, as fast as any split measured.
int64_t query_block_rows(int64_t seq) {
  constexpr int64_t kBlockFloats = 96 * 1024;  // 384 KiB of scores at most
  return std::clamp<int64_t>(kBlockFloats / std::max<int64_t>(seq, 1) / 6 * 6, 48, std::max<int64_t>(seq, 1));
}

// From this length on, the forward keeps each query's log-sum-exp instead of the S × S
// probabilities, and the backward recomputes a block's probabilities from q kᵀ: one more product
// of the six, against writing and reading back every head's P (and, above glibc's largest
// mmap threshold, 32 MiB, faulting the pages of a fresh P in at every call). At S 512 and 768
// keeping P measured as fast or faster.
bool recomputes_probabilities(int64_t seq) { return seq >= 1024; }

// Per-thread scratch of `floats` floats (heads run in parallel, a block of queries at a time).
float* thread_scratch(std::vector<float>& scratch, int64_t floats) {
  scratch.resize(static_cast<std::size_t>(floats));
  return scratch.data();
}

class FusedCausalAttention : public torch::autograd::Function<FusedCausalAttention> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& qkv, int64_t n_heads) {
    RECORD_FUNCTION("mt::fused_causal_attention", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const HeadLayout shape(qkv, n_heads);
    const bool recompute = recomputes_probabilities(shape.seq);
    // What the backward needs of the softmax: every head's P, or each query's log-sum-exp.
    auto softmax_state = recompute ? torch::empty({shape.count(), shape.seq}, qkv.options())
                                   : torch::empty({shape.count() * shape.seq, shape.seq}, qkv.options());
    auto y = torch::empty({shape.batch, shape.seq, shape.d}, qkv.options());
    const float* in = qkv.data_ptr<float>();
    float* state = softmax_state.data_ptr<float>();
    float* out = y.data_ptr<float>();
    const int64_t ld = shape.qkv_stride();

    // Heads are independent: each thread takes whole heads. Causality makes P lower-triangular:
    // the products skip the hidden half (see small_gemm's Triangle).
    at::parallel_for(0, shape.count(), 1, [&](int64_t first, int64_t last) {
      const int64_t S = shape.seq, hd = shape.head_dim, block = query_block_rows(S);
      thread_local std::vector<float> block_scores;
      thread_local SmallGemmPackedB k_t, v_panels;  // kᵀ and v, packed once for all the head's blocks
      float* scratch = recompute ? thread_scratch(block_scores, block * S) : nullptr;
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* k = q + shape.d;
        const float* v = q + 2 * shape.d;
        float* y_head = out + shape.out_offset(bh);
        k_t.pack(hd, S, k, 1, ld);
        v_panels.pack(S, hd, v, ld, 1);
        for (int64_t q0 = 0; q0 < S; q0 += block) {
          const int64_t rows = std::min(block, S - q0), keys = q0 + rows;  // the keys the block sees
          float* scores = recompute ? scratch : state + shape.scores_offset(bh) + q0 * S;
          // scores = scale · q kᵀ, then softmax over the visible keys, then y = P v
          small_gemm(rows, keys, hd, shape.scale(), {q + q0 * ld, ld, 1, nullptr, 0, 0, scores, S},
                     {Triangle::unused_c_upper, q0, false, &k_t});
          causal_softmax_rows(scores, S, q0, q0 + rows, recompute ? state + bh * S + q0 : nullptr);
          small_gemm(rows, hd, keys, 1.0f, {scores, S, 1, nullptr, 0, 0, y_head + q0 * shape.d, shape.d},
                     {Triangle::zero_a_upper, q0, false, &v_panels});
        }
      }
    });
    ctx->save_for_backward({qkv, softmax_state});
    ctx->saved_data["heads"] = n_heads;
    ctx->saved_data["recomputed"] = recompute;
    return y;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    RECORD_FUNCTION("mt::fused_causal_attention_backward", std::vector<c10::IValue>());  // named in LibTorch's profiler
    const auto saved = ctx->get_saved_variables();
    const auto& qkv = saved[0];
    const auto& softmax_state = saved[1];
    const bool recompute = ctx->saved_data["recomputed"].toBool();
    const HeadLayout shape(qkv, ctx->saved_data["heads"].toInt());
    const auto grad_y = grad_outputs[0].contiguous();
    auto grad_qkv = torch::empty_like(qkv);  // every element is written below
    const float* in = qkv.data_ptr<float>();
    const float* state = softmax_state.data_ptr<float>();
    const float* dy = grad_y.data_ptr<float>();
    float* dqkv = grad_qkv.data_ptr<float>();
    const int64_t ld = shape.qkv_stride();

    at::parallel_for(0, shape.count(), 1, [&](int64_t first, int64_t last) {
      const int64_t S = shape.seq, hd = shape.head_dim, block = query_block_rows(S);
      thread_local std::vector<float> block_grad, block_probs;
      float* ds = thread_scratch(block_grad, block * S);  // dP, then dS, of one block of queries
      float* recomputed = recompute ? thread_scratch(block_probs, block * S) : nullptr;
      thread_local SmallGemmPackedB k_t, v_t, k_panels;  // packed once for all the head's blocks
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* k = q + shape.d;
        const float* v = q + 2 * shape.d;
        const float* dy_head = dy + shape.out_offset(bh);
        float* dq = dqkv + shape.qkv_offset(bh);
        float* dk = dq + shape.d;
        float* dv = dq + 2 * shape.d;
        if (recompute) k_t.pack(hd, S, k, 1, ld);
        v_t.pack(hd, S, v, 1, ld);
        k_panels.pack(S, hd, k, ld, 1);
        // dk and dv sum over the query blocks. The last block sees every key, so taken first it
        // writes all of their rows and the others add to theirs.
        const int64_t last_block = (S - 1) / block * block;
        for (int64_t q0 = last_block; q0 >= 0; q0 -= block) {
          const int64_t rows = std::min(block, S - q0), keys = q0 + rows;
          const bool add = q0 != last_block;
          if (recompute) {  // P = exp(scale · q kᵀ - lse), as the forward had it
            small_gemm(rows, keys, hd, shape.scale(), {q + q0 * ld, ld, 1, nullptr, 0, 0, recomputed, S},
                       {Triangle::unused_c_upper, q0, false, &k_t});
            causal_softmax_recompute_rows(recomputed, state + bh * S + q0, S, q0, q0 + rows);
          }
          const float* weights = recompute ? recomputed : state + shape.scores_offset(bh) + q0 * S;
          const float* dy_block = dy_head + q0 * shape.d;
          // dP = dy vᵀ over the visible keys; dv = Pᵀ dy, key j summing over the queries i >= j
          small_gemm(rows, keys, hd, 1.0f, {dy_block, shape.d, 1, nullptr, 0, 0, ds, S},
                     {Triangle::unused_c_upper, q0, false, &v_t});
          small_gemm(keys, hd, rows, 1.0f, {weights, 1, S, dy_block, shape.d, 1, dv, ld},
                     {Triangle::zero_a_lower, -q0, add});
          causal_softmax_backward_rows(weights, ds, S, q0, q0 + rows);
          // dq = scale · dS k; dk = scale · dSᵀ q
          small_gemm(rows, hd, keys, shape.scale(), {ds, S, 1, nullptr, 0, 0, dq + q0 * ld, ld},
                     {Triangle::zero_a_upper, q0, false, &k_panels});
          small_gemm(keys, hd, rows, shape.scale(), {ds, 1, S, q + q0 * ld, ld, 1, dk, ld},
                     {Triangle::zero_a_lower, -q0, add});
        }
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

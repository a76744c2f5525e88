#include "training/model/causal_attention.h"

#include <ATen/Parallel.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/kernels/attention_kernel.h"
#include "core/kernels/blas.h"

namespace mt {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Query (and key) positions per GEMM block. Causality makes P lower-triangular, so the products
// run block by block over only the keys a block can see: 10/16 of the full work at S = 128.
constexpr int64_t kBlock = 32;

// Calls f(start, rows) for consecutive blocks of positions covering [0, seq).
template <typename F>
void for_each_block(int64_t seq, F f) {
  for (int64_t start = 0; start < seq; start += kBlock) f(start, std::min(kBlock, seq - start));
}

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
    // from the product through the softmax to P v, and the BLAS runs single-threaded inside (held
    // there: MKL would otherwise spread each small product over threads of its own).
    at::parallel_for(0, shape.count(), 1, [&](int64_t first, int64_t last) {
      const SingleThreadedBlas one_thread_per_head;
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* v = q + 2 * shape.d;
        float* scores = p + shape.scores_offset(bh);
        float* y_head = out + shape.out_offset(bh);
        for_each_block(shape.seq, [&](int64_t start, int64_t rows) {  // scale · q kᵀ, visible keys
          gemm_row_major(false, true, rows, start + rows, shape.head_dim, shape.scale(), q + start * ld, ld,
                         q + shape.d, ld, 0.0f, scores + start * shape.seq, shape.seq);
        });
        causal_softmax_rows(scores, shape.seq, 0, shape.seq);
        for_each_block(shape.seq, [&](int64_t start, int64_t rows) {  // y = P v
          gemm_row_major(false, false, rows, shape.head_dim, start + rows, 1.0f, scores + start * shape.seq, shape.seq,
                         v, ld, 0.0f, y_head + start * shape.d, shape.d);
        });
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
      const SingleThreadedBlas one_thread_per_head;
      for (int64_t bh = first; bh < last; ++bh) {
        const float* q = in + shape.qkv_offset(bh);
        const float* v = q + 2 * shape.d;
        const float* dy_head = dy + shape.out_offset(bh);
        const float* weights = p + shape.scores_offset(bh);
        float* dscores = ds + shape.scores_offset(bh);
        float* dq = dqkv + shape.qkv_offset(bh);
        float* dv = dq + 2 * shape.d;
        for_each_block(shape.seq, [&](int64_t start, int64_t rows) {
          // dP = dy vᵀ over visible keys; dv for these keys = Pᵀ dy over the queries that see them
          gemm_row_major(false, true, rows, start + rows, shape.head_dim, 1.0f, dy_head + start * shape.d, shape.d, v,
                         ld, 0.0f, dscores + start * shape.seq, shape.seq);
          gemm_row_major(true, false, rows, shape.head_dim, shape.seq - start, 1.0f,
                         weights + start * shape.seq + start, shape.seq, dy_head + start * shape.d, shape.d, 0.0f,
                         dv + start * ld, ld);
        });
        causal_softmax_backward_rows(weights, dscores, shape.seq, 0, shape.seq);
        for_each_block(shape.seq, [&](int64_t start, int64_t rows) {
          // dq = scale · dS k over visible keys; dk = scale · dSᵀ q over the queries that see them
          gemm_row_major(false, false, rows, shape.head_dim, start + rows, shape.scale(), dscores + start * shape.seq,
                         shape.seq, q + shape.d, ld, 0.0f, dq + start * ld, ld);
          gemm_row_major(true, false, rows, shape.head_dim, shape.seq - start, shape.scale(),
                         dscores + start * shape.seq + start, shape.seq, q + start * ld, ld, 0.0f,
                         dq + shape.d + start * ld, ld);
        });
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

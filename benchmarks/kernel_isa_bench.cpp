// Each hand-written kernel in every copy this CPU runs (baseline, x86-64-v3, x86-64-v4), on the
// shapes the quick-start and upstream models give it, single-threaded: median time of 15 runs
// after 3 warm ones, and each copy's speed relative to the baseline copy measured in the same run.
// What the engine picks by default (the best copy the CPU runs) should be the fastest here.
//
//   build/bin/kernel_isa_bench
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/kernels/attention_kernel.h"
#include "core/kernels/cross_entropy_kernel.h"
#include "core/kernels/fused_adamw_kernel.h"
#include "core/kernels/gelu_kernel.h"
#include "core/kernels/isa.h"
#include "core/kernels/small_gemm_kernel.h"
#include "core/kernels/sum_of_squares_kernel.h"
#include "median_ms.h"

namespace {

std::vector<float> random_floats(std::size_t n, float scale) {
  std::mt19937 gen(7);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> out(n);
  for (auto& v : out) v = dist(gen);
  return out;
}

struct Case {
  std::string name;
  std::function<void()> work;
  std::function<void()> prepare = {};  // untimed, before each run: restores what `work` overwrites
};

}  // namespace

int main() {
  // Upstream model shapes: 512 tokens (batch 2 x seq 256), vocab 8192, d 512 (MLP 2048), 8 heads.
  const int64_t tokens = 512, vocab = 8192, hidden = 2048, seq = 256, heads = 2 * 8;
  auto logits = random_floats(tokens * vocab, 4), grad = std::vector<float>(tokens * vocab);
  std::vector<float> lse(tokens);
  std::vector<int64_t> targets(tokens);
  for (int64_t i = 0; i < tokens; ++i) targets[i] = (i * 7919) % vocab;
  auto act = random_floats(tokens * hidden, 1), dy = random_floats(tokens * hidden, 1),
       out = std::vector<float>(tokens * hidden);
  auto scores = random_floats(heads * seq * seq, 2), scores_in = scores;
  auto probs = std::vector<float>(heads * seq * seq), dprobs = random_floats(heads * seq * seq, 1);
  const std::vector<float> row_lse(heads * seq, 1.0f);  // the probabilities' log-sum-exp, one per query
  const auto restore_scores = [&] { std::copy(scores_in.begin(), scores_in.end(), scores.begin()); };
  const int64_t params = 23240704 / 8;  // an eighth of the upstream model: one bucket's worth
  auto p = random_floats(params, 0.02f), g = random_floats(params, 0.01f), m = std::vector<float>(params),
       v = std::vector<float>(params);
  double squares = 0;  // kept, so the sums are used
  const mt::AdamWScalars adamw{0.9999f, 0.9f, 0.1f, 0.999f, 0.001f, 0.03f, 1e-8f, -0.001f, 1.0f};

  const std::vector<Case> cases = {
      {"cross-entropy lse 512x8192", [&] { mt::log_sum_exp_rows(logits.data(), vocab, 0, tokens, lse.data()); }},
      {"cross-entropy grad 512x8192",
       [&] {
         mt::softmax_minus_one_hot_rows(logits.data(), lse.data(), targets.data(), vocab, 1.0f / tokens, 0, tokens,
                                        grad.data());
       }},
      {"gelu forward 512x2048", [&] { mt::gelu_forward(act.data(), out.data(), tokens * hidden); }},
      {"gelu forward + derivative 512x2048",
       [&] { mt::gelu_forward_with_derivative(act.data(), out.data(), dy.data(), tokens * hidden); }},
      {"causal softmax 16x256x256",
       [&] {
         for (int64_t h = 0; h < heads; ++h) mt::causal_softmax_rows(scores.data() + h * seq * seq, seq, 0, seq);
       },
       restore_scores},
      {"causal softmax recompute 16x256x256",
       [&] {
         for (int64_t h = 0; h < heads; ++h)
           mt::causal_softmax_recompute_rows(scores.data() + h * seq * seq, row_lse.data() + h * seq, seq, 0, seq);
       },
       restore_scores},
      {"causal softmax backward 16x256x256",
       [&] {
         for (int64_t h = 0; h < heads; ++h)
           mt::causal_softmax_backward_rows(scores_in.data() + h * seq * seq, probs.data() + h * seq * seq, seq, 0,
                                            seq);
       },
       [&] { std::copy(dprobs.begin(), dprobs.end(), probs.begin()); }},
      {"attention P v, 16 heads 256x64x256",
       [&] {
         for (int64_t h = 0; h < heads; ++h)
           mt::small_gemm(seq, 64, seq, 1.0f,
                          {probs.data() + h * seq * seq, seq, 1, dprobs.data(), 1536, 1, out.data(), 512},
                          {mt::Triangle::zero_a_upper});
       }},
      {"adamw 2.9M", [&] { mt::adamw_update(p.data(), g.data(), m.data(), v.data(), params, adamw); }},
      {"sum of squares 2.9M", [&] { squares += mt::sum_of_squares(g.data(), params); }},
  };

  std::printf("%-36s", "kernel (ms, x baseline)");
  for (auto isa : mt::runnable_kernel_isas()) std::printf(" %20s", mt::kernel_isa_name(isa));
  std::printf("\n");
  for (const auto& c : cases) {
    std::printf("%-36s", c.name.c_str());
    double baseline = 0;
    for (auto isa : mt::runnable_kernel_isas()) {
      mt::KernelIsaOverride pin(isa);
      const double ms = median_ms(c.work, c.prepare);
      if (isa == mt::KernelIsa::baseline) baseline = ms;
      std::printf(" %10.3f (%5.2fx)", ms, baseline / ms);
    }
    std::printf("\n");
  }
  std::printf("default: %s\n", mt::kernel_isa_name(mt::best_kernel_isa()));
  return squares >= 0 ? 0 : 1;  // a sum of squares is never negative
}

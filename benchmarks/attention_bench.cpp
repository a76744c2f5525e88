// The engine's fused causal attention against LibTorch's own scaled_dot_product_attention
// (is_causal, the math a PyTorch user gets on a CPU), forward and forward + backward, on the
// quick-start and upstream models' shapes at 1 and 2 threads. The peer gets q, k and v already
// laid out head-major, as it wants them; the engine reads them inside the [B, S, 3d] projection.
// Each figure is the best of 3 medians of 15 runs, the two taking turns; GFLOP/s count only the
// products' visible (causal) half, as the model's FLOP count does.
//
//   build/bin/attention_bench                      the two models' shapes
//   build/bin/attention_bench BATCH SEQ D HEADS    one shape of your own
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "training/model/causal_attention.h"
#include "median_ms.h"

namespace {

struct Shape {
  const char* name;
  int64_t batch, seq, d, heads;
};

struct Times {
  double forward = 1e30, both = 1e30;  // ms: forward alone, forward + backward
};

// f(train) runs one forward pass, and its backward when train.
void time_into(Times& best, const std::function<void(bool)>& f) {
  {
    torch::NoGradGuard no_grad;
    best.forward = std::min(best.forward, median_ms([&] { f(false); }));
  }
  best.both = std::min(best.both, median_ms([&] { f(true); }));
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes = {{"quick-start B4 S128 d256 h4", 4, 128, 256, 4},
                               {"upstream B2 S256 d512 h8", 2, 256, 512, 8}};
  if (argc == 5) {
    const Shape own{"given", std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4])};
    if (own.batch < 1 || own.seq < 1 || own.heads < 1 || own.d < own.heads || own.d % own.heads != 0) {
      std::fprintf(stderr, "attention_bench: expected BATCH SEQ D HEADS, all positive, D divisible by HEADS\n");
      return 2;
    }
    shapes = {own};
  } else if (argc != 1) {
    std::fprintf(stderr, "usage: %s [BATCH SEQ D HEADS]\n", argv[0]);
    return 2;
  }
  std::printf("LibTorch %s\n", TORCH_VERSION);
  std::printf("%-28s %3s | %21s | %21s | %15s\n", "shape", "thr", "engine fwd, fwd+bwd ms", "sdpa fwd, fwd+bwd ms",
              "engine GFLOP/s");
  for (const auto& s : shapes) {
    torch::manual_seed(1);
    const int64_t hd = s.d / s.heads;
    auto qkv = torch::randn({s.batch, s.seq, 3 * s.d}).requires_grad_(true);
    auto dy = torch::randn({s.batch, s.seq, s.d});
    auto heads = [&](int part) {
      return qkv.detach()
          .view({s.batch, s.seq, 3, s.heads, hd})
          .select(2, part)
          .transpose(1, 2)
          .contiguous()
          .requires_grad_(true);
    };
    auto q = heads(0), k = heads(1), v = heads(2);
    auto dy_heads = dy.view({s.batch, s.seq, s.heads, hd}).transpose(1, 2).contiguous();
    // q kᵀ and P v over the causal half: 2 products of S²/2 · hd multiply-adds per head; the
    // backward's four products twice that.
    const double forward_flops = 2.0 * 2.0 * s.batch * s.d * (s.seq * s.seq / 2.0);
    for (int threads : {1, 2}) {
      at::set_num_threads(threads);
      Times engine, peer;
      for (int round = 0; round < 3; ++round) {
        time_into(engine, [&](bool train) {
          auto y = mt::causal_attention(qkv, s.heads, 0.0, train);
          if (train) y.backward(dy);
        });
        time_into(peer, [&](bool train) {
          auto y = at::scaled_dot_product_attention(q, k, v, {}, 0.0, /*is_causal=*/true);
          if (train) y.backward(dy_heads);
        });
      }
      std::printf("%-28s %3d | %9.3f %11.3f | %9.3f %11.3f | %6.1f %8.1f\n", s.name, threads, engine.forward,
                  engine.both, peer.forward, peer.both, forward_flops / engine.forward / 1e6,
                  2 * forward_flops / (engine.both - engine.forward) / 1e6);
    }
  }
  return 0;
}

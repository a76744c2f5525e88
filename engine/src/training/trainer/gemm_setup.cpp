#include "training/trainer/gemm_setup.h"

#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>
#include <sstream>

#include "core/env/cpu_info.h"
#include "core/env/fact_cache.h"
#include "training/model/gemm_backend.h"

namespace mt {
namespace {

// Every product the model's dense layers run, each shape once: per block the QKV projection, the
// attention output, the MLP's two layers, then the tied LM head.
std::vector<GemmShape> model_shapes(const TrainConfig& c) {
  const int64_t tokens = c.batch_size * c.model.seq_length, d = c.model.d_model;
  const std::pair<int64_t, int64_t> layers[] = {{d, 3 * d}, {d, d}, {d, 4 * d}, {4 * d, d}, {d, c.model.vocab_size}};
  std::vector<GemmShape> shapes;
  for (const auto& [in, out] : layers)
    for (const auto& s : linear_layer_shapes(tokens, in, out))
      if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
  return shapes;
}

// "mkl_gflops onednn_gflops" for `shape` on this CPU, library and thread count: measured once, kept.
// The key names the method: speeds measured one backend after the other (before the backends
// took turns) could be skewed by a load that came or went between them, and are not reused.
std::string measured_speeds(const GemmShape& shape, const std::string& cpu_model, int threads) {
  const std::string key = fmt::format("gemm backends, interleaved|libtorch {}|{}|{} threads|{}", TORCH_VERSION,
                                      cpu_model, threads, shape.text());
  return remembered_fact(key, [&] {
    const GemmChoice c = measure_gemm_choice(shape);
    return fmt::format("{:.6g} {:.6g}", c.mkl_gflops, c.onednn_gflops);
  });
}

}  // namespace

void choose_gemm_backends(const TrainConfig& config, ControlChannel& control, int threads, bool fp32_cpu_gemms) {
  set_gemm_choices({});
  if (!fp32_cpu_gemms) return;
  const auto shapes = model_shapes(config);
  std::string speeds;
  if (control.rank() == 0) {
    const std::string cpu_model = read_cpu_info().model;
    for (const auto& s : shapes) speeds += measured_speeds(s, cpu_model, threads) + "\n";
  }
  std::vector<char> bytes(speeds.begin(), speeds.end());
  control.broadcast_bytes(bytes, /*root=*/0);
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::vector<GemmChoice> choices;
  for (const auto& s : shapes) {
    GemmChoice c;
    c.shape = s;
    in >> c.mkl_gflops >> c.onednn_gflops;
    const auto pinned = parse_gemm_backend(config.gemm_backend);
    c.pinned = pinned.has_value();
    c.backend = pinned                                         ? *pinned
                : prefer_onednn(c.mkl_gflops, c.onednn_gflops) ? GemmBackend::onednn
                                                               : GemmBackend::mkl;
    choices.push_back(c);
  }
  set_gemm_choices(std::move(choices));
}

nlohmann::json gemm_backends_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : gemm_choices())
    out.push_back({{"shape", c.shape.text()},
                   {"m", c.shape.m},
                   {"n", c.shape.n},
                   {"k", c.shape.k},
                   {"backend", gemm_backend_name(c.backend)},
                   {"chosen_by", c.pinned ? "--gemm-backend" : "measured"},
                   {"mkl_gflops", c.mkl_gflops},
                   {"onednn_gflops", c.onednn_gflops}});
  return out;
}

std::string gemm_onednn_entry() { return onednn_entry(); }

}  // namespace mt

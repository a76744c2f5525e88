#include "training/trainer/gemm_setup.h"

#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>
#include <thread>
#include <utility>

#include "core/env/cpu_info.h"
#include "core/env/cpu_window.h"
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

// Names the method, so that answers measured another way are not reused: one backend after the
// other (a load that came or went between them skewed the ratio), without checking that the
// machine was quiet (the answers kept the load's slowness for good), or in one pass (a moment's
// load kept a few shapes' slowness for good). And names the CPU by its identity: VMs call AMD's
// Zen 3, 4 and 5 all "AMD EPYC".
std::string speeds_key(const GemmShape& shape, const std::string& cpu, int threads) {
  return fmt::format("gemm backends, interleaved, two passes, quiet|libtorch {}|{}|{} threads|{}", TORCH_VERSION, cpu,
                     threads, shape.text());
}

// Where no quiet measurement is known: the first answer measured on a busy machine, kept apart,
// stands in for every later launch that finds the machine busy too, until a quiet measurement
// replaces it. Each busy launch measuring afresh would let two consecutive runs compute on other
// backends (a killed run and its resume, a run and the one it is compared with bit for bit).
std::string stand_in_key(const GemmShape& shape, const std::string& cpu, int threads) {
  return "stand-in measured busy|" + speeds_key(shape, cpu, threads);
}

constexpr std::chrono::milliseconds kShortestQuietWindow{250};

// A kept answer as this file writes it: two finite speeds, "mkl_gflops onednn_gflops". Anything else
// (a cache file damaged or edited by hand) is no answer: the shape is measured again, where reading
// it would have left every later shape's speeds unread (zero) and their backends chosen from that.
std::optional<std::string> recalled_speeds(const std::string& key) {
  const auto text = recalled_fact(key);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  double mkl = 0, onednn = 0;
  std::string rest;
  const bool two_speeds = in >> mkl >> onednn && !(in >> rest);
  if (!two_speeds || !std::isfinite(mkl) || !std::isfinite(onednn) || mkl < 0 || onednn < 0) return std::nullopt;
  return text;
}

// One shape's speeds for this run: "mkl_gflops onednn_gflops", whether this run measured them on a
// busy machine (a shape known from before was not), and whether they are an earlier busy launch's
// stand-in.
struct ShapeSpeeds {
  std::string speeds;
  bool busy = false;
  bool stand_in = false;
};

// Every shape's speeds, from what this CPU measured before at this thread count or measured now. A
// measurement is kept only where the machine was quiet while it ran; on a busy machine it is taken
// again (three tries), and the last is used only where no stand-in is known (and kept as one). The
// second answer says why nothing was kept ("" when it was, or nothing was measured).
std::pair<std::vector<ShapeSpeeds>, std::string> shape_speeds(const std::vector<GemmShape>& shapes, int threads) {
  const std::string cpu = read_cpu_info().identity();
  std::vector<ShapeSpeeds> speeds(shapes.size());
  std::vector<size_t> unknown;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (auto known = recalled_speeds(speeds_key(shapes[i], cpu, threads))) speeds[i].speeds = *known;
    else unknown.push_back(i);
  }
  std::vector<GemmShape> to_measure;
  for (const size_t i : unknown) to_measure.push_back(shapes[i]);
  std::string busy;
  for (int attempt = 0; attempt < 3 && !unknown.empty(); ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    const CpuWindow window;
    const auto opened = std::chrono::steady_clock::now();
    const auto measured = measure_gemm_choices(to_measure);
    for (size_t j = 0; j < unknown.size(); ++j)
      speeds[unknown[j]].speeds = fmt::format("{:.6g} {:.6g}", measured[j].mkl_gflops, measured[j].onednn_gflops);
    // /proc/stat counts whole ticks (10 ms) per CPU: over the few ms a small model's shapes take,
    // two busy loops on a 2-vCPU VM read as nothing at all. The window is held open, asleep (so
    // that only others' use counts), until it can see them.
    std::this_thread::sleep_until(opened + kShortestQuietWindow);
    // Where /proc/stat cannot be read nothing is known either way: the answer is kept, as before.
    const auto use = window.close();
    busy = use ? busy_machine_reason(*use, threads).value_or("") : "";
    if (busy.empty()) {
      for (const size_t i : unknown) keep_fact(speeds_key(shapes[i], cpu, threads), speeds[i].speeds);
      return {speeds, busy};
    }
  }
  for (const size_t i : unknown) {
    const std::string key = stand_in_key(shapes[i], cpu, threads);
    speeds[i].busy = true;
    if (auto earlier = recalled_speeds(key)) speeds[i] = {*earlier, true, true};
    else keep_fact(key, speeds[i].speeds);
  }
  return {speeds, busy};
}

}  // namespace

void choose_gemm_backends(const TrainConfig& config, ControlChannel& control, int threads, bool fp32_cpu_gemms) {
  set_gemm_choices({});
  if (!fp32_cpu_gemms) return;
  const auto shapes = model_shapes(config);
  std::string text;
  if (control.rank() == 0) {
    const auto [speeds, busy] = shape_speeds(shapes, threads);
    for (const auto& s : speeds) text += fmt::format("{} {:d} {:d}\n", s.speeds, s.busy, s.stand_in);
    text += busy + "\n";
  }
  std::vector<char> bytes(text.begin(), text.end());
  control.broadcast_bytes(bytes, /*root=*/0);
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::vector<GemmChoice> choices;
  std::vector<bool> measured_busy;
  for (const auto& s : shapes) {
    GemmChoice c;
    c.shape = s;
    int busy = 0, stand_in = 0;
    in >> c.mkl_gflops >> c.onednn_gflops >> busy >> stand_in;
    measured_busy.push_back(busy != 0);
    c.speeds_from_earlier_launch = stand_in != 0;
    const auto pinned = parse_gemm_backend(config.gemm_backend);
    c.pinned = pinned.has_value();
    c.backend = pinned                                         ? *pinned
                : prefer_onednn(c.mkl_gflops, c.onednn_gflops) ? GemmBackend::onednn
                                                               : GemmBackend::mkl;
    choices.push_back(c);
  }
  in >> std::ws;
  std::string why_busy;
  std::getline(in, why_busy);
  for (size_t i = 0; i < choices.size(); ++i)
    if (measured_busy[i]) choices[i].measured_on_busy_machine = why_busy;
  set_gemm_choices(std::move(choices));
}

nlohmann::json gemm_backends_json(const std::vector<GemmTally>& per_step) {
  nlohmann::json out = nlohmann::json::array();
  const auto& choices = gemm_choices();
  for (size_t i = 0; i < choices.size(); ++i) {
    const auto& c = choices[i];
    out.push_back({{"shape", c.shape.text()},
                   {"m", c.shape.m},
                   {"n", c.shape.n},
                   {"k", c.shape.k},
                   {"backend", gemm_backend_name(c.backend)},
                   {"chosen_by", c.pinned            ? "--gemm-backend"
                                 : c.from_checkpoint ? "checkpoint"
                                                     : "measured"},
                   {"mkl_gflops", c.mkl_gflops},
                   {"onednn_gflops", c.onednn_gflops}});
    if (!c.measured_on_busy_machine.empty()) out.back()["measured_on_busy_machine"] = c.measured_on_busy_machine;
    if (c.speeds_from_earlier_launch) out.back()["speeds_from_earlier_launch"] = true;
    if (i < per_step.size() && per_step[i].seconds > 0) {
      out.back()["step_ms"] = per_step[i].seconds * 1e3;
      out.back()["step_gflops"] = per_step[i].flops / per_step[i].seconds / 1e9;
    }
  }
  return out;
}

nlohmann::json gemm_backends_for_checkpoint() {
  nlohmann::json out;
  for (const auto& c : gemm_choices())
    out.push_back({{"shape", c.shape.text()}, {"backend", gemm_backend_name(c.backend)}});
  return out;
}

std::vector<std::string> adopt_checkpoint_gemm_backends(const nlohmann::json& recorded) {
  std::vector<GemmChoice> choices = gemm_choices();
  std::vector<std::string> differing;
  if (!recorded.is_array()) return differing;
  for (const auto& entry : recorded) {
    if (!entry.is_object() || !entry.contains("shape") || !entry.contains("backend") || !entry["shape"].is_string() ||
        !entry["backend"].is_string())
      continue;
    const auto backend = parse_gemm_backend(entry["backend"].get<std::string>());
    if (!backend) continue;
    for (auto& c : choices) {
      if (c.shape.text() != entry["shape"].get<std::string>()) continue;
      if (c.pinned) {
        if (c.backend != *backend) differing.push_back(c.shape.text());
      } else {
        c.backend = *backend;
        c.from_checkpoint = true;
      }
    }
  }
  set_gemm_choices(std::move(choices));
  return differing;
}

std::optional<GemmPeak> chosen_gemm_peak() {
  std::optional<GemmPeak> peak;
  for (const auto& c : gemm_choices()) {
    const double gflops = c.backend == GemmBackend::onednn ? c.onednn_gflops : c.mkl_gflops;
    if (!peak || gflops > peak->gflops) peak = GemmPeak{gflops, gemm_backend_name(c.backend)};
  }
  return peak;
}

std::string gemm_onednn_entry() { return onednn_entry(); }

}  // namespace mt

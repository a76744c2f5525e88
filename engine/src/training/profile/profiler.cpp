#include "training/profile/profiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <stdexcept>

#include "core/env/resources.h"
#include "core/job/output_file.h"
#include "training/profile/step_analysis.h"

namespace mt {
namespace {

using Clock = TraceRecorder::Clock;

// A collective's handle that draws the collective when it is seen complete, and the wait if the
// caller had to block for it.
class TracedWork final : public Work {
 public:
  TracedWork(WorkHandle inner, TraceRecorder& recorder, TraceSpan span)
      : inner_(std::move(inner)), recorder_(recorder), span_(std::move(span)) {}

  bool test() override {
    const bool done = inner_->test();
    if (done) record(Clock::now());
    return done;
  }
  void wait() override {
    const auto start = Clock::now();
    inner_->wait();
    const auto end = Clock::now();
    if (!recorded_)
      recorder_.add({"wait " + span_.name,
                     "wait",
                     TraceTrack::compute,
                     recorder_.us(start),
                     recorder_.us(end),
                     span_.step,
                     {{"collective", span_.args}}});
    record(end);
  }
  std::string describe() const override { return inner_->describe(); }
  std::optional<Clock::time_point> completed_at() const override { return inner_->completed_at(); }
  bool ran_blocking() const override { return inner_->ran_blocking(); }

 private:
  void record(Clock::time_point seen) {
    if (recorded_) return;
    recorded_ = true;
    span_.end_us = recorder_.us(inner_->completed_at().value_or(seen));
    recorder_.add(span_);
  }

  WorkHandle inner_;
  TraceRecorder& recorder_;
  TraceSpan span_;
  bool recorded_ = false;
};

class TracedCommunicator final : public Communicator {
 public:
  TracedCommunicator(Communicator& inner, TraceRecorder& recorder) : inner_(inner), recorder_(recorder) {}

  int rank() const override { return inner_.rank(); }
  int world_size() const override { return inner_.world_size(); }
  const char* backend() const override { return inner_.backend(); }
  bool device_memory() const override { return inner_.device_memory(); }
  void synchronize() override { inner_.synchronize(); }
  std::unique_ptr<Communicator> split(int color, int key) override { return inner_.split(color, key); }

  using Communicator::all_reduce;
  WorkHandle all_reduce(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    return traced(CollectiveKind::all_reduce, count, type,
                  [&] { return inner_.all_reduce(send, recv, count, type, stream); });
  }
  WorkHandle all_gather(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    return traced(CollectiveKind::all_gather, count * world_size(), type,
                  [&] { return inner_.all_gather(send, recv, count, type, stream); });
  }
  WorkHandle reduce_scatter(const void* send, void* recv, std::size_t count, ElementType type,
                            StreamRef stream) override {
    return traced(CollectiveKind::reduce_scatter, count * world_size(), type,
                  [&] { return inner_.reduce_scatter(send, recv, count, type, stream); });
  }
  WorkHandle broadcast(void* data, std::size_t count, ElementType type, int root, StreamRef stream) override {
    return traced(CollectiveKind::broadcast, count, type,
                  [&] { return inner_.broadcast(data, count, type, root, stream); });
  }
  WorkHandle all_to_all(const void* send, void* recv, std::size_t count, ElementType type, StreamRef stream) override {
    return traced(CollectiveKind::all_to_all, count * world_size(), type,
                  [&] { return inner_.all_to_all(send, recv, count, type, stream); });
  }
  WorkHandle all_to_all_v(const void* send, const std::vector<std::size_t>& send_counts, void* recv,
                          const std::vector<std::size_t>& recv_counts, ElementType type, StreamRef stream) override {
    std::size_t total = 0;
    for (auto c : send_counts) total += c;
    return traced(CollectiveKind::all_to_all, total, type,
                  [&] { return inner_.all_to_all_v(send, send_counts, recv, recv_counts, type, stream); });
  }

 private:
  template <typename Issue>
  WorkHandle traced(CollectiveKind kind, std::size_t elements, ElementType type, Issue issue_inner) {
    const long seq = issue(kind);
    std::string label = take_label();
    inner_.set_next_label(label);
    TraceSpan span{label.empty() ? collective_name(kind) : fmt::format("{} ({})", collective_name(kind), label),
                   "collective",
                   TraceTrack::communication,
                   recorder_.now_us(),
                   0,
                   -1,
                   {{"op", collective_name(kind)},
                    {"bytes", elements * element_bytes(type)},
                    {"sequence", seq},
                    {"label", label}}};
    auto work = std::make_shared<TracedWork>(issue_inner(), recorder_, std::move(span));
    work->test();  // one that ran blocking is complete as it returns: drawn up to now
    return work;
  }

  Communicator& inner_;
  TraceRecorder& recorder_;
};

class TracedRuntime final : public DeviceRuntime {
 public:
  TracedRuntime(std::unique_ptr<DeviceRuntime> inner, TraceRecorder& recorder)
      : inner_(std::move(inner)), recorder_(recorder) {}

  torch::Device device() const override { return inner_->device(); }
  bool is_gpu() const override { return inner_->is_gpu(); }
  torch::Tensor to_device(const torch::Tensor& host) override { return inner_->to_device(host); }

  void begin_step() override {
    step_start_ = recorder_.now_us();
    inner_->begin_step();
  }
  void start(StepPhase phase) override {
    started_[static_cast<std::size_t>(phase)] = recorder_.now_us();
    inner_->start(phase);
  }
  void stop(StepPhase phase) override {
    inner_->stop(phase);
    static const char* names[] = {"data", "forward-backward", "optimizer", "wait for ranks"};
    static const char* categories[] = {"data", "compute_phase", "optimizer_phase", "rank_wait"};
    const auto i = static_cast<std::size_t>(phase);
    recorder_.add({names[i], categories[i], TraceTrack::steps, started_[i], recorder_.now_us()});
  }
  StepTimes end_step() override {
    StepTimes times = inner_->end_step();
    recorder_.add(
        {fmt::format("step {}", recorder_.step()), "step", TraceTrack::steps, step_start_, recorder_.now_us()});
    return times;
  }
  DeviceMemoryPeaks memory_peaks() const override { return inner_->memory_peaks(); }

 private:
  std::unique_ptr<DeviceRuntime> inner_;
  TraceRecorder& recorder_;
  double step_start_ = 0;
  std::array<double, kStepPhases> started_{};
};

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double at = q * (values.size() - 1);
  const auto low = static_cast<std::size_t>(at);
  const auto high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (at - low);
}

}  // namespace

BlockRunner Profiler::traced_blocks(BlockRunner inner) {
  auto backward_started = std::make_shared<std::map<int64_t, double>>();
  return [this, inner, backward_started](int64_t index, Block& block, const torch::Tensor& x) {
    const double start = recorder_.now_us();
    auto y = inner(index, block, x);
    recorder_.add({fmt::format("block {} forward", index), "forward", TraceTrack::compute, start, recorder_.now_us()});
    if (y.requires_grad() && x.requires_grad()) {
      // dL/dy is ready when the block's backward begins; dL/dx when it ends.
      y.register_hook(
          [this, index, backward_started](const torch::Tensor&) { (*backward_started)[index] = recorder_.now_us(); });
      const_cast<torch::Tensor&>(x).register_hook([this, index, backward_started](const torch::Tensor&) {
        auto it = backward_started->find(index);
        if (it == backward_started->end()) return;
        recorder_.add(
            {fmt::format("block {} backward", index), "backward", TraceTrack::compute, it->second, recorder_.now_us()});
        backward_started->erase(it);
      });
    }
    return y;
  };
}

void Profiler::record_operators_in(int64_t step, bool device_kernels, std::string why_not) {
  operator_step_ = step;
  device_kernels_ = device_kernels;
  if (step < 0) operator_summary_ = {{"skipped", std::move(why_not)}};
}

void Profiler::before_step(int64_t step) {
  recorder_.set_step(step);
  if (step != operator_step_) return;
  // The profiler's records take freed blocks the step would otherwise reuse, so some of its
  // blocks come from the heap's untouched top: backed now, outside the step's clock, the first
  // touch of that memory is not charged to whichever operator meets it (resources.h).
  constexpr int64_t kProfilerHeapHeadroom = int64_t{64} << 20;
  heap_prefaulted_bytes_ = prefault_heap_top(kProfilerHeapHeadroom);
  try {
    operators_.start(device_kernels_);
  } catch (const std::exception& e) {
    operator_summary_ = {{"error", e.what()}};
  }
}

void Profiler::after_step(int64_t step, double step_ms) {
  if (step != operator_step_ || !operators_.recording()) return;
  constexpr std::size_t kTopOperators = 15;
  const std::string name = fmt::format("rank_{:05d}.operators.json", recorder_.rank());
  try {
    std::filesystem::create_directories(dir_);
    const auto calls = operators_.stop((std::filesystem::path(dir_) / name).string());
    operator_summary_ = operator_summary(operator_stats(calls), kTopOperators);
    operator_summary_["step"] = step;
    operator_summary_["step_ms"] = step_ms;  // that step's own time, operator profiler included
    operator_summary_["trace"] = name;
    operator_summary_["heap_prefaulted_bytes"] = heap_prefaulted_bytes_;
  } catch (const std::exception& e) {
    operator_summary_ = {{"error", e.what()}};
  }
}

std::unique_ptr<Communicator> Profiler::traced(Communicator& inner) {
  return std::make_unique<TracedCommunicator>(inner, recorder_);
}

std::unique_ptr<DeviceRuntime> Profiler::traced(std::unique_ptr<DeviceRuntime> inner) {
  return std::make_unique<TracedRuntime>(std::move(inner), recorder_);
}

void Profiler::optimizer_step(Clock::time_point start, Clock::time_point end) {
  recorder_.add({"optimizer step", "optimizer", TraceTrack::compute, recorder_.us(start), recorder_.us(end)});
}

Profiler::Profiler(int rank, std::string dir) : recorder_(rank), dir_(std::move(dir)) {
  if (rank != 0) return;
  namespace fs = std::filesystem;
  const std::regex ours(R"(rank_\d{5}\.(trace|operators)\.json|profile\.json)");
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& entry : fs::directory_iterator(dir_, ec))
    if (std::regex_match(entry.path().filename().string(), ours)) stale.push_back(entry.path());
  for (const auto& path : stale) fs::remove(path, ec);
}

nlohmann::json Profiler::finish(ControlChannel& control, int64_t first_measured_step) {
  const std::string& dir = dir_;
  const auto spans = recorder_.spans();
  const auto steps = profile_steps(spans, first_measured_step);
  nlohmann::json mine = summarize_steps(steps);
  if (!operator_summary_.is_null()) mine["operators"] = operator_summary_;
  std::string error;
  try {
    std::filesystem::create_directories(dir);
    const auto path = std::filesystem::path(dir) / fmt::format("rank_{:05d}.trace.json", control.rank());
    write_text_atomically(path, recorder_.chrome_trace().dump() + "\n");
    mine["trace"] = path.filename().string();
  } catch (const std::exception& e) {
    error = e.what();
  }
  // A profile missing a rank's trace is no profile: every rank fails together, as a run-time failure.
  const double first_failed = control.min(error.empty() ? control.world_size() : control.rank());
  if (first_failed < control.world_size())
    throw std::runtime_error(
        error.empty() ? fmt::format("--profile: rank {} could not write its trace", static_cast<int>(first_failed))
                      : "--profile: " + error);
  const auto all = control.gather_text_to_root(mine.dump());
  if (control.rank() != 0) return {};
  nlohmann::json ranks = nlohmann::json::array();
  std::vector<double> step_means;
  for (const auto& text : all) {
    auto rank = nlohmann::json::parse(text);
    step_means.push_back(rank["step_ms"].value("mean", 0.0));
    ranks.push_back(std::move(rank));
  }
  const double p50 = percentile(step_means, 0.5);
  nlohmann::json summary = {
      {"directory", dir},
      {"ranks", ranks},
      {"step_ms_across_ranks", {{"min", percentile(step_means, 0)}, {"p50", p50}, {"max", percentile(step_means, 1)}}},
      {"straggler_ratio", p50 > 0 ? percentile(step_means, 1) / p50 : 1.0}};
  try {
    write_text_atomically(std::filesystem::path(dir) / "profile.json", summary.dump(2) + "\n");
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("--profile: ") + e.what());
  }
  return summary;
}

}  // namespace mt

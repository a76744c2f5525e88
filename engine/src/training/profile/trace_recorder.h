// Spans of one rank's training, written as a Chrome trace (the JSON Perfetto and chrome://tracing
// load): step boundaries on one track, computation (data, forward and backward per block,
// optimizer) on another, each collective on a third with its operation, bytes, label and sequence
// number. Times are microseconds from the recorder's start on the steady clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "training/profile/span_log.h"

namespace mt {

enum class TraceTrack { steps = 0, compute = 1, communication = 2 };

struct TraceSpan {
  std::string name;
  std::string category;  // step, data, forward, backward, optimizer, collective
  TraceTrack track = TraceTrack::compute;
  double start_us = 0, end_us = 0;
  int64_t step = -1;
  nlohmann::json args = nlohmann::json::object();
};

class TraceRecorder {
 public:
  using Clock = std::chrono::steady_clock;

  explicit TraceRecorder(int rank);

  double us(Clock::time_point t) const;
  double now_us() const { return us(Clock::now()); }

  int rank() const { return rank_; }
  void set_step(int64_t step) { step_ = step; }
  int64_t step() const { return step_; }
  // Thread-safe: spans may be recorded from hooks. Kept outside malloc's heap, so that a span kept
  // at every step does not make the step's memory grow (span_log.h).
  void add(TraceSpan span);

  std::vector<TraceSpan> spans() const;
  nlohmann::json chrome_trace() const;

 private:
  int rank_;
  Clock::time_point origin_;
  int64_t step_ = -1;
  mutable std::mutex mutex_;
  SpanLog log_;  // each span as JSON text, off the heap (span_log.h)
};

}  // namespace mt

// `mtengine train --profile DIR`: a separate mode (plain runs stay unprofiled, so their timings
// stay clean). Per rank, a Chrome trace (DIR/rank_%05d.trace.json) with steps and their phases,
// forward and backward spans per block, the optimizer step, every collective on a track of its
// own (operation, bytes, label such as the bucket, sequence number; from issue to completion as
// the communication thread saw it) and the waits for them. From the spans: each rank's step
// breakdown and how much communication hid behind computation; across ranks (DIR/profile.json,
// and the result JSON's "profile"): step time min / p50 / max and the straggler ratio max / p50.
// Beside that, LibTorch's own profiler records one step's operators (DIR/rank_%05d.operators.json,
// Kineto's trace) for each rank's top operators by self time: the last warmup step, whose timings
// nothing reports, so its far larger cost stays out of the measured steps.
// Spans are host-side: on a GPU, device work is asynchronous and spans show when the host issued
// it, not when the device ran it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "core/comm/communicator.h"
#include "core/comm/control_channel.h"
#include "training/model/gpt.h"
#include "training/profile/operator_profiler.h"
#include "training/profile/trace_recorder.h"
#include "training/device/device_runtime.h"

namespace mt {

class Profiler {
 public:
  // Rank 0 removes what an earlier profile left in `dir` (its per-rank traces, profile.json): a
  // profile of fewer ranks would otherwise sit beside the old run's extra rank files. Every rank
  // writes its files only after the first step's barrier, so none is removed once written.
  Profiler(int rank, std::string dir);

  TraceRecorder& recorder() { return recorder_; }

  // The step whose operators LibTorch's profiler records (with the GPU's kernels when
  // `device_kernels`); -1: none (the summary says why).
  void record_operators_in(int64_t step, bool device_kernels, std::string why_not = "");
  // Around every training step: numbers the spans, and records operators in the chosen step.
  void before_step(int64_t step);
  void after_step(int64_t step, double step_ms);

  // Forward and backward spans per block, around whatever runs the blocks now.
  BlockRunner traced_blocks(BlockRunner inner);
  // The same collectives, each also drawn as a span; waits for them drawn too.
  std::unique_ptr<Communicator> traced(Communicator& inner);
  // Step and phase spans (data, forward-backward, optimizer), from the runtime's own calls.
  std::unique_ptr<DeviceRuntime> traced(std::unique_ptr<DeviceRuntime> inner);
  // A span around the optimizer's own step (category "optimizer").
  void optimizer_step(TraceRecorder::Clock::time_point start, TraceRecorder::Clock::time_point end);

  // Collective: writes this rank's trace, gathers every rank's summary to rank 0, which writes
  // DIR/profile.json. Returns the summary for the result JSON (rank 0; others get {}). A file that
  // cannot be written (a full disk) fails the run on every rank, naming the file.
  nlohmann::json finish(ControlChannel& control, int64_t first_measured_step);

 private:
  TraceRecorder recorder_;
  std::string dir_;
  OperatorProfiler operators_;
  int64_t operator_step_ = -1;
  bool device_kernels_ = false;
  int64_t heap_prefaulted_bytes_ = 0;  // backed before the recorded step
  nlohmann::json operator_summary_;    // this rank's top operators, or why there are none
};

}  // namespace mt

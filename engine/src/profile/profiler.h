// `mtengine train --profile DIR`: a separate mode (plain runs stay unprofiled, so their timings
// stay clean). Per rank, a Chrome trace (DIR/rank_%05d.trace.json) with steps and their phases,
// forward and backward spans per block, the optimizer step, every collective on a track of its
// own (operation, bytes, label such as the bucket, sequence number; from issue to completion as
// the communication thread saw it) and the waits for them. From the spans: each rank's step
// breakdown and how much communication hid behind computation; across ranks (DIR/profile.json,
// and the result JSON's "profile"): step time min / p50 / max and the straggler ratio max / p50.
// Spans are host-side: on a GPU, device work is asynchronous and spans show when the host issued
// it, not when the device ran it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/communicator.h"
#include "comm/control_channel.h"
#include "model/gpt.h"
#include "profile/trace_recorder.h"
#include "train/device_runtime.h"

namespace mt {

class Profiler {
 public:
  explicit Profiler(int rank) : recorder_(rank) {}

  TraceRecorder& recorder() { return recorder_; }

  // Forward and backward spans per block, around whatever runs the blocks now.
  BlockRunner traced_blocks(BlockRunner inner);
  // The same collectives, each also drawn as a span; waits for them drawn too.
  std::unique_ptr<Communicator> traced(Communicator& inner);
  // Step and phase spans (data, forward-backward, optimizer), from the runtime's own calls.
  std::unique_ptr<DeviceRuntime> traced(std::unique_ptr<DeviceRuntime> inner);
  // A span around the optimizer's own step (category "optimizer").
  void optimizer_step(TraceRecorder::Clock::time_point start, TraceRecorder::Clock::time_point end);

  // Collective: writes this rank's trace, gathers every rank's summary to rank 0, which writes
  // DIR/profile.json. Returns the summary for the result JSON (rank 0; others get {}).
  nlohmann::json finish(ControlChannel& control, const std::string& dir, int64_t first_measured_step);

 private:
  TraceRecorder recorder_;
};

}  // namespace mt

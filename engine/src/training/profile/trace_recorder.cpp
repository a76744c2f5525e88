#include "training/profile/trace_recorder.h"

namespace mt {
namespace {

const char* track_name(TraceTrack track) {
  switch (track) {
    case TraceTrack::steps: return "steps";
    case TraceTrack::compute: return "compute";
    case TraceTrack::communication: return "communication";
  }
  return "?";
}

}  // namespace

TraceRecorder::TraceRecorder(int rank) : rank_(rank), origin_(Clock::now()) {}

double TraceRecorder::us(Clock::time_point t) const {
  return std::chrono::duration<double, std::micro>(t - origin_).count();
}

void TraceRecorder::add(TraceSpan span) {
  // The text is a temporary: freed here, it leaves nothing on the heap.
  const std::string text = nlohmann::json{
      {"name", span.name},         {"category", span.category}, {"track", static_cast<int>(span.track)},
      {"start_us", span.start_us}, {"end_us", span.end_us},     {"step", span.step < 0 ? step_ : span.step},
      {"args", span.args}}.dump();
  std::lock_guard<std::mutex> lock(mutex_);
  log_.append(text);
}

std::vector<TraceSpan> TraceRecorder::spans() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<TraceSpan> spans;
  spans.reserve(log_.size());
  for (const auto record : log_.records()) {
    const auto j = nlohmann::json::parse(record);
    spans.push_back({j["name"].get<std::string>(), j["category"].get<std::string>(),
                     static_cast<TraceTrack>(j["track"].get<int>()), j["start_us"].get<double>(),
                     j["end_us"].get<double>(), j["step"].get<int64_t>(), j["args"]});
  }
  return spans;
}

nlohmann::json TraceRecorder::chrome_trace() const {
  nlohmann::json events = nlohmann::json::array();
  // Names for the process (this rank) and its tracks, so the viewer labels them.
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", rank_},
                    {"tid", 0},
                    {"args", {{"name", "rank " + std::to_string(rank_)}}}});
  for (auto track : {TraceTrack::steps, TraceTrack::compute, TraceTrack::communication})
    events.push_back({{"ph", "M"},
                      {"name", "thread_name"},
                      {"pid", rank_},
                      {"tid", static_cast<int>(track)},
                      {"args", {{"name", track_name(track)}}}});
  for (const auto& s : spans()) {
    nlohmann::json args = s.args;
    args["step"] = s.step;
    events.push_back({{"ph", "X"},
                      {"name", s.name},
                      {"cat", s.category},
                      {"pid", rank_},
                      {"tid", static_cast<int>(s.track)},
                      {"ts", s.start_us},
                      {"dur", s.end_us - s.start_us},
                      {"args", args}});
  }
  return {
      {"traceEvents", events}, {"displayTimeUnit", "ms"}, {"otherData", {{"rank", rank_}, {"producer", "mtengine"}}}};
}

}  // namespace mt

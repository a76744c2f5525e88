// The profiler's spans: kept in order with everything they say, and off malloc's heap, so that
// recording a step leaves that step's memory as it was (span_log.h).
#include <doctest/doctest.h>
#include <malloc.h>

#include <string>

#include "training/profile/span_log.h"
#include "training/profile/trace_recorder.h"

namespace {

// Bytes malloc has handed out and not had back, every arena.
std::size_t heap_in_use() { return mallinfo2().uordblks; }

}  // namespace

TEST_CASE("spans come back in order with their names, times, step and arguments") {
  mt::TraceRecorder recorder(3);
  recorder.set_step(7);
  recorder.add(
      {"block 11 backward (a name longer than a short string)", "backward", mt::TraceTrack::compute, 1.5, 2.25});
  recorder.add({"all_reduce",
                "collective",
                mt::TraceTrack::communication,
                3,
                4,
                6,
                {{"op", "all_reduce"}, {"bytes", 4096}, {"label", "bucket 0"}}});
  const auto spans = recorder.spans();
  REQUIRE(spans.size() == 2);
  CHECK(spans[0].name == "block 11 backward (a name longer than a short string)");
  CHECK(spans[0].category == "backward");
  CHECK(spans[0].track == mt::TraceTrack::compute);
  CHECK(spans[0].start_us == 1.5);
  CHECK(spans[0].end_us == 2.25);
  CHECK(spans[0].step == 7);  // the recorder's step where the span names none
  CHECK(spans[0].args == nlohmann::json::object());
  CHECK(spans[1].step == 6);
  CHECK(spans[1].track == mt::TraceTrack::communication);
  CHECK(spans[1].args["bytes"] == 4096);
  CHECK(spans[1].args["label"] == "bucket 0");
  const auto trace = recorder.chrome_trace();
  CHECK(trace["traceEvents"].back()["args"]["step"] == 6);
}

TEST_CASE("recording spans keeps nothing on malloc's heap") {
  mt::TraceRecorder recorder(0);
  recorder.add({"warm", "step", mt::TraceTrack::steps, 0, 1});  // the log's first chunk and its list
  const std::size_t before = heap_in_use();
  constexpr int kSpans = 4000;  // a long profiled run's worth
  for (int i = 0; i < kSpans; ++i) {
    recorder.add({"block " + std::to_string(i % 12) + " backward, a name past the short-string size",
                  "backward",
                  mt::TraceTrack::compute,
                  double(i),
                  double(i + 1),
                  -1,
                  {{"op", "all_reduce"}, {"bytes", i}}});
  }
  // Kept on the heap, these spans would hold well over 100 bytes each; what is left is what malloc
  // keeps cached from the temporaries.
  CHECK(heap_in_use() < before + 64 * 1024);
  CHECK(recorder.spans().size() == kSpans + 1);
}

TEST_CASE("the span log keeps records of any size, in order, across chunks") {
  mt::SpanLog log;
  const std::string big(3u << 20, 'x');  // larger than a chunk
  log.append("first");
  log.append(big);
  for (int i = 0; i < 100000; ++i) log.append(std::to_string(i));
  log.append("");
  const auto records = log.records();
  REQUIRE(records.size() == 100003);
  CHECK(log.size() == records.size());
  CHECK(records[0] == "first");
  CHECK(records[1] == big);
  CHECK(records[2] == "0");
  CHECK(records[100001] == "99999");
  CHECK(records[100002].empty());
}

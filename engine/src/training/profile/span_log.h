// An append-only log of byte records kept outside malloc's heap, in chunks mapped from the kernel.
// What a run keeps a little of at every step (the profiler's spans) must not come from the heap:
// each small block kept there can split one of the step's freed activation blocks, so the next
// activation of that size comes from the heap's fresh top. With the spans on the heap the 23.2M
// model's profiled run grew by ~10 MiB a step and its steps ran ~10 % slower (first touches of
// that fresh memory) than unprofiled ones.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mt {

class SpanLog {
 public:
  SpanLog() = default;
  ~SpanLog();
  SpanLog(const SpanLog&) = delete;
  SpanLog& operator=(const SpanLog&) = delete;

  // Copies `record` to the end of the log. Throws std::bad_alloc where the kernel maps no memory.
  void append(std::string_view record);

  // Every record, in the order appended (views into the log: valid while it lives).
  std::vector<std::string_view> records() const;

  std::size_t size() const { return count_; }

 private:
  struct Chunk {
    char* data = nullptr;
    std::size_t capacity = 0, used = 0;
  };
  std::vector<Chunk> chunks_;  // grows once per chunk (a MiB of records at least), not per record
  std::size_t count_ = 0;
};

}  // namespace mt

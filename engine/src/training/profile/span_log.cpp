#include "training/profile/span_log.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

namespace mt {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
using Length = std::uint32_t;  // each record's length, before its bytes

}  // namespace

SpanLog::~SpanLog() {
  for (const auto& chunk : chunks_) munmap(chunk.data, chunk.capacity);
}

void SpanLog::append(std::string_view record) {
  const std::size_t need = sizeof(Length) + record.size();
  if (record.size() > UINT32_MAX) throw std::bad_alloc();
  if (chunks_.empty() || chunks_.back().capacity - chunks_.back().used < need) {
    const std::size_t capacity = std::max(kChunkBytes, need);
    void* data = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) throw std::bad_alloc();
    if (chunks_.capacity() == chunks_.size()) chunks_.reserve(std::max<std::size_t>(16, 2 * chunks_.size()));
    chunks_.push_back({static_cast<char*>(data), capacity, 0});
  }
  Chunk& chunk = chunks_.back();
  const auto length = static_cast<Length>(record.size());
  std::memcpy(chunk.data + chunk.used, &length, sizeof length);
  std::memcpy(chunk.data + chunk.used + sizeof length, record.data(), record.size());
  chunk.used += need;
  ++count_;
}

std::vector<std::string_view> SpanLog::records() const {
  std::vector<std::string_view> out;
  out.reserve(count_);
  for (const auto& chunk : chunks_) {
    for (std::size_t at = 0; at < chunk.used;) {
      Length length = 0;
      std::memcpy(&length, chunk.data + at, sizeof length);
      out.emplace_back(chunk.data + at + sizeof length, length);
      at += sizeof length + length;
    }
  }
  return out;
}

}  // namespace mt

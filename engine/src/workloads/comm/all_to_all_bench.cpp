// all_to_all: rank r sends a block to every peer p. Equal splits: `count` elements each. Uneven
// (the upstream's rule): e + (r + p) mod n elements, e = count. Each element encodes (sender,
// receiver, index), so a block delivered to the wrong rank or place is counted as wrong. The
// message is what a rank sends in all.
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

std::size_t sent(const BenchShape& s, int from, int to) {
  return s.split == "uneven" ? s.count + static_cast<std::size_t>((from + to) % s.world) : s.count;
}

float tag(int from, int to, std::size_t i) {
  return static_cast<float>(from * 64 + to) * 1024.0f + static_cast<float>(i % 1024);
}

class AllToAllBench final : public CollectiveBench {
 public:
  const char* name() const override { return "all_to_all"; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  bool supports_in_place() const override { return false; }
  bool has_splits() const override { return true; }
  void prepare(BenchShape& s) const override {
    if (s.split != "uneven") return;
    for (int p = 0; p < s.world; ++p) {
      s.send_counts.push_back(sent(s, s.rank, p));
      s.recv_counts.push_back(sent(s, p, s.rank));
    }
  }
  std::size_t send_count(const BenchShape& s) const override {
    std::size_t total = 0;
    for (int p = 0; p < s.world; ++p) total += sent(s, s.rank, p);
    return total;
  }
  std::size_t recv_count(const BenchShape& s) const override {
    std::size_t total = 0;
    for (int p = 0; p < s.world; ++p) total += sent(s, p, s.rank);
    return total;
  }
  void fill(const BenchShape& s, float* send) const override {
    for (int p = 0; p < s.world; ++p)
      for (std::size_t i = 0; i < sent(s, s.rank, p); ++i) *send++ = tag(s.rank, p, i);
  }
  WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void* recv) const override {
    // prepare() worked out the counts of an uneven split: no string is compared in the timed loop.
    if (s.send_counts.empty()) return comm.all_to_all(send, recv, s.count, ElementType::f32);
    return comm.all_to_all_v(send, s.send_counts, recv, s.recv_counts, ElementType::f32);
  }
  std::size_t wrong(const BenchShape& s, const float* recv) const override {
    std::size_t bad = 0;
    for (int p = 0; p < s.world; ++p)
      for (std::size_t i = 0; i < sent(s, p, s.rank); ++i) bad += *recv++ != tag(p, s.rank, i);
    return bad;
  }
};

}  // namespace

const CollectiveBench* all_to_all_bench() {
  static const AllToAllBench bench;
  return &bench;
}

}  // namespace mt

// broadcast from rank 0: every rank ends with rank 0's buffer. Always in place.
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

class BroadcastBench final : public CollectiveBench {
 public:
  const char* name() const override { return "broadcast"; }
  double bus_factor(int) const override { return 1.0; }
  bool supports_out_of_place() const override { return false; }
  std::size_t send_count(const BenchShape& s) const override { return s.count; }
  std::size_t recv_count(const BenchShape& s) const override { return s.count; }
  void fill(const BenchShape& s, float* send) const override {
    for (std::size_t i = 0; i < s.count; ++i) send[i] = bench_value(s.rank, i);
  }
  WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void*) const override {
    return comm.broadcast(send, s.count, ElementType::f32, /*root=*/0);
  }
  std::size_t wrong(const BenchShape& s, const float* recv) const override {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < s.count; ++i) bad += recv[i] != bench_value(0, i);
    return bad;
  }
};

}  // namespace

const CollectiveBench* broadcast_bench() {
  static const BroadcastBench bench;
  return &bench;
}

}  // namespace mt

// reduce_scatter: each rank contributes world × count elements and ends with the sum of its own
// block. The message is the input (world × count).
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

class ReduceScatterBench final : public CollectiveBench {
 public:
  const char* name() const override { return "reduce_scatter"; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  bool supports_in_place() const override { return false; }
  std::size_t send_count(const BenchShape& s) const override { return s.count * s.world; }
  std::size_t recv_count(const BenchShape& s) const override { return s.count; }
  void fill(const BenchShape& s, float* send) const override {
    for (std::size_t i = 0; i < s.count * s.world; ++i) send[i] = bench_value(s.rank, i);
  }
  WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void* recv) const override {
    return comm.reduce_scatter(send, recv, s.count, ElementType::f32);
  }
  std::size_t wrong(const BenchShape& s, const float* recv) const override {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < s.count; ++i) bad += recv[i] != bench_sum(s.world, s.rank * s.count + i);
    return bad;
  }
};

}  // namespace

const CollectiveBench* reduce_scatter_bench() {
  static const ReduceScatterBench bench;
  return &bench;
}

}  // namespace mt

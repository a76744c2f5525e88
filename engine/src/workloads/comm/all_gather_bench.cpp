// all_gather: rank r contributes `count` elements; every rank ends with all of them in rank order.
// The message is the gathered buffer (world × count), as nccl-tests reports it.
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

class AllGatherBench final : public CollectiveBench {
 public:
  const char* name() const override { return "all_gather"; }
  double bus_factor(int n) const override { return static_cast<double>(n - 1) / n; }
  std::size_t send_count(const BenchShape& s) const override { return s.in_place ? s.count * s.world : s.count; }
  std::size_t recv_count(const BenchShape& s) const override { return s.count * s.world; }
  void fill(const BenchShape& s, float* send) const override {
    float* mine = s.in_place ? send + s.rank * s.count : send;  // in place: this rank's block
    for (std::size_t i = 0; i < s.count; ++i) mine[i] = bench_value(s.rank, i);
  }
  WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void* recv) const override {
    if (s.in_place) {
      auto* full = static_cast<float*>(send);
      return comm.all_gather(full + s.rank * s.count, full, s.count, ElementType::f32);
    }
    return comm.all_gather(send, recv, s.count, ElementType::f32);
  }
  std::size_t wrong(const BenchShape& s, const float* recv) const override {
    std::size_t bad = 0;
    for (int r = 0; r < s.world; ++r)
      for (std::size_t i = 0; i < s.count; ++i) bad += recv[r * s.count + i] != bench_value(r, i);
    return bad;
  }
};

}  // namespace

const CollectiveBench* all_gather_bench() {
  static const AllGatherBench bench;
  return &bench;
}

}  // namespace mt

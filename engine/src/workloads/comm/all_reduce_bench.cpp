// all_reduce: every rank ends with the element-wise sum; the message is the buffer (count elements).
#include "workloads/comm/collective_bench.h"

namespace mt {
namespace {

class AllReduceBench final : public CollectiveBench {
 public:
  const char* name() const override { return "all_reduce"; }
  double bus_factor(int n) const override { return 2.0 * (n - 1) / n; }
  std::size_t send_count(const BenchShape& s) const override { return s.count; }
  std::size_t recv_count(const BenchShape& s) const override { return s.count; }
  void fill(const BenchShape& s, float* send) const override {
    for (std::size_t i = 0; i < s.count; ++i) send[i] = bench_value(s.rank, i);
  }
  WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void* recv) const override {
    return comm.all_reduce(send, s.in_place ? send : recv, s.count, ElementType::f32);
  }
  std::size_t wrong(const BenchShape& s, const float* recv) const override {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < s.count; ++i) bad += recv[i] != bench_sum(s.world, i);
    return bad;
  }
};

}  // namespace

const CollectiveBench* all_reduce_bench() {
  static const AllReduceBench bench;
  return &bench;
}

}  // namespace mt

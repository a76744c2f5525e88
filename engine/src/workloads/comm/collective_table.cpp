// The one table of benchmarked collectives: adding one is a file and a line here.
#include "workloads/comm/collective_bench.h"

namespace mt {

const CollectiveBench* all_reduce_bench();
const CollectiveBench* all_gather_bench();
const CollectiveBench* reduce_scatter_bench();
const CollectiveBench* broadcast_bench();
const CollectiveBench* all_to_all_bench();

const std::vector<const CollectiveBench*>& collective_benches() {
  static const std::vector<const CollectiveBench*> table = {
      all_reduce_bench(), all_gather_bench(), reduce_scatter_bench(), broadcast_bench(), all_to_all_bench()};
  return table;
}

const CollectiveBench* find_collective_bench(const std::string& name) {
  for (const auto* bench : collective_benches())
    if (name == bench->name()) return bench;
  return nullptr;
}

}  // namespace mt

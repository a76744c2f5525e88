// One collective as `mtengine comm` measures it, in the manner of nccl-tests: buffer sizes for a
// message, inputs from which every output element is predictable, the operation itself, a count
// of the output elements that are wrong, and the bus-bandwidth factor that makes algorithm
// bandwidth comparable across rank counts. One file per collective, one line in the table.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/comm/communicator.h"

namespace mt {

struct BenchShape {
  int rank = 0, world = 1;
  std::size_t count = 0;  // elements of the message (see each collective for what that means)
  bool in_place = false;
  std::string split = "equal";  // all_to_all: equal, or uneven (e + (r + p) mod n elements to p)
  // Elements to and from each peer where the split is uneven, worked out once as a caller would (set
  // by prepare), not in every timed call.
  std::vector<std::size_t> send_counts{}, recv_counts{};
};

class CollectiveBench {
 public:
  virtual ~CollectiveBench() = default;
  virtual const char* name() const = 0;
  // nccl-tests' bus bandwidth factor for `world` ranks.
  virtual double bus_factor(int world) const = 0;
  virtual bool supports_in_place() const { return true; }
  virtual bool supports_out_of_place() const { return true; }
  virtual bool has_splits() const { return false; }
  // Fills in what the shape's calls take beyond its sizes (see BenchShape).
  virtual void prepare(BenchShape& /*s*/) const {}
  virtual std::size_t send_count(const BenchShape& s) const = 0;
  virtual std::size_t recv_count(const BenchShape& s) const = 0;
  // The bytes a rank moves per operation as nccl-tests reports "size": the larger buffer.
  std::size_t message_bytes(const BenchShape& s) const {
    return (send_count(s) > recv_count(s) ? send_count(s) : recv_count(s)) * sizeof(float);
  }
  // This rank's input. For in-place operations `send` is the buffer that also receives.
  virtual void fill(const BenchShape& s, float* send) const = 0;
  virtual WorkHandle issue(Communicator& comm, const BenchShape& s, void* send, void* recv) const = 0;
  // Output elements that differ from what the inputs imply.
  virtual std::size_t wrong(const BenchShape& s, const float* recv) const = 0;
};

const std::vector<const CollectiveBench*>& collective_benches();
const CollectiveBench* find_collective_bench(const std::string& name);

// Input element i of rank r: small integers, so every sum over up to 64 ranks is exact in fp32.
inline float bench_value(int rank, std::size_t i) { return static_cast<float>((rank + 1) * (1 + i % 7)); }
// The sum over ranks of bench_value(r, i): n (n + 1) / 2 · (1 + i mod 7).
inline float bench_sum(int world, std::size_t i) { return static_cast<float>(world * (world + 1) / 2 * (1 + i % 7)); }

}  // namespace mt

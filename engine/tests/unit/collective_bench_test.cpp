// The comm benchmark's oracles: each collective's expected output, computed here by simulating the
// exchange between ranks on the host, passes its check; a wrong routing or value is caught.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "workloads/comm/bench_buffer.h"
#include "workloads/comm/collective_bench.h"

namespace {

using Buffers = std::vector<std::vector<float>>;  // per rank

Buffers inputs(const mt::CollectiveBench& bench, mt::BenchShape s) {
  Buffers in;
  for (int r = 0; r < s.world; ++r) {
    s.rank = r;
    std::vector<float> buffer(bench.send_count(s));
    bench.fill(s, buffer.data());
    in.push_back(buffer);
  }
  return in;
}

// Blocks of rank `from`'s all-to-all input, per destination, as the bench lays them out.
std::vector<std::size_t> block_sizes(const mt::BenchShape& s, int from) {
  std::vector<std::size_t> sizes;
  for (int p = 0; p < s.world; ++p)
    sizes.push_back(s.split == "uneven" ? s.count + static_cast<std::size_t>((from + p) % s.world) : s.count);
  return sizes;
}

// What each rank should receive, by the collective's definition.
Buffers simulate(const std::string& op, const mt::BenchShape& s, const Buffers& in) {
  Buffers out(s.world);
  for (int r = 0; r < s.world; ++r) {
    if (op == "all_reduce") {
      out[r].assign(s.count, 0.0f);
      for (const auto& src : in)
        for (std::size_t i = 0; i < s.count; ++i) out[r][i] += src[i];
    } else if (op == "all_gather") {
      for (int q = 0; q < s.world; ++q) {
        const float* mine = s.in_place ? in[q].data() + q * s.count : in[q].data();
        out[r].insert(out[r].end(), mine, mine + s.count);
      }
    } else if (op == "reduce_scatter") {
      out[r].assign(s.count, 0.0f);
      for (const auto& src : in)
        for (std::size_t i = 0; i < s.count; ++i) out[r][i] += src[r * s.count + i];
    } else if (op == "broadcast") {
      out[r] = in[0];
    } else if (op == "all_to_all") {
      for (int q = 0; q < s.world; ++q) {
        const auto sizes = block_sizes(s, q);
        const std::size_t offset = std::accumulate(sizes.begin(), sizes.begin() + r, std::size_t{0});
        out[r].insert(out[r].end(), in[q].begin() + static_cast<long>(offset),
                      in[q].begin() + static_cast<long>(offset + sizes[r]));
      }
    }
  }
  return out;
}

std::size_t wrong_total(const mt::CollectiveBench& bench, mt::BenchShape s, const Buffers& out) {
  std::size_t total = 0;
  for (int r = 0; r < s.world; ++r) {
    s.rank = r;
    total += bench.wrong(s, out[r].data());
  }
  return total;
}

}  // namespace

TEST_CASE("every collective's check accepts the right output and catches a wrong one") {
  for (const auto* bench : mt::collective_benches()) {
    for (int world : {2, 3, 4}) {
      for (bool in_place : {false, true}) {
        if (in_place && !bench->supports_in_place()) continue;
        if (!in_place && !bench->supports_out_of_place()) continue;
        for (std::string split : {"equal", "uneven"}) {
          if (split == "uneven" && !bench->has_splits()) continue;
          mt::BenchShape s{0, world, 37, in_place, split};
          CAPTURE(bench->name());
          CAPTURE(world);
          CAPTURE(split);
          auto out = simulate(bench->name(), s, inputs(*bench, s));
          CHECK(wrong_total(*bench, s, out) == 0);
          out[world - 1][5] += 1.0f;  // one wrong value on one rank
          CHECK(wrong_total(*bench, s, out) == 1);
        }
      }
    }
  }
}

TEST_CASE("all_to_all with the uneven rule: a block routed to the wrong peer is caught") {
  const auto* bench = mt::find_collective_bench("all_to_all");
  REQUIRE(bench != nullptr);
  mt::BenchShape s{0, 3, 4, false, "uneven"};
  // Rank r sends 4 + (r + p) mod 3 elements to peer p.
  CHECK(block_sizes(s, 1) == std::vector<std::size_t>{5, 6, 4});
  // The counts the timed calls pass, worked out once: rank 1 sends 5, 6, 4 and receives 5 from
  // rank 0 ((0 + 1) mod 3), 6 from itself, 4 from rank 2.
  mt::BenchShape rank1{1, 3, 4, false, "uneven"};
  bench->prepare(rank1);
  CHECK(rank1.send_counts == std::vector<std::size_t>{5, 6, 4});
  CHECK(rank1.recv_counts == std::vector<std::size_t>{5, 6, 4});
  mt::BenchShape rank2{2, 3, 4, false, "uneven"};
  bench->prepare(rank2);
  CHECK(rank2.send_counts == std::vector<std::size_t>{6, 4, 5});
  CHECK(rank2.recv_counts == std::vector<std::size_t>{6, 4, 5});
  auto in = inputs(*bench, s);
  auto out = simulate("all_to_all", s, in);
  CHECK(wrong_total(*bench, s, out) == 0);
  // Deliver rank 0's first elements to rank 2 in place of rank 1's: the tags say who sent what.
  std::swap(out[2][0], out[1][0]);
  CHECK(wrong_total(*bench, s, out) == 2);
}

TEST_CASE("bus bandwidth factors follow nccl-tests") {
  CHECK(mt::find_collective_bench("all_reduce")->bus_factor(8) == doctest::Approx(1.75));
  CHECK(mt::find_collective_bench("all_gather")->bus_factor(4) == doctest::Approx(0.75));
  CHECK(mt::find_collective_bench("reduce_scatter")->bus_factor(2) == doctest::Approx(0.5));
  CHECK(mt::find_collective_bench("broadcast")->bus_factor(8) == doctest::Approx(1.0));
  CHECK(mt::find_collective_bench("all_to_all")->bus_factor(4) == doctest::Approx(0.75));
}

// Host buffers start on a cache line, as LibTorch's tensors do: a copy into a destination 16 bytes
// off one ran a fifth slower, so malloc's 16-byte alignment would measure memory training never uses.
TEST_CASE("host benchmark buffers are cache-line aligned, zeroed and keep what is uploaded") {
  for (const std::size_t floats :
       {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{17}, std::size_t{1} << 20}) {
    CAPTURE(floats);
    std::vector<std::unique_ptr<mt::BenchBuffer>> buffers;
    for (int i = 0; i < 4; ++i) {  // several at once: each from its own place on the heap
      buffers.push_back(std::make_unique<mt::BenchBuffer>(floats, /*device=*/false));
      CHECK(reinterpret_cast<std::uintptr_t>(buffers.back()->data()) % 64 == 0);
    }
    auto& buffer = *buffers.front();
    const auto zeros = buffer.download();
    CHECK(zeros.size() == floats);
    CHECK(std::all_of(zeros.begin(), zeros.end(), [](float v) { return v == 0.0f; }));
    std::vector<float> values(floats);
    std::iota(values.begin(), values.end(), 1.0f);
    buffer.upload(values);
    CHECK(buffer.download() == values);
  }
}

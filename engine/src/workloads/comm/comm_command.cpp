#include "workloads/comm/comm_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "workloads/comm/bench_buffer.h"
#include "workloads/comm/collective_bench.h"
#include "core/env/environment.h"
#include "core/env/resources.h"
#include "core/job/input_error.h"
#include "core/job/memory_check.h"
#include "core/job/workload.h"

namespace mt {
namespace {

struct Measurement {
  const CollectiveBench* bench;
  BenchShape shape;
};

// Collectives whose message is split among the ranks, one block each.
bool per_rank_blocks(const CollectiveBench& bench) {
  const std::string name = bench.name();
  return name == "all_gather" || name == "reduce_scatter" || name == "all_to_all";
}

// A message of `bytes` as each collective counts elements (nccl-tests' convention: the gathered or
// scattered buffer is the message, so a rank's own part is bytes / world).
std::size_t elements_for(const CollectiveBench& bench, int64_t bytes, int world) {
  const auto floats = static_cast<std::size_t>(bytes) / sizeof(float);
  const auto count = per_rank_blocks(bench) ? floats / static_cast<std::size_t>(world) : floats;
  return count == 0 ? 1 : count;
}

// Each size a collective measures, once: a size is rounded down to whole elements (whole per-rank
// blocks where the message is split among the ranks), and one that rounds to a size already
// planned for that collective adds no row. Rank 0 says so on stderr when it happened.
std::vector<Measurement> plan(const CommConfig& c, int rank, int world) {
  std::vector<Measurement> out;
  const std::vector<int64_t> sizes = message_sizes(c);
  std::size_t rounded = 0, repeated = 0;
  const std::vector<std::string> names = selected_ops(c);
  const std::size_t ops = names.size();
  for (const auto& op : names) {
    const auto* bench = find_collective_bench(op);
    std::vector<bool> placements;
    if (c.placement != "out_of_place" && bench->supports_in_place()) placements.push_back(true);
    if ((c.placement != "in_place" || !bench->supports_in_place()) && bench->supports_out_of_place())
      placements.push_back(false);
    if (placements.empty()) placements.push_back(bench->supports_in_place());  // its only form
    std::vector<std::string> splits = {"equal"};
    if (bench->has_splits())
      splits = c.split == "both" ? std::vector<std::string>{"equal", "uneven"} : std::vector<std::string>{c.split};
    std::set<std::size_t> planned;  // element counts
    for (int64_t bytes : sizes) {
      const std::size_t count = elements_for(*bench, bytes, world);
      const auto whole = static_cast<int64_t>(count * sizeof(float)) * (per_rank_blocks(*bench) ? world : 1);
      if (whole != bytes) ++rounded;
      if (!planned.insert(count).second) {
        ++repeated;
        continue;
      }
      for (bool in_place : placements)
        for (const auto& split : splits) {
          BenchShape shape{rank, world, count, in_place, split};
          bench->prepare(shape);
          out.push_back({bench, std::move(shape)});
        }
    }
  }
  if (rank == 0 && (rounded > 0 || repeated > 0))
    fmt::print(stderr,
               "mtengine comm: message sizes are whole f32 elements (whole per-rank blocks of {} ranks for "
               "all_gather, reduce_scatter and all_to_all): {} of {} (collective, size) pairs were rounded down, and "
               "the {} that rounded to a size already measured were dropped: each size is measured once\n",
               world, rounded, sizes.size() * ops, repeated);
  return out;
}

// Host buffers of a measurement: the send and receive buffers and the host copies they are filled
// from and checked in, so twice their sum (device buffers live on the GPU).
int64_t host_bytes(const Measurement& m) {
  return 2 * static_cast<int64_t>((m.bench->send_count(m.shape) + m.bench->recv_count(m.shape)) * sizeof(float));
}

// Every rank decides together, before any buffer exists, whether the largest measurement fits in
// this host's memory; one that does not is bad input (exit 2), not a job for the OOM killer.
void refuse_what_does_not_fit(const std::vector<Measurement>& measurements, ControlChannel& control) {
  int64_t largest = 0;
  for (const auto& m : measurements) largest = std::max(largest, host_bytes(m));
  require_host_memory(control, /*device_memory=*/false, static_cast<double>(largest), "the largest message",
                      "lower --max-bytes or --sizes");
}

// What the backend asked its library for, per collective measured: the rows name the algorithm,
// this says what it does and what the library would have picked.
nlohmann::json requested_algorithms(const Communicator& comm, const std::vector<Measurement>& measurements) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& m : measurements) {
    if (auto a = comm.requested_algorithm(m.bench->name()))
      out[m.bench->name()] = {{"name", a->name}, {"how", a->how}, {"instead", a->instead}, {"setting", a->setting}};
  }
  return out;
}

class CommWorkload final : public Workload {
 public:
  explicit CommWorkload(const CommConfig& config) : config_(config) {}

  std::string name() const override { return "comm"; }
  std::optional<std::string> validate() const override { return mt::validate(config_); }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    Communicator& comm = group.collectives;
    ControlChannel& control = group.control;
    nlohmann::json rows = nlohmann::json::array();
    double total_wrong = 0;
    const auto measurements = plan(config_, group.rank(), group.world_size());
    refuse_what_does_not_fit(measurements, control);
    for (const auto& m : measurements) {
      nlohmann::json row = measure(comm, control, m);
      total_wrong += row["wrong_values"].get<double>();
      rows.push_back(std::move(row));
    }
    WorkloadOutcome outcome;
    outcome.exit_code = total_wrong > 0 ? 1 : 0;
    const auto hosts = control.hostnames();  // collective: every rank calls it
    if (group.rank() != 0) return outcome;
    outcome.result = result_document("comm", total_wrong == 0,
                                     {{"backend", config_.job.backend},
                                      {"world_size", group.world_size()},
                                      {"warmup", config_.warmup},
                                      {"iters", config_.iters},
                                      {"timed_bytes", config_.timed_bytes},
                                      {"rows", rows},
                                      {"hosts", hosts},
                                      {"environment", to_json(collect_environment(default_threads()), true)}});
    outcome.result["requested_algorithms"] = requested_algorithms(comm, measurements);
    outcome.result["mpi_thread_level"] = "multiple";  // what MpiSession requires
    if (total_wrong > 0)
      outcome.result["error"] = error_json(
          {std::nullopt, std::nullopt, fmt::format("{} wrong values in collective outputs", total_wrong), ""});
    if (rows.size() == 1)  // one measurement: also as top-level fields, one trial per row
      for (const auto& [key, value] : rows[0].items()) outcome.result[key] = value;
    return outcome;
  }

 private:
  // --iters, or more where --timed-bytes asks for it. From the swept size, which every rank shares (an
  // uneven all-to-all's own bytes differ by rank): every rank runs the same number of calls.
  int64_t timed_iterations(const BenchShape& s) const {
    const auto swept = static_cast<int64_t>(s.count * sizeof(float));
    if (config_.timed_bytes <= 0 || swept <= 0) return config_.iters;
    return std::max(config_.iters, (config_.timed_bytes + swept - 1) / swept);
  }

  nlohmann::json measure(Communicator& comm, ControlChannel& control, const Measurement& m) {
    const auto& bench = *m.bench;
    const auto& s = m.shape;
    const bool device = comm.device_memory();
    BenchBuffer send(bench.send_count(s), device);
    BenchBuffer recv(s.in_place ? 0 : bench.recv_count(s), device);
    std::vector<float> input(bench.send_count(s));
    bench.fill(s, input.data());
    send.upload(input);
    void* out = s.in_place ? send.data() : recv.data();

    for (int64_t i = 0; i < config_.warmup; ++i) bench.issue(comm, s, send.data(), out)->wait();
    comm.synchronize();
    control.barrier();
    const int64_t iters = timed_iterations(s);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < iters; ++i) bench.issue(comm, s, send.data(), out)->wait();
    comm.synchronize();
    const double mine_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / iters;
    const double latency_us = control.max(mine_us);

    // The check: fresh inputs, one operation, every output element compared.
    send.upload(input);
    const auto checked = bench.issue(comm, s, send.data(), out);
    checked->wait();
    comm.synchronize();
    const auto result = s.in_place ? send.download() : recv.download();
    const double wrong = control.sum(static_cast<double>(bench.wrong(s, result.data())));

    const auto algorithm = comm.requested_algorithm(bench.name());
    const double bytes = static_cast<double>(bench.message_bytes(s));
    const double algbw = bytes / (latency_us * 1e-6) / 1e9;
    return {{"operation", bench.name()},
            {"bytes", bench.message_bytes(s)},
            {"count", s.count},
            {"dtype", "f32"},
            {"in_place", s.in_place},
            {"split", bench.has_splits() ? s.split : ""},
            {"latency_us", latency_us},
            {"algbw_gbps", algbw},
            {"busbw_gbps", algbw * bench.bus_factor(s.world)},
            {"wrong_values", wrong},
            {"iters", iters},
            {"algorithm", checked->ran_blocking()    ? "library default, blocking"
                          : checked->own_algorithm() ? checked->own_algorithm()
                          : algorithm                ? algorithm->name
                                                     : "library default"}};
  }

  CommConfig config_;
};

}  // namespace

int run_comm_command(const CommConfig& config) {
  CommWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt

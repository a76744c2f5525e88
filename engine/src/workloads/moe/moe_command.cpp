#include "workloads/moe/moe_command.h"

#include <fmt/format.h>

#include <algorithm>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/env/environment.h"
#include "core/env/resources.h"
#include "workloads/moe/round_trip.h"
#include "core/job/input_error.h"
#include "core/job/memory_check.h"
#include "core/job/workload.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Expert e's weights depend only on (seed, e): any rank can build any expert for the oracle.
struct Expert {
  torch::Tensor w1, b1, w2, b2;
  Expert(uint64_t seed, int e, int64_t d, const torch::Device& device) {
    torch::manual_seed(seed * 131 + static_cast<uint64_t>(e) + 1);
    auto options = torch::TensorOptions().device(device);
    w1 = torch::randn({4 * d, d}, options) * 0.02;
    b1 = torch::randn({4 * d}, options) * 0.02;
    w2 = torch::randn({d, 4 * d}, options) * 0.02;
    b2 = torch::randn({d}, options) * 0.02;
  }
  torch::Tensor operator()(const torch::Tensor& x) const {
    return torch::linear(torch::gelu(torch::linear(x, w1, b1)), w2, b2);
  }
};

std::vector<std::size_t> scaled(const std::vector<int64_t>& counts, int64_t by) {
  std::vector<std::size_t> out;
  for (auto c : counts) out.push_back(static_cast<std::size_t>(c * by));
  return out;
}

class MoeWorkload final : public Workload {
 public:
  explicit MoeWorkload(const MoeConfig& config) : config_(config) {}

  std::string name() const override { return "moe"; }
  std::optional<std::string> validate() const override {
    MoeConfig copy = config_;
    if (auto problem = check_options(moe_option_table(copy))) return problem;
    if (config_.routing.kind == "topk" && config_.routing.top_k < 1) return std::string("--top-k must be at least 1");
    return std::nullopt;
  }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    Communicator& comm = group.collectives;
    ControlChannel& control = group.control;
    const int rank = group.rank(), world = group.world_size();
    at::set_num_threads(config_.threads > 0 ? config_.threads : default_threads());
    const torch::Device device = comm.device_memory() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
    const int64_t d = config_.d_model, tokens = config_.tokens;
    torch::NoGradGuard no_grad;

    if (config_.routing.kind == "topk" && config_.routing.top_k > world)
      throw InputError(
          fmt::format("--top-k {} is more experts than the {} ranks hold (one each)", config_.routing.top_k, world));
    if (tokens > max_tokens_per_rank(world)) {
      throw InputError(fmt::format("--tokens {} is too many for {} ranks: token stamps hold at most {} per rank",
                                   tokens, world, max_tokens_per_rank(world)));
    }
    // The expert's two Linear layers (8 d² floats) and, per token, its input, the 4d hidden
    // activation, its output and the exchange buffers both ways (about 12 d floats, top-k times).
    const double memory_per_rank =
        4.0 * (8.0 * static_cast<double>(d) * d +
               12.0 * static_cast<double>(tokens) * d * std::max<int64_t>(1, config_.routing.top_k));
    require_host_memory(control, comm.device_memory(), memory_per_rank, "moe with this --d-model and --tokens",
                        "lower --d-model or --tokens");
    const Routing routing = route_tokens(config_.routing, rank, world, tokens);
    const Expert mine(config_.routing.seed, rank, d, device);
    torch::manual_seed(config_.routing.seed + 97 * static_cast<uint64_t>(rank));
    const auto x = torch::randn({tokens, d}, torch::TensorOptions().device(device));

    // What this rank sends: its tokens' features and ids, grouped by expert.
    std::vector<int64_t> slots;
    std::vector<int32_t> ids;
    for (const auto& a : routing.assignments) {
      slots.push_back(a.token);
      ids.push_back(token_id(rank, tokens, a.token));
    }
    const auto slot_index = torch::tensor(slots, torch::TensorOptions().dtype(torch::kLong)).to(device);
    const auto send_x = x.index_select(0, slot_index).contiguous();
    const auto send_ids = torch::tensor(ids, torch::TensorOptions().dtype(torch::kInt)).to(device);

    Phases phases;
    torch::Tensor back_x, back_stamps;
    std::vector<int64_t> received;
    for (int64_t i = 0; i < config_.warmup + config_.iters; ++i) {
      control.barrier();
      Phases one;
      exchange(comm, routing, send_x, send_ids, mine, one, back_x, back_stamps, received);
      if (i >= config_.warmup) phases += one;
    }
    phases /= static_cast<double>(config_.iters);

    // The oracle: every token home from the expert its assignment chose, and the output equal to
    // the single-process computation of each assignment by its own expert.
    const auto host_stamps = back_stamps.to(torch::kCPU);
    const auto* stamp_data = host_stamps.data_ptr<int32_t>();
    const RoundTripErrors trip = check_round_trip(routing, rank, tokens, world,
                                                  std::vector<int32_t>(stamp_data, stamp_data + host_stamps.numel()));
    auto out = torch::zeros({tokens, d}, x.options());
    auto reference = torch::zeros({tokens, d}, x.options());
    std::vector<float> weights;
    for (const auto& a : routing.assignments) weights.push_back(a.weight);
    const auto w = torch::tensor(weights).to(device).unsqueeze(1);
    out.index_add_(0, slot_index, back_x * w);
    for (int e = 0; e < world; ++e) {
      std::vector<int64_t> chosen;  // positions in the assignment list, not the split table's counts
      for (std::size_t i = 0; i < routing.assignments.size(); ++i) {
        if (routing.assignments[i].expert == e) chosen.push_back(static_cast<int64_t>(i));
      }
      if (chosen.empty()) continue;
      const auto at = torch::tensor(chosen, torch::TensorOptions().dtype(torch::kLong)).to(device);
      const auto rows = slot_index.index_select(0, at);
      const Expert expert(config_.routing.seed, e, d, device);
      reference.index_add_(0, rows, expert(x.index_select(0, rows)) * w.index_select(0, at));
    }
    const double error = control.max((out - reference).abs().max().item<double>());
    const double wrong_ids = control.sum(static_cast<double>(trip.astray));
    const double misrouted = control.sum(static_cast<double>(trip.misrouted));
    const double dropped = control.sum(static_cast<double>(routing.dropped));

    Phases worst{control.max(phases.counts_ms), control.max(phases.dispatch_ms), control.max(phases.compute_ms),
                 control.max(phases.combine_ms), control.max(phases.step_ms)};
    const int64_t mine_received = std::accumulate(received.begin(), received.end(), int64_t{0});
    // Per rank: what it received and how long each phase took it (a hot expert's load shows up
    // as the other ranks waiting in combine).
    const auto gathered = control.gather_to_root(
        {static_cast<double>(mine_received), phases.dispatch_ms, phases.compute_ms, phases.combine_ms});
    WorkloadOutcome outcome;
    const bool ok = wrong_ids == 0 && misrouted == 0 && error <= config_.atol;
    outcome.exit_code = ok ? 0 : 1;
    const auto hosts = control.hostnames();  // collective: every rank calls it
    if (rank != 0) return outcome;
    std::vector<double> per_rank, dispatch_per_rank, compute_per_rank, combine_per_rank;
    for (const auto& r : gathered) {
      per_rank.push_back(r[0]);
      dispatch_per_rank.push_back(r[1]);
      compute_per_rank.push_back(r[2]);
      combine_per_rank.push_back(r[3]);
    }
    const double mean = std::accumulate(per_rank.begin(), per_rank.end(), 0.0) / world;
    const double total_tokens = static_cast<double>(tokens) * world;
    outcome.result = result_document(
        "moe", ok,
        {{"backend", config_.job.backend},
         {"world_size", world},
         {"routing", config_.routing.kind},
         {"hot_fraction", config_.routing.hot_fraction},
         {"top_k", config_.routing.top_k},
         {"capacity_factor", config_.routing.capacity_factor},
         {"tokens_per_rank", tokens},
         {"d_model", d},
         {"iters", config_.iters},
         {"counts_ms", worst.counts_ms},
         {"dispatch_ms", worst.dispatch_ms},
         {"compute_ms", worst.compute_ms},
         {"combine_ms", worst.combine_ms},
         {"step_ms", worst.step_ms},
         {"tokens_per_sec", total_tokens / (worst.step_ms / 1000.0)},
         {"tokens_received", per_rank},
         {"per_rank_ms",
          {{"dispatch", dispatch_per_rank}, {"compute", compute_per_rank}, {"combine", combine_per_rank}}},
         {"imbalance", mean > 0 ? *std::max_element(per_rank.begin(), per_rank.end()) / mean : 1.0},
         {"dropped_tokens", dropped},
         {"ids_wrong", wrong_ids},
         {"tokens_misrouted", misrouted},
         {"max_abs_error", error},
         {"atol", config_.atol},
         {"hosts", hosts},
         {"environment", to_json(collect_environment(default_threads(), comm.device_memory()), true)}});
    if (!ok)
      outcome.result["error"] =
          error_json({std::nullopt, std::nullopt,
                      fmt::format("oracle failed: {} token ids astray, {} misrouted, max |error| {:.3g} (atol {:.3g})",
                                  wrong_ids, misrouted, error, config_.atol),
                      ""});
    fmt::print(
        "mtengine moe: {} x{} {} tokens/rank: dispatch {:.2f} ms, compute {:.2f} ms, combine {:.2f} ms, "
        "imbalance {:.2f}, dropped {}, ids astray {}, misrouted {}, max |error| {:.2g}\n",
        config_.routing.kind, world, tokens, worst.dispatch_ms, worst.compute_ms, worst.combine_ms,
        outcome.result["imbalance"].get<double>(), dropped, wrong_ids, misrouted, error);
    return outcome;
  }

 private:
  struct Phases {
    double counts_ms = 0, dispatch_ms = 0, compute_ms = 0, combine_ms = 0, step_ms = 0;
    Phases& operator+=(const Phases& o) {
      counts_ms += o.counts_ms, dispatch_ms += o.dispatch_ms, compute_ms += o.compute_ms;
      combine_ms += o.combine_ms, step_ms += o.step_ms;
      return *this;
    }
    Phases& operator/=(double n) {
      counts_ms /= n, dispatch_ms /= n, compute_ms /= n, combine_ms /= n, step_ms /= n;
      return *this;
    }
  };

  // One dispatch-compute-combine round; returns what came back: the expert's outputs and, per
  // token, its stamp (the id it left with and the expert that computed it).
  void exchange(Communicator& comm, const Routing& routing, const torch::Tensor& send_x, const torch::Tensor& send_ids,
                const Expert& expert, Phases& p, torch::Tensor& back_x, torch::Tensor& back_stamps,
                std::vector<int64_t>& received) const {
    const int64_t d = config_.d_model;
    const auto start = Clock::now();
    // Counts first: each rank learns how many tokens every other rank sends it.
    std::vector<int32_t> send_counts(routing.per_expert.begin(), routing.per_expert.end());
    std::vector<int32_t> recv_counts(send_counts.size());
    auto counts_device = torch::tensor(send_counts, torch::TensorOptions().dtype(torch::kInt)).to(send_x.device());
    auto counts_back = torch::empty_like(counts_device);
    comm.all_to_all(counts_device.data_ptr(), counts_back.data_ptr(), 1, ElementType::i32)->wait();
    comm.synchronize();
    const auto host_counts = counts_back.to(torch::kCPU);
    received.assign(send_counts.size(), 0);
    for (std::size_t p2 = 0; p2 < received.size(); ++p2)
      received[p2] = host_counts[static_cast<int64_t>(p2)].item<int32_t>();
    const int64_t total = std::accumulate(received.begin(), received.end(), int64_t{0});
    p.counts_ms += ms_since(start);

    const auto dispatch_start = Clock::now();
    auto recv_x = torch::empty({total, d}, send_x.options());
    auto recv_ids = torch::empty({total}, send_ids.options());
    const auto sent = routing.per_expert;
    comm.set_next_label("dispatch");
    auto work_x =
        comm.all_to_all_v(send_x.data_ptr(), scaled(sent, d), recv_x.data_ptr(), scaled(received, d), ElementType::f32);
    auto work_ids = comm.all_to_all_v(send_ids.data_ptr(), scaled(sent, 1), recv_ids.data_ptr(), scaled(received, 1),
                                      ElementType::i32);
    work_x->wait();
    work_ids->wait();
    comm.synchronize();
    p.dispatch_ms += ms_since(dispatch_start);

    const auto compute_start = Clock::now();
    const auto y = total > 0 ? expert(recv_x).contiguous() : recv_x;
    const auto stamps = (recv_ids * comm.world_size() + comm.rank()).contiguous();  // = stamp(id, rank, world)
    comm.synchronize();
    p.compute_ms += ms_since(compute_start);

    const auto combine_start = Clock::now();
    back_x = torch::empty_like(send_x);
    back_stamps = torch::empty_like(send_ids);
    comm.set_next_label("combine");
    auto back_work_x =
        comm.all_to_all_v(y.data_ptr(), scaled(received, d), back_x.data_ptr(), scaled(sent, d), ElementType::f32);
    auto back_work_ids = comm.all_to_all_v(stamps.data_ptr(), scaled(received, 1), back_stamps.data_ptr(),
                                           scaled(sent, 1), ElementType::i32);
    back_work_x->wait();
    back_work_ids->wait();
    comm.synchronize();
    p.combine_ms += ms_since(combine_start);
    p.step_ms += ms_since(start);
  }

  MoeConfig config_;
};

}  // namespace

OptionTable moe_option_table(MoeConfig& c) {
  OptionTable t;
  auto& o = t.options;
  auto integer = [&](const char* flag, int64_t& target, const char* help, double minimum, double maximum) {
    Option option{flag, OptionType::integer, help, &target};
    option.minimum = minimum;
    option.maximum = maximum;
    o.push_back(option);
  };
  integer("tokens", c.tokens, "tokens per rank", 1, 1e12);  // the stamps' bound is checked per world
  integer("d-model", c.d_model, "token width", 1, 1 << 16);
  {
    Option routing{"routing", OptionType::choice, "balanced, hot (a fraction to expert 0), or topk with capacity",
                   &c.routing.kind};
    routing.choices = {"balanced", "hot", "topk"};
    o.push_back(routing);
    Option hot{"hot-fraction", OptionType::number, "hot routing: share of every rank's tokens sent to expert 0",
               &c.routing.hot_fraction};
    hot.minimum = 0;
    hot.maximum = 1;
    o.push_back(hot);
    Option k{"top-k", OptionType::integer, "topk routing: experts per token", &c.routing.top_k};
    k.minimum = 1;
    o.push_back(k);
    Option capacity{"capacity-factor", OptionType::number,
                    "topk routing: an expert takes at most ceil(factor · tokens · k / ranks) tokens per rank",
                    &c.routing.capacity_factor};
    capacity.minimum = 0;
    capacity.exclusive_minimum = true;
    o.push_back(capacity);
  }
  o.push_back(Option{"seed", OptionType::integer, "seed of tokens, gates and experts", &c.routing.seed});
  integer("warmup", c.warmup, "untimed rounds", 0, 1e6);
  integer("iters", c.iters, "timed rounds", 1, 1e6);
  {
    Option threads{"threads", OptionType::integer, "intra-op threads (0: from the environment)", &c.threads};
    threads.minimum = 0;
    o.push_back(threads);
    Option atol{"atol", OptionType::number, "largest |output - reference| the oracle accepts", &c.atol};
    atol.minimum = 0;
    o.push_back(atol);
  }
  add_job_options(o, c.job);
  return t;
}

int run_moe_command(const MoeConfig& config) {
  MoeWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt

#include "workloads/groups/groups_command.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "workloads/comm/bench_buffer.h"
#include "core/env/environment.h"
#include "core/env/resources.h"
#include "workloads/groups/grid.h"
#include "core/job/input_error.h"
#include "core/job/memory_check.h"
#include "core/job/workload.h"

namespace mt {
namespace {

using Clock = std::chrono::steady_clock;

// One float buffer in the communicator's memory, filled and read back through the host.
float all_reduced_value(Communicator& comm, float value) {
  BenchBuffer buffer(1, comm.device_memory());
  buffer.upload({value});
  comm.all_reduce(buffer.data(), 1, ElementType::f32)->wait();
  comm.synchronize();
  return buffer.download()[0];
}

class GroupsWorkload final : public Workload {
 public:
  explicit GroupsWorkload(const GroupsConfig& config) : config_(config) {}

  std::string name() const override { return "groups"; }
  std::optional<std::string> validate() const override {
    GroupsConfig copy = config_;
    if (auto problem = check_options(groups_option_table(copy))) return problem;
    try {
      parse_order(config_.order);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  }
  const JobOptions& job() const override { return config_.job; }

  WorkloadOutcome run(ProcessGroup& group) override {
    Communicator& world = group.collectives;
    ControlChannel& control = group.control;
    const int n = group.world_size(), rank = group.rank();
    if (n < 2) throw InputError("groups needs at least 2 ranks: one rank has no group to form and no order to mix up");
    // Each collective's buffer and its check copy, per dimension's communicator.
    require_host_memory(control, world.device_memory(), 6.0 * static_cast<double>(config_.bytes),
                        "groups with this --bytes", "lower --bytes");
    if (n % (config_.tp * config_.pp) != 0)
      throw InputError(fmt::format("--tp {} x --pp {} does not divide the {} ranks", config_.tp, config_.pp, n));
    Grid grid;
    grid.size = {static_cast<int>(config_.tp), static_cast<int>(config_.pp),
                 static_cast<int>(n / (config_.tp * config_.pp))};
    grid.order = parse_order(config_.order);

    nlohmann::json groups = nlohmann::json::object();
    bool members_ok = true;
    std::array<std::unique_ptr<Communicator>, 3> comms;
    for (GridDim dim : {GridDim::tp, GridDim::pp, GridDim::dp}) {
      const auto members = grid.group(rank, dim);
      auto sub = world.split(grid.color(rank, dim), grid.coordinates(rank)[static_cast<std::size_t>(dim)]);
      // Each member adds its world rank + 1: the sum names the members.
      float expected = 0;
      for (int m : members) expected += static_cast<float>(m + 1);
      const bool ok = control.min(all_reduced_value(*sub, static_cast<float>(rank + 1)) == expected ? 1.0 : 0.0) > 0;
      members_ok = members_ok && ok;
      groups[dim_name(dim)] = {
          {"size", sub->world_size()}, {"members_of_rank_0", grid.group(0, dim)}, {"members_ok", ok}};
      comms[static_cast<std::size_t>(dim)] = std::move(sub);
    }

    time_dimensions(comms, control, groups);
    nlohmann::json hazard = config_.hazard ? order_hazard(*comms[static_cast<std::size_t>(GridDim::dp)], world, control)
                                           : nlohmann::json{{"injected", false}};
    const bool hazard_caught = !config_.hazard || hazard["detected_by_checksum"].get<bool>();
    WorkloadOutcome outcome;
    outcome.exit_code = members_ok && hazard_caught ? 0 : 1;
    if (rank != 0) return outcome;
    outcome.result = result_document(
        "groups", outcome.exit_code == 0,
        {{"backend", config_.job.backend},
         {"world_size", n},
         {"tp", grid.size[0]},
         {"pp", grid.size[1]},
         {"dp", grid.size[2]},
         {"order", config_.order},
         {"bytes", config_.bytes},
         {"steps", config_.steps},
         {"groups", groups},
         {"members_ok", members_ok},
         {"hazard", hazard},
         {"environment", to_json(collect_environment(default_threads(), world.device_memory()), true)}});
    if (outcome.exit_code != 0)
      outcome.result["error"] = error_json(
          {std::nullopt, std::nullopt,
           members_ok ? "the checksum missed the swapped data of the mis-ordered collectives"
                      : "a group's all-reduce gave another sum than its members' ranks: the grid's groups are wrong",
           ""});
    for (const auto& [name, g] : groups.items())
      fmt::print("mtengine groups: {} size {} members {} {:.3f} ms/step\n", name, g["size"].get<int>(),
                 g["members_ok"].get<bool>() ? "ok" : "WRONG", g.value("ms_per_step", 0.0));
    if (config_.hazard)
      fmt::print("mtengine groups: mis-ordered collectives {} without error; checksum {}\n",
                 hazard["completed_without_error"].get<bool>() ? "completed" : "failed",
                 hazard["detected_by_checksum"].get<bool>() ? "detected the swap" : "MISSED the swap");
    return outcome;
  }

 private:
  // Per step: TP several all-reduces, PP one hand-off to the next stage, DP one all-reduce.
  void time_dimensions(std::array<std::unique_ptr<Communicator>, 3>& comms, ControlChannel& control,
                       nlohmann::json& groups) const {
    const auto floats = static_cast<std::size_t>(config_.bytes) / sizeof(float);
    for (GridDim dim : {GridDim::tp, GridDim::pp, GridDim::dp}) {
      Communicator& c = *comms[static_cast<std::size_t>(dim)];
      const int64_t per_step = dim == GridDim::tp ? config_.tp_collectives_per_step : 1;
      BenchBuffer send(floats, c.device_memory()), recv(floats, c.device_memory());
      send.upload(std::vector<float>(floats, 1.0f));
      double total_ms = 0;
      for (int64_t step = 0; step < config_.warmup + config_.steps; ++step) {
        control.barrier();
        const auto start = Clock::now();
        for (int64_t k = 0; k < per_step; ++k) collective(c, dim, send, recv, floats)->wait();
        c.synchronize();
        if (step >= config_.warmup) total_ms += std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      }
      groups[dim_name(dim)]["collectives_per_step"] = per_step;
      groups[dim_name(dim)]["ms_per_step"] = control.max(total_ms / static_cast<double>(config_.steps));
    }
  }

  static WorkHandle collective(Communicator& c, GridDim dim, BenchBuffer& send, BenchBuffer& recv, std::size_t floats) {
    if (dim != GridDim::pp) return c.all_reduce(send.data(), floats, ElementType::f32);
    // A pipeline hand-off: everything to the next stage, from the previous one.
    const int n = c.world_size(), me = c.rank();
    std::vector<std::size_t> to(static_cast<std::size_t>(n), 0), from(static_cast<std::size_t>(n), 0);
    if (n > 1) {
      to[static_cast<std::size_t>((me + 1) % n)] = floats;
      from[static_cast<std::size_t>((me + n - 1) % n)] = floats;
    }
    return c.all_to_all_v(send.data(), to, recv.data(), from, ElementType::f32);
  }

  // Rank 0 of the group issues all-reduces of A then B, the others B then A. Same shapes, so MPI
  // and NCCL pair them up without complaint and A and B are summed with each other. The last
  // element of each tensor is a checksum (its tag); after a correct all-reduce it is tag · size.
  nlohmann::json order_hazard(Communicator& group, Communicator& world, ControlChannel& control) const {
    Communicator& c = group.world_size() > 1 ? group : world;
    const std::size_t floats = 1024;
    const float tag_a = 1000.0f, tag_b = 3000.0f;
    std::vector<float> a(floats, 1.0f), b(floats, 2.0f);
    a.back() = tag_a;
    b.back() = tag_b;
    BenchBuffer buffer_a(floats, c.device_memory()), buffer_b(floats, c.device_memory());
    buffer_a.upload(a);
    buffer_b.upload(b);
    const bool first = c.rank() == 0;
    auto w1 = first ? c.all_reduce(buffer_a.data(), floats, ElementType::f32)
                    : c.all_reduce(buffer_b.data(), floats, ElementType::f32);
    auto w2 = first ? c.all_reduce(buffer_b.data(), floats, ElementType::f32)
                    : c.all_reduce(buffer_a.data(), floats, ElementType::f32);
    w1->wait();
    w2->wait();
    c.synchronize();
    const float size = static_cast<float>(c.world_size());
    const bool intact = buffer_a.download().back() == tag_a * size && buffer_b.download().back() == tag_b * size;
    const bool detected = control.min(intact ? 1.0 : 0.0) == 0;
    return {{"injected", true},
            {"group_size", c.world_size()},
            {"completed_without_error", true},
            {"detected_by_checksum", detected}};
  }

  GroupsConfig config_;
};

}  // namespace

OptionTable groups_option_table(GroupsConfig& c) {
  OptionTable t;
  auto& o = t.options;
  auto integer = [&](const char* flag, int64_t& target, const char* help, double minimum) {
    Option option{flag, OptionType::integer, help, &target};
    option.minimum = minimum;
    o.push_back(option);
  };
  integer("tp", c.tp, "tensor-parallel group size", 1);
  integer("pp", c.pp, "pipeline stages (data-parallel size: ranks / (tp x pp))", 1);
  o.push_back(
      Option{"order", OptionType::text, "mapping order, fastest-varying dimension first: e.g. tp-pp-dp", &c.order});
  integer("bytes", c.bytes, "message size of each collective, bytes", 4);
  o.back().maximum = double(int64_t{1} << 33);  // 8 GiB
  integer("tp-collectives-per-step", c.tp_collectives_per_step, "TP all-reduces per step", 1);
  integer("steps", c.steps, "timed steps", 1);
  integer("warmup", c.warmup, "untimed steps", 0);
  o.push_back(Option{"hazard", OptionType::boolean,
                     "also show the silent-corruption hazard of mis-ordered collectives (--hazard=false: skip)",
                     &c.hazard});
  add_job_options(o, c.job);
  return t;
}

int run_groups_command(const GroupsConfig& config) {
  GroupsWorkload workload(config);
  return run_workload(workload);
}

}  // namespace mt

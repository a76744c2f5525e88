#include "core/job/workload.h"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

#include "core/comm/backends.h"
#include "core/comm/mpi/mpi_control_channel.h"
#include "core/comm/mpi/mpi_session.h"
#include "core/env/cpu_window.h"
#include "core/env/huge_pages.h"
#include "core/env/resources.h"
#include "core/process/job_abort.h"
#include "core/job/input_error.h"
#include "core/job/output_file.h"

namespace mt {
namespace {

void print_error(const Workload& workload, const std::string& message) {
  std::fprintf(stderr, "mtengine %s: %s\n", workload.name().c_str(), message.c_str());
  std::fflush(stderr);
}

// Rank 0 writes the document; a write failure is the run's failure.
int write_result(const Workload& workload, const nlohmann::json& document) {
  if (workload.job().output.empty()) return 0;
  try {
    write_json_atomically(workload.job().output, document);
    return 0;
  } catch (const std::exception& e) {
    print_error(workload, e.what());
    return 1;
  }
}

}  // namespace

nlohmann::json error_json(const RunError& error) {
  return {{"reason", error.reason},
          {"rank", error.rank ? nlohmann::json(*error.rank) : nlohmann::json()},
          {"step", error.step ? nlohmann::json(*error.step) : nlohmann::json()}};
}

nlohmann::json result_document(const std::string& benchmark, bool ok, nlohmann::json fields) {
  nlohmann::json out = {
      {"schema_version", kResultSchemaVersion}, {"benchmark", benchmark}, {"status", ok ? "ok" : "error"}};
  out.update(fields);
  return out;
}

nlohmann::json Workload::error_result(const RunError& error) const {
  return result_document(name(), false, {{"backend", job().backend}, {"error", error_json(error)}});
}

int run_workload(Workload& workload) {
  // Every rank validates the same argv before MPI starts, so bad flags stop all ranks with 2.
  if (auto problem = workload.validate()) {
    print_error(workload, *problem);
    return 2;
  }

  keep_freed_memory_for_reuse();  // before MPI and LibTorch allocate: every workload, not training alone
  advise_heap_huge_pages();       // then the heap they allocate from comes on 2 MiB pages (huge_pages.h)
  MpiSession session;
  MpiControlChannel control;
  control.set_timeout(workload.job().collective_timeout_s);
  // Only rank 0 writes, so only its view of the output directory counts: it decides for all.
  std::optional<std::string> output_problem;
  if (control.rank() == 0 && !workload.job().output.empty())
    output_problem = output_file_problem("--output", workload.job().output);
  if (control.max(output_problem ? 1.0 : 0.0) > 0) {
    if (output_problem) print_error(workload, *output_problem);
    return 2;
  }

  // Each host's load while the job runs, as its ranks see it (`rank_host_window` in the result): mtrun
  // reads only its own host's, and under a scheduler the ranks run on others. Opened as the ranks
  // leave a collective together and closed after a barrier, so that the windows of one host's ranks
  // cover the same time and their CPU can be taken from the host's.
  const CpuWindow host_window;

  // Gathered while every rank is surely alive, so even a failure's result says where it ran.
  const auto hosts = control.hostnames();
  auto with_hosts = [&hosts](nlohmann::json document) {
    if (document.is_object() && !document.contains("hosts")) document["hosts"] = hosts;
    return document;
  };

  WorkloadOutcome outcome;
  const int rank = control.rank(), world_size = control.world_size();
  try {
    if (auto problem = backend_problem_here(workload.job().backend, control)) throw InputError(*problem);
    auto collectives = make_communicator(workload.job().backend, control, workload.job().collective_timeout_s);
    ProcessGroup group{control, *collectives};
    outcome = workload.run(group);
  } catch (const InputError& e) {
    // Every rank found the same problem (collectively decided): stop together, as bad input.
    if (rank == 0) {
      print_error(workload, e.what());
      if (!workload.job().output.empty()) {
        try {
          write_json_atomically(
              workload.job().output,
              with_hosts(workload.error_result(RunError{std::nullopt, workload.current_step(), e.what(), ""})));
        } catch (const std::exception& write_error) {
          print_error(workload, write_error.what());
        }
      }
    }
    return 2;
  } catch (const std::exception& e) {
    // Other ranks may be blocked in a collective with us: record what we know, then stop the job.
    const auto step = workload.current_step();
    const std::string reason =
        fmt::format("rank {} failed{}: {}", rank, step ? fmt::format(" at step {}", *step) : "", e.what());
    if (!workload.job().output.empty()) {
      try {
        write_json_atomically(workload.job().output,
                              with_hosts(workload.error_result(RunError{rank, step, e.what(), "all_rank_fail_fast"})));
      } catch (const std::exception& write_error) {
        print_error(workload, write_error.what());
      }
    }
    if (world_size > 1) abort_job(reason, 1);
    print_error(workload, reason);
    return 1;
  }

  // Each rank's CPU time beside its host (`hosts`): mtrun counts the job's CPU from the processes it
  // started, and ranks a scheduler started (slurmstepd's children under srun) are not among them.
  // With it, each rank's view of its host's load and the host's kernel, for hosts mtrun cannot read.
  control.barrier();
  const auto window = host_window.close();
  const auto per_rank = control.gather_to_root({process_cpu_seconds(), window ? window->wall_s : -1.0,
                                                window ? double(window->cpus) : 0.0, window ? window->busy_cpu_s : 0.0,
                                                window ? window->own_cpu_s : 0.0, window ? window->steal_pct : 0.0});
  const auto boot_ids = control.gather_text_to_root(kernel_boot_id());
  if (rank != 0) return outcome.exit_code;
  nlohmann::json document = with_hosts(std::move(outcome.result));
  if (document.is_object()) {
    nlohmann::json& seconds = document["rank_cpu_s"] = nlohmann::json::array();
    nlohmann::json& windows = document["rank_host_window"] = nlohmann::json::array();
    for (std::size_t r = 0; r < per_rank.size(); ++r) {
      const auto& of_rank = per_rank[r];
      seconds.push_back(of_rank[0]);
      if (of_rank[1] <= 0) {
        windows.push_back(nullptr);  // /proc/stat not readable there
        continue;
      }
      windows.push_back({{"wall_s", of_rank[1]},
                         {"cpus", int(of_rank[2])},
                         {"busy_cpu_s", of_rank[3]},
                         {"own_cpu_s", of_rank[4]},
                         {"steal_pct", of_rank[5]},
                         {"boot_id", boot_ids[r]}});
    }
  }
  const int write_code = write_result(workload, std::move(document));
  return outcome.exit_code != 0 ? outcome.exit_code : write_code;
}

void write_json_atomically(const std::string& path, const nlohmann::json& document) {
  write_text_atomically(path, document.dump(2) + "\n");
}

}  // namespace mt

#include "core/job/workload.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/comm/backends.h"
#include "core/comm/mpi/mpi_control_channel.h"
#include "core/comm/mpi/mpi_session.h"
#include "core/env/huge_pages.h"
#include "core/env/resources.h"
#include "core/process/job_abort.h"
#include "core/job/input_error.h"

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

std::optional<std::string> output_path_problem(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path file(path);
  std::error_code ec;
  if (file.filename().empty() || fs::is_directory(file, ec))
    return fmt::format("--output '{}' names a directory, not a file", path);
  const fs::path dir = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (!fs::is_directory(dir, ec))
    return fmt::format("--output '{}': directory '{}' does not exist", path, dir.string());
  if (access(dir.c_str(), W_OK) != 0)
    return fmt::format("--output '{}': directory '{}' is not writable", path, dir.string());
  return std::nullopt;
}

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
    output_problem = output_path_problem(workload.job().output);
  if (control.max(output_problem ? 1.0 : 0.0) > 0) {
    if (output_problem) print_error(workload, *output_problem);
    return 2;
  }

  // Gathered while every rank is surely alive, so even a failure's result says where it ran.
  const auto hosts = control.hostnames();
  auto with_hosts = [&hosts](nlohmann::json document) {
    if (document.is_object() && !document.contains("hosts")) document["hosts"] = hosts;
    return document;
  };

  WorkloadOutcome outcome;
  const int rank = control.rank(), world_size = control.world_size();
  try {
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
  const auto rank_cpu = control.gather_to_root({process_cpu_seconds()});
  if (rank != 0) return outcome.exit_code;
  nlohmann::json document = with_hosts(std::move(outcome.result));
  if (document.is_object()) {
    nlohmann::json& seconds = document["rank_cpu_s"] = nlohmann::json::array();
    for (const auto& of_rank : rank_cpu) seconds.push_back(of_rank.front());
  }
  const int write_code = write_result(workload, std::move(document));
  return outcome.exit_code != 0 ? outcome.exit_code : write_code;
}

void write_json_atomically(const std::string& path, const nlohmann::json& document) {
  // The pid keeps concurrent writers (several failing ranks) off each other's temporary file.
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << document.dump(2) << '\n';
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw std::runtime_error("cannot write result file '" + temporary + "'");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot rename '" + temporary + "' to '" + path + "'");
  }
}

}  // namespace mt

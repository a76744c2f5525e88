// Whether every rank of a `--backend nccl` job has a GPU of its own. Without one NCCL can never
// start on these hosts, however often the job is retried: bad input, not a failure. Every rank
// decides together, so that none is left waiting in a collective for one that stopped.
#include <fmt/format.h>

#include <string>

#include "core/comm/control_channel.h"
#include "core/cuda/cuda_device.h"

namespace mt {

std::string nccl_devices_problem(ControlChannel& control) {
  const GpuInfo gpu = gpu_info();
  const bool lacking = gpu.device_count < control.local_size();
  const double first = control.min(lacking ? control.rank() : control.world_size());
  if (first >= control.world_size()) return "";
  const auto hosts = control.hostnames();  // collective: only once some rank lacks a GPU
  std::string mine;
  if (gpu.device_count == 0)
    mine =
        fmt::format("none is visible to rank {} on host '{}' ({})", control.rank(), hosts[control.rank()], gpu.problem);
  else if (lacking)
    mine = fmt::format(
        "host '{}' runs {} ranks but shows only {} GPU(s): start at most {} rank(s) per host, or make more GPUs "
        "visible (CUDA_VISIBLE_DEVICES)",
        hosts[control.rank()], control.local_size(), gpu.device_count, gpu.device_count);
  // Rank 0 speaks for the job, in the words of the first rank that lacks a GPU.
  const auto all = control.gather_text_to_root(mine);
  const std::string& said = control.rank() == 0 ? all[static_cast<std::size_t>(first)] : mine;
  return fmt::format("--backend nccl needs a CUDA device for each rank, and {}; use --backend mpi to run on the CPU",
                     said.empty() ? fmt::format("rank {} has none", static_cast<int>(first)) : said);
}

}  // namespace mt

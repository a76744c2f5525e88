// `mtengine doctor`: what this binary was built with, what it finds on this machine (CPU, BLAS and
// its measured speed, denormal mode, threads), and whether MPI starts. Exits 0 even when it
// warns: it reports, the user judges; each warning says what to do.
#include <fmt/format.h>

#include "comm/mpi_control_channel.h"
#include "comm/mpi_session.h"
#include "commands/commands.h"
#include "env/environment.h"
#include "env/resources.h"

namespace mt {

int run_doctor_command() {
  const int threads = default_threads();
  set_flush_denormal(true);  // as training runs by default
  const Environment env = collect_environment(threads);
  const CpuInfo& cpu = env.cpu;
  fmt::print("mtengine doctor\n");
  fmt::print("  build revision   {}{}\n", env.build_revision, env.build_tree_dirty ? " (dirty tree)" : "");
  fmt::print("  build type       {}\n  compiler         {}\n", env.build_type, env.compiler);
  fmt::print("  libtorch         {}\n  mpi library      {}\n", env.libtorch, env.mpi);
  fmt::print("  os               {}\n  kernel           {}\n", env.os, env.kernel);
  fmt::print("  cpu              {} ({} family {} model {} stepping {})\n", cpu.model, cpu.vendor,
             cpu.family, cpu.model_number, cpu.stepping);
  fmt::print("  cores            {} logical CPUs, {} thread(s) per core, {} MiB memory\n",
             cpu.logical_cpus, cpu.threads_per_core, cpu.memory_mib);
  fmt::print("  vector isa       {} ({:.0f} MHz reported)\n", cpu.isa, cpu.mhz);
  fmt::print("  blas             {}\n", env.blas.summary());
  if (env.blas.efficiency > 0)
    fmt::print("  blas efficiency  {:.0f}% of the fp32 vector peak at the reported clock\n",
               100 * env.blas.efficiency);
  fmt::print("  simd kernels     {}\n", env.simd_kernels);
  fmt::print("  denormals        {} (training flushes them unless --keep-denormals)\n",
             env.float_mode.flush_to_zero ? "flushed to zero (FTZ+DAZ)" : "kept");
  fmt::print("  threads per rank {} (OMP_NUM_THREADS, else cores / local ranks)\n", threads);
  for (const auto& [name, value] : env.env_vars) fmt::print("  env              {}={}\n", name, value);
  if (!env.blas.warning.empty()) fmt::print("  WARNING          {}\n", env.blas.warning);
  {
    MpiSession session;
    MpiControlChannel control;
    fmt::print("  mpi init         ok (rank {} of {})\n", control.rank(), control.world_size());
  }
  return 0;
}

}  // namespace mt

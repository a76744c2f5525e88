// `mtengine doctor`: what this binary was built with, what it finds on this machine, and whether
// MPI starts. Always exits 0: it reports, it does not judge.
#include <fmt/format.h>

#include "comm/mpi_communicator.h"
#include "commands/commands.h"
#include "env/environment.h"
#include "env/resources.h"

namespace mt {

int run_doctor_command() {
  const Environment env = collect_environment();
  fmt::print("mtengine doctor\n");
  fmt::print("  build revision   {}{}\n", env.build_revision, env.build_tree_dirty ? " (dirty tree)" : "");
  fmt::print("  build type       {}\n  compiler         {}\n", env.build_type, env.compiler);
  fmt::print("  libtorch         {}\n  mpi library      {}\n", env.libtorch, env.mpi);
  fmt::print("  os               {}\n  kernel           {}\n", env.os, env.kernel);
  fmt::print("  cpu              {}\n  blas             {}\n", env.cpu_model, env.blas);
  fmt::print("  simd kernels     {}\n", env.simd_kernels);
  fmt::print("  threads per rank {} (OMP_NUM_THREADS, else cores / local ranks)\n", default_threads());
  {
    MpiSession session;
    MpiCommunicator comm;
    fmt::print("  mpi init         ok (rank {} of {})\n", comm.rank(), comm.world_size());
  }
  return 0;
}

}  // namespace mt

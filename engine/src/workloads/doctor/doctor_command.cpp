// `mtengine doctor`: what this binary was built with, what it finds on this machine (CPU, BLAS and
// its measured speed, denormal mode, threads, GPUs, network), and whether a tiny all-reduce
// across the launched ranks gives the right answer (`mpirun -np N mtengine doctor`). Every
// problem comes with what to do about it. Exits 0 when everything works, 1 when the all-reduce
// fails; warnings alone do not fail it.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "core/comm/backends.h"
#include "core/comm/mpi/mpi_control_channel.h"
#include "core/comm/mpi/mpi_session.h"
#include "workloads/doctor/commands.h"
#include "core/cuda/cuda_device.h"
#include "core/comm/nccl/nccl_probe.h"
#include "core/env/environment.h"
#include "core/env/network_info.h"
#include "core/env/resources.h"

namespace mt {
namespace {

void print_machine(const Environment& env, int threads) {
  const CpuInfo& cpu = env.cpu;
  fmt::print("mtengine doctor\n");
  fmt::print("  build revision   {}{}\n", env.build_revision, env.build_tree_dirty ? " (dirty tree)" : "");
  fmt::print("  build type       {}\n  compiler         {}\n", env.build_type, env.compiler);
  fmt::print("  libtorch         {}\n  mpi library      {}\n", env.libtorch, env.mpi);
  fmt::print("  os               {}\n  kernel           {}\n", env.os, env.kernel);
  fmt::print("  cpu              {} ({} family {} model {} stepping {})\n", cpu.model, cpu.vendor, cpu.family,
             cpu.model_number, cpu.stepping);
  fmt::print("  cores            {} logical CPUs, {} thread(s) per core, {} MiB memory\n", cpu.logical_cpus,
             cpu.threads_per_core, cpu.memory_mib);
  fmt::print("  vector isa       {}, {} fp32 FLOP per cycle per core\n", cpu.isa, cpu.fp32_flops_per_cycle);
  fmt::print("  clock            {:.0f} MHz reported{}\n", cpu.mhz,
             cpu.peak_clock_measured() ? fmt::format(", {:.0f} MHz measured", cpu.measured_mhz) : "");
  fmt::print("  blas             {}\n", env.blas.summary());
  if (env.blas.efficiency > 0)
    fmt::print("  blas efficiency  {:.0f}% of one core's fp32 vector peak, {:.0f} GFLOP/s at the {} clock\n",
               100 * env.blas.efficiency, cpu.fp32_peak_gflops_per_core(), cpu.peak_clock_source());
  fmt::print("  simd kernels     {}\n", env.simd_kernels);
  fmt::print("  denormals        {} (training flushes them unless --keep-denormals)\n",
             env.float_mode.flush_to_zero ? "flushed to zero (FTZ+DAZ)" : "kept");
  fmt::print("  threads per rank {} (OMP_NUM_THREADS, else cores / local ranks)\n", threads);
  for (const auto& [name, value] : env.env_vars) fmt::print("  env              {}={}\n", name, value);
  if (!env.blas.warning.empty()) fmt::print("  WARNING          {}\n", env.blas.warning);
}

void print_gpus() {
  fmt::print("  backends         {} (built: cuda {}, nccl {})\n", available_backends(),
             built_with_cuda() ? "yes" : "no", built_with_nccl() ? "yes" : "no");
  if (!built_with_cuda()) return;
  const GpuInfo gpu = gpu_info();
  fmt::print("  cuda runtime     {}\n  nvidia driver    {}\n", gpu.runtime,
             gpu.driver.empty() ? "none loaded" : "supports CUDA " + gpu.driver);
  if (!gpu.nccl.empty())
    fmt::print("  nccl             {} loaded, built against {}{}\n", gpu.nccl, gpu.nccl_built,
               gpu.nccl == gpu.nccl_built ? "" : "  WARNING: versions differ");
  if (gpu.device_count > 0)
    fmt::print("  gpus             {} x {} ({:.0f} GiB)\n", gpu.device_count, gpu.model, gpu.memory_gib);
  else fmt::print("  gpus             none: {} (the CPU path with --backend mpi still works)\n", gpu.problem);
}

void print_network() {
  for (const auto& nic : network_interfaces())
    fmt::print("  network          {} {} {}{}\n", nic.name, nic.address, nic.up ? "up" : "down",
               nic.loopback ? " (loopback: ranks on other hosts cannot use it)" : "");
  for (const auto& [name, value] : transport_variables()) fmt::print("  transport env    {}={}\n", name, value);
}

// Each rank contributes rank + 1; every rank must see n (n + 1) / 2.
bool tiny_all_reduce(ControlChannel& control, const std::string& backend) {
  auto comm = make_communicator(backend, control, /*timeout_s=*/30);
  const int n = control.world_size();
  std::vector<float> value(1, static_cast<float>(control.rank() + 1));
  comm->all_reduce(value.data(), 1, ElementType::f32)->wait();
  const bool ok = control.min(value[0] == static_cast<float>(n * (n + 1) / 2) ? 1.0 : 0.0) > 0;
  auto hosts = control.hostnames();  // collective: every rank calls it
  std::sort(hosts.begin(), hosts.end());
  const auto distinct = std::unique(hosts.begin(), hosts.end()) - hosts.begin();
  if (control.rank() == 0)
    fmt::print("  all-reduce       {} over {} rank(s) on {} host(s): {}\n", backend, n, distinct,
               ok ? "ok" : "WRONG RESULT: check the network interfaces and transport settings above");
  return ok;
}

}  // namespace

int run_doctor_command() {
  MpiSession session;
  MpiControlChannel control;
  const int threads = default_threads();
  set_flush_denormal(true);  // as training runs by default
  if (control.rank() == 0) {
    print_machine(collect_environment(threads), threads);
    print_gpus();
    print_network();
    fmt::print("  mpi init         ok ({} rank(s))\n", control.world_size());
    std::fflush(stdout);
  }
  bool ok = tiny_all_reduce(control, "mpi");
#if MT_WITH_NCCL
  // NCCL only where every rank has a GPU of its own; the decision is collective, since one rank
  // alone must not start NCCL.
  if (control.min(gpu_info().device_count >= control.local_size() ? 1.0 : 0.0) > 0) ok = nccl_probe(control) && ok;
#endif
  return ok ? 0 : 1;
}

}  // namespace mt

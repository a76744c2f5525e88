#include "kernels/isa.h"

#include <stdexcept>

namespace mt {
namespace {

KernelIsa detect() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("x86-64-v3")) return KernelIsa::x86_64_v3;
#endif
  return KernelIsa::baseline;
}

KernelIsa& active() {
  static KernelIsa isa = best_kernel_isa();
  return isa;
}

}  // namespace

KernelIsa best_kernel_isa() {
  static const KernelIsa best = detect();
  return best;
}

KernelIsa kernel_isa() { return active(); }

const char* kernel_isa_name(KernelIsa isa) {
  return isa == KernelIsa::x86_64_v3 ? "x86-64-v3" : "baseline";
}

KernelIsaOverride::KernelIsaOverride(KernelIsa isa) : previous_(active()) {
  if (isa == KernelIsa::x86_64_v3 && best_kernel_isa() != KernelIsa::x86_64_v3)
    throw std::invalid_argument("this CPU cannot run the x86-64-v3 kernels");
  active() = isa;
}

KernelIsaOverride::~KernelIsaOverride() { active() = previous_; }

}  // namespace mt

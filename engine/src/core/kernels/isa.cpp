#include "core/kernels/isa.h"

#include <stdexcept>

namespace mt {
namespace {

KernelIsa detect() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("x86-64-v4")) return KernelIsa::x86_64_v4;
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

std::vector<KernelIsa> runnable_kernel_isas() {
  std::vector<KernelIsa> out;
  for (auto isa : {KernelIsa::baseline, KernelIsa::x86_64_v3, KernelIsa::x86_64_v4})
    if (isa <= best_kernel_isa()) out.push_back(isa);
  return out;
}

const char* kernel_isa_name(KernelIsa isa) {
  switch (isa) {
    case KernelIsa::x86_64_v4: return "x86-64-v4";
    case KernelIsa::x86_64_v3: return "x86-64-v3";
    case KernelIsa::baseline: break;
  }
  return "baseline";
}

std::optional<KernelIsa> parse_kernel_isa(const std::string& name) {
  for (auto isa : {KernelIsa::baseline, KernelIsa::x86_64_v3, KernelIsa::x86_64_v4})
    if (name == kernel_isa_name(isa)) return isa;
  return std::nullopt;
}

KernelIsaOverride::KernelIsaOverride(KernelIsa isa) : previous_(active()) {
  if (isa > best_kernel_isa())
    throw std::invalid_argument(std::string("this CPU cannot run the ") + kernel_isa_name(isa) + " kernels");
  active() = isa;
}

KernelIsaOverride::~KernelIsaOverride() { active() = previous_; }

}  // namespace mt

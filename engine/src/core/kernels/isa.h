// Which instruction set the hand-written kernels run with. Each kernel exists as a baseline
// x86-64 copy, an x86-64-v3 (AVX2 + FMA) copy and an x86-64-v4 (AVX-512 F/BW/DQ/VL) copy; the
// best one this CPU supports is used unless a test or benchmark pins another. Not x86: the
// baseline copy only.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mt {

// Ordered: every level runs on a CPU that runs the next one.
enum class KernelIsa { baseline, x86_64_v3, x86_64_v4 };

// The copy kernels call now: the CPU's best, or what a KernelIsaOverride pins.
KernelIsa kernel_isa();
KernelIsa best_kernel_isa();
// Every copy this CPU can execute, baseline first.
std::vector<KernelIsa> runnable_kernel_isas();
const char* kernel_isa_name(KernelIsa isa);
std::optional<KernelIsa> parse_kernel_isa(const std::string& name);

// For tests and benchmarks: runs kernels with `isa` (which must be runnable) while alive. Not
// thread-safe; set it before any kernel runs.
class KernelIsaOverride {
 public:
  explicit KernelIsaOverride(KernelIsa isa);
  ~KernelIsaOverride();
  KernelIsaOverride(const KernelIsaOverride&) = delete;
  KernelIsaOverride& operator=(const KernelIsaOverride&) = delete;

 private:
  KernelIsa previous_;
};

}  // namespace mt

// Target attributes for a kernel's fast copies (empty elsewhere, where those copies are never
// called but still compile).
#if defined(__x86_64__)
#define MT_TARGET_X86_64_V3 __attribute__((target("arch=x86-64-v3")))
#define MT_TARGET_X86_64_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define MT_TARGET_X86_64_V3
#define MT_TARGET_X86_64_V4
#endif

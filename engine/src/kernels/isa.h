// Which instruction set the hand-written kernels run with. Each kernel exists as a baseline
// x86-64 copy and an x86-64-v3 (AVX2 + FMA) copy; the best one this CPU supports is used unless
// a test pins another. Not x86: the baseline copy only.
#pragma once

namespace mt {

enum class KernelIsa { baseline, x86_64_v3 };

// The copy kernels call now: the CPU's best, or what a KernelIsaOverride pins.
KernelIsa kernel_isa();
KernelIsa best_kernel_isa();
const char* kernel_isa_name(KernelIsa isa);

// For tests: runs kernels with `isa` (which must be supported) while alive. Not thread-safe;
// set it before any kernel runs.
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

// Defines the x86-64-v3 attribute for a kernel's fast copy (empty elsewhere, where that copy is
// never called but still compiles).
#if defined(__x86_64__)
#define MT_TARGET_X86_64_V3 __attribute__((target("arch=x86-64-v3")))
#else
#define MT_TARGET_X86_64_V3
#endif

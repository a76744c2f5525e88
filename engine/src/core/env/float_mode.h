// Denormal handling of the CPU's floating-point unit. Training produces subnormal values (tiny
// gradients, AdamW moments decaying towards zero); on many x86 cores each one costs ~100 cycles
// in microcode. PyTorch 2.x without flush-to-zero was measured slowing from ~2,800 to ~670 tok/s
// within 12 steps on an Intel machine. The engine flushes by default and records the state.
#pragma once

namespace mt {

struct FloatMode {
  bool flush_to_zero = false;       // results that would be subnormal become zero (FTZ)
  bool denormals_are_zero = false;  // subnormal inputs are read as zero (DAZ)
};

// Sets or clears FTZ and DAZ for the calling thread. Threads created afterwards inherit the
// mode, so call it before any thread pool starts. Returns false where the CPU has no such mode.
bool set_flush_denormal(bool on);
FloatMode current_float_mode();

}  // namespace mt

// The clock a core of this machine runs at now, measured rather than read: /proc/cpuinfo gives the
// base clock on most VMs (2596 MHz on a 2-vCPU EPYC Zen 4 whose cores ran at 3.6-3.7 GHz), so a
// peak derived from it understates what the cores do. Measured with every launch beside the SGEMM
// probe (about 3 ms). Torch-free.
#pragma once

namespace mt {

// MHz of the calling thread's core, from the time a chain of dependent register additions takes
// (one cycle each on every x86-64 core). The best of several short runs, since a run that loses its
// core only reads slower. 0 where it cannot be measured (other architectures).
double measure_core_clock_mhz();

}  // namespace mt

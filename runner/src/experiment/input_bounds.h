#pragma once
// How large an experiment file may be: bounds that keep what a malformed or generated file can cost
// in memory small (the YAML tree takes ~80 bytes of memory per byte of a long list). The shipped
// experiments are a few KiB; the trial count has its own limit (matrix.h).
#include <cstddef>
#include <cstdint>

namespace mt {

inline constexpr std::uintmax_t kMaxExperimentFileBytes = 1024 * 1024;
inline constexpr std::size_t kMaxAxisValues = 10000;

}  // namespace mt

#include "training/model/bf16_emulation.h"

#include <atomic>

#include "core/env/cpu_info.h"

namespace mt {
namespace {

std::atomic<bool> emulation{false};

}  // namespace

void set_bf16_emulation(bool on) { emulation = on; }
bool bf16_emulation() { return emulation; }

torch::Tensor bf16_round(const torch::Tensor& x) {
  if (!emulation || x.scalar_type() != torch::kFloat) return x;
  return x.to(torch::kBFloat16).to(torch::kFloat);
}

bool cpu_has_native_bf16() {
  const std::string isa = read_cpu_info().isa;
  return isa.find("avx512_bf16") != std::string::npos || isa.find("amx") != std::string::npos;
}

}  // namespace mt

#include "experiment/workload_params.h"

#include "experiment/diagnostic.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace mt {
namespace {

ParamSpec integer(std::string name, double minimum = 1) {
  return {std::move(name), ParamType::Integer, {}, minimum};
}
ParamSpec number(std::string name, double minimum = 0) {
  return {std::move(name), ParamType::Number, {}, minimum};
}
ParamSpec choice(std::string name, std::vector<std::string> choices) {
  return {std::move(name), ParamType::Choice, std::move(choices)};
}

std::vector<WorkloadSpec> make_table() {
  WorkloadSpec train{"train", "train", {}};
  train.params = {
      {"ranks", ParamType::Integer, {}, 1, INT_MAX, /*engine_flag=*/false},
      integer("vocab_size", 2),
      integer("d_model"),
      integer("n_heads"),
      integer("n_layers"),
      integer("seq_length"),
      integer("batch_size"),
      integer("steps"),
      integer("warmup_steps", 0),
      number("learning_rate"),
      integer("seed", 0),
      choice("strategy", {"ddp", "fsdp", "zero1", "zero2"}),
      integer("grad_accum_steps"),
      choice("gradient_sync_mode", {"auto", "every", "last"}),
      choice("precision", {"fp32", "bf16"}),
      choice("backend", {"mpi", "nccl"}),
      number("bucket_cap_mb"),
      number("dropout"),
      integer("threads"),
      choice("grad_reduce_dtype", {"fp32", "bf16"}),
      {"activation_checkpointing", ParamType::Boolean},
      {"backward_prefetch", ParamType::Boolean},
      choice("lr_scheduler", {"constant", "cosine"}),
      integer("lr_warmup_steps", 0),
      integer("lr_decay_steps", 0),
      number("min_learning_rate"),
      number("max_grad_norm"),
      number("first_bucket_cap_mb"),
  };
  WorkloadSpec command{"command", "", {}};
  command.params = {{"ranks", ParamType::Integer, {}, 1, INT_MAX, /*engine_flag=*/false}};
  command.free_form_params = true;
  return {train, command};
}

}  // namespace

const ParamSpec* WorkloadSpec::find(const std::string& param) const {
  for (const auto& p : params) {
    if (p.name == param) return &p;
  }
  return nullptr;
}

std::vector<std::string> WorkloadSpec::param_names() const {
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  return names;
}

const std::vector<WorkloadSpec>& workload_table() {
  static const std::vector<WorkloadSpec> table = make_table();
  return table;
}

const WorkloadSpec* find_workload(const std::string& name) {
  for (const auto& w : workload_table()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> names;
  for (const auto& w : workload_table()) names.push_back(w.name);
  return names;
}

std::optional<std::string> check_param_value(const ParamSpec& spec, const std::string& value) {
  const char* begin = value.c_str();
  char* end = nullptr;
  switch (spec.type) {
    case ParamType::Integer: {
      errno = 0;
      long long v = std::strtoll(begin, &end, 10);
      if (value.empty() || *end != '\0') return fmt::format("{} must be an integer, got '{}'", spec.name, value);
      const bool overflow = errno == ERANGE;  // v is then LLONG_MIN or LLONG_MAX: the sign is right
      if (v < spec.minimum) return fmt::format("{} must be at least {}, got {}", spec.name, spec.minimum, value);
      if (overflow || v > spec.maximum) {
        return fmt::format("{} must be at most {}, got {}", spec.name, spec.maximum, value);
      }
      return std::nullopt;
    }
    case ParamType::Number: {
      errno = 0;
      double v = std::strtod(begin, &end);
      if (value.empty() || *end != '\0') return fmt::format("{} must be a number, got '{}'", spec.name, value);
      if (!std::isfinite(v)) return fmt::format("{} must be a finite number, got '{}'", spec.name, value);
      if (v < spec.minimum) return fmt::format("{} must be at least {}, got {}", spec.name, spec.minimum, v);
      return std::nullopt;
    }
    case ParamType::Choice:
      for (const auto& c : spec.choices) {
        if (c == value) return std::nullopt;
      }
      if (std::string hint = did_you_mean(value, spec.choices); !hint.empty()) {
        return fmt::format("unknown {} '{}'{}", spec.name, value, hint);
      }
      return fmt::format("unknown {} '{}' (expected one of: {})", spec.name, value,
                         fmt::join(spec.choices, ", "));
    case ParamType::Boolean:
      if (value == "true" || value == "false") return std::nullopt;
      return fmt::format("{} must be true or false, got '{}'", spec.name, value);
  }
  return std::nullopt;
}

}  // namespace mt

#include "report/model/model_state.h"

namespace mt {

std::optional<ModelState> model_state(const ReportTrial& t) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const auto parameters = t.metric("memory.parameter_bytes");
  const auto optimizer = t.metric("memory.optimizer_state_bytes");
  auto gradients = t.metric("memory.peak_gradient_bytes");
  if (!gradients) gradients = t.metric("memory.gradient_bytes");
  if (!parameters || !gradients || !optimizer) return std::nullopt;
  ModelState s{*parameters / kMiB, *gradients / kMiB, *optimizer / kMiB, 0};
  // The full parameters the strategy gathers from its shards, as the engine says (0 when it keeps
  // them whole).
  if (auto gathered = t.metric("memory.gathered_parameter_bytes")) {
    s.gathered = *gathered / kMiB;
  } else if (t.strategy == "fsdp") {
    // Results written before the engine reported gathered_parameter_bytes: of the strategies of
    // that engine only FSDP gathered (its full-parameter peak is the units it gathers); DDP and
    // ZeRO kept full parameters, their full-parameter peak being the parameters themselves.
    s.gathered = t.metric("memory.peak_full_parameter_bytes").value_or(0) / kMiB;
  }
  return s;
}

std::vector<double> model_state_mib(const Group& group) {
  std::vector<double> out;
  for (const ReportTrial* t : group.succeeded) {
    if (auto s = model_state(*t)) out.push_back(s->total());
  }
  return out;
}

std::optional<ModelState> mean_model_state(const Group& group) {
  ModelState sum;
  int n = 0;
  for (const ReportTrial* t : group.succeeded) {
    if (auto s = model_state(*t)) {
      sum.parameters += s->parameters;
      sum.gradients += s->gradients;
      sum.optimizer += s->optimizer;
      sum.gathered += s->gathered;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return ModelState{sum.parameters / n, sum.gradients / n, sum.optimizer / n, sum.gathered / n};
}

}  // namespace mt

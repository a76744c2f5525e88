#include "training/trainer/setting_options.h"

#include <stdexcept>
#include <variant>

#include "training/trainer/config.h"
#include "training/trainer/train_options.h"

namespace mt {
namespace {

std::map<std::string, std::string> setting_options() {
  TrainConfig c;
  const OptionTable table = train_option_table(c);
  // The flag whose target is `field` of `c`.
  auto flag = [&table](const auto& field) {
    const void* wanted = &field;
    for (const auto& option : table.options)
      if (std::visit([&](const auto* target) { return static_cast<const void*>(target) == wanted; }, option.target))
        return "--" + option.flag;
    throw std::logic_error("a fingerprinted setting that no train option sets");
  };
  return {
      {"model.vocab_size", flag(c.model.vocab_size)},
      {"model.d_model", flag(c.model.d_model)},
      {"model.n_heads", flag(c.model.n_heads)},
      {"model.n_layers", flag(c.model.n_layers)},
      {"model.seq_length", flag(c.model.seq_length)},
      {"model.dropout", flag(c.model.dropout)},
      {"batch_size", flag(c.batch_size)},
      {"grad_accum_steps", flag(c.grad_accum_steps)},
      {"gradient_sync_mode", flag(c.gradient_sync_mode)},
      {"grad_reduce_dtype", flag(c.grad_reduce_dtype)},
      {"learning_rate", flag(c.learning_rate)},
      {"lr_schedule.kind", flag(c.lr_scheduler)},
      {"lr_schedule.warmup_steps", flag(c.lr_warmup_steps)},
      // Unless given, the decay runs to the last step (trainer.h, lr_schedule_of).
      {"lr_schedule.decay_steps", flag(c.lr_decay_steps) + ", by default " + flag(c.warmup_steps) + " + " +
                                      flag(c.steps) + " - " + flag(c.lr_warmup_steps)},
      {"lr_schedule.min_learning_rate", flag(c.min_learning_rate)},
      {"max_grad_norm", flag(c.max_grad_norm)},
      {"seed", flag(c.seed)},
      {"keep_denormals", flag(c.keep_denormals)},
      {"initial_weights_sha256", flag(c.init_from)},
  };
}

}  // namespace

const std::map<std::string, std::string>& fingerprinted_setting_options() {
  static const std::map<std::string, std::string> options = setting_options();
  return options;
}

}  // namespace mt

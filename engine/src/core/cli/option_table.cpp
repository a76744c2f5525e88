#include "core/cli/option_table.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <nlohmann/json.hpp>

namespace mt {
namespace {

const char* type_name(OptionType type) {
  switch (type) {
    case OptionType::integer: return "integer";
    case OptionType::number: return "number";
    case OptionType::choice: return "choice";
    case OptionType::boolean: return "boolean";
    case OptionType::text: return "text";
  }
  return "text";
}

// The numeric value of a target, or nothing for text targets.
std::optional<double> numeric_value(const Option& option) {
  return std::visit(
      [](auto* target) -> std::optional<double> {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, std::vector<std::string>>)
          return std::nullopt;
        else return static_cast<double>(*target);
      },
      option.target);
}

nlohmann::json json_value(const Option& option) {
  return std::visit([](auto* target) { return nlohmann::json(*target); }, option.target);
}

// As the user would have typed it: integers without a fraction, numbers in shortest form.
std::string shown_value(const Option& option) {
  return std::visit(
      [](auto* target) -> std::string {
        using T = std::remove_pointer_t<decltype(target)>;
        if constexpr (std::is_same_v<T, std::string>) return "'" + *target + "'";
        else if constexpr (std::is_same_v<T, std::vector<std::string>>)
          return fmt::format("{}", fmt::join(*target, " "));
        else if constexpr (std::is_same_v<T, bool>) return *target ? "true" : "false";
        else return fmt::format("{}", *target);
      },
      option.target);
}

const Option& find(const OptionTable& table, const std::string& flag) {
  for (const auto& option : table.options)
    if (option.flag == flag) return option;
  throw std::logic_error("option table: no flag --" + flag);
}

std::optional<std::string> check_bounds(const Option& option) {
  const auto value = numeric_value(option);
  if (!value) return std::nullopt;
  const std::string shown = shown_value(option);
  if (!std::isfinite(*value)) return fmt::format("--{} {} must be a finite number", option.flag, shown);
  if (option.minimum) {
    const bool below = option.exclusive_minimum ? *value <= *option.minimum : *value < *option.minimum;
    if (below)
      return fmt::format("--{} {} must be {} {}", option.flag, shown,
                         option.exclusive_minimum ? "greater than" : "at least", *option.minimum);
  }
  if (option.maximum) {
    const bool above = option.exclusive_maximum ? *value >= *option.maximum : *value > *option.maximum;
    if (above)
      return fmt::format("--{} {} must be {} {}", option.flag, shown, option.exclusive_maximum ? "below" : "at most",
                         *option.maximum);
  }
  return std::nullopt;
}

std::optional<std::string> check_choice(const Option& option) {
  if (option.type != OptionType::choice) return std::nullopt;
  const auto& value = *std::get<std::string*>(option.target);
  if (std::find(option.choices.begin(), option.choices.end(), value) != option.choices.end()) return std::nullopt;
  return fmt::format("--{} '{}' must be one of {}", option.flag, value, fmt::join(option.choices, ", "));
}

std::optional<std::string> check_constraint(const OptionTable& table, const Constraint& c) {
  const Option& a = find(table, c.a);
  const Option& b = find(table, c.b);
  const double x = numeric_value(a).value_or(0), y = numeric_value(b).value_or(0);
  if (c.relation == Relation::divides) {
    if (x != 0 && std::fmod(y, x) == 0) return std::nullopt;
    return fmt::format("--{} {} does not divide --{} {}", a.flag, shown_value(a), b.flag, shown_value(b));
  }
  if (x <= y) return std::nullopt;
  return fmt::format("--{} {} must be at most --{} {}", a.flag, shown_value(a), b.flag, shown_value(b));
}

}  // namespace

std::string param_name(const std::string& flag) {
  std::string out = flag;
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

void add_job_options(std::vector<Option>& options, JobOptions& job) {
  Option backend_option{"backend", OptionType::choice, "communication backend", &job.backend};
  backend_option.choices = {"mpi", "nccl"};
  options.push_back(backend_option);
  Option timeout{"collective-timeout", OptionType::number,
                 "seconds a collective may wait before the job is aborted (0: forever)", &job.collective_timeout_s};
  timeout.minimum = 0;
  options.push_back(timeout);
  Option output_option{"output", OptionType::text, "result JSON path (written by rank 0)", &job.output};
  output_option.experiment_param = false;
  options.push_back(output_option);
}

CLI::Validator decimal_whole_number() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string_view digits =
            std::string_view(value).substr(value.rfind('-', 0) == 0 || value.rfind('+', 0) == 0);
        if (digits.size() < 2 || digits.front() != '0') return "";
        return fmt::format(
            "{}: write a whole number in plain decimal, without a leading 0 (017 would be read as "
            "octal, 0x10 as hexadecimal)",
            value);
      },
      "");
}

void register_options(CLI::App& command, const OptionTable& table) {
  for (const auto& option : table.options) {
    const std::string name = "--" + option.flag;
    std::visit(
        [&](auto* target) {
          using T = std::remove_pointer_t<decltype(target)>;
          if constexpr (std::is_same_v<T, bool>) {
            // `--flag` sets true; `--flag=false` states the default explicitly.
            command.add_flag(name, *target, option.help);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            command.add_option(name, *target, option.help)->allow_extra_args(false);
          } else {
            auto* added = command.add_option(name, *target, option.help)->capture_default_str();
            // A text flag given with nothing after it is a mistake, never "use the default". The
            // checks have no name, so --help shows the type, or a choice's values: {mpi,nccl}.
            if constexpr (std::is_same_v<T, std::string>) {
              added->check(CLI::Validator(
                  [](std::string& value) { return value.empty() ? std::string("must not be empty") : std::string(); },
                  ""));
              if (!option.choices.empty())
                added->type_name("{" + fmt::format("{}", fmt::join(option.choices, ",")) + "}");
            }
            // A whole number beyond the target's type would be clamped to its limit and then run (or
            // be misquoted as that limit): refused here, as written, against the flag's own bound.
            if constexpr (std::is_integral_v<T>) added->check(decimal_whole_number());
            if constexpr (std::is_integral_v<T>)
              added->check(CLI::Validator(
                  [minimum = option.minimum, maximum = option.maximum](std::string& value) -> std::string {
                    T parsed{};
                    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
                    if (ec != std::errc::result_out_of_range) return "";
                    if (value.rfind('-', 0) == 0)
                      return fmt::format("{} must be at least {}", value,
                                         minimum ? *minimum : double(std::numeric_limits<T>::min()));
                    if (maximum) return fmt::format("{} must be at most {}", value, *maximum);
                    return fmt::format("{} must be at most {}", value, std::numeric_limits<T>::max());
                  },
                  ""));
            // Unsigned parsing wraps "-1" to 2^64 - 1: a negative value is refused as written.
            if constexpr (std::is_unsigned_v<T>)
              added->check(CLI::Validator(
                  [](std::string& value) {
                    return value.find('-') != std::string::npos ? std::string("must not be negative") : std::string();
                  },
                  ""));
          }
        },
        option.target);
  }
}

std::optional<std::string> check_options(const OptionTable& table) {
  for (const auto& option : table.options) {
    if (auto problem = check_bounds(option)) return problem;
    if (auto problem = check_choice(option)) return problem;
  }
  for (const auto& constraint : table.constraints)
    if (auto problem = check_constraint(table, constraint)) return problem;
  return std::nullopt;
}

nlohmann::json describe_options(const OptionTable& table, const std::string& subcommand) {
  nlohmann::json options = nlohmann::json::array();
  for (const auto& option : table.options) {
    nlohmann::json entry = {{"flag", "--" + option.flag},
                            {"param", param_name(option.flag)},
                            {"type", type_name(option.type)},
                            {"default", json_value(option)},
                            {"help", option.help},
                            {"experiment_param", option.experiment_param}};
    if (std::holds_alternative<std::vector<std::string>*>(option.target)) entry["repeatable"] = true;
    if (!option.choices.empty()) entry["choices"] = option.choices;
    if (option.minimum) {
      entry["minimum"] = *option.minimum;
      entry["exclusive_minimum"] = option.exclusive_minimum;
    }
    if (option.maximum) {
      entry["maximum"] = *option.maximum;
      entry["exclusive_maximum"] = option.exclusive_maximum;
    }
    options.push_back(entry);
  }
  nlohmann::json constraints = nlohmann::json::array();
  for (const auto& c : table.constraints)
    constraints.push_back({{"relation", c.relation == Relation::divides ? "divides" : "at_most"},
                           {"a", param_name(c.a)},
                           {"b", param_name(c.b)}});
  return {{"subcommand", subcommand}, {"options", options}, {"constraints", constraints}};
}

}  // namespace mt

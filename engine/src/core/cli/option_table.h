// One table per subcommand: every flag's name, type, default, help, allowed values and bounds,
// plus the relations between flags. The same table registers the flags with CLI11, validates the
// parsed values, and describes the subcommand as JSON (`mtengine train --describe`). mtrun reads
// that description to validate experiments, so a flag, a choice or a bound lives in one place.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/cli/job_options.h"
#include <variant>
#include <vector>

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace mt {

enum class OptionType { integer, number, choice, boolean, text };

struct Option {
  // A vector<string> option may be given several times (one value each).
  using Target = std::variant<int64_t*, uint64_t*, int*, double*, bool*, std::string*, std::vector<std::string>*>;
  Option(std::string flag_, OptionType type_, std::string help_, Target target_)
      : flag(std::move(flag_)), type(type_), help(std::move(help_)), target(target_) {}

  std::string flag;  // without the dashes: "vocab-size"; its experiment parameter is vocab_size
  OptionType type;
  std::string help;
  Target target;
  std::vector<std::string> choices;        // choice: the allowed values
  std::optional<double> minimum, maximum;  // inclusive, unless marked exclusive
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  bool experiment_param = true;  // false: the runner sets it itself (e.g. --output)
};

// Relations between two options: "a divides b" (n-heads divides d-model) or "a at most b".
enum class Relation { divides, at_most };
struct Constraint {
  std::string a, b;  // flags, without dashes
  Relation relation;
};

struct OptionTable {
  std::vector<Option> options;
  std::vector<Constraint> constraints;
};

std::string param_name(const std::string& flag);  // "vocab-size" -> "vocab_size"

// The flags every MPI job workload ends with: --backend (mpi, nccl), --collective-timeout and
// --output (set by the runner, so not an experiment parameter).
void add_job_options(std::vector<Option>& options, JobOptions& job);

void register_options(CLI::App& command, const OptionTable& table);

// Refuses a whole number not written in plain decimal: CLI11 reads "017" as octal 15 and "0x10" as
// 16, where the runner (and a reader of the command) takes them for 17 and 10. register_options
// adds it to every integer flag; a subcommand that adds integer options of its own adds it too.
CLI::Validator decimal_whole_number();

// The first problem with the current values, as "--flag value must ..." (no program prefix), or
// nothing when every value and relation holds.
std::optional<std::string> check_options(const OptionTable& table);

// {"subcommand", "options": [{flag, param, type, default, help, choices, minimum, maximum,
// exclusive_minimum, exclusive_maximum}], "constraints": [{relation, a, b}]}; defaults are the
// values the targets hold when called.
nlohmann::json describe_options(const OptionTable& table, const std::string& subcommand);

}  // namespace mt

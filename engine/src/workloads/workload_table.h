// Every mtengine subcommand in one table: its name, one-line help and how to make it. main()
// turns the command line into one row and returns that row's exit code; `mtengine describe`
// walks the same table, so a workload is one folder and one line here.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace CLI {
class App;
}

namespace mt {

class Subcommand {
 public:
  virtual ~Subcommand() = default;
  virtual void add_options(CLI::App& app) = 0;
  // After parsing: does the work and returns the process exit code.
  virtual int run() = 0;
  // The flags as `--describe` prints them (see core/cli/option_table.h), or null for a
  // subcommand without an option table.
  virtual nlohmann::json describe() const;
};

struct WorkloadEntry {
  const char* name;
  const char* help;
  std::unique_ptr<Subcommand> (*make)();
};

const std::vector<WorkloadEntry>& workload_table();

// {"schema_version", "subcommands": [{name, help, options}], "strategies": [{name,
// auto_gradient_sync_mode}], "collectives": [{name, bus_factor (by world size 2..8),
// in_place, out_of_place, splits}]}: what `mtengine describe` prints, and what mtrun, the
// schemas and the tests take the engine's names from.
nlohmann::json describe_engine();

}  // namespace mt

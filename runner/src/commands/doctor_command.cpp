// mtrun doctor: can this machine run experiments? Checks what a campaign needs before one is
// started, each with what to do when it is missing.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <boost/process/search_path.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "commands/commands.h"
#include "launch/bounded_capture.h"
#include "run/cores_now.h"
#include "run/quiet_machine.h"
#include "runner_error.h"
#include "store/store.h"
#include "store/store_reader.h"

namespace bp = boost::process;

namespace mt {
namespace {

// How long a program may take to say its version: srun may wait on DNS for its configuration.
constexpr double kProbeSeconds = 10;

struct Check {
  std::string name;
  bool ok;
  std::string detail;  // what was found, or how to fix it
  bool required = true;
  bool bad_input = false;  // a failure the user must fix in what they passed (exit 2)
};

// Whether this process can create a file in `dir`: tried (a file made and removed at once), since
// mode bits do not say it: root's access() passes them, and /proc refuses what they allow.
bool can_create_in(const std::filesystem::path& dir) {
  std::string name = (dir / ".mtrun-doctor-XXXXXX").string();
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return false;
  ::close(fd);
  ::unlink(name.c_str());
  return true;
}

// Looks at the database without creating or changing it: a missing one is fine where it can be
// created; an existing one must be an mtrun database this mtrun can read.
Check database_check(const std::filesystem::path& db) {
  std::error_code ec;
  if (!std::filesystem::exists(db, ec)) {
    std::filesystem::path dir = std::filesystem::absolute(db, ec).parent_path();
    while (!dir.empty() && dir != dir.root_path() && !std::filesystem::exists(dir, ec)) dir = dir.parent_path();
    if (!std::filesystem::is_directory(dir, ec)) {
      return {"database", false,
              fmt::format("{} cannot be created: {} is not a folder; pass --db", db.string(), dir.string()), true,
              true};
    }
    const bool writable = can_create_in(dir);
    return {"database", writable,
            writable ? fmt::format("{} does not exist yet; the first run creates it", db.string())
                     : fmt::format("{} does not exist and {} is not writable; pass --db", db.string(), dir.string()),
            true, !writable};
  }
  try {
    const int version = open_store_read_only(db)->user_version();
    std::string note =
        version < Store::kSchemaVersion ? fmt::format("; the next run migrates it to {}", Store::kSchemaVersion) : "";
    return {"database", true, fmt::format("{} (schema version {}{})", db.string(), version, note)};
  } catch (const std::exception& e) {
    return {"database", false, e.what(), true, true};
  }
}

// What `program args…` says of itself, asked for its version: its first line where it runs; where it
// is missing, nothing; where it is there but fails or hangs, why, in its own words (an srun without
// a Slurm configuration, an mpirun that cannot start).
struct Probe {
  bool found = false;
  std::optional<std::string> first_line;  // it ran and exited 0
  std::string failure;                    // found, but it did not
};

Probe probe(const std::vector<std::string>& argv) {
  Probe p;
  std::error_code ec;
  p.found =
      argv[0].find('/') == std::string::npos ? !bp::search_path(argv[0]).empty() : std::filesystem::exists(argv[0], ec);
  if (!p.found) return p;
  try {
    CaptureLimits limits;
    limits.timeout_s = kProbeSeconds;
    limits.max_bytes = 1u << 20;
    const std::vector<std::string> lines = nonblank_lines(capture_output(argv, limits));
    p.first_line = lines.empty() ? std::string() : lines.front();
  } catch (const std::exception& e) {
    p.failure = e.what();
  }
  return p;
}

// The machine measured for a moment with the default thresholds: a warning, not a failure — a busy
// machine runs experiments, it only times them badly.
Check load_check() {
  const QuietCheck check = check_quiet(ConditionsThresholds{});
  if (!check.measured) return {"load", false, "/proc/stat is not readable: conditions cannot be recorded", false};
  if (check.busy()) return {"load", false, busy_reasons(check), false};
  return {"load", true, fmt::format("quiet over {:.1f} s", kQuietProbeSeconds), false};
}

// The cores' round trip against the usual of the latest campaign in the database that read it; a
// database doctor cannot read is reported by database_check, and the reading then stands alone
// (read_cores_now throws before it times the cores).
Check core_trip_check(const std::filesystem::path& db) {
  CoresNow cores;
  try {
    cores = read_cores_now(db);
  } catch (const RunnerError&) {
    cores = read_cores_now("");
  }
  if (cores.far_apart()) return {"core trip", false, cores.far_apart_reason(), false};
  return {"core trip", true, cores.describe(), false};
}

// Inside a Slurm allocation the trials run on its nodes: the same look there, through srun.
std::optional<Check> nodes_check() {
  const std::optional<LookPlace> allocation = allocation_look_place(mtrun_executable());
  if (!allocation) return std::nullopt;
  const LookPlace& place = *allocation;
  const QuietCheck check = check_quiet(ConditionsThresholds{}, 0, nullptr, place);
  if (!check.measured) {
    return Check{"nodes", false, fmt::format("could not look {}: {}", describe_look_place(place), check.unavailable),
                 false};
  }
  if (check.busy()) return Check{"nodes", false, busy_reasons(check), false};
  return Check{"nodes", true, fmt::format("{} quiet over {:.1f} s", place.nodes_words, kQuietProbeSeconds), false};
}

// A program's check: its version line where it runs; else what it said, then `after_failure`; else
// `missing`.
Check program_check(const std::string& name, const std::vector<std::string>& argv, const std::string& after_failure,
                    const std::string& missing, bool required) {
  const Probe p = probe(argv);
  return {name, p.first_line.has_value(),
          p.first_line ? *p.first_line
          : p.found    ? p.failure + after_failure
                       : missing,
          required};
}

std::vector<Check> run_checks(const GlobalOptions& global) {
  std::vector<Check> checks;
  checks.push_back(program_check("mpirun", {"mpirun", "--version"}, "",
                                 "not found on PATH: apt-get install openmpi-bin (scripts/setup.sh does)", true));
  try {
    const std::filesystem::path engine = locate_engine(std::nullopt);
    const Probe version = probe({engine.string(), "version"});
    checks.push_back({"mtengine", version.first_line.has_value(),
                      version.first_line
                          ? fmt::format("{} ({})", engine.string(), *version.first_line)
                          : fmt::format("{} does not run ({}): try `{} doctor`", engine.string(),
                                        version.found ? version.failure : "not found", engine.string())});
  } catch (const RunnerError& e) {
    checks.push_back({"mtengine", false, e.what()});
  }
  checks.push_back(database_check(global.db));
  const std::string without_git = "source revisions will be 'unknown' and provenance incomplete";
  checks.push_back(program_check("git", {"git", "--version"}, ": " + without_git, "not found: " + without_git, false));
  checks.push_back(program_check("slurm", {"srun", "--version"}, " (needed only for launcher: slurm)",
                                 "srun not found (needed only for launcher: slurm)", false));
  checks.push_back(
      {"cores", true,
       fmt::format("{} (default threads per rank: cores / ranks)", std::max(1u, std::thread::hardware_concurrency())),
       false});
  checks.push_back({"user", true, ::geteuid() == 0 ? "root (mpirun gets --allow-run-as-root)" : "not root", false});
  checks.push_back(load_check());
  if (checks.back().ok) checks.push_back(core_trip_check(global.db));
  if (auto nodes = nodes_check()) checks.push_back(*nodes);
  return checks;
}

// Exit 2 when what the user passed is unusable (the database), else 1 when a required check failed.
int print_doctor(const GlobalOptions& global, std::ostream& out) {
  int failed = 0;
  bool bad_input = false;
  for (const auto& c : run_checks(global)) {
    const char* mark = c.ok ? "ok  " : (c.required ? "FAIL" : "warn");
    if (!c.ok && c.required) ++failed;
    bad_input = bad_input || (!c.ok && c.bad_input);
    fmt::print(out, "{}  {:<9} {}\n", mark, c.name, c.detail);
  }
  fmt::print(out, "{}\n", failed ? fmt::format("{} required check(s) failed", failed) : "ready to run experiments");
  return bad_input ? kExitUsage : failed ? kExitFailure : kExitOk;
}

}  // namespace

CommandRunner register_doctor_command(CLI::App& app, const GlobalOptions& global) {
  app.add_subcommand("doctor", "check that this machine can run experiments (mpirun, mtengine, database, …)");
  return [&global](std::ostream& out) { return print_doctor(global, out); };
}

}  // namespace mt

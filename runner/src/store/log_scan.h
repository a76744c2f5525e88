#pragma once
// Reading a job's log without trusting it: line by line (a line ends at '\n' or '\r', so progress
// bars count as many lines), each line cut to a bounded length and at most a bounded number of
// bytes read, so neither one huge line nor a huge log can exhaust memory or a pattern matcher's
// stack. Nothing here backtracks over a whole log.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mt {

struct LogLimits {
  std::size_t max_line = 1024;                         // bytes of a line that are looked at
  std::uint64_t max_bytes = std::uint64_t(256) << 20;  // bytes of the log that are read
};

// Calls `visit` with each line until it returns false or the limits are reached. A log that is not
// a regular file (a trial could replace it with a FIFO) is not read.
void scan_log(const std::filesystem::path& file, const std::function<bool(std::string_view line)>& visit,
              const LogLimits& limits = {});

struct RankSignal {
  int rank = 0;
  int signal = 0;
  std::string node;  // the host the rank ran on, as Open MPI names it
};

// Open MPI's "process rank R with PID P on node N exited on signal S" in one line, read literally.
std::optional<RankSignal> parse_rank_signal(std::string_view line);
// srun's "srun: error: NODE: task R: Killed" in one line (the signal as strsignal() names it); a
// task that exited with a code is not one.
std::optional<RankSignal> parse_srun_task_signal(std::string_view line);
// The first line of the log that is either.
std::optional<RankSignal> find_rank_signal(const std::filesystem::path& log);

// The rank an engine message names as the one it is about: "mtengine: rank 1 (host): …" (a rank
// that aborted the job), "mtengine train: injected fault: rank 1 exits with 3 …"; nullopt for any
// other text, so a rank merely mentioned ("rank 1's shard is missing") is never taken for it.
std::optional<int> rank_named_in(std::string_view reason);

// The most telling line of a failed job's log, before mpirun's "-----" epilogue: the job's own
// message (starting "mtengine" or mentioning an error) if there is one, else its first non-blank
// line; where the job wrote nothing, the text of Open MPI's first framed message (why the job never
// started), else the launcher's (srun's, sbatch's) or mtrun's own lines, an error first. At most
// 500 bytes.
std::string reason_from_log(const std::filesystem::path& log);

}  // namespace mt

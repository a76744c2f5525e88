#include "store/log_scan.h"

#include <csignal>
#include <cstring>
#include <charconv>
#include <fstream>

namespace mt {
namespace {

constexpr std::size_t kReasonLength = 500;

// Consumes `word` from the front of `text`.
bool skip(std::string_view& text, std::string_view word) {
  if (text.substr(0, word.size()) != word) return false;
  text.remove_prefix(word.size());
  return true;
}

// Consumes a non-negative int from the front of `text`.
bool read_int(std::string_view& text, int& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || value < 0) return false;
  text.remove_prefix(size_t(end - text.data()));
  return true;
}

// Consumes a run of non-space characters.
bool read_word(std::string_view& text, std::string_view& word) {
  size_t n = 0;
  while (n < text.size() && text[n] != ' ' && text[n] != '\t') ++n;
  word = text.substr(0, n);
  text.remove_prefix(n);
  return n > 0;
}

}  // namespace

void scan_log(const std::filesystem::path& file, const std::function<bool(std::string_view line)>& visit,
              const LogLimits& limits) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return;
  std::ifstream in(file, std::ios::binary);
  std::string line;
  std::uint64_t read = 0;
  char chunk[1 << 16];
  while (read < limits.max_bytes && in.read(chunk, sizeof chunk).gcount() > 0) {
    const auto n = size_t(in.gcount());
    read += n;
    for (size_t i = 0; i < n; ++i) {
      const char c = chunk[i];
      if (c == '\n' || c == '\r') {
        if (!visit(line)) return;
        line.clear();
      } else if (line.size() < limits.max_line) {
        line += c;
      }
    }
  }
  if (!line.empty()) visit(line);
}

std::optional<RankSignal> parse_rank_signal(std::string_view line) {
  constexpr std::string_view kStart = "process rank ";
  for (size_t at = line.find(kStart); at != std::string_view::npos; at = line.find(kStart, at + 1)) {
    std::string_view rest = line.substr(at + kStart.size());
    RankSignal found;
    int pid = 0;
    std::string_view node;
    if (read_int(rest, found.rank) && skip(rest, " with PID ") && read_int(rest, pid) && skip(rest, " on node ") &&
        read_word(rest, node) && skip(rest, " exited on signal ") && read_int(rest, found.signal)) {
      found.node = std::string(node);
      return found;
    }
  }
  return std::nullopt;
}

// The number of the signal `text` starts with, as strsignal() describes it ("Killed", "Segmentation
// fault"), followed by nothing or " (core dumped)"; 0 when it names none.
static int signal_described(std::string_view text) {
  for (int s = 1; s < NSIG; ++s) {
    const char* name = ::strsignal(s);
    std::string_view rest = text;
    if (name && skip(rest, name) && (rest.empty() || rest[0] == ' ')) return s;
  }
  return 0;
}

std::optional<RankSignal> parse_srun_task_signal(std::string_view line) {
  std::string_view rest = line;
  std::string_view node;
  RankSignal found;
  if (!skip(rest, "srun: error: ") || !read_word(rest, node) || node.back() != ':' || !skip(rest, " task ") ||
      !read_int(rest, found.rank) || !skip(rest, ": ")) {
    return std::nullopt;
  }
  found.signal = signal_described(rest);
  if (found.signal == 0) return std::nullopt;  // "Exited with exit code 3" is no death by signal
  found.node = std::string(node.substr(0, node.size() - 1));
  return found;
}

std::optional<RankSignal> find_rank_signal(const std::filesystem::path& log) {
  std::optional<RankSignal> found;
  scan_log(log, [&](std::string_view line) {
    found = parse_rank_signal(line);
    if (!found) found = parse_srun_task_signal(line);
    return !found;
  });
  return found;
}

std::optional<int> rank_named_in(std::string_view reason) {
  constexpr std::string_view kProgram = "mtengine";
  for (size_t at = reason.find(kProgram); at != std::string_view::npos; at = reason.find(kProgram, at + 1)) {
    std::string_view rest = reason.substr(at + kProgram.size());
    if (!skip(rest, ": ")) {  // else one word first, the subcommand: "mtengine train: …"
      if (!skip(rest, " ")) continue;
      const size_t colon = rest.find(": ");
      if (colon == 0 || colon == std::string_view::npos || rest.substr(0, colon).find(' ') != std::string_view::npos)
        continue;
      rest.remove_prefix(colon + 2);
    }
    skip(rest, "injected fault: ");
    int rank = 0;
    if (skip(rest, "rank ") && read_int(rest, rank) && (rest.empty() || rest[0] == ' ' || rest[0] == ':')) return rank;
  }
  return std::nullopt;
}

namespace {

// Lines of the launcher (srun, slurmstepd, sbatch, salloc) and of mtrun itself (its notes, and the
// look a job takes at its nodes first): they say that a task failed or what mtrun did, rarely why
// the job failed; the job's own lines come first.
bool launcher_or_runner_line(std::string_view line) {
  for (std::string_view prefix : {"srun: ", "slurmstepd: ", "sbatch: ", "salloc: ", "mtrun: ", "mtrun look "}) {
    if (line.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

// The line without its leading spaces, runs of spaces made one: a boxed message's lines are indented
// and aligned.
std::string collapse_spaces(std::string_view line) {
  std::string text;
  for (const char c : line) {
    if (c == ' ' || c == '\t') {
      if (!text.empty() && text.back() != ' ') text += ' ';
    } else {
      text += c;
    }
  }
  if (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

bool mentions_error(std::string_view line) {
  return line.substr(0, 8) == "mtengine" || line.find("rror") != std::string_view::npos;
}

}  // namespace

std::string reason_from_log(const std::filesystem::path& log) {
  std::string first, error, box, launcher_first, launcher_error;
  bool in_box = false;
  scan_log(log, [&](std::string_view line) {
    if (line.substr(0, 5) == "-----") {
      // Open MPI's messages are framed by dashes. After the job's own lines one is mpirun's closing
      // report; before them it is why the job never ran ("not enough slots", a daemon that did not
      // start): its text is the reason then.
      if (!first.empty() || in_box) return false;
      in_box = true;
      return true;
    }
    if (line.find_first_not_of(' ') == std::string_view::npos) return true;
    if (in_box) {
      if (box.size() < kReasonLength) box += (box.empty() ? "" : " ") + collapse_spaces(line);
      return true;
    }
    if (line.substr(0, 20) == "Submitted batch job ") return true;  // sbatch's receipt
    const bool launcher = launcher_or_runner_line(line);
    std::string& keep_first = launcher ? launcher_first : first;
    if (mentions_error(line)) {
      if (!launcher) {
        error = line.substr(0, kReasonLength);
        return false;
      }
      if (launcher_error.empty()) launcher_error = line.substr(0, kReasonLength);
    }
    if (keep_first.empty()) keep_first = line.substr(0, kReasonLength);
    return true;
  });
  for (const std::string* reason : {&error, &first, &box, &launcher_error, &launcher_first}) {
    if (!reason->empty()) return reason->substr(0, kReasonLength);
  }
  return "";
}

}  // namespace mt

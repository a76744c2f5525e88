#include "launch/queue_note.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace mt {

bool write_queue_note(const std::filesystem::path& file, const QueueNote& note) {
  auto partial = file;
  partial += ".partial";
  bool written = false;
  {
    std::ofstream out(partial, std::ios::trunc);
    out << note.launched_at << "\n" << note.state << "\n";
    written = static_cast<bool>(out.flush());
  }
  std::error_code renamed;
  if (written) std::filesystem::rename(partial, file, renamed);
  if (written && !renamed) return true;
  std::error_code ignored;
  std::filesystem::remove(partial, ignored);  // no half-written note left in the run directory
  return false;
}

std::optional<QueueNote> read_queue_note(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string when, state;
  if (!std::getline(in, when) || !std::getline(in, state) || state.empty()) return std::nullopt;
  QueueNote note;
  note.state = state;
  std::istringstream parse(when);
  if (!(parse >> note.launched_at) || !parse.eof() || note.launched_at <= 0) return std::nullopt;
  return note;
}

void remove_queue_note(const std::filesystem::path& file) {
  std::error_code ec;
  std::filesystem::remove(file, ec);
}

}  // namespace mt

#pragma once
// While a trial's job waits in the scheduler's queue, a note in its run directory says so: the
// scheduler's word on it and since when. `mtrun status` shows such a trial as queued, not running
// (the database is written on the run loop's thread only, and a job's queue wait is seen on the
// thread that runs it). The note goes once the job has started or is over.
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>

namespace mt {

inline constexpr const char* kQueueNoteName = "queue_state";

struct QueueNote {
  std::string state;           // e.g. "PENDING Resources"
  std::time_t launched_at{0};  // when the job was handed to the scheduler, Unix time
};

// Replaces the note at `file` whole (written beside it, then renamed), so a reader never sees half.
// False where it cannot be written: the note is a courtesy to `mtrun status`, never a failure.
bool write_queue_note(const std::filesystem::path& file, const QueueNote& note);

// The note at `file`, or nothing where there is none or it is not one.
std::optional<QueueNote> read_queue_note(const std::filesystem::path& file);

void remove_queue_note(const std::filesystem::path& file);

}  // namespace mt

// `--progress-file`: rank 0 appends a line "STEPS UNIX_SECONDS" each time the number of training
// steps completed changes — once at the start (the step a run begins or resumes at, once its
// checkpoint is loaded) and after every step. A job that dies leaves how far it got and when;
// a supervisor that restarts it (mtrun's `restart:`) reads from it the work the restart recomputed
// and when the new job was back where the old one died. Not synced: it reports progress, it does
// not survive a machine's crash. One short line per step.
#pragma once

#include <cstdint>
#include <string>

namespace mt {

class ProgressFile {
 public:
  // Opens (creates, truncates) `path` when it is non-empty; otherwise every record is a no-op.
  // A path that cannot be opened is reported on stderr and the run goes on without it.
  explicit ProgressFile(const std::string& path);
  ~ProgressFile();
  ProgressFile(const ProgressFile&) = delete;
  ProgressFile& operator=(const ProgressFile&) = delete;

  // Appends "<steps completed> <seconds since the epoch, to the millisecond>\n" in one write. A
  // failed write is reported once on stderr: progress is a courtesy, not the run.
  void record(int64_t steps_completed);

 private:
  std::string path_;
  int fd_ = -1;
  bool warned_ = false;
};

}  // namespace mt

// `--progress-file`: the number of training steps completed so far, rewritten in place by rank 0
// after every step (and once at the start: the step a run begins or resumes at). A job that dies
// leaves the last step it finished there, which a supervisor that restarts it (mtrun's
// `restart:`) needs to count the work the restart recomputes. Not synced: it reports progress,
// it does not survive a machine's crash.
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

  // "<steps completed>\n", padded to a fixed width so each rewrite replaces the last whole. A
  // failed write is reported once on stderr and not again: progress is a courtesy, not the run.
  void record(int64_t steps_completed);

 private:
  std::string path_;
  int fd_ = -1;
  bool warned_ = false;
};

}  // namespace mt

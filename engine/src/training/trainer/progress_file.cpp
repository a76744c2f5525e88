#include "training/trainer/progress_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace mt {

ProgressFile::ProgressFile(const std::string& path) : path_(path) {
  if (path_.empty()) return;
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    warned_ = true;
    std::fprintf(stderr, "mtengine: warning: cannot open --progress-file '%s': %s\n", path_.c_str(),
                 std::strerror(errno));
  }
}

ProgressFile::~ProgressFile() {
  if (fd_ >= 0) ::close(fd_);
}

void ProgressFile::record(int64_t steps_completed) {
  if (fd_ < 0) return;
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  char line[64];
  const int n = std::snprintf(line, sizeof line, "%lld %.3f\n", static_cast<long long>(steps_completed), now);
  if (::write(fd_, line, static_cast<size_t>(n)) != n && !warned_) {
    warned_ = true;
    std::fprintf(stderr, "mtengine: warning: cannot write --progress-file '%s': %s\n", path_.c_str(),
                 std::strerror(errno));
  }
}

}  // namespace mt

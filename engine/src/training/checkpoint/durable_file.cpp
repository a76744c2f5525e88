#include "training/checkpoint/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "training/checkpoint/checkpoint_error.h"

namespace mt {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path) {
  throw std::runtime_error(what + " '" + path.string() + "': " + std::strerror(errno));
}

}  // namespace

void require_regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status) || std::filesystem::is_regular_file(status)) return;
  throw CheckpointError("'" + path.string() + "' is not a regular file" +
                        (std::filesystem::is_fifo(status)        ? " (a FIFO)"
                         : std::filesystem::is_directory(status) ? " (a directory)"
                                                                 : ""));
}

void write_all(int fd, const void* data, std::size_t bytes, const std::string& what) {
  const char* cursor = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t written = ::write(fd, cursor, bytes);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write " + what + ": " + std::strerror(errno));
    }
    cursor += written;
    bytes -= static_cast<std::size_t>(written);
  }
}

void write_durable_file(const std::filesystem::path& path, const std::string& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", path);
  try {
    write_all(fd, bytes.data(), bytes.size(), fmt::format("'{}'", path.string()));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("cannot fsync", path);
  }
  if (::close(fd) != 0) fail("cannot close", path);
}

void fsync_path(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", path);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync", path);
}

}  // namespace mt

#include "core/job/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace mt {
namespace {

namespace fs = std::filesystem;

// "a FIFO", "a character device", ...: what stands where a regular file was expected.
std::string kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory: return "a directory";
    case fs::file_type::block: return "a block device";
    case fs::file_type::character: return "a character device";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}

}  // namespace

fs::path output_target(const fs::path& path) {
  fs::path current = path;
  // Linux gives up after 40 links (ELOOP): so do we.
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current;
    const fs::path next = fs::read_symlink(current, ec);
    if (ec) return current;
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw std::runtime_error(fmt::format("'{}': too many levels of symbolic links", path.string()));
}

fs::path output_identity(const fs::path& path) {
  std::error_code ec;
  fs::path target;
  try {
    target = output_target(path);
  } catch (const std::exception&) {
    target = path;
  }
  const fs::path normal = fs::weakly_canonical(fs::absolute(target, ec), ec);
  return ec ? fs::absolute(target).lexically_normal() : normal;
}

std::optional<std::string> output_file_problem(const std::string& flag, const std::string& path) {
  const fs::path file(path);
  if (file.filename().empty()) return fmt::format("{} '{}' names a directory, not a file", flag, path);
  fs::path target;
  try {
    target = output_target(file);
  } catch (const std::exception& e) {
    return fmt::format("{} {}", flag, e.what());
  }
  const std::string through = target == file ? "" : fmt::format(" (a symlink to '{}')", target.string());
  std::error_code ec;
  const fs::file_status status = fs::status(target, ec);
  if (status.type() == fs::file_type::directory)
    return fmt::format("{} '{}'{} names a directory, not a file", flag, path, through);
  if (fs::exists(status) && status.type() != fs::file_type::regular)
    return fmt::format("{} '{}'{} is {}: name a regular file (it would be replaced, not written to)", flag, path,
                       through, kind_of(status.type()));
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  if (!fs::is_directory(dir, ec))
    return fmt::format("{} '{}'{}: directory '{}' does not exist", flag, path, through, dir.string());
  if (access(dir.c_str(), W_OK) != 0)
    return fmt::format("{} '{}'{}: directory '{}' is not writable", flag, path, through, dir.string());
  return std::nullopt;
}

void require_replaceable(const fs::path& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(output_target(path), ec);
  if (fs::exists(status) && status.type() != fs::file_type::regular)
    throw std::runtime_error(
        fmt::format("cannot write '{}': it is {}, not a regular file", path.string(), kind_of(status.type())));
}

void write_text_atomically(const fs::path& path, const std::string& text) {
  require_replaceable(path);
  const fs::path target = output_target(path);
  // The pid keeps concurrent writers (several failing ranks) off each other's temporary file.
  const std::string temporary = target.string() + ".tmp." + std::to_string(getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(errno)));
  std::size_t done = 0;
  int error = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // A full disk may only show when the data is flushed: close's result counts too.
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0 && std::rename(temporary.c_str(), target.c_str()) != 0) error = errno;
  if (error != 0) {
    std::remove(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), std::strerror(error)));
  }
}

}  // namespace mt

#include "checked_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "runner_error.h"

namespace mt {
namespace {

// Every byte of [data, data + size) to `fd`, or the errno that stopped it.
int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return errno;
    if (written == 0) return EIO;
    data += written;
    size -= std::size_t(written);
  }
  return 0;
}

}  // namespace

FdOutput::FdOutput(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

FdOutput::~FdOutput() { drain(); }

FdOutput::int_type FdOutput::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

int FdOutput::sync() { return drain() ? 0 : -1; }

bool FdOutput::drain() {
  if (error_ == 0) error_ = write_all(fd_, pbase(), std::size_t(pptr() - pbase()));
  setp(buffer_.data(), buffer_.data() + buffer_.size());  // what could not be written is dropped
  return error_ == 0;
}

std::string stdout_write_error(int error) {
  return fmt::format("cannot write to standard output: {}", std::strerror(error));
}

int write_whole_file(const std::filesystem::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int error = write_all(fd, text.data(), text.size());
  if (::close(fd) != 0 && error == 0) error = errno;  // NFS reports some write errors only here
  return error;
}

void write_file_or_throw(const std::filesystem::path& file, const std::string& text) {
  if (const int error = write_whole_file(file, text); error != 0) {
    throw RunnerError(kExitWrite, fmt::format("cannot write {}: {}", file.string(), std::strerror(error)));
  }
}

void create_folder_or_throw(const std::filesystem::path& folder) {
  if (folder.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw RunnerError(kExitWrite, fmt::format("cannot create {}: {}", folder.string(), error.message()));
}

void write_file_in_new_folder_or_throw(const std::filesystem::path& file, const std::string& text) {
  create_folder_or_throw(file.parent_path());
  write_file_or_throw(file, text);
}

void replace_file_or_throw(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path part = file.string() + ".part";
  std::error_code error;
  try {
    write_file_or_throw(part, text);
  } catch (const RunnerError&) {
    std::filesystem::remove(part, error);
    throw;
  }
  std::filesystem::rename(part, file, error);
  if (error) {
    std::filesystem::remove(part, error);
    throw RunnerError(kExitWrite, fmt::format("cannot write {}: {}", file.string(), error.message()));
  }
}

}  // namespace mt

#pragma once
// Output whose every write is checked: standard output through a buffer that remembers the first
// failed write (so a full disk is an error, not a truncated file and exit 0), and whole files
// written with their errors named. A failed write is exit code kExitWrite.
#include <array>
#include <filesystem>
#include <streambuf>
#include <string>

namespace mt {

// A stream buffer over a file descriptor. After the first failed write it writes nothing more, and
// the stream on it goes bad, so a long producer (a query) can stop early.
class FdOutput : public std::streambuf {
 public:
  explicit FdOutput(int fd);
  FdOutput(const FdOutput&) = delete;
  FdOutput& operator=(const FdOutput&) = delete;
  ~FdOutput() override;
  int error() const { return error_; }  // errno of the first failed write; 0 when none failed

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();
  int fd_;
  int error_ = 0;
  std::array<char, 65536> buffer_;
};

// "mtrun: cannot write to standard output: No space left on device" without the "mtrun: ".
std::string stdout_write_error(int error);

// Writes `text` to `file`, replacing it. Returns 0, or the errno of what failed (open, write, close).
int write_whole_file(const std::filesystem::path& file, const std::string& text);
// The same; throws RunnerError(kExitWrite) "cannot write FILE: reason" when it fails.
void write_file_or_throw(const std::filesystem::path& file, const std::string& text);
// Creates `folder` and its parents where missing ("" is the current folder); throws
// RunnerError(kExitWrite) "cannot create FOLDER: reason" when it cannot.
void create_folder_or_throw(const std::filesystem::path& folder);
// write_file_or_throw after creating the file's folder.
void write_file_in_new_folder_or_throw(const std::filesystem::path& file, const std::string& text);
// The same, written beside `file` and renamed over it: a reader sees the old file or the new one
// whole, never half (a writer killed midway leaves `file` as it was).
void replace_file_or_throw(const std::filesystem::path& file, const std::string& text);

}  // namespace mt

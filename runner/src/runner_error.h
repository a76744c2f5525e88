#pragma once
// Errors the runner library hands back to main, which alone prints them and picks the exit code.
#include <stdexcept>
#include <string>

namespace mt {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,       // something ran and failed (a trial, a query)
  kExitUsage = 2,         // bad flags, bad experiment file, missing files, an unusable database
  kExitBusy = 3,          // run --require-quiet: the machine was busy, nothing was timed; look: busy
  kExitIncomparable = 4,  // compare: the campaigns ran on different machines or software stacks
  kExitWrite = 74,        // output could not be written (standard output, a report file): EX_IOERR
  kExitTimeout = 124,     // a time limit ran out (query --timeout)
  kExitInterrupted = 130,
};

class RunnerError : public std::runtime_error {
 public:
  RunnerError(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace mt

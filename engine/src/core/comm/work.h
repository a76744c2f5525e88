// The handle of one asynchronous collective, in the manner of c10d's Work: the caller starts a
// collective, keeps computing, and later tests or waits. After wait() the output buffers hold the
// result (on GPU backends: every later operation on the caller's stream sees it). A collective
// that does not complete within the communicator's timeout aborts the whole job, naming the rank,
// the operation and its sequence number.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <vector>

namespace mt {

class Work {
 public:
  virtual ~Work() = default;
  // Whether the collective has completed. Never blocks.
  virtual bool test() = 0;
  // Blocks until the collective has completed.
  virtual void wait() = 0;

  virtual std::string describe() const = 0;  // "all_reduce #12 (4194304 f32)"
  // When the collective completed, where the backend knows it (the MPI progress thread does); the
  // profiler draws a collective's span up to here rather than to when someone waited for it.
  virtual std::optional<std::chrono::steady_clock::time_point> completed_at() const { return std::nullopt; }
  // Whether it ran as the library's blocking call on the waiting thread rather than as the
  // non-blocking operation (and algorithm) the backend asks for: a small collective waited for at
  // once does, on MPI.
  virtual bool ran_blocking() const { return false; }
  // The backend's own algorithm where it ran one of its own instead of the library's collective
  // (null otherwise); the comm benchmark's rows name it.
  virtual const char* own_algorithm() const { return nullptr; }
};

using WorkHandle = std::shared_ptr<Work>;

// Waits for every handle, in order, and clears the list.
void wait_all(std::vector<WorkHandle>& works);

}  // namespace mt

// The handle of one asynchronous collective, in the manner of c10d's Work: the caller starts a
// collective, keeps computing, and later tests or waits. After wait() the output buffers hold the
// result (on GPU backends: every later operation on the caller's stream sees it). A collective
// that does not complete within the communicator's timeout aborts the whole job, naming the rank,
// the operation and its sequence number.
#pragma once

#include <cstdint>
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
};

using WorkHandle = std::shared_ptr<Work>;

// Waits for every handle, in order, and clears the list.
void wait_all(std::vector<WorkHandle>& works);

}  // namespace mt

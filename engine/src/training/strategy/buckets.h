// Assignment of parameters to gradient all-reduce buckets. Pure arithmetic on sizes, no torch.
#pragma once

#include <cstddef>
#include <vector>

namespace mt {

struct Bucket {
  std::vector<std::size_t> parameters;  // indices into the model's parameter list
  std::size_t bytes = 0;
};

// Walks parameters in reverse registration order (gradients of the last layers are ready first
// in backward) and starts a new bucket when adding the next parameter would pass cap_bytes. A
// parameter larger than the cap gets a bucket of its own. Every parameter lands in one bucket.
// The first bucket uses first_cap_bytes instead (PyTorch DDP's small first bucket: its
// all-reduce can start as soon as the last layers' gradients exist).
std::vector<Bucket> assign_buckets(const std::vector<std::size_t>& parameter_bytes, std::size_t cap_bytes,
                                   std::size_t first_cap_bytes);
inline std::vector<Bucket> assign_buckets(const std::vector<std::size_t>& parameter_bytes, std::size_t cap_bytes) {
  return assign_buckets(parameter_bytes, cap_bytes, cap_bytes);
}

std::size_t bucket_cap_bytes(double bucket_cap_mb);

}  // namespace mt

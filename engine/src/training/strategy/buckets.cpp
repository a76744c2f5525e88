#include "training/strategy/buckets.h"

#include <cmath>

namespace mt {

std::vector<Bucket> assign_buckets(const std::vector<std::size_t>& parameter_bytes, std::size_t cap_bytes,
                                   std::size_t first_cap_bytes) {
  std::vector<Bucket> buckets;
  for (std::size_t i = parameter_bytes.size(); i-- > 0;) {
    const std::size_t bytes = parameter_bytes[i];
    if (buckets.empty() || (!buckets.back().parameters.empty() &&
                            buckets.back().bytes + bytes > (buckets.size() == 1 ? first_cap_bytes : cap_bytes)))
      buckets.emplace_back();
    buckets.back().parameters.push_back(i);
    buckets.back().bytes += bytes;
  }
  return buckets;
}

std::size_t bucket_cap_bytes(double bucket_cap_mb) {
  return static_cast<std::size_t>(std::llround(bucket_cap_mb * 1024.0 * 1024.0));
}

}  // namespace mt

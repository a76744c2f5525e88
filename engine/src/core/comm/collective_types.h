// Plain vocabulary shared by every communicator: element types, stream references, counters.
// No torch, no MPI, no CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mt {

// Element types of tensor collectives. bf16 is summed in fp32 and rounded back per element.
enum class ElementType { f32, bf16, i32, u8 };

std::size_t element_bytes(ElementType type);
const char* element_type_name(ElementType type);

// The device stream a collective must be ordered after (a cudaStream_t on GPU backends; host
// backends ignore it). Null: the backend's default ordering (the current stream on GPU).
struct StreamRef {
  void* handle = nullptr;
};

enum class CollectiveKind { all_reduce, all_gather, reduce_scatter, broadcast, all_to_all };
const char* collective_name(CollectiveKind kind);

// Tensor collectives issued so far, by kind. The host control channel's scalar reductions
// (loss, gradient norm, failure flags) are not counted: they are not gradient or parameter
// traffic.
struct CollectiveCounts {
  long all_reduce = 0;
  long all_gather = 0;
  long reduce_scatter = 0;
  long broadcast = 0;
  long all_to_all = 0;

  long& operator[](CollectiveKind kind);
};

CollectiveCounts operator-(const CollectiveCounts& after, const CollectiveCounts& before);

}  // namespace mt

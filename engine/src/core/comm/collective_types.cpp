#include "core/comm/collective_types.h"

namespace mt {

std::size_t element_bytes(ElementType type) {
  switch (type) {
    case ElementType::f32: return 4;
    case ElementType::bf16: return 2;
    case ElementType::i32: return 4;
    case ElementType::u8: return 1;
  }
  return 1;
}

const char* element_type_name(ElementType type) {
  switch (type) {
    case ElementType::f32: return "f32";
    case ElementType::bf16: return "bf16";
    case ElementType::i32: return "i32";
    case ElementType::u8: return "u8";
  }
  return "?";
}

const char* collective_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce: return "all_reduce";
    case CollectiveKind::all_gather: return "all_gather";
    case CollectiveKind::reduce_scatter: return "reduce_scatter";
    case CollectiveKind::broadcast: return "broadcast";
    case CollectiveKind::all_to_all: return "all_to_all";
  }
  return "?";
}

long& CollectiveCounts::operator[](CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::all_reduce: return all_reduce;
    case CollectiveKind::all_gather: return all_gather;
    case CollectiveKind::reduce_scatter: return reduce_scatter;
    case CollectiveKind::broadcast: return broadcast;
    case CollectiveKind::all_to_all: return all_to_all;
  }
  return all_reduce;
}

CollectiveCounts operator-(const CollectiveCounts& a, const CollectiveCounts& b) {
  return {a.all_reduce - b.all_reduce, a.all_gather - b.all_gather, a.reduce_scatter - b.reduce_scatter,
          a.broadcast - b.broadcast, a.all_to_all - b.all_to_all};
}

}  // namespace mt

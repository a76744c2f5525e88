#pragma once
// Content identities: short stable hashes of what a trial or plan *is*, so the same trial keeps its
// identity across runs and a changed parameter gives a new one.
#include <cstdint>
#include <string>
#include <string_view>

namespace mt {

// 64-bit FNV-1a of `text` as 16 lower-case hex digits. Not cryptographic: identities name things,
// they do not protect them.
std::string content_hash(std::string_view text);

// The same hash built up piece by piece: fnv1a(b, fnv1a(a)) is the state after a + b, and
// hash_hex(state) its content_hash.
constexpr std::uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a(std::string_view text, std::uint64_t state = kFnvOffsetBasis);
std::string hash_hex(std::uint64_t state);

}  // namespace mt

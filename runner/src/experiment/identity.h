#pragma once
// Content identities: short stable hashes of what a trial or plan *is*, so the same trial keeps its
// identity across runs and a changed parameter gives a new one.
#include <string>
#include <string_view>

namespace mt {

// 64-bit FNV-1a of `text` as 16 lower-case hex digits. Not cryptographic: identities name things,
// they do not protect them.
std::string content_hash(std::string_view text);

}  // namespace mt

// Facts about this machine and its libraries that are slow to learn and the same at every launch:
// MKL states the code path it dispatches to only in its verbose mode, whose start takes 130-670 ms
// (measured on a 2-vCPU Xeon VM), against 10 ms for the SGEMM probe itself. The first launch learns
// a fact and keeps it in a small file named by a hash of everything it depends on; later launches
// read it. Torch-free.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace mt {

// The fact for `key` (every input it depends on, as text): read from the cache, else learned with
// `learn` and kept (an empty answer is not kept). The cache is $MT_CACHE_DIR, else
// $XDG_CACHE_HOME/mtengine, else $HOME/.cache/mtengine; an unwritable cache only costs the time.
std::string remembered_fact(const std::string& key, const std::function<std::string()>& learn);

// The two halves of remembered_fact, for a caller that decides after learning whether the answer
// deserves keeping (a speed measured while the machine was busy does not).
std::optional<std::string> recalled_fact(const std::string& key);
void keep_fact(const std::string& key, const std::string& value);

}  // namespace mt

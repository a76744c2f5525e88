#pragma once
// "Did you mean …?" for names the user mistyped or shortened: the known names closest to what was
// written, by spelling (a typo: "fdsp" → "fsdp"), by spelling variant ("grad-accum-steps",
// "--n-heads" → "grad_accum_steps", "n_heads") and by abbreviation ("grad_accum" →
// "grad_accum_steps", "sync_mode" → "gradient_sync_mode", "lr" → "learning_rate").
#include <cstddef>
#include <string>
#include <vector>

namespace mt {

// The known names `word` most likely stands for, best first, at most kMostSuggestions; empty when
// none is close enough to be what was meant.
inline constexpr std::size_t kMostSuggestions = 3;
std::vector<std::string> suggestions(const std::string& word, const std::vector<std::string>& candidates);

// The first of suggestions(), or "" when there is none.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)", " (did you mean 'x', 'y' or 'z'?)" or "" —
// ready to append to a message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace mt

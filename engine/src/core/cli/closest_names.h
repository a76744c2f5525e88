// "Did you mean …?" for a flag or command of mtengine written wrong: the known names closest to the
// word, by spelling (a typo, "--d-modle" -> "--d-model"; another separator, "--n_layers" ->
// "--n-layers"), by initials ("--lr" -> "--learning-rate") or by naming some of a name's parts
// ("--layers" -> "--n-layers"). mtrun suggests its own names by its own rules: the two programs
// share no code.
#pragma once

#include <string>
#include <vector>

namespace mt {

// At most three of `known` (as written there, dashes included), closest first; empty when none is
// close enough to be what `word` meant.
std::vector<std::string> closest_names(const std::string& word, const std::vector<std::string>& known);

// " (did you mean '--x'?)", " (did you mean '--x' or '--y'?)", … or "": to append to a message.
std::string did_you_mean_text(const std::string& word, const std::vector<std::string>& known);

}  // namespace mt

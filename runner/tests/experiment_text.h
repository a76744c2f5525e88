#pragma once
// Experiments from YAML text in unit tests, loaded as `mtrun` loads a file: the text is written to a
// scratch file of this process first (the loader reads files, and its diagnostics quote them).
#include <string>

#include "experiment/experiment_loader.h"

namespace mt::testing {

LoadResult load_experiment_text(const std::string& yaml);

// The load's error messages, one per line; "" when it loads cleanly.
std::string load_errors(const std::string& yaml);

// The first error's message; "" when there is none.
std::string first_error(const LoadResult& result);

// The experiment, which must load without an error (a failed REQUIRE otherwise).
Experiment experiment_from_text(const std::string& yaml);

}  // namespace mt::testing

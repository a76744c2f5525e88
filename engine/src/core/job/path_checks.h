// What a job needs of the paths it will write to, checked before it starts: a run that would
// train for an hour and then fail at its first save or its result file is refused at once.
#pragma once

#include <optional>
#include <string>

namespace mt {

// A directory the job writes into (created if missing): nothing that is not a directory in its
// place, and it, or its nearest existing ancestor, writable. `flag` names it in the message.
std::optional<std::string> output_directory_problem(const std::string& flag, const std::string& path);

}  // namespace mt

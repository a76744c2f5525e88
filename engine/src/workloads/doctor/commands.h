// Small subcommands of mtengine. Each returns the process exit code.
#pragma once

namespace mt {

int run_version_command(bool as_json);
int run_doctor_command();

}  // namespace mt

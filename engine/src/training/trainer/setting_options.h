// The command-line option behind each setting a checkpoint's fingerprint covers
// (checkpoint_settings_json), so that a refused resume names the flag to change. The names come
// from train's option table, found by the configuration field each option writes: a flag renamed
// there is named right here too. Torch-free.
#pragma once

#include <map>
#include <string>

namespace mt {

// By the setting's path in the settings document: "model.d_model" -> "--d-model".
const std::map<std::string, std::string>& fingerprinted_setting_options();

}  // namespace mt

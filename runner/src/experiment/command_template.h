#pragma once
// Argument templates of `command` workloads: "{batch_size}" becomes the trial's value. Each
// template word becomes exactly one argv word and nothing goes through a shell, so a parameter
// value can never inject a command. "{{" and "}}" stand for literal braces.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mt {

// Names provided by the runner for every trial, besides the trial's own parameters.
extern const std::vector<std::string> kTemplateBuiltins;  // result_file, run_dir, experiment_dir, …

using TemplateLookup = std::function<std::optional<std::string>(const std::string&)>;

// Substitutes every {name}; returns nullopt and sets `error` for an unknown name or a stray brace.
std::optional<std::string> expand_template(const std::string& word, const TemplateLookup& lookup, std::string& error);

// The names a template word refers to (for validation before anything runs).
std::vector<std::string> template_names(const std::string& word);

}  // namespace mt

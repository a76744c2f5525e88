#include "training/trainer/output_paths.h"

#include <fmt/format.h>

#include <filesystem>
#include <utility>
#include <vector>

#include "core/job/output_file.h"
#include "training/checkpoint/layout.h"

namespace mt {

std::optional<std::string> train_output_problem(const TrainConfig& c) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> files;  // flag, path
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--output", c.job.output},
                                   {"--weights-out", c.weights_out},
                                   {"--gradients-out", c.gradients_out},
                                   {"--progress-file", c.progress_file}})
    if (!path.empty()) files.emplace_back(flag, path);
  for (const auto& [flag, path] : files)
    if (auto problem = output_file_problem(flag, path)) return problem;

  auto written = files;
  if (!c.profile_dir.empty()) written.emplace_back("--profile", c.profile_dir);
  for (const auto& [flag, path] : written)
    if (const auto step =
            checkpoint_layout::enclosing_step_dir(flag == "--profile" ? fs::path(path) : output_target(path)))
      return fmt::format("{} '{}' lies inside checkpoint step '{}': a checkpoint is only read, never written into",
                         flag, path, step->string());

  // The profile's own summary file is an output too.
  if (!c.profile_dir.empty()) files.emplace_back("--profile", (fs::path(c.profile_dir) / "profile.json").string());
  for (std::size_t i = 0; i < files.size(); ++i)
    for (std::size_t j = i + 1; j < files.size(); ++j)
      if (output_identity(files[i].second) == output_identity(files[j].second))
        return fmt::format("{} '{}' and {} '{}' name the same file: one would overwrite the other", files[i].first,
                           files[i].second, files[j].first, files[j].second);
  return std::nullopt;
}

}  // namespace mt

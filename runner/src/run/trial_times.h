#pragma once
// How long the rest of a campaign will take, from how long its trials have taken so far. A trial
// not yet run is expected to take what its configuration took (its earlier repeats), else what
// trials of its study at its rank count took, else the mean of every trial so far: repeats run
// round by round, so after the first round every configuration has been timed, and before it the
// trial's own study and scale say more than the campaign's mean (a 4-rank trial is not a 1-rank one).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mt {

class TrialTimes {
 public:
  struct Kind {
    std::string configuration;  // the trial's group key: the same for every repeat
    std::string family;         // its study and rank count
  };

  // `kinds` holds one Kind per trial, in run order; empty when the plan is too large to hold them,
  // and then every trial is expected to take the mean.
  TrialTimes(std::size_t total, const std::vector<Kind>& kinds);

  void record(std::size_t index, double seconds);
  // Expected seconds of trial `index`; nullopt until a trial has finished.
  std::optional<double> expected(std::size_t index) const;
  // Seconds until every trial from `current` on has run, `current` having run `elapsed` seconds
  // (a trial past its expected time is expected to end now); nullopt until a trial has finished.
  std::optional<double> left(std::size_t current, double elapsed) const;

 private:
  struct Mean {
    double sum = 0;
    std::size_t n = 0;
    std::optional<double> value() const { return n ? std::optional<double>(sum / double(n)) : std::nullopt; }
  };
  std::size_t total_;
  std::vector<std::uint32_t> configuration_, family_;  // per trial: its slot in the means below
  std::vector<Mean> by_configuration_, by_family_;
  Mean all_;
};

}  // namespace mt

// mtengine's "did you mean": a typo, another separator, initials or some of a flag's parts find
// the flag; nothing close finds nothing.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/cli/closest_names.h"

using mt::closest_names;
using mt::did_you_mean_text;
using Names = std::vector<std::string>;

namespace {
const Names kTrainFlags = {
    "--help",  "--vocab-size",   "--d-model",         "--n-heads", "--n-layers",      "--seq-length",
    "--steps", "--warmup-steps", "--lr-warmup-steps", "--seed",    "--learning-rate", "--grad-accum-steps",
    "--output"};
}  // namespace

TEST_CASE("a mistyped flag finds the flag meant") {
  CHECK(closest_names("--d-modle", kTrainFlags) == Names{"--d-model"});        // two letters swapped
  CHECK(closest_names("--n-layer", kTrainFlags) == Names{"--n-layers"});       // one left out
  CHECK(closest_names("--n_layers", kTrainFlags) == Names{"--n-layers"});      // another separator
  CHECK(closest_names("--SEQ-LENGTH", kTrainFlags) == Names{"--seq-length"});  // another case
  CHECK(closest_names("--layers", kTrainFlags) == Names{"--n-layers"});        // some of its parts
  CHECK(closest_names("--heads", kTrainFlags) == Names{"--n-heads"});
  CHECK(closest_names("--lr", kTrainFlags).front() == "--learning-rate");  // its initials
}

TEST_CASE("typos rank before parts, and at most three names are offered") {
  // "warmup" is a part of two flags; the one that leaves out fewer parts comes first.
  CHECK(closest_names("--warmup", kTrainFlags) == Names{"--warmup-steps", "--lr-warmup-steps"});
  // "--step" is one edit from --steps and a part of no flag.
  CHECK(closest_names("--step", kTrainFlags).front() == "--steps");
  CHECK(closest_names("--steps", {"--a-steps", "--b-steps", "--c-steps", "--d-steps"}) ==
        Names{"--a-steps", "--b-steps", "--c-steps"});
}

TEST_CASE("nothing close is offered nothing, and the words are ready to append") {
  CHECK(closest_names("--no-such-flag", kTrainFlags).empty());
  CHECK(closest_names("--", kTrainFlags).empty());
  CHECK(closest_names(std::string(200, 'x'), kTrainFlags).empty());
  CHECK(did_you_mean_text("--no-such-flag", kTrainFlags).empty());
  CHECK(did_you_mean_text("--d-modle", kTrainFlags) == " (did you mean '--d-model'?)");
  CHECK(did_you_mean_text("--warmup", kTrainFlags) == " (did you mean '--warmup-steps' or '--lr-warmup-steps'?)");
  CHECK(did_you_mean_text("trian", {"train", "comm", "moe", "tp", "verify"}) == " (did you mean 'train'?)");
}

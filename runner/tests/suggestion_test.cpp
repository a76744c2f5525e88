// "Did you mean": typos, spelling variants and abbreviations of the names a user writes.
#include <doctest/doctest.h>

#include "experiment/suggestion.h"

using namespace mt;

namespace {

// The training workload's parameter names, as mtengine train --describe lists them.
const std::vector<std::string> kTrainParams = {"vocab_size",
                                               "d_model",
                                               "n_heads",
                                               "n_layers",
                                               "seq_length",
                                               "dropout",
                                               "batch_size",
                                               "steps",
                                               "warmup_steps",
                                               "learning_rate",
                                               "seed",
                                               "strategy",
                                               "grad_accum_steps",
                                               "gradient_sync_mode",
                                               "precision",
                                               "grad_reduce_dtype",
                                               "activation_checkpointing",
                                               "backward_prefetch",
                                               "lr_scheduler",
                                               "lr_warmup_steps",
                                               "lr_decay_steps",
                                               "min_learning_rate",
                                               "max_grad_norm",
                                               "bucket_cap_mb",
                                               "first_bucket_cap_mb",
                                               "backend",
                                               "threads",
                                               "collective_timeout",
                                               "keep_denormals",
                                               "checkpoint_dir",
                                               "save_every",
                                               "keep_last",
                                               "resume",
                                               "ranks"};

}  // namespace

TEST_CASE("a typo suggests the one name closest in spelling") {
  CHECK(did_you_mean("fdsp", {"ddp", "fsdp", "zero1", "zero2"}) == " (did you mean 'fsdp'?)");
  CHECK(did_you_mean("batch_sise", kTrainParams) == " (did you mean 'batch_size'?)");
  CHECK(did_you_mean("sead", kTrainParams) == " (did you mean 'seed'?)");
}

TEST_CASE("the same name in another spelling: dashes, an engine flag, capitals") {
  CHECK(did_you_mean("grad-accum-steps", kTrainParams) == " (did you mean 'grad_accum_steps'?)");
  CHECK(did_you_mean("--gradient-sync-mode", kTrainParams) == " (did you mean 'gradient_sync_mode'?)");
  CHECK(did_you_mean("N_HEADS", kTrainParams) == " (did you mean 'n_heads'?)");
  CHECK(did_you_mean("DDP", {"ddp", "fsdp"}) == " (did you mean 'ddp'?)");
}

TEST_CASE("an abbreviation or part of a name suggests the names it stands for") {
  CHECK(did_you_mean("grad_accum", kTrainParams) == " (did you mean 'grad_accum_steps'?)");
  CHECK(did_you_mean("sync_mode", kTrainParams) == " (did you mean 'gradient_sync_mode'?)");
  CHECK(did_you_mean("gradient_accumulation_steps", kTrainParams) == " (did you mean 'grad_accum_steps'?)");
  CHECK(did_you_mean("accumulation", kTrainParams) == " (did you mean 'grad_accum_steps'?)");
  CHECK(did_you_mean("lr", kTrainParams) == " (did you mean 'learning_rate'?)");
  CHECK(did_you_mean("min_lr", kTrainParams) == " (did you mean 'min_learning_rate'?)");
  CHECK(did_you_mean("bucket_cap", kTrainParams) == " (did you mean 'bucket_cap_mb'?)");
  CHECK(did_you_mean("warmup", kTrainParams) == " (did you mean 'warmup_steps'?)");
}

TEST_CASE("a name written out suggests the abbreviation that is the known name") {
  const std::vector<std::string> options = {"--db", "--campaign", "--dir", "--csv", "--json"};
  CHECK(did_you_mean("--database", options) == " (did you mean '--db'?)");
  CHECK(did_you_mean("--directory", options) == " (did you mean '--dir'?)");
  CHECK(did_you_mean("--DataBase", options) == " (did you mean '--db'?)");
  // Not for a word less than twice as long, nor one that starts with another letter.
  CHECK(did_you_mean("--axbxcxd", {"--abcd"}).empty());
  CHECK(did_you_mean("--axbxcxdx", {"--abcd"}) == " (did you mean '--abcd'?)");
  CHECK(did_you_mean("--abdbase", {"--db"}).empty());
  // A typo or a shortening of a name comes first.
  CHECK(did_you_mean("--campagin", options) == " (did you mean '--campaign'?)");
}

TEST_CASE("as close in several ways: up to three, in the caller's order") {
  CHECK(did_you_mean("checkpoint", kTrainParams) == " (did you mean 'activation_checkpointing' or 'checkpoint_dir'?)");
  CHECK(suggestions("lr_steps", kTrainParams) == std::vector<std::string>{"lr_warmup_steps", "lr_decay_steps"});
  const std::vector<std::string> four = {"alpha_beta_one", "alpha_beta_two", "alpha_beta_three", "alpha_beta_four"};
  CHECK(suggestions("alpha_beta", four) ==
        std::vector<std::string>{"alpha_beta_one", "alpha_beta_two", "alpha_beta_three"});
  CHECK(did_you_mean("alpha_beta", four) ==
        " (did you mean 'alpha_beta_one', 'alpha_beta_two' or 'alpha_beta_three'?)");
}

TEST_CASE("nothing is suggested for what stands for no name") {
  CHECK(did_you_mean("banana", kTrainParams).empty());
  CHECK(did_you_mean("s", {"steps", "seed"}).empty());  // one letter shortens nothing
  CHECK(did_you_mean("", kTrainParams).empty());
  CHECK(did_you_mean(std::string(1000, 'a'), kTrainParams).empty());
}

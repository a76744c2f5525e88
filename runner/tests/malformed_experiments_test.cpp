#include <doctest/doctest.h>

#include "experiment/experiment_check.h"

using namespace mt;

namespace {

std::string data(const std::string& name) { return std::string(MT_TEST_DATA_DIR) + "/" + name + ".yaml"; }

// Everything the user would be told about a file, in one pass.
std::string problems_of(const std::string& name) { return format_diagnostics(check_experiment(data(name)).errors); }

struct Case {
  const char* file;
  const char* message;  // after "FILE:"
  const char* line;
  const char* caret;
};

const Case kCases[] = {
    {"bad_strategy", "6:23: unknown strategy 'fdsp' (did you mean 'fsdp'?)", "        strategy: [ddp, fdsp]",
     "                        ^"},
    {"bad_key", "5:5: unknown key 'matrx' in study #1 (did you mean 'matrix'?)", "      matrx:", "      ^"},
    {"bad_param", "6:7: unknown parameter 'batch_sise' for workload 'train' (did you mean 'batch_size'?)",
     "        batch_sise: 4", "        ^"},
    // An abbreviation of a parameter's name, or a part of it.
    {"abbreviated_param",
     "6:7: unknown parameter 'sync_mode' for workload 'train' (did you mean 'gradient_sync_mode'?)",
     "        sync_mode: [every, last]", "        ^"},
    {"bad_type", "6:18: ranks must be an integer, got 'two'", "        ranks: [1, two]", "                   ^"},
    // mtengine's flag parser would read 010 as octal 8: what is checked here must be what trains.
    {"leading_zero", "6:19: steps '010' has a leading 0, which mtengine would read as octal: write it without",
     "        steps: [10, 010]", "                    ^"},
    {"empty_axis", "6:14: axis 'ranks' has no values", "        ranks: []", "               ^"},
    {"bad_workload", "4:15: unknown workload 'trian' (did you mean 'train'?)", "      workload: trian",
     "                ^"},
    {"zip_lengths",
     "8:9: zip group 'shape': axis 'n_heads' has 1 values but 'd_model' has 2; zipped axes need equal lengths",
     "          n_heads: [2]", "          ^"},
    {"exclude_param", "8:10: unknown parameter 'rank' for workload 'train' (did you mean 'ranks'?)",
     "        - {rank: 1}", "           ^"},
    {"where_syntax", "7:22: where: unexpected 'and'", "      where: \"ranks >= and true\"", "                       ^"},
    {"where_name", "7:12: where uses 'rank', which is not a parameter of this study (did you mean 'ranks'?)",
     "      where: rank == 2", "             ^"},
    {"heads_divide", "8:20: n_heads 3 does not divide d_model 64", "        n_heads: [2, 3]", "                     ^"},
    {"set_twice", "8:7: 'ranks' is set twice (also at line 6); keep one", "        ranks: [1, 2]", "        ^"},
    // A key given twice anywhere: YAML leaves it to the reader, which would keep the first.
    {"studies_twice", "6:1: 'studies' is set twice in the experiment (also at line 2); keep one", "  studies:", "  ^"},
    {"study_key_twice", "6:5: 'timeout_s' is set twice in study #1 (also at line 5); keep one", "      timeout_s: 5",
     "      ^"},
    {"duplicate_value", "6:23: axis 'strategy' lists 'ddp' twice", "        strategy: [ddp, ddp]",
     "                        ^"},
    {"bad_repeat", "2:9: repeat must be at least 1, got 0", "  repeat: 0", "          ^"},
    {"bad_launcher", "3:9: unknown launcher 'mpirn' (did you mean 'mpirun'?)", "    type: mpirn", "          ^"},
    {"no_studies", "1:1: the experiment needs 'studies': a list of studies, each with a name, a workload and a matrix",
     "  name: bad", "  ^"},
    {"duplicate_study", "5:11: study name 's' is used twice", "    - name: s", "            ^"},
    {"where_all", "3:5: study 's' has no trials left after exclude and where", "    - name: s", "      ^"},
    {"command_missing", "3:5: study 's' has workload 'command' but no 'command' (an argv list)", "    - name: s",
     "      ^"},
    {"metric_regex", "7:31: metric 'tokens_per_sec' regex is invalid: Mismatched '(' and ')' in regular expression",
     "        tokens_per_sec: {regex: \"tokens/s ([0-9.]+\"}", "                                ^"},
    {"metric_better",
     "7:52: metric 'seconds' better must be 'higher' or 'lower' (which way is an improvement), got 'faster'",
     "        seconds: {regex: \"took ([0-9.]+) s\", better: faster}",
     "                                                     ^"},
    // Questions: checked against the studies they are asked of (more in answers_test.cpp).
    {"question_key", "9:64: unknown key 'whithin' in question #1 (did you mean 'within'?)",
     "    - {metric: tokens_per_sec, compare: strategy, baseline: ddp, whithin: [ranks]}",
     "                                                                 ^"},
    {"derived_type", "7:14: derived value 'twice': '*' needs numbers, got 'ddp' and 2", "        twice: strategy * 2",
     "               ^"},
    {"big_repeat", "2:9: repeat must be at most 2147483647, got 99999999999", "  repeat: 99999999999", "          ^"},
    {"big_ranks", "6:18: ranks must be at most 2147483647, got 99999999999", "        ranks: [1, 99999999999]",
     "                   ^"},
    // Bounds that come from the engine's own description (mtengine train --describe).
    {"engine_bounds", "6:26: vocab_size must be at most 16777216, got 1000000000000",
     "        vocab_size: [8192, 1000000000000]", "                           ^"},
    {"engine_exclusive_bound", "5:25: dropout must be below 1, got 1.0", "      defaults: {dropout: 1.0}",
     "                          ^"},
    {"timeout_nan", "5:16: timeout_s must be a finite number, got 'nan'", "      timeout_s: nan", "                 ^"},
    {"timeout_inf", "2:12: timeout_s must be a finite number, got '-inf'", "  timeout_s: -inf", "             ^"},
    // Stages of a chain: what each runs, what it expects, and the parameters it overrides.
    {"stage_key", "8:9: unknown key 'expcet' in stage #2 (did you mean 'expect'?)", "          expcet: crashed",
     "          ^"},
    {"stage_twice", "7:15: stage name 'a' is used twice in study 's'", "        - name: a", "                ^"},
    {"stage_workload", "7:19: unknown stage workload 'verfy' (did you mean 'verify'?)", "          workload: verfy",
     "                    ^"},
    {"stage_outcome", "7:27: unknown outcome 'crashd' (did you mean 'crashed'?)",
     "          expect: {outcome: crashd, rank: 1}", "                            ^"},
    {"stage_param_name", "7:18: unknown parameter 'sead' for workload 'train' (did you mean 'seed'?)",
     "          params: {sead: 7}", "                   ^"},
    {"stage_params", "8:17: stage 'v' runs 'verify': 'params' apply only to stages of the study's workload ('train')",
     "          params: {seed: 7}", "                  ^"},
    {"stage_compare", "8:18: stage 'check' (verify) needs 'compare': the two checkpoint step directories to compare",
     "          compare: [\"{work_dir}/a/step_00000012\"]", "                   ^"},
    {"stage_template",
     "7:32: stage 'resume': '{work_dr}/ckpt' uses '{work_dr}', which is not a parameter of this "
     "study (did you mean 'work_dir'?)",
     "          engine_args: [--fault, \"{work_dr}/ckpt\"]", "                                 ^"},
    {"stage_exit_code",
     "7:29: expect: exit_code 2 contradicts outcome 'succeeded' (a stage that succeeds exits 0; "
     "set outcome: failed)",
     "          expect: {exit_code: 2, message_contains: \"cannot resume\"}", "                              ^"},
    {"stage_exact_match", "7:51: expect: exact_match applies to stages of workload 'verify'",
     "          expect: {outcome: succeeded, exact_match: true}",
     "                                                    ^"},
    {"stage_checkpoint_dir",
     "7:58: expect: ready_steps needs a checkpoint directory: set checkpoint_dir in the "
     "stage's params (or the study's), or in expect",
     "          expect: {outcome: crashed, rank: 1, ready_steps: [6]}",
     "                                                           ^"},
    {"stage_command_study",
     "7:7: stages need a study of an engine workload such as 'train' (a stage may itself run a "
     "command)",
     "        - name: a", "        ^"},
    {"stage_utf8", "6:9: stage 'a' holds text that is not valid UTF-8", "        - name: a", "          ^"},
    // Found when the matrix is expanded: the stage's value, with the study's, breaks a relation.
    {"stage_relation", "9:27: n_heads 3 does not divide d_model 64", "          params: {n_heads: 3}",
     "                            ^"},
    // Profiling is a study's switch; where the traces go is mtrun's to decide.
    {"profile_value", "5:14: profile must be true or false, got 'sometimes'", "      profile: sometimes",
     "               ^"},
    {"profile_command",
     "6:14: workload 'command' cannot be profiled: profile: true runs the engine with --profile "
     "(workloads that take it: train)",
     "      profile: true", "               ^"},
    {"profile_param",
     "6:7: 'profile' is set by mtrun: write `profile: true` on the study, and each attempt writes "
     "its traces into its own run directory",
     "        profile: [out]", "        ^"},
    // 10,000 nested parentheses: refused at the 101st, the source line shown around it.
    {"deep_where", "6:113: where: expression nests deeper than 100 levels",
     "  "
     "...(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
     "((((((((((...",
     "                                                                 ^"},
    // 10 axes of 10 values: counted, not expanded.
    {"huge_matrix",
     "3:5: the experiment expands to 10000000000 trials, more than the limit of 100000; study 's' has "
     "10 × 10 × 10 × 10 × 10 × 10 × 10 × 10 × 10 × 10 combinations × 1 repeat (narrow the matrix, or "
     "raise the limit with --max-trials)",
     "    - name: s", "      ^"},
};

}  // namespace

TEST_CASE("each malformed experiment gets its exact positioned message, source line and caret") {
  for (const Case& c : kCases) {
    CAPTURE(c.file);
    CHECK(problems_of(c.file) == data(c.file) + ":" + c.message + "\n" + c.line + "\n" + c.caret);
  }
}

// A mistake that leaves the rest of its study consistent (an unknown parameter is left out) does not
// hide what expanding the study finds; a study with a value it cannot use is not expanded (its
// relations would be judged on a wrong value), and the others still are.
TEST_CASE("every problem of a file is reported in one pass, in the order of the file") {
  const std::string file = data("every_problem");
  CHECK(problems_of("every_problem") ==
        file +
            ":7:7: unknown parameter 'grad_accum' for workload 'train' (did you mean 'grad_accum_steps'?)\n"
            "        grad_accum: 4\n"
            "        ^\n" +
            file +
            ":9:20: n_heads 3 does not divide d_model 64\n"
            "        n_heads: [2, 3]\n"
            "                     ^\n" +
            file +
            ":13:23: unknown strategy 'fdsp' (did you mean 'fsdp'?)\n"
            "        strategy: [ddp, fdsp]\n"
            "                        ^\n" +
            file +
            ":15:5: study 'c' has no trials left after exclude and where\n"
            "    - name: c\n"
            "      ^");
  CHECK_FALSE(check_experiment(file).experiment.has_value());
}

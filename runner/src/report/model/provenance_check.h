#pragma once
// Can the numbers be traced to an exact build of the program that produced them? Derives each
// included trial's provenance (its provenance row, or failing that the environment its result
// reports), finds trials whose provenance is incomplete, and finds results that mix revisions,
// container images or builds of one program (docs/provenance.md).
#include <map>
#include <string>
#include <vector>

#include "report/model/groups.h"
#include "report/model/results_source.h"

namespace mt {

struct TrialProvenance {
  bool recorded = false;  // from the provenance table; false: only the result's environment
  std::string commit;     // commit that was built; what decides whether results mix revisions
  // False for a command's own program named by its hashes: those say which code ran (`builds`),
  // while its commit is the experiment's or its script's repository's, which need not be the
  // engine's: the engine beside such a peer is not mixed, two versions of the peer are.
  bool commit_names_code = true;
  // The commit, with "+dirty" when it was built from uncommitted changes (in records before schema
  // version 8, which do not say, when the experiment's tree was not clean, with its diff hash).
  std::string revision;
  std::string image;       // container image ID/reference, "bare metal", or empty when unknown
  std::string image_ref;   // the image as it was named, when it ran in one
  std::string base_image;  // its base image, NAME@sha256:DIGEST, when the image's labels say
  // The program that ran: "mtengine", or a command's own program and the script it was given; empty
  // when a command trial's record does not say. Hashes are of the files' content, empty when unknown.
  std::string program;
  std::string program_hash;
  std::string script;
  std::string script_hash;
  std::string program_name() const { return script.empty() ? program : program + " " + script; }
  std::string build() const { return script_hash.empty() ? program_hash : program_hash + "+" + script_hash; }
  std::string software_stack;  // "key=value; …" in key order, per-launch fields left out
  bool complete = false;
  std::vector<std::string> missing;  // why it is not complete
};

TrialProvenance trial_provenance(const ReportTrial& trial);

// One distinct software stack / revision / image combination.
struct Stack {
  std::string id;  // "S1", "S2", … in order of first appearance
  TrialProvenance provenance;
  int trials = 0;
  int complete = 0;
  std::vector<const ReportTrial*> members;  // its trials, in report order
};

struct ProvenanceAnalysis {
  int included = 0;  // succeeded trials considered
  std::vector<std::pair<const ReportTrial*, TrialProvenance>> incomplete;
  std::vector<Stack> stacks;
  std::map<const ReportTrial*, std::string> stack_of;
  // Known commits and images → trials. A dirty tree is not a revision of its own: it makes the trial
  // incomplete (and says so) but does not make the results mixed.
  std::map<std::string, int> revisions;
  std::map<std::string, int> images;  // known image → trials
  // Program → its known builds → trials: two builds of one program are mixed results; the engine
  // and a peer program side by side are not.
  std::map<std::string, std::map<std::string, int>> builds;

  bool mixed() const;
  // Stack ids a group's trials come from, "S1" or "S1+S2".
  std::string stacks_of(const Group& group) const;
  bool group_mixed(const Group& group) const;
  // Cell of the `stack` column that tables gain in a mixed report: "S1", or "S1+S2 mixed".
  std::string stack_cell(const Group& group) const;
};

// Over the succeeded trials only: they are the ones whose numbers are shown.
ProvenanceAnalysis analyse_provenance(const std::vector<ReportTrial>& trials);

// "mtengine `fnv1a64:6c5f…`", "`/usr/bin/python3` `fnv…` + `peer.py` `fnv…`", or "not recorded".
std::string program_cell(const TrialProvenance& provenance);

// "ddp_scaling ddp ×2 gradient_sync_mode=every, repeat 0": a trial as a reader recognises it.
std::string describe_trial(const ReportTrial& trial);

// The warning block at the top of a report (empty when there is nothing to warn about).
std::string render_provenance_warnings(const ProvenanceAnalysis& analysis);
// What mixed results are made of: "2 revisions (abc in 3 trials, def in 1 trial)", and/or the same
// for images and for the builds of one program.
std::string mixed_description(const ProvenanceAnalysis& analysis);
// Why a mixed report is refused, and how to get it anyway.
std::string mixed_refusal_message(const ProvenanceAnalysis& analysis);

}  // namespace mt

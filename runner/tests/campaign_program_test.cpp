// Where an experiment's revision is unknown (no git repository), the engine it drives tells its
// campaigns apart; a known revision names the code, and its campaigns keep the ids they had.
#include <doctest/doctest.h>

#include <string>

#include "commands/experiment_plan.h"
#include "commands/new_program_note.h"
#include "experiment/identity.h"
#include "launch/provenance.h"
#include "store/trial_json.h"
#include "store_fixture.h"

using namespace mt;

namespace {

const std::string kOldEngine = "fnv1a64:aaaaaaaaaaaaaaaa";
const std::string kNewEngine = "fnv1a64:bbbbbbbbbbbbbbbb";

ProvenanceContext bare_metal(const std::string& commit, const std::string& engine_hash) {
  ProvenanceContext c;
  c.source.commit = commit;
  c.engine_binary_hash = engine_hash;
  return c;
}

// Campaign `id` of experiment "exp" at an unknown revision whose one attempt ran `engine_hash`.
void campaign_that_ran(TempStore& t, const std::string& id, const std::string& engine_hash) {
  t.store.add_campaign_if_new({id, "exp", "/x.yaml", "unknown", "plan", launcher_to_json({}), 1, utc_now()});
  Trial trial;
  trial.study = "s";
  trial.workload = "train";
  trial.identity = trial.group_key = "trial-" + id;
  const std::int64_t row = t.store.add_trial_if_new(id, trial, 0);
  Provenance p;
  p.context = bare_metal("unknown", engine_hash);
  t.store.begin_attempt(row, 1, "cmd", "/run", "/run/log.txt", p);
}

// The plan of experiment "exp" at an unknown revision driving `engine_hash`, as make_plan makes it.
ExperimentPlan plan_driving(const std::string& engine_hash) {
  ExperimentPlan plan;
  plan.experiment.name = "exp";
  plan.plan_hash = "plan";
  plan.provenance = bare_metal("unknown", engine_hash);
  plan.source_revision = plan.provenance.source.revision();
  plan.program = program_beside_revision(plan.provenance);
  plan.campaign_id = campaign_id_of("exp", "plan", plan.source_revision, plan.context.launcher, plan.program);
  return plan;
}

}  // namespace

TEST_CASE("campaign identity: the engine tells campaigns apart only where the revision cannot") {
  CHECK(program_beside_revision(bare_metal("unknown", kNewEngine)) == kNewEngine);
  CHECK(program_beside_revision(bare_metal("1111111111111111111111111111111111111111", kNewEngine)) == "");
  ProvenanceContext container = bare_metal("unknown", "");
  container.image_ref = "mtb:latest";
  container.image_id = "sha256:0123456789abcdef";
  CHECK(program_beside_revision(container) == "sha256:0123456789abcdef");

  const LauncherConfig mpirun;
  CHECK(campaign_id_of("a", "plan", "unknown", mpirun, kOldEngine) !=
        campaign_id_of("a", "plan", "unknown", mpirun, kNewEngine));
  CHECK(campaign_id_of("a", "plan", "unknown", mpirun, kNewEngine) ==
        campaign_id_of("a", "plan", "unknown", mpirun, kNewEngine));
  // Without a program the id is the one campaigns always had.
  CHECK(campaign_id_of("a", "plan", "rev", mpirun) == campaign_id_of("a", "plan", "rev", mpirun, ""));
  CHECK(campaign_id_of("a", "plan", "rev", mpirun) ==
        content_hash("a@plan@rev@" + launcher_to_json(mpirun)).substr(0, 12));
}

TEST_CASE("campaign identity: run names the campaign another engine binary ran, where that made a new one") {
  TempStore t("mt_campaign_program", 1);
  const ExperimentPlan before = plan_driving(kOldEngine);
  campaign_that_ran(t, before.campaign_id, kOldEngine);
  const ExperimentPlan after = plan_driving(kNewEngine);
  REQUIRE(after.campaign_id != before.campaign_id);
  CHECK(new_program_note(t.store.db(), after) ==
        "note: a new campaign: the experiment is in no git repository, so its revision (unknown) cannot tell two "
        "builds of the engine apart and the engine binary does: this one (fnv1a64:bbbbbbbbbbbb) is not the one "
        "campaign " +
            before.campaign_id + " of the same plan ran (fnv1a64:aaaaaaaaaaaa)");
  // Once it is in the database it is no longer new; nor is the campaign of the same engine.
  campaign_that_ran(t, after.campaign_id, kNewEngine);
  CHECK(new_program_note(t.store.db(), after) == "");
  CHECK(new_program_note(t.store.db(), before) == "");
}

TEST_CASE("campaign identity: a campaign begun before the engine told them apart keeps its trials, and says so") {
  TempStore t("mt_campaign_program_legacy", 1);
  const ExperimentPlan plan = plan_driving(kOldEngine);
  const std::string legacy = campaign_id_of("exp", "plan", "unknown", plan.context.launcher);
  campaign_that_ran(t, legacy, kOldEngine);
  CHECK(new_program_note(t.store.db(), plan) ==
        "note: a new campaign: the experiment is in no git repository, so its revision (unknown) cannot tell two "
        "builds of the engine apart and the engine binary does (fnv1a64:aaaaaaaaaaaa); campaign " +
            legacy + " of the same plan, begun before mtrun told such campaigns apart, keeps its trials");
}

TEST_CASE("campaign identity: a known revision says nothing of the engine") {
  TempStore t("mt_campaign_program_known", 1);
  campaign_that_ran(t, "older", kOldEngine);
  ExperimentPlan plan = plan_driving(kNewEngine);
  plan.provenance.source.commit = "1111111111111111111111111111111111111111";
  plan.source_revision = plan.provenance.source.revision();
  plan.program = program_beside_revision(plan.provenance);
  CHECK(plan.program == "");
  CHECK(new_program_note(t.store.db(), plan) == "");
}

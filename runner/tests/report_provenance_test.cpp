// Every program gets its own provenance in reports: a command workload is described by its own
// program and script, a record that hashed only the engine for it is incomplete, and two builds
// of one program are mixed results while the engine beside a peer is not; each fact a trial lacks is
// stated once, with its count and what to do.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "report/model/provenance_facts.h"
#include "report/report.h"
#include "report_fixture.h"
#include "runner_error.h"

using namespace mt;
using namespace mt::testing;

namespace {

FixtureProvenance bare_metal_engine(const std::string& hash) {
  FixtureProvenance p;
  p.image_id = "";
  p.engine_binary_hash = hash;
  return p;
}

FixtureProvenance bare_metal_peer(const std::string& program_fields) {
  FixtureProvenance p;
  p.image_id = "";
  p.software_stack =
      R"({"os":"Debian 12","kernel":"Linux 6","cpu_model":"AMD EPYC","python":"3.11.2",)" + program_fields + "}";
  return p;
}

}  // namespace

TEST_CASE("report provenance: a peer is described by its own program and script, beside the engine") {
  ReportFixture f("peer_program.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 2; ++r) {
    f.provenance(f.trial(train_trial("engine", "ddp", 1, r, 1000, 40, 500)),
                 bare_metal_engine("fnv1a64:aaaaaaaaaaaaaaaa"));
    f.provenance(f.trial(peer_trial("peer", 1, r, 900, 44)),
                 bare_metal_peer(R"("program":"/usr/bin/python3","program_hash":"fnv1a64:bbbbbbbbbbbbbbbb",)"
                                 R"("script":"/src/benchmarks/peer.py","script_hash":"fnv1a64:cccccccccccccccc")"));
  }
  std::string md = render_latest(f).markdown;  // not refused: two programs, one build each
  CHECK(contains(md,
                 "| S1 | engine | `1111111111111111111111111111111111111111` | bare metal | mtengine "
                 "`fnv1a64:aaaaaaaaaaaa` | recorded | 2 | 2 |"));
  CHECK(contains(md,
                 "| S2 | peer | `1111111111111111111111111111111111111111` | bare metal | `python3` "
                 "`fnv1a64:bbbbbbbbbbbb` + `peer.py` `fnv1a64:cccccccccccc` | recorded | 2 | 2 |"));
  CHECK(contains(md, "| Python, torch | not recorded | Python 3.11.2 |"));
  CHECK_FALSE(contains(md, "Incomplete provenance"));
}

TEST_CASE("report provenance: the engine beside a peer from another repository, or from none, is not mixed") {
  // The engine is built from this project's commit; the experiment and its peer script live in the
  // user's own repository (2222…), or in a folder that is no repository ("unknown"), or the peer
  // reports the revision of its script's repository (3333…). The peer's code is named by its
  // hashes, not by a commit: one build each, nothing mixed.
  for (const std::string experiment_commit : {"2222222222222222222222222222222222222222", "unknown", "3333"}) {
    CAPTURE(experiment_commit);
    ReportFixture f("engine_beside_peer_" + experiment_commit.substr(0, 4) + ".sqlite");
    f.campaign("c1");
    FixtureProvenance engine = bare_metal_engine("fnv1a64:aaaaaaaaaaaaaaaa");
    engine.source_commit = experiment_commit;
    FixtureProvenance peer =
        bare_metal_peer(R"("program":"/usr/bin/python3","program_hash":"fnv1a64:bbbbbbbbbbbbbbbb",)"
                        R"("script":"/src/benchmarks/peer.py","script_hash":"fnv1a64:cccccccccccccccc")");
    peer.source_commit = experiment_commit == "3333" ? "unknown" : experiment_commit;
    peer.build_revision = experiment_commit == "3333" ? "3333333333333333333333333333333333333333" : "";
    for (int r = 0; r < 2; ++r) {
      f.provenance(f.trial(train_trial("engine", "ddp", 1, r, 1000, 40, 500)), engine);
      f.provenance(f.trial(peer_trial("peer", 1, r, 900, 44)), peer);
    }
    CHECK_NOTHROW(render_latest(f));
  }
  // Two peer scripts of different content are two builds of it: mixed, as before.
  ReportFixture f("two_peer_scripts.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 2; ++r) {
    FixtureProvenance peer =
        bare_metal_peer(fmt::format(R"("program":"/usr/bin/python3","program_hash":"fnv1a64:bbbbbbbbbbbbbbbb",)"
                                    R"("script":"/src/benchmarks/peer.py","script_hash":"fnv1a64:{}")",
                                    r == 0 ? "cccccccccccccccc" : "dddddddddddddddd"));
    peer.build_revision = "";
    f.provenance(f.trial(peer_trial("peer", 1, r, 900, 44)), peer);
  }
  CHECK_THROWS_AS(render_latest(f), RunnerError);
}

TEST_CASE("report provenance: a command trial recorded with the engine's hash only is incomplete") {
  ReportFixture f("peer_engine_hash.sqlite");
  f.campaign("c1");
  f.provenance(f.trial(peer_trial("peer", 1, 0, 900, 44)), bare_metal_engine("fnv1a64:aaaaaaaaaaaaaaaa"));
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "- missing program_hash (the command's own program was not hashed) (1 trial): `"));
  CHECK(contains(md, "peer ddp ×1, repeat 0\n"));
  CHECK(contains(md, "| bare metal | not recorded | recorded | 1 | 0 |"));
  CHECK_FALSE(contains(md, "fnv1a64:aaaa"));
}

TEST_CASE("report provenance: two builds of the engine are mixed results") {
  ReportFixture f("two_engines.sqlite");
  f.campaign("c1");
  f.provenance(f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500)), bare_metal_engine("fnv1a64:aaaaaaaaaaaaaaaa"));
  f.provenance(f.trial(train_trial("s", "ddp", 1, 1, 1000, 40, 500)), bare_metal_engine("fnv1a64:dddddddddddddddd"));
  CHECK_THROWS_WITH_AS(render_latest(f),
                       "refusing to put results from 2 builds of mtengine (fnv1a64:aaaaaaaaaaaaaaaa in 1 trial, "
                       "fnv1a64:dddddddddddddddd in 1 trial) in one comparison; report one campaign (--campaign ID), "
                       "or pass --allow-mixed to report them together (the tables then say which rows come from where)",
                       RunnerError);
}

TEST_CASE("report provenance: each missing fact is stated once, with how many trials it affects and the fix") {
  ReportFixture f("facts_once.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 4; ++r) {
    FixtureProvenance p;
    p.complete = false;
    // Every trial ran an engine built from uncommitted changes; two also from an uncommitted experiment.
    p.tree_dirty = r < 2;
    p.missing_fields = r < 2 ? R"(["clean_tree","clean_build"])" : R"(["clean_build"])";
    f.provenance(f.trial(train_trial("s", "ddp", 1, r, 1000, 40, 500)), p);
  }
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "**Incomplete provenance in 4 of 4 trials.**"));
  CHECK(contains(md,
                 "> - 2 of 4 trials ran an experiment whose repository had uncommitted changes (`clean_tree`): "
                 "commit the experiment's repository before running (`git commit`).\n"
                 "> - 4 of 4 trials ran an engine built from a tree with uncommitted changes (`clean_build`): "
                 "rebuild the engine from a clean checkout (`scripts/setup.sh` builds both programs as Release).\n"));
  // One line per fact above the results; each trial only in the collapsed list below it.
  CHECK(md.find("(`clean_build`)") == md.rfind("(`clean_build`)"));
  // Trials lacking the same facts share one line: two lack both, two the build only.
  CHECK(contains(md, "<details><summary>The 4 trials with incomplete provenance, grouped by what they lack</summary>"));
  const size_t both = md.find("- missing clean_tree, clean_build (");
  const size_t build_only = md.find("- missing clean_build (");
  REQUIRE(both != std::string::npos);
  REQUIRE(build_only != std::string::npos);
  CHECK(contains(md.substr(both, md.find('\n', both) - both), "(2 trials): "));
  CHECK(contains(md.substr(build_only, md.find('\n', build_only) - build_only), "(2 trials): "));
  CHECK(contains(md, "ddp ×1, repeat 3\n"));
}

TEST_CASE("report provenance: a recorded build from another repository's commit is complete") {
  ReportFixture f("other_repository.sqlite");
  f.campaign("c1");
  FixtureProvenance p;
  p.source_commit = "2222222222222222222222222222222222222222";  // the user's experiment repository
  f.provenance(f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500)), p);
  CHECK_FALSE(contains(render_latest(f).markdown, "Incomplete provenance"));
}

TEST_CASE("report provenance: facts named in words by older records, and a program's many fields, read as one") {
  auto facts = missing_facts({{"clean tree (uncommitted changes)", "software_stack.os", "software_stack.kernel"},
                              {"clean_tree", "software_stack.cpu_model", "hosts"},
                              {"build_revision = source_commit", "override:dirty_tree", "some_future_field"}});
  REQUIRE(facts.size() == 6);
  CHECK(fact_line(facts[0], 3) ==
        "- 2 of 3 trials ran an experiment whose repository had uncommitted changes (`clean_tree`): commit the "
        "experiment's repository before running (`git commit`).");
  CHECK(facts[1].key == "software_stack");
  CHECK(facts[1].trials == 2);
  CHECK(facts[1].fields == "`software_stack.cpu_model`, `software_stack.kernel`, `software_stack.os`");
  CHECK(facts[2].key == "hosts");
  CHECK(facts[3].key == "build_revision_matches_source");
  CHECK(contains(facts[3].fix, "rebuild the engine at the experiment's commit"));
  CHECK(contains(facts[4].what, "override `dirty_tree`"));
  CHECK(fact_line(facts[5], 3) ==
        "- 1 of 3 trials lack a field provenance requires (`some_future_field`): see what each program must record "
        "(`docs/provenance.md`).");
}

TEST_CASE("report provenance: the revision column names the build, dirty when the build was") {
  ReportFixture f("build_state.sqlite");
  f.campaign("c1");
  FixtureProvenance experiment_dirty;  // the experiment had uncommitted changes, the engine was clean
  experiment_dirty.tree_dirty = true;
  experiment_dirty.diff_hash = "abcdefabcdefabcdef";
  experiment_dirty.complete = false;
  experiment_dirty.missing_fields = R"(["clean_tree"])";
  auto first = f.trial(train_trial("s", "ddp", 1, 0, 1000, 40, 500));
  f.provenance(first, experiment_dirty);
  auto second = f.trial(train_trial("s", "ddp", 1, 1, 1000, 40, 500));
  FixtureProvenance build_dirty;  // the other way round
  build_dirty.complete = false;
  build_dirty.missing_fields = R"(["clean_build"])";
  f.provenance(second, build_dirty);
  auto mark = f.store().db().prepare("UPDATE provenance SET build_tree_dirty = ? WHERE attempt_id = ?");
  mark.bind(1, 0).bind(2, first).run();
  auto mark_second = f.store().db().prepare("UPDATE provenance SET build_tree_dirty = ? WHERE attempt_id = ?");
  mark_second.bind(1, 1).bind(2, second).run();
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| S1 | s | `1111111111111111111111111111111111111111` | "));
  CHECK(contains(md, "| S2 | s | `1111111111111111111111111111111111111111+dirty` | "));
  CHECK_FALSE(contains(md, "+dirty(abcdefabcdef)"));
}

TEST_CASE("report provenance: what each launch measures of the machine does not split a stack") {
  ReportFixture f("probes_one_stack.sqlite");
  f.campaign("c1");
  for (int r = 0; r < 3; ++r) {
    FixtureTrial t = train_trial("s", "ddp", 1, r, 1000, 40, 500);
    t.result["environment"]["memory_copy_gbps_per_thread"] = 8.5 + r;  // probed at every launch
    t.result["environment"]["probe_ms"] = 30.0 + r;
    t.result["environment"]["sgemm_probe_ms"] = 20.0 + r;
    t.result["environment"]["blas_gflops_per_thread"] = 90.0 + r;
    f.trial(t);
  }
  const std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| S1 | s |"));
  CHECK_FALSE(contains(md, "| S2 |"));
  CHECK_FALSE(contains(md, "memory_copy_gbps_per_thread="));
}

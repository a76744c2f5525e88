// Every program gets its own provenance in reports: a command workload is described by its own
// program and script, a record that hashed only the engine for it is incomplete, and two builds
// of one program are mixed results while the engine beside a peer is not.
#include <doctest/doctest.h>

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

TEST_CASE("report provenance: a command trial recorded with the engine's hash only is incomplete") {
  ReportFixture f("peer_engine_hash.sqlite");
  f.campaign("c1");
  f.provenance(f.trial(peer_trial("peer", 1, 0, 900, 44)), bare_metal_engine("fnv1a64:aaaaaaaaaaaaaaaa"));
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "peer ddp ×1, repeat 0: missing program_hash (the command's own program was not hashed)"));
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

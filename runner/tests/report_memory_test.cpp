// Memory accounting that does not flatter: FSDP's gathered parameters count in its model state,
// and wherever a strategy holds more than DDP the report says which component costs it.
#include <doctest/doctest.h>

#include "report/report.h"
#include "report_fixture.h"

using namespace mt;
using namespace mt::testing;

TEST_CASE("memory: state MiB counts FSDP's gathered parameters; costs above DDP are explained") {
  ReportFixture f("memory.sqlite");
  f.campaign("c1");
  const double mib = 1024.0 * 1024.0;
  for (int r = 0; r < 3; ++r) {
    for (int ranks : {1, 2}) {
      f.trial(train_trial("s", "ddp", ranks, r, 1000 * ranks, 40, 500));
      FixtureTrial fsdp = train_trial("s", "fsdp", ranks, r, 900 * ranks, 44, 480);
      fsdp.result["memory"]["peak_full_parameter_bytes"] = 0.5 * mib;  // the largest unit, gathered
      fsdp.result["memory"]["peak_gradient_bytes"] = 1.5 * mib / ranks;
      f.trial(fsdp);
    }
  }
  std::string md = render_latest(f).markdown;
  // FSDP ×1: 1 MiB parameters + 1.5 gradients + 2 optimizer + 0.5 gathered = 5.0 MiB against DDP's 4.0.
  CHECK(contains(md, "| fsdp | 1 | s | 1.0 | 1.5 | 2.0 | 0.5 | 5.0 | -25.0 % |"));
  CHECK(contains(md, "| 5.0 ± 0.0 | 100.0 % | +4.0 % | -25.0 % |"));  // the training table counts it too
  CHECK(contains(md,
                 "- fsdp ×1 (s): 5.0 MiB against DDP's 4.0 MiB: +0.5 MiB gradients, +0.5 MiB gathered parameters.\n"));
  CHECK(contains(md, "At one rank there is nothing to shard"));
  // Two ranks: 0.5 + 0.75 + 1 + 0.5 = 2.8 MiB, less than DDP: no explanation needed.
  CHECK(contains(md, "| fsdp | 2 | s | 0.5 | 0.8 | 1.0 | 0.5 | 2.8 | +31.2 % |"));
  CHECK_FALSE(contains(md, "- fsdp ×2 (s):"));
}

TEST_CASE("memory: gathered parameters as the engine reports them, against the reference it named") {
  ReportFixture f("memory_reference.sqlite");
  f.campaign("c1");
  f.store().record_reference_strategy("c1", "zero1");
  const double mib = 1024.0 * 1024.0;
  for (int r = 0; r < 3; ++r) {
    f.trial(train_trial("s", "zero1", 1, r, 1000, 40, 500));
    // A strategy the runner has never heard of that gathers: the engine's field says so.
    FixtureTrial gathers = train_trial("s", "stage3", 1, r, 900, 44, 480);
    gathers.result["memory"]["gathered_parameter_bytes"] = 0.5 * mib;
    gathers.result["memory"]["peak_full_parameter_bytes"] = 0.5 * mib;
    f.trial(gathers);
    // fsdp by name, yet its result says it gathered nothing: the field wins over the name.
    FixtureTrial whole = train_trial("s", "fsdp", 1, r, 950, 42, 490);
    whole.result["memory"]["gathered_parameter_bytes"] = 0;
    whole.result["memory"]["peak_full_parameter_bytes"] = 0.5 * mib;
    f.trial(whole);
  }
  std::string md = render_latest(f).markdown;
  CHECK(contains(md, "| stage3 | 1 | s | 1.0 | 1.0 | 2.0 | 0.5 | 4.5 | -12.5 % |"));
  CHECK(contains(md, "| fsdp | 1 | s | 1.0 | 1.0 | 2.0 | - | 4.0 | 0.0 % |"));
  CHECK(contains(md, "| zero1 | 1 | s | 1.0 | 1.0 | 2.0 | - | 4.0 | reference |"));
  CHECK(contains(md, "- stage3 ×1 (s): 4.5 MiB against ZERO1's 4.0 MiB: +0.5 MiB gathered parameters.\n"));
  CHECK(contains(md, "Where a strategy holds more model state than ZERO1 at the same ranks and parameters"));
  CHECK(contains(md, "state saving vs ZERO1"));
  CHECK(contains(md, "- step time vs ZERO1 = (this step ms − ZERO1 step ms) ÷ ZERO1 step ms"));
  CHECK_FALSE(contains(md, "DDP"));
  // The default questions compare each strategy with the reference.
  CHECK(contains(md, "each strategy against zero1 and each rank count against the smallest"));
  CHECK(contains(md, "- stage3 vs zero1: "));
}

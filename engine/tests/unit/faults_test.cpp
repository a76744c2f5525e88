#include <doctest/doctest.h>

#include <stdexcept>

#include "training/faults/faults.h"

TEST_CASE("fault specs parse, and mistakes name the spec") {
  const auto kill = mt::parse_fault("kill:rank=1,step=6");
  CHECK(kill.kind == mt::FaultKind::kill);
  CHECK(kill.rank == 1);
  CHECK(kill.step == 6);
  const auto exit = mt::parse_fault("exit:rank=0,step=3,code=7");
  CHECK(exit.code == 7);
  const auto save = mt::parse_fault("save-kill:rank=1,step=6,after=2");
  CHECK(save.after == 2);
  CHECK(mt::parse_fault("nan:step=4").rank == 0);

  CHECK_THROWS_WITH(mt::parse_fault("explode:step=1"),
                    "--fault 'explode:step=1': unknown kind 'explode' (kill, exit, nan, sleep, save-kill)");
  CHECK_THROWS_WITH(mt::parse_fault("kill:rank=1"), "--fault 'kill:rank=1': step= is required");
  CHECK_THROWS_WITH(mt::parse_fault("kill:step=1,code=3"),
                    "--fault 'kill:step=1,code=3': 'code' is not a setting of kill");
  CHECK_THROWS_WITH(mt::parse_fault("sleep:step=1,seconds=x"),
                    "--fault 'sleep:step=1,seconds=x': seconds=x is not a non-negative number");
  // A sleep that would not happen, or a value that does not fit its field, is refused.
  CHECK_THROWS_WITH(mt::parse_fault("sleep:step=1,seconds=nan"),
                    "--fault 'sleep:step=1,seconds=nan': seconds=nan is not a non-negative number");
  CHECK_THROWS_WITH(mt::parse_fault("sleep:step=1,seconds=inf"),
                    "--fault 'sleep:step=1,seconds=inf': seconds=inf is not a non-negative number");
  CHECK_THROWS_WITH(mt::parse_fault("sleep:step=1,seconds=1e300"),
                    "--fault 'sleep:step=1,seconds=1e300': seconds=1e300 is longer than a day (86400 s)");
  CHECK(mt::parse_fault("sleep:step=1,seconds=0.5").seconds == 0.5);
  CHECK_THROWS_WITH(mt::parse_fault("kill:rank=1.9,step=2"),
                    "--fault 'kill:rank=1.9,step=2': rank=1.9 is not a whole number up to 1073741824");
  CHECK_THROWS_WITH(mt::parse_fault("exit:step=2,code=300"),
                    "--fault 'exit:step=2,code=300': code=300 is not a whole number up to 255");
}

TEST_CASE("a plan answers per rank and step, and refuses ranks the job lacks") {
  mt::FaultPlan plan({mt::parse_fault("nan:rank=1,step=4"), mt::parse_fault("save-kill:rank=0,step=6,after=1")});
  CHECK(plan.nan_loss(1, 4));
  CHECK_FALSE(plan.nan_loss(0, 4));
  CHECK(plan.save_kill_after(0, 6) == 1);
  CHECK_FALSE(plan.save_kill_after(0, 3).has_value());
  CHECK_FALSE(plan.check(2).has_value());
  CHECK(plan.check(1) == "--fault names rank 1, but the job has 1 rank(s)");
}

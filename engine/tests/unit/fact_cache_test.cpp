#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/env/cpu_window.h"
#include "core/env/fact_cache.h"

namespace {

// MT_CACHE_DIR pointed at a fresh directory for the test's life.
struct ScratchCache {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mt_fact_cache_test_" + std::to_string(::getpid()));
  std::string previous;
  bool had_previous = false;
  ScratchCache() {
    if (const char* p = std::getenv("MT_CACHE_DIR")) previous = p, had_previous = true;
    std::filesystem::remove_all(dir);
    ::setenv("MT_CACHE_DIR", dir.c_str(), 1);
  }
  ~ScratchCache() {
    std::filesystem::remove_all(dir);
    if (had_previous) ::setenv("MT_CACHE_DIR", previous.c_str(), 1);
    else ::unsetenv("MT_CACHE_DIR");
  }
};

}  // namespace

TEST_CASE("a fact is learned once and recalled after; one not kept is learned again") {
  ScratchCache cache;
  int learned = 0;
  auto learn = [&] { return "answer " + std::to_string(++learned); };
  CHECK(mt::remembered_fact("key a", learn) == "answer 1");
  CHECK(mt::remembered_fact("key a", learn) == "answer 1");
  CHECK(learned == 1);

  // The split halves: a caller that measured on a busy machine recalls nothing and keeps nothing.
  CHECK_FALSE(mt::recalled_fact("key b").has_value());
  CHECK_FALSE(mt::recalled_fact("key b").has_value());
  mt::keep_fact("key b", "12.5 13.5");
  REQUIRE(mt::recalled_fact("key b").has_value());
  CHECK(*mt::recalled_fact("key b") == "12.5 13.5");
  CHECK(*mt::recalled_fact("key a") == "answer 1");

  // Empty answers and multi-line text are never kept: a later launch learns them again.
  mt::keep_fact("key c", "");
  mt::keep_fact("key d", "two\nlines");
  CHECK_FALSE(mt::recalled_fact("key c").has_value());
  CHECK_FALSE(mt::recalled_fact("key d").has_value());
}

TEST_CASE("/proc/stat's aggregate line gives busy, steal and total ticks, and the CPUs are counted") {
  const std::string text =
      "cpu  100 5 30 1000 7 2 3 11 0 0\n"
      "cpu0 50 2 15 500 3 1 1 5 0 0\n"
      "cpu1 50 3 15 500 4 1 2 6 0 0\n"
      "intr 12345\nctxt 999\n";
  const auto t = mt::parse_proc_stat_ticks(text);
  REQUIRE(t.has_value());
  CHECK(t->busy == 100 + 5 + 30 + 2 + 3);
  CHECK(t->steal == 11);
  CHECK(t->total == t->busy + 1000 + 7 + 11);
  CHECK(t->cpus == 2);
  CHECK_FALSE(mt::parse_proc_stat_ticks("intr 1\n").has_value());
  CHECK_FALSE(mt::parse_proc_stat_ticks("cpu  1 2\n").has_value());
}

TEST_CASE("a measurement counts as disturbed when others used the cores it ran on, or the hypervisor took time") {
  mt::CpuWindowUse use;
  use.cpus = 2;
  use.wall_s = 2;
  // Two threads on two CPUs: no core was free, so a fifth of a core of other work is the limit.
  use.foreign_cores = 0.1;
  CHECK_FALSE(mt::busy_machine_reason(use, 2).has_value());
  use.foreign_cores = 0.6;
  REQUIRE(mt::busy_machine_reason(use, 2).has_value());
  CHECK(mt::busy_machine_reason(use, 2)->find("0.60 of 2 CPUs") != std::string::npos);
  // One thread on two CPUs: another rank of the job waiting (spinning) on the free core is fine,
  // a second process on top of it is not.
  use.foreign_cores = 1.0;
  CHECK_FALSE(mt::busy_machine_reason(use, 1).has_value());
  use.foreign_cores = 1.7;
  CHECK(mt::busy_machine_reason(use, 1).has_value());
  use.foreign_cores = 0;
  use.steal_pct = 12;
  REQUIRE(mt::busy_machine_reason(use, 2).has_value());
  CHECK(mt::busy_machine_reason(use, 2)->find("hypervisor") != std::string::npos);
}

TEST_CASE("a window over this process's own work sees none of it as foreign") {
  const mt::CpuWindow window;
  volatile double sink = 0;
  for (int i = 0; i < 20000000; ++i) sink = sink + i * 1e-9;
  const auto use = window.close();
  if (!use) return;  // no /proc/stat here: nothing to check
  CHECK(use->cpus >= 1);
  CHECK(use->wall_s > 0);
  CHECK(use->foreign_cores >= 0);
  // This loop's own CPU time is subtracted: the busy cores it saw are not all counted as another's.
  CHECK(use->foreign_cores < double(use->cpus));
}

// The report's note on trials that ran at the same time (`parallel`): pairs whose succeeded
// attempts overlapped, never two that only touch, nothing at all for trials run one by one.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>

#include "report/model/overlap_notes.h"
#include "report/model/results_source.h"
#include "store/campaign_lookup.h"
#include "store/store.h"

using namespace mt;
namespace fs = std::filesystem;

namespace {

Trial trial_of(const std::string& strategy) {
  Trial t;
  t.study = "s";
  t.workload = "train";
  t.ranks = 1;
  t.params = {{"ranks", "1"}, {"strategy", strategy}};
  t.axis_names = {"strategy"};
  t.identity = "id-" + strategy;
  t.group_key = "g-" + strategy;
  return t;
}

// A campaign of three succeeded trials that ran from..to the given stamps ("10:00:05Z", or
// "10:00:00.250Z" as the runner records them now).
std::string notes_for(const std::vector<std::pair<std::string, std::string>>& spans) {
  fs::path dir = fs::temp_directory_path() / ("mtrun_overlap_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path path = dir / "o.sqlite";
  fs::remove(path);
  Store store(path);
  store.add_campaign_if_new({"c1", "exp", "/x.yaml", "rev", "plan", "{}", int(spans.size()), utc_now()});
  const char* strategies[] = {"ddp", "fsdp", "zero1"};
  for (std::size_t i = 0; i < spans.size(); ++i) {
    auto row = store.add_trial_if_new("c1", trial_of(strategies[i]), int(i));
    auto attempt = store.begin_attempt(row, 1, "mpirun ...", "/run", "/run/log.txt", std::nullopt);
    AttemptOutcome ok;
    ok.state = AttemptState::Succeeded;
    ok.exit_code = 0;
    store.finish_attempt(attempt, ok, std::nullopt);
    store.db().exec(
        fmt::format("UPDATE attempts SET started_at = '2026-01-01T{}', finished_at = '2026-01-01T{}' "
                    "WHERE id = {}",
                    spans[i].first, spans[i].second, attempt));
  }
  return overlap_notes(store.db(), load_report_data(store.db(), {latest_campaign(store.db())}));
}

}  // namespace

TEST_CASE("overlap notes name the trials that ran at the same time, and only those") {
  const std::string notes =
      notes_for({{"10:00:00Z", "10:00:05Z"}, {"10:00:02Z", "10:00:07Z"}, {"10:00:07Z", "10:00:09Z"}});
  CHECK(notes.find("**Trials that ran at the same time**") == 0);
  CHECK(notes.find("`s strategy=ddp rep 0` with `s strategy=fsdp rep 0`") != std::string::npos);
  CHECK(notes.find("zero1") == std::string::npos);  // it started when fsdp finished
  CHECK(notes_for({{"10:00:00Z", "10:00:05Z"}, {"10:00:05Z", "10:00:07Z"}, {"10:00:07Z", "10:00:09Z"}}) == "");
}

TEST_CASE("overlap notes tell trials shorter than a second apart by their milliseconds") {
  // Both within one second: in flight together, or one after the other.
  const std::string together = notes_for({{"10:00:00.100Z", "10:00:00.900Z"}, {"10:00:00.150Z", "10:00:00.950Z"}});
  CHECK(together.find("`s strategy=ddp rep 0` with `s strategy=fsdp rep 0`") != std::string::npos);
  CHECK(notes_for({{"10:00:00.100Z", "10:00:00.400Z"}, {"10:00:00.400Z", "10:00:00.900Z"}}) == "");
}

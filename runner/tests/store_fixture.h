// A results store in a fresh temporary directory with one campaign "c", for tests that run trials
// through the campaign loop, and a query that reads one column of every row.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include "store/store.h"

namespace mt {

struct TempStore {
  std::filesystem::path dir;
  Store store;

  TempStore(const std::string& name, int trials)
      : dir(fresh(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid())))),
        store(dir / "mtrun.sqlite") {
    store.add_campaign_if_new({"c", "exp", "/x.yaml", "rev", "plan", "{}", trials, utc_now()});
  }
  ~TempStore() { std::filesystem::remove_all(dir); }

  // The first column of every row, comma-separated.
  std::string query(const std::string& sql) {
    auto s = store.db().prepare(sql);
    std::string out;
    while (s.step()) out += (out.empty() ? "" : ",") + s.text(0);
    return out;
  }

 private:
  static std::filesystem::path fresh(const std::filesystem::path& p) {
    std::filesystem::remove_all(p);
    return p;
  }
};

}  // namespace mt

#pragma once
// Damaged copies of a document a program wrote, for tests that whatever it wrote is read without
// taking the reader down: every place in it in turn replaced by every kind of JSON value, or
// removed, and the whole document replaced too.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mt::testing {

// A real result: runner/tests/data/results/NAME.json (taken from runs the committed reports record).
nlohmann::json result_seed(const std::string& name);

// Calls `each` with every damaged copy of `intact`, the place damaged (the empty pointer where the
// whole document was replaced) and what was done, in words ("/steps = \"x\"", "/loss removed").
// Arrays are damaged at their first element only: the rest are read the way the first is.
using DamageVisitor = std::function<void(const nlohmann::json& damaged, const nlohmann::json::json_pointer& place,
                                         const std::string& what)>;
void for_each_damage(const nlohmann::json& intact, const DamageVisitor& each);

// A doctest check that `failures` (what each damaged copy's reader got wrong) is empty, showing the
// first 20 (all of them with MT_HOSTILE_ALL set).
void check_every_damage_read(const std::vector<std::string>& failures);

}  // namespace mt::testing

// A YAML alias is the very node of its anchor to yaml-cpp, position included: a problem in a value
// used through an alias is reported at the anchor, and the report names each alias that uses it.
#include <doctest/doctest.h>

#include "experiment/experiment_check.h"
#include "experiment/yaml_anchors.h"

using namespace mt;

namespace {

std::string data(const std::string& name) { return std::string(MT_TEST_DATA_DIR) + "/" + name + ".yaml"; }

std::string problems_of(const std::string& name) { return format_diagnostics(check_experiment(data(name)).errors); }

}  // namespace

TEST_CASE("a problem in an aliased value is said once, at the anchor, with a note at each alias") {
  const std::string file = data("alias_value");
  CHECK(problems_of("alias_value") ==
        file + ":5:29: unknown strategy 'nosuch' (expected one of: ddp, fsdp, zero1, zero2)\n" +
            "      defaults: &b {strategy: nosuch, steps: 2}\n" +  //
            "                              ^\n" +                  //
            file +
            ":9:15: note: the value at line 5 is anchor &b, used here too (alias *b): the problem may come from "
            "this use\n" +
            file + ":11:18: ranks must be an integer, got 'two'\n" +  //
            "        ranks: [2, two]\n" +                             //
            "                   ^\n" +                                //
            file +
            ":15:13: note: the value at line 10 is anchor &m, used here too (alias *m): the problem may come from "
            "this use");
}

TEST_CASE(
    "a value fine where its anchor is but wrong where an alias uses it is reported at the anchor, the alias named") {
  const std::string file = data("alias_scalar");
  CHECK(problems_of("alias_scalar") ==
        file + ":5:38: n_heads 3 does not divide d_model 64\n" +  //
            "      defaults: {d_model: 96, n_heads: &h 3}\n" +    //
            "                                       ^\n" +        //
            file +
            ":9:38: note: the value at line 5 is anchor &h, used here too (alias *h): the problem may come from "
            "this use");
}

TEST_CASE("an anchor's value spans up to the next thing in the file; anchors no alias uses are left out") {
  const std::vector<AliasedAnchor> anchors = aliased_anchors(data("alias_value"));
  REQUIRE(anchors.size() == 2);
  CHECK(anchors[0].name == "b");
  CHECK(anchors[0].anchor.line == 5);
  CHECK(anchors[0].anchor.column == 15);
  REQUIRE(anchors[0].aliases.size() == 1);
  CHECK(anchors[0].aliases[0].line == 9);
  CHECK(anchors[0].holds({5, 29}));
  CHECK_FALSE(anchors[0].holds({5, 14}));
  CHECK_FALSE(anchors[0].holds({6, 5}));  // matrix, the next key
  CHECK(anchors[1].name == "m");
  CHECK(anchors[1].holds({11, 18}));
  CHECK_FALSE(anchors[1].holds({12, 5}));
  CHECK(alias_notes("f.yaml", anchors, {6, 5}) == "");
  CHECK(aliased_anchors(data("no_such_file")).empty());
  CHECK(aliased_anchors(data("bad_yaml")).empty());
}

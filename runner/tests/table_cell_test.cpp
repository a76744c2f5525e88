// Table cells that cannot break their table, whatever the value.
#include <doctest/doctest.h>

#include "report/render/markdown_table.h"
#include "table_cell.h"
#include "text_table.h"

using namespace mt;

TEST_CASE("control characters and pipes cannot break a table") {
  CHECK(escape_control_characters("a\nb\r\tc\x1b[0m\x7f|") == "a\\nb\\r\\tc\\x1b[0m\\x7f|");
  CHECK(markdown_cell("a|b\nc") == "a\\|b\\nc");
  CHECK(markdown_cell("a\\|b") == "a\\\\\\|b");  // the backslash cannot escape the pipe's escape
  CHECK(markdown_cell("") == " ");

  TextTable text({"name", "n"});
  text.add_row({"two\nlines", "1"});
  CHECK(text.render() == "name        n\n----------  -\ntwo\\nlines  1\n");

  MarkdownTable markdown({{"name"}, {"n", Align::Right}});
  markdown.add_row({"x|y\r\n", "2"});
  CHECK(markdown.render() == "| name | n |\n| :-- | --: |\n| x\\|y\\r\\n | 2 |\n");
}

TEST_CASE("text tables set numbers, means ± std and a missing number's dash right; units and words left") {
  TextTable text({"reading", "value", "unit"});
  text.add_row({"steal", "0.0", "%"});
  text.add_row({"window", "12.5", "s"});
  text.add_row({"mean", "101 ± 1", "-"});
  CHECK(text.render() ==
        "reading  value    unit\n"
        "-------  -------  ----\n"
        "steal        0.0  %\n"
        "window      12.5  s\n"
        "mean     101 ± 1     -\n");
}

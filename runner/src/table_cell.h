#pragma once
// What a value becomes in a table cell, so that no value — a parameter, an error message, a query
// result — can break the table it sits in: control characters (a newline ends a row, a carriage
// return or an escape sequence garbles the terminal) are written as visible escapes.
#include <string>

namespace mt {

// "\n", "\r", "\t" for those three, "\xHH" for any other C0 control character and DEL.
std::string escape_control_characters(const std::string& text);

// How many decimals a number of unknown scale gets in a cell: fewer as it grows (0 from 1000, 6 below
// 0.01), so that about four significant digits show.
int auto_decimals(double value);

// For a GitHub-flavoured markdown table: control characters escaped as above, '|' as "\|" (and a
// backslash before a '|' doubled, so it cannot escape the escape), never empty.
std::string markdown_cell(const std::string& text);

}  // namespace mt

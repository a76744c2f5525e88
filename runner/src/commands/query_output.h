#pragma once
// How `mtrun query` writes the rows of its statement: CSV and JSON stream row by row, so an answer of
// any length needs no more memory than one row; an aligned table must see every row before the
// first is printed, so it holds at most kTableRowLimit of them and then stops, saying how to get
// the rest. Every format stops as soon as the output cannot be written.
#include <cstddef>
#include <iosfwd>

#include "store/sqlite_db.h"

namespace mt {

enum class QueryFormat { Table, Csv, Json };

inline constexpr std::size_t kTableRowLimit = 10000;

// Steps `statement` to its end and writes its rows to `out`. Throws RunnerError (failure) after
// printing kTableRowLimit rows of a table whose statement has more.
void write_query_rows(Statement& statement, QueryFormat format, std::ostream& out);

}  // namespace mt

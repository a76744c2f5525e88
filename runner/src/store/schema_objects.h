#pragma once
// What the compiled-in schema (schemas/store.sql) declares at each version — its tables with their
// columns, and its views — and checking a database against it, so that a damaged database is
// refused before anything reads or writes it. The expected objects are derived by running the
// schema's sections, never listed by hand.
#include <filesystem>

#include "store/sqlite_db.h"

namespace mt {

// Throws RunnerError (usage), naming `file`, when `db` (at schema `version`, 1..latest) lacks a
// table, a column or a view that version declares, has one of them as the wrong kind, or already
// has an object a later version adds (a migration would fail half-way). Reads only.
void check_schema_objects(Database& db, const std::filesystem::path& file, int version);

}  // namespace mt

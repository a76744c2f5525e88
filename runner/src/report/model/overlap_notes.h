#pragma once
// Which trials ran at the same time (`parallel: N`): a report says so, with the hosts each ran on,
// so a reader can see that trials in flight together had machines of their own.
#include <string>

#include "report/model/results_source.h"
#include "store/sqlite_db.h"

namespace mt {

// A paragraph naming the pairs of trials whose succeeded attempts overlapped in time, or "" when
// none did (trials run one at a time).
std::string overlap_notes(Database& db, const ReportData& data);

}  // namespace mt

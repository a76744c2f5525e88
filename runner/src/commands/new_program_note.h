#pragma once
// What `run` says when the program an experiment drives made its campaign a new one: where the
// experiment's revision is unknown, the engine binary (or image) tells campaigns apart
// (experiment_plan.h), and a user who only rebuilt the engine should hear why the trials that
// already succeeded run again, and which campaign holds them.
#include <string>

#include "commands/experiment_plan.h"
#include "store/sqlite_db.h"

namespace mt {

// "note: a new campaign: ..." (no newline), naming the latest campaign of the same plan and what it
// ran; empty where the revision names the code, the campaign is already in `db`, or none of the same
// plan came before it.
std::string new_program_note(Database& db, const ExperimentPlan& plan);

}  // namespace mt

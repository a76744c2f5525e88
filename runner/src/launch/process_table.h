#pragma once
// Every process /proc lists, by PID, with what its stat line says (parent, CPU ticks, start time),
// and the part of the process tree below one of them: what the sampler walks for mtrun's
// descendants and the marked-process search for what is not mtrun's.
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "launch/proc_readings.h"

namespace mt {

using ProcessTable = std::map<int, PidStat>;

// The text of a /proc or /sys file; empty where it cannot be read (gone, or another user's).
std::string read_kernel_file(const std::filesystem::path& file);

ProcessTable read_process_table(const std::filesystem::path& proc = "/proc");

// `root` and every process below it in the table's tree.
std::set<int> process_tree(const ProcessTable& table, int root);

}  // namespace mt

#include "launch/process_table.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mt {

ProcessTable read_process_table(const std::filesystem::path& proc) {
  ProcessTable table;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat", std::ios::binary);
    if (auto stat = parse_pid_stat(std::string(std::istreambuf_iterator<char>(in), {}))) table[std::stoi(name)] = *stat;
  }
  return table;
}

std::set<int> process_tree(const ProcessTable& table, int root) {
  std::map<int, std::vector<int>> children;
  for (const auto& [pid, stat] : table) children[stat.ppid].push_back(pid);
  std::set<int> tree;
  std::vector<int> frontier = {root};
  while (!frontier.empty()) {
    const int parent = frontier.back();
    frontier.pop_back();
    if (!tree.insert(parent).second) continue;  // a table read while processes come and go
    for (int child : children[parent]) frontier.push_back(child);
  }
  return tree;
}

}  // namespace mt

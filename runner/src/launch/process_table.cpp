#include "launch/process_table.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace mt {

std::string read_kernel_file(const std::filesystem::path& file) {
  // read(2), not a stream: a process that ends between the open and the read makes the read fail
  // (ESRCH), and std::filebuf reports that by throwing from whatever reads it, the sampler's thread
  // included.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      text.append(buffer, std::size_t(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (n < 0) text.clear();  // failed midway: nothing rather than a part
      break;
    }
  }
  ::close(fd);
  return text;
}

ProcessTable read_process_table(const std::filesystem::path& proc) {
  ProcessTable table;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (auto stat = parse_pid_stat(read_kernel_file(entry.path() / "stat"))) table[std::stoi(name)] = *stat;
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

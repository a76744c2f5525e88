#include "source_revision.h"

#include <boost/process.hpp>

namespace bp = boost::process;

namespace mt {

std::string source_revision(const std::filesystem::path& dir) {
  boost::filesystem::path git = bp::search_path("git");
  if (git.empty()) return "unknown";
  std::error_code ec;
  bp::ipstream out;
  bp::child child(git, "-C", dir.string(), "rev-parse", "HEAD", bp::std_out > out, bp::std_err > bp::null,
                  bp::std_in < bp::null, ec);
  if (ec) return "unknown";
  std::string line;
  std::getline(out, line);
  child.wait(ec);
  if (ec || child.exit_code() != 0 || line.size() != 40) return "unknown";
  return line;
}

}  // namespace mt

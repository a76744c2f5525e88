#include "launch/source_state.h"

#include <optional>
#include <vector>

#include <boost/process.hpp>

#include "experiment/identity.h"

namespace bp = boost::process;

namespace mt {
namespace {

// stdout of `git -C dir ARGS…`, or nullopt when git is missing or fails.
std::optional<std::string> git(const std::filesystem::path& dir, std::vector<std::string> args) {
  boost::filesystem::path exe = bp::search_path("git");
  if (exe.empty()) return std::nullopt;
  args.insert(args.begin(), {"-C", dir.string()});
  std::error_code ec;
  bp::ipstream out;
  bp::child child(exe, bp::args(args), bp::std_out > out, bp::std_err > bp::null, bp::std_in < bp::null, ec);
  if (ec) return std::nullopt;
  std::string text, line;
  while (std::getline(out, line)) text += line + "\n";
  child.wait(ec);
  if (ec || child.exit_code() != 0) return std::nullopt;
  return text;
}

}  // namespace

SourceState inspect_source(const std::filesystem::path& dir) {
  SourceState state;
  auto head = git(dir, {"rev-parse", "HEAD"});
  if (!head || head->size() < 40) return state;
  state.commit = head->substr(0, 40);
  auto status = git(dir, {"status", "--porcelain", "--untracked-files=no"});
  state.dirty = status && !status->empty();
  if (state.dirty) {
    auto diff = git(dir, {"diff", "HEAD"});
    state.diff_hash = content_hash(diff.value_or(""));
  }
  return state;
}

}  // namespace mt

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

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

bool is_hex(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
}

}  // namespace

std::string without_credentials(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;  // scp-like "git@host:path" names a user, no secret
  auto host = scheme + 3;
  auto at = url.find('@', host);
  auto slash = url.find('/', host);
  if (at == std::string::npos || (slash != std::string::npos && at > slash)) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

SourceState inspect_source(const std::filesystem::path& dir) {
  SourceState state;
  auto head = git(dir, {"rev-parse", "HEAD"});
  if (!head || head->size() < 40) return state;
  state.commit = head->substr(0, 40);
  if (auto top = git(dir, {"rev-parse", "--show-toplevel"})) state.toplevel = first_line(*top);
  auto remote = git(dir, {"config", "--get", "remote.origin.url"});
  state.repository =
      remote && !first_line(*remote).empty() ? without_credentials(first_line(*remote)) : state.toplevel.string();
  auto status = git(dir, {"status", "--porcelain", "--untracked-files=no"});
  state.dirty = status && !status->empty();
  if (state.dirty) {
    auto diff = git(dir, {"diff", "HEAD"});
    state.diff_hash = content_hash(diff.value_or(""));
  }
  return state;
}

bool repository_has_commit(const SourceState& source, const std::string& revision) {
  // A revision is only ever looked up as an object name, never as an option or a ref expression.
  if (source.toplevel.empty() || !is_hex(revision) || revision.size() < 7) return false;
  return git(source.toplevel, {"cat-file", "-e", revision + "^{commit}"}).has_value();
}

}  // namespace mt

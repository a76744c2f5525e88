#include "launch/engine_workloads.h"

#include <unistd.h>

#include <boost/process.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "experiment/engine_description.h"
#include "experiment/workload_params.h"
#include "launch/program_identity.h"

namespace mt {
namespace {

namespace bp = boost::process;

std::filesystem::path cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "mtrun";
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "mtrun";
  return {};
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The engine's description, or throws saying why it could not be had.
std::string describe(const std::filesystem::path& engine, const std::string& subcommand) {
  bp::ipstream out;
  bp::child child(engine.string(), subcommand, "--describe", bp::std_out > out, bp::std_err > bp::null,
                  bp::std_in < bp::null);
  std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  child.wait();
  if (child.exit_code() != 0)
    throw std::runtime_error(fmt::format("`{} {} --describe` exited with {}", engine.string(), subcommand,
                                         child.exit_code()));
  return text;
}

// Best effort: a cache that cannot be written only costs the next plan a start of the engine.
void store_in_cache(const std::filesystem::path& cached, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(cached.parent_path(), ec);
  if (ec) return;
  const auto temporary = cached.string() + ".tmp." + std::to_string(::getpid());
  std::ofstream(temporary) << text;
  std::filesystem::rename(temporary, cached, ec);  // another runner may have won: either is right
  if (ec) std::filesystem::remove(temporary, ec);
}

void load(const std::filesystem::path& engine, const std::string& subcommand) {
  const std::string hash = file_hash(engine);
  const auto dir = cache_dir();
  const auto cached = dir.empty() ? dir : dir / fmt::format("{}-{}.json", hash.substr(hash.find(':') + 1), subcommand);
  std::string text;
  if (!cached.empty() && std::filesystem::is_regular_file(cached)) text = read_file(cached);
  if (text.empty()) {
    text = describe(engine, subcommand);
    parse_workload_description(text);  // never cache what cannot be read back
    if (!cached.empty()) store_in_cache(cached, text);
  }
  register_engine_workload(parse_workload_description(text));
}

}  // namespace

void load_engine_workloads(const std::filesystem::path& engine) {
  for (const auto& subcommand : engine_workload_names()) {
    try {
      load(engine, subcommand);
    } catch (const std::exception& e) {
      set_engine_workload_unavailable(
          subcommand, fmt::format("mtengine at {} did not describe it ({}); build the engine or point --engine "
                                  "or MTENGINE at one",
                                  engine.string(), e.what()));
    }
  }
}

}  // namespace mt

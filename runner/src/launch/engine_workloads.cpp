#include "launch/engine_workloads.h"

#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "checked_output.h"
#include "experiment/engine_description.h"
#include "experiment/workload_params.h"
#include "launch/bounded_capture.h"
#include "launch/program_identity.h"

namespace mt {
namespace {

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

// How long an engine may take to describe a workload: $MTRUN_DESCRIBE_TIMEOUT seconds, else 30.
double describe_timeout_s() {
  const char* text = std::getenv("MTRUN_DESCRIBE_TIMEOUT");
  if (!text || !*text) return 30;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (*end != '\0' || !(seconds > 0) || seconds > 86400) {
    throw std::runtime_error(fmt::format("MTRUN_DESCRIBE_TIMEOUT='{}' is not a number of seconds in (0, 86400]", text));
  }
  return seconds;
}

// The engine's description, or throws saying why it could not be had.
std::string describe(const std::filesystem::path& engine, const std::string& subcommand) {
  CaptureLimits limits;
  limits.timeout_s = describe_timeout_s();
  return capture_output({engine.string(), subcommand, "--describe"}, limits);
}

// Best effort: a cache that cannot be written only costs the next plan a start of the engine.
void store_in_cache(const std::filesystem::path& cached, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(cached.parent_path(), ec);
  if (ec) return;
  const auto temporary = cached.string() + ".tmp." + std::to_string(::getpid());
  if (write_whole_file(temporary, text) != 0) {  // never a truncated description (a full disk)
    std::filesystem::remove(temporary, ec);
    return;
  }
  std::filesystem::rename(temporary, cached, ec);  // another runner may have won: either is right
  if (ec) std::filesystem::remove(temporary, ec);
}

void load(const std::filesystem::path& engine, const std::string& subcommand) {
  const std::string hash = file_hash(engine);
  const auto dir = cache_dir();
  const auto cached = dir.empty() ? dir : dir / fmt::format("{}-{}.json", hash.substr(hash.find(':') + 1), subcommand);
  if (!cached.empty() && std::filesystem::is_regular_file(cached)) {
    try {
      register_engine_workload(parse_workload_description(read_file(cached)));
      return;
    } catch (const std::exception&) {
      // A cache file cut short, damaged or edited by hand: the engine is asked again and the file rewritten.
    }
  }
  const std::string text = describe(engine, subcommand);
  WorkloadSpec spec = parse_workload_description(text);  // never cache what cannot be read back
  if (!cached.empty()) store_in_cache(cached, text);
  register_engine_workload(std::move(spec));
}

}  // namespace

void load_engine_workloads(const std::filesystem::path& engine) {
  std::string overrun;  // an engine that hung once is not asked again: each wait costs the timeout
  for (const auto& subcommand : engine_workload_names()) {
    std::string why = overrun;
    if (why.empty()) {
      try {
        load(engine, subcommand);
        continue;
      } catch (const CaptureOverrun& e) {
        why = overrun = e.what();
      } catch (const std::exception& e) {
        why = e.what();
      }
    }
    set_engine_workload_unavailable(
        subcommand, fmt::format("mtengine at {} did not describe it ({}); build the engine or point --engine "
                                "or MTENGINE at one",
                                engine.string(), why));
  }
}

}  // namespace mt

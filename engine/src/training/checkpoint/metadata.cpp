#include "training/checkpoint/metadata.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "core/job/whole_numbers.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/durable_file.h"
#include "training/checkpoint/layout.h"
#include "training/checkpoint/sha256.h"

namespace mt {

nlohmann::json to_json(const CheckpointMetadata& m) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : m.files) files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  nlohmann::json out = {{"format_version", m.format_version},
                        {"strategy", m.identity.strategy},
                        {"world_size", m.identity.world_size},
                        {"precision", m.identity.precision},
                        {"config_fingerprint", m.identity.fingerprint},
                        {"global_step", m.global_step},
                        {"tokens_seen", m.tokens_seen},
                        {"created_at", m.created_at},
                        {"files", files}};
  if (!m.settings.is_null()) out["settings"] = m.settings;
  if (m.layout) out["layout"] = to_json(*m.layout);
  if (!m.gemm_backends.is_null()) out["gemm_backends"] = m.gemm_backends;
  return out;
}

CheckpointMetadata read_metadata(const std::filesystem::path& step_dir) {
  const auto path = step_dir / checkpoint_layout::kMetadata;
  require_regular_file(path);
  std::ifstream in(path);
  if (!in) throw CheckpointError("cannot read '" + path.string() + "'");
  nlohmann::json doc;
  try {
    in >> doc;
    CheckpointMetadata m;
    // Whole numbers within their ranges, before anything is read as an int (1.9 would become 1,
    // 10^30 a negative world size).
    auto whole = [&](const char* key, double lowest, double highest) {
      const auto& v = doc.at(key);
      if (!v.is_number_integer() || v.get<double>() < lowest || v.get<double>() > highest)
        throw CheckpointError(fmt::format("'{}' is damaged: {} {} is not a whole number in [{:.0f}, {:.0f}]",
                                          path.string(), key, v.dump(), lowest, highest));
      return v.get<int64_t>();
    };
    whole("format_version", 1, 1 << 30);
    whole("world_size", 1, 1 << 24);
    whole("global_step", 0, 1e15);
    whole("tokens_seen", 0, 9e18);
    m.format_version = doc.at("format_version").get<int>();
    if (m.format_version > kCheckpointFormatVersion)
      throw CheckpointError(
          fmt::format("'{}' has checkpoint format version {}; this mtengine reads up to {}: "
                      "use a newer mtengine",
                      path.string(), m.format_version, kCheckpointFormatVersion));
    m.identity = {doc.at("strategy"), doc.at("world_size"), doc.at("precision"), doc.at("config_fingerprint"),
                  doc.contains("settings") ? doc.at("settings") : nlohmann::json()};
    m.global_step = doc.at("global_step");
    m.tokens_seen = doc.at("tokens_seen");
    m.created_at = doc.at("created_at");
    for (const auto& f : doc.at("files"))
      m.files.push_back(
          {f.at("name"), uint64_t(whole_field(f, "bytes", 0, std::numeric_limits<int64_t>::max())), f.at("sha256")});
    if (doc.contains("settings")) m.settings = doc.at("settings");
    if (doc.contains("gemm_backends")) m.gemm_backends = doc.at("gemm_backends");
    if (doc.contains("layout")) {
      try {
        m.layout = layout_from_json(doc.at("layout"), m.identity.world_size);
      } catch (const CheckpointError& e) {
        throw CheckpointError("'" + path.string() + "' is damaged: " + e.what());
      }
    }
    // One shard per rank, named for it, and the directory named for its step: a world size or
    // step edited on its own is caught here, not by a strategy that loads the wrong slices.
    if (m.files.size() != static_cast<std::size_t>(m.identity.world_size))
      throw CheckpointError(fmt::format("'{}' is damaged: it lists {} shard(s) for world_size {}", path.string(),
                                        m.files.size(), m.identity.world_size));
    for (int r = 0; r < m.identity.world_size; ++r)
      if (m.files[static_cast<std::size_t>(r)].name != checkpoint_layout::shard_name(r))
        throw CheckpointError(fmt::format("'{}' is damaged: shard {} is '{}', expected '{}'", path.string(), r,
                                          m.files[static_cast<std::size_t>(r)].name, checkpoint_layout::shard_name(r)));
    const auto dir_step = checkpoint_layout::parse_step_name(step_dir.filename().string());
    if (dir_step && *dir_step != m.global_step)
      throw CheckpointError(fmt::format("'{}' is damaged: global_step {} in a directory of step {}", path.string(),
                                        m.global_step, *dir_step));
    return m;
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError("'" + path.string() + "' is damaged: " + e.what());
  }
}

namespace {

// Settings a learning-rate schedule never reads, by its kind: the constant schedule (warmup, then
// the base rate) ignores the cosine's decay length and floor. They are recorded and fingerprinted
// all the same (so checkpoints keep their fingerprints), but never make two runs differ.
bool ignored_by_schedule(const nlohmann::json& settings, const std::string& path) {
  static const std::map<std::string, std::set<std::string>> ignored = {
      {"constant", {"lr_schedule.decay_steps", "lr_schedule.min_learning_rate"}}};
  const auto schedule = settings.find("lr_schedule");
  if (schedule == settings.end() || !schedule->is_object()) return false;
  const auto kind = schedule->find("kind");
  if (kind == schedule->end() || !kind->is_string()) return false;
  const auto it = ignored.find(kind->get<std::string>());
  return it != ignored.end() && it->second.count(path) > 0;
}

// Each leaf of two identities' settings that differs, as "seed (--seed): checkpoint 1, this run 7",
// below `path` (c and r: the settings there); a setting only one side has reads "(absent)" on the
// other. A setting both sides' schedules ignore is skipped.
void setting_differences(const CheckpointIdentity& checkpoint, const CheckpointIdentity& run, const nlohmann::json& c,
                         const nlohmann::json& r, const std::string& path, std::vector<std::string>& out) {
  if (c.is_object() && r.is_object()) {
    std::set<std::string> keys;
    for (const auto& [key, value] : c.items()) keys.insert(key);
    for (const auto& [key, value] : r.items()) keys.insert(key);
    for (const auto& key : keys)
      setting_differences(checkpoint, run, c.contains(key) ? c.at(key) : nlohmann::json(),
                          r.contains(key) ? r.at(key) : nlohmann::json(), path.empty() ? key : path + "." + key, out);
    return;
  }
  if (c == r || (ignored_by_schedule(checkpoint.settings, path) && ignored_by_schedule(run.settings, path))) return;
  const auto option = run.setting_options.find(path);
  auto value = [](const nlohmann::json& v) { return v.is_null() ? std::string("(absent)") : v.dump(); };
  out.push_back(fmt::format("{}{}: checkpoint {}, this run {}", path,
                            option == run.setting_options.end() ? "" : " (" + option->second + ")", value(c),
                            value(r)));
}

std::vector<std::string> setting_differences(const CheckpointIdentity& c, const CheckpointIdentity& r) {
  std::vector<std::string> differences;
  if (c.settings.is_object() && r.settings.is_object())
    setting_differences(c, r, c.settings, r.settings, "", differences);
  return differences;
}

// The settings of both sides that differ, where both record settings their fingerprints were
// taken over; nothing when either side cannot be compared setting by setting.
std::optional<std::vector<std::string>> comparable_differences(const CheckpointIdentity& c,
                                                               const CheckpointIdentity& r) {
  if (!c.settings.is_object() || !r.settings.is_object()) return std::nullopt;  // an older checkpoint
  if (fingerprint_of(c.settings) != c.fingerprint || fingerprint_of(r.settings) != r.fingerprint)
    return std::nullopt;  // settings edited apart from the digest: only the digest speaks
  return setting_differences(c, r);
}

// The same training math: the same fingerprint, or settings that differ only where neither
// side's schedule looks (a constant-rate run extended by --steps changes its decay length).
bool same_math(const CheckpointIdentity& c, const CheckpointIdentity& r) {
  if (c.fingerprint == r.fingerprint) return true;
  const auto differences = comparable_differences(c, r);
  return differences && differences->empty();
}

}  // namespace

std::string identity_mismatch(const CheckpointIdentity& c, const CheckpointIdentity& r) {
  if (c.strategy != r.strategy)
    return fmt::format("strategy: checkpoint has '{}', this run '{}'", c.strategy, r.strategy);
  if (c.world_size != r.world_size)
    return fmt::format("world_size: checkpoint has {}, this run {}", c.world_size, r.world_size);
  if (c.precision != r.precision)
    return fmt::format("precision: checkpoint has '{}', this run '{}'", c.precision, r.precision);
  if (same_math(c, r)) return "";
  const auto differences = setting_differences(c, r);
  if (differences.empty())  // settings unrecorded (an older checkpoint), or the same settings under another digest
    return fmt::format(
        "config_fingerprint: checkpoint has {}, this run {} (a setting that changes the "
        "training math differs: model shape, batch, accumulation, optimizer or schedule)",
        c.fingerprint.substr(0, 16), r.fingerprint.substr(0, 16));
  return fmt::format("config_fingerprint: checkpoint has {}, this run {}: {}", c.fingerprint.substr(0, 16),
                     r.fingerprint.substr(0, 16), fmt::join(differences, "; "));
}

bool differs_only_in_layout(const CheckpointIdentity& c, const CheckpointIdentity& r) {
  return c.precision == r.precision && same_math(c, r) && (c.strategy != r.strategy || c.world_size != r.world_size);
}

std::string fingerprint_of(const nlohmann::json& settings) { return sha256_hex(settings.dump()); }

void check_file_sizes(const std::filesystem::path& step_dir, const CheckpointMetadata& metadata) {
  for (const auto& f : metadata.files) {
    const auto path = step_dir / f.name;
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path, ec);
    if (ec) throw CheckpointError("checkpoint file '" + path.string() + "' is missing");
    if (bytes != f.bytes)
      throw CheckpointError(
          fmt::format("checkpoint file '{}' has {} bytes, its metadata says {}", path.string(), bytes, f.bytes));
  }
}

void check_files(const std::filesystem::path& step_dir, const CheckpointMetadata& metadata) {
  check_file_sizes(step_dir, metadata);
  for (const auto& f : metadata.files) {
    const auto path = step_dir / f.name;
    if (sha256_file(path) != f.sha256)
      throw CheckpointError("checkpoint file '" + path.string() + "' does not match its SHA-256 (damaged)");
  }
}

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace mt

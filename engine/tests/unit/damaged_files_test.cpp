// Files the engine reads back from disk, where anything can happen to them: every field of a
// checkpoint's metadata.json, of a checkpoint shard's header and of a safetensors file's header
// (--init-from) is damaged in turn, to every kind of JSON value, or removed. Reading must either
// succeed or refuse the file with the input error of its kind (exit 2, naming the file), never fail
// another way: a JSON type error escaping as a crash of the run, an allocation sized by a forged
// number, or (under scripts/sanitize.sh --engine) undefined behaviour.
#include "torch_doctest.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/metadata.h"
#include "training/checkpoint/shard_file.h"
#include "training/interop/safetensors.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mt_ckpt_damage_" + std::to_string(::getpid())) / name;
  fs::create_directories(dir);
  return dir;
}

// Every place below the top of `value`, depth first; an array's first element stands for the rest.
void collect_places(const json& value, const json::json_pointer& at, std::vector<json::json_pointer>& places) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      places.push_back(at / key);
      collect_places(child, at / key, places);
    }
  } else if (value.is_array() && !value.empty()) {
    places.push_back(at / 0);
    collect_places(value[0], at / 0, places);
  }
}

// Each damaged copy of `intact` in turn: every place set to each kind of value, then removed.
void for_each_damage(const json& intact, const std::function<void(const json&, const std::string&)>& use) {
  const std::vector<json> damages = {nullptr, "x", -1, 1.5, 1e300, json::array(), json::object()};
  std::vector<json::json_pointer> places;
  collect_places(intact, json::json_pointer(), places);
  for (const auto& place : places) {
    for (const json& value : damages) {
      json damaged = intact;
      damaged[place] = value;
      use(damaged, fmt::format("{} = {}", place.to_string(), value.dump()));
    }
    json removed = intact;
    json& parent = removed[place.parent_pointer()];
    if (parent.is_object()) parent.erase(place.back());
    else parent.erase(std::stoul(place.back()));
    use(removed, place.to_string() + " removed");
  }
  for (const json& value : damages) use(value, "the whole document = " + value.dump());
}

// Runs `read`; success or an `Expected` error is fine, anything else is recorded against `what`.
template <typename Expected>
void expect_refusal_or_nothing(const std::function<void()>& read, const std::string& what,
                               std::vector<std::string>& failures) {
  try {
    read();
  } catch (const Expected&) {
  } catch (const std::exception& e) {
    failures.push_back(fmt::format("{}: {}", what, e.what()));
  }
}
constexpr auto expect_checkpoint_error_or_nothing = expect_refusal_or_nothing<mt::CheckpointError>;

void check_no_failures(const std::vector<std::string>& failures) {
  std::string first;
  for (std::size_t i = 0; i < failures.size() && i < 20; ++i) first += failures[i] + "\n";
  INFO(failures.size(), " damaged files failed otherwise than with the input error of their kind; the first:\n", first);
  CHECK(failures.empty());
}

// The 8-byte little-endian header length, the header, the data: a safetensors file.
void write_raw_safetensors(const fs::path& path, const json& header, const std::string& data) {
  const std::string text = header.dump();
  const uint64_t length = text.size();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&length), sizeof(length));  // little-endian, as the format is
  out << text << data;
}

mt::CheckpointMetadata full_metadata() {
  mt::CheckpointMetadata m;
  m.identity = {"fsdp", 2, "fp32", "f00d", {}};
  m.global_step = 12;
  m.tokens_seen = 12288;
  m.created_at = "2026-12-01T00:00:00Z";
  m.files = {{"rank_00000.shard", 10, "ab"}, {"rank_00001.shard", 11, "cd"}};
  m.settings = {{"d_model", 32}, {"n_layers", 2}};
  m.gemm_backends = json::array({{{"shape", "32×96×32 (A·Bᵀ)"}, {"backend", "onednn"}}});
  mt::CheckpointLayout layout;
  mt::LogicalTensor weight{"blocks.0.mlp.weight", {4, 3}, {}};
  weight.pieces = {{0, "model/unit_0", 0, 6, 0, 0}, {1, "model/unit_0", 0, 6, 6, 0}};
  mt::LogicalTensor bias{"blocks.0.mlp.bias", {4}, {}};
  bias.pieces = {{0, "model/unit_0", 6, 2, 0, 6}, {1, "model/unit_0", 6, 2, 2, 6}};
  layout.parameters = {weight, bias};
  m.layout = layout;
  return m;
}

// A shard file whose header is `header`, over `data`, laid out as write_shard_file lays it out:
// the magic, the header's length, the header, the tensors' bytes.
void write_raw_shard(const fs::path& path, const std::string& magic, const json& header, const std::string& data) {
  const std::string text = header.dump();
  const uint64_t length = text.size();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << magic;
  out.write(reinterpret_cast<const char*>(&length), sizeof(length));
  out << text << data;
}

}  // namespace

TEST_CASE("a damaged metadata.json is read or refused with a CheckpointError, whatever the damage") {
  const auto root = scratch("metadata") / "step_00000012";
  fs::create_directories(root);
  const json intact = to_json(full_metadata());
  {
    std::ofstream(root / "metadata.json") << intact.dump();
    const auto back = mt::read_metadata(root);  // the intact copy reads back whole
    REQUIRE(back.layout.has_value());
    CHECK(back.layout->parameters.size() == 2);
  }
  std::vector<std::string> failures;
  std::size_t tried = 0;
  for_each_damage(intact, [&](const json& damaged, const std::string& what) {
    ++tried;
    std::ofstream(root / "metadata.json", std::ios::trunc) << damaged.dump();
    expect_checkpoint_error_or_nothing([&] { mt::read_metadata(root); }, what, failures);
  });
  MESSAGE(tried, " damaged copies of metadata.json read");
  check_no_failures(failures);
  fs::remove_all(root.parent_path());
}

TEST_CASE("a shard file with a damaged header is read or refused with a CheckpointError, whatever the damage") {
  const auto dir = scratch("shard");
  const auto path = dir / "rank_00000.shard";
  mt::write_shard_file(path, {{"model/unit_0", torch::arange(12, torch::kFloat).reshape({3, 4})},
                              {"optimizer/steps", torch::tensor({7}, torch::kLong)}});
  // Taken apart as it was written, to be put together again around each damaged header.
  std::ifstream in(path, std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::size_t kMagicBytes = 8;
  uint64_t length = 0;
  std::memcpy(&length, raw.data() + kMagicBytes, sizeof(length));
  const std::string magic = raw.substr(0, kMagicBytes);
  const json intact = json::parse(raw.substr(kMagicBytes + sizeof(length), length));
  const std::string data = raw.substr(kMagicBytes + sizeof(length) + length);
  write_raw_shard(path, magic, intact, data);
  REQUIRE(mt::read_shard_file(path).size() == 2);  // taken apart and put together faithfully

  std::vector<std::string> failures;
  std::size_t tried = 0;
  for_each_damage(intact, [&](const json& damaged, const std::string& what) {
    ++tried;
    write_raw_shard(path, magic, damaged, data);
    expect_checkpoint_error_or_nothing([&] { mt::read_shard_file(path); }, what + " (whole file)", failures);
    expect_checkpoint_error_or_nothing(
        [&] {
          mt::ShardReader reader(path);
          for (const auto& entry : reader.entries()) reader.read_elements(entry.name, 0, 1);
        },
        what + " (element by element)", failures);
  });
  MESSAGE(tried, " damaged shard headers read");
  check_no_failures(failures);
  fs::remove_all(dir);
}

TEST_CASE("a safetensors file with a damaged header is read or refused with an InputError, whatever the damage") {
  const auto dir = scratch("safetensors");
  const auto path = dir / "model.safetensors";
  mt::write_safetensors(
      path,
      {{"wte.weight", torch::arange(12, torch::kFloat).reshape({3, 4})}, {"steps", torch::tensor({7}, torch::kLong)}},
      {{"format", "pt"}});
  std::ifstream in(path, std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t length = 0;
  std::memcpy(&length, raw.data(), sizeof(length));
  const json intact = json::parse(raw.substr(sizeof(length), length));
  const std::string data = raw.substr(sizeof(length) + length);
  write_raw_safetensors(path, intact, data);
  REQUIRE(mt::read_safetensors(path).size() == 2);  // taken apart and put together faithfully

  std::vector<std::string> failures;
  std::size_t tried = 0;
  for_each_damage(intact, [&](const json& damaged, const std::string& what) {
    ++tried;
    write_raw_safetensors(path, damaged, data);
    expect_refusal_or_nothing<mt::InputError>([&] { mt::read_safetensors(path); }, what, failures);
  });
  MESSAGE(tried, " damaged safetensors headers read");
  check_no_failures(failures);
  fs::remove_all(dir);
}

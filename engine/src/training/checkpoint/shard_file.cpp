#include "training/checkpoint/shard_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <numeric>
#include <nlohmann/json.hpp>

#include "core/job/whole_numbers.h"
#include "training/checkpoint/checkpoint_error.h"
#include "training/checkpoint/durable_file.h"
#include "training/checkpoint/sha256.h"

namespace mt {
namespace {

constexpr char kMagic[8] = {'M', 'T', 'S', 'H', 'A', 'R', 'D', '1'};

const char* dtype_name(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat: return "f32";
    case torch::kDouble: return "f64";
    case torch::kBFloat16: return "bf16";
    case torch::kLong: return "i64";
    case torch::kInt: return "i32";
    case torch::kByte: return "u8";
    default: throw CheckpointError(std::string("checkpoint: cannot store tensors of type ") + c10::toString(type));
  }
}

torch::ScalarType dtype_of(const std::string& name, const std::filesystem::path& file) {
  if (name == "f32") return torch::kFloat;
  if (name == "f64") return torch::kDouble;
  if (name == "bf16") return torch::kBFloat16;
  if (name == "i64") return torch::kLong;
  if (name == "i32") return torch::kInt;
  if (name == "u8") return torch::kByte;
  throw CheckpointError("checkpoint file '" + file.string() + "': unknown dtype '" + name + "'");
}

}  // namespace

WrittenFile write_shard_file(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                             const std::function<void(std::size_t)>& after_tensor) {
  std::vector<torch::Tensor> host;
  nlohmann::json entries = nlohmann::json::array();
  uint64_t offset = 0;
  for (const auto& named : tensors) {
    auto t = named.tensor.detach().to(torch::kCPU).contiguous();
    const auto bytes = static_cast<uint64_t>(t.nbytes());
    entries.push_back({{"name", named.name},
                       {"dtype", dtype_name(t.scalar_type())},
                       {"shape", t.sizes().vec()},
                       {"offset", offset},
                       {"bytes", bytes},
                       {"sha256", sha256_hex(t.data_ptr(), bytes)}});
    offset += bytes;
    host.push_back(std::move(t));
  }
  const std::string header = nlohmann::json{{"format_version", kShardFormatVersion}, {"tensors", entries}}.dump();
  const uint64_t header_bytes = header.size();

  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error("cannot create checkpoint file '" + path.string() + "': " + std::strerror(errno));
  const std::string what = "checkpoint file '" + path.string() + "'";
  Sha256 file_digest;
  WrittenFile written;
  auto put = [&](const void* data, std::size_t bytes) {
    write_all(fd, data, bytes, what);
    file_digest.update(data, bytes);
    written.bytes += bytes;
  };
  try {
    put(kMagic, sizeof(kMagic));
    put(&header_bytes, sizeof(header_bytes));
    put(header.data(), header.size());
    for (std::size_t i = 0; i < host.size(); ++i) {
      put(host[i].data_ptr(), host[i].nbytes());
      if (after_tensor) after_tensor(i);
    }
    if (::fsync(fd) != 0) throw std::runtime_error("cannot fsync " + what + ": " + std::strerror(errno));
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw std::runtime_error("cannot close " + what + ": " + std::strerror(errno));
  written.sha256 = file_digest.hex();
  return written;
}

namespace {

// A shard opened for reading: its validated index, and the stream just past the header.
struct OpenShard {
  std::ifstream in;
  std::vector<ShardEntry> entries;
  uint64_t data_start = 0;  // file offset of the first tensor's bytes
  std::string head;         // the bytes before the data (magic, header length, header), for the file's digest
};

OpenShard open_shard(const std::filesystem::path& path) {
  const std::string where = "checkpoint file '" + path.string() + "'";
  OpenShard shard;
  require_regular_file(path);
  shard.in.open(path, std::ios::binary);
  std::ifstream& in = shard.in;
  if (!in) throw CheckpointError("cannot read " + where);
  char magic[sizeof(kMagic)] = {};
  uint64_t header_bytes = 0;
  in.read(magic, sizeof(magic));
  in.read(reinterpret_cast<char*>(&header_bytes), sizeof(header_bytes));
  if (!in || std::memcmp(magic, kMagic, sizeof(kMagic)) != 0)
    throw CheckpointError(where + " is not an mtengine checkpoint shard");
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);
  const uint64_t data_start = sizeof(kMagic) + sizeof(header_bytes) + header_bytes;
  if (ec || header_bytes > file_bytes || data_start > file_bytes) throw CheckpointError(where + " is truncated");
  std::string header(header_bytes, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_bytes));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(header);
  } catch (const std::exception& e) {
    throw CheckpointError(where + ": damaged header: " + e.what());
  }
  try {
    const int64_t version = doc.contains("format_version") ? whole_field(doc, "format_version", 0, 1 << 30) : 0;
    if (version > kShardFormatVersion)
      throw CheckpointError(where + " has format version " + std::to_string(version) + "; this mtengine reads up to " +
                            std::to_string(kShardFormatVersion) + ": use a newer mtengine");
    constexpr int64_t kMost = std::numeric_limits<int64_t>::max();
    for (const auto& e : doc.at("tensors")) {
      ShardEntry entry{e.at("name"),
                       e.at("dtype"),
                       shape_field(e, "shape", std::numeric_limits<int64_t>::min()),
                       uint64_t(whole_field(e, "offset", 0, kMost)),
                       uint64_t(whole_field(e, "bytes", 0, kMost)),
                       e.at("sha256")};
      // Every dimension non-negative and the element count bounded by the bytes the file holds,
      // before any allocation: a forged shape is damage, not a request for 2^64 bytes.
      uint64_t elements = 1;
      for (int64_t dim : entry.shape) {
        if (dim < 0 || (dim > 0 && elements > file_bytes / static_cast<uint64_t>(dim)))
          throw CheckpointError(where + ": tensor '" + entry.name + "' has an impossible shape (damaged header)");
        elements *= static_cast<uint64_t>(dim);
      }
      if (entry.offset > file_bytes || entry.bytes > file_bytes || data_start + entry.offset + entry.bytes > file_bytes)
        throw CheckpointError(where + " is truncated: tensor '" + entry.name + "' is cut off");
      shard.entries.push_back(std::move(entry));
    }
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(where + ": damaged header: " + e.what());
  } catch (const CheckpointError&) {
    throw;  // said of the file already (a newer format, a cut-off tensor)
  } catch (const InputError& e) {
    throw CheckpointError(where + ": damaged header: " + e.what());  // a number that is none
  }
  shard.data_start = data_start;
  shard.head.append(magic, sizeof(magic));
  shard.head.append(reinterpret_cast<const char*>(&header_bytes), sizeof(header_bytes));
  shard.head += header;
  return shard;
}

// Reads `bytes` into `data` (or discards them when null), feeding the digest.
void read_into(std::ifstream& in, char* data, uint64_t bytes, Sha256* digest) {
  char scratch[1 << 16];
  while (bytes > 0 && in) {
    const auto chunk = data ? bytes : std::min<uint64_t>(bytes, sizeof(scratch));
    char* target = data ? data : scratch;
    in.read(target, static_cast<std::streamsize>(chunk));
    const auto got = static_cast<uint64_t>(in.gcount());
    if (digest) digest->update(target, got);
    bytes -= got;
    if (data) data += got;
  }
}

}  // namespace

std::vector<ShardEntry> read_shard_index(const std::filesystem::path& path) { return open_shard(path).entries; }

struct ShardReader::Impl {
  std::filesystem::path path;
  OpenShard shard;
};

ShardReader::ShardReader(const std::filesystem::path& path) : impl_(new Impl{path, open_shard(path)}) {}
ShardReader::~ShardReader() = default;
ShardReader::ShardReader(ShardReader&&) noexcept = default;

const std::vector<ShardEntry>& ShardReader::entries() const { return impl_->shard.entries; }

torch::Tensor ShardReader::read_elements(const std::string& name, int64_t first, int64_t count) {
  const std::string where = "checkpoint file '" + impl_->path.string() + "'";
  const auto& entries = impl_->shard.entries;
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const ShardEntry& e) { return e.name == name; });
  if (it == entries.end()) throw CheckpointError(where + " lacks tensor '" + name + "'");
  const auto type = dtype_of(it->dtype, impl_->path);
  const auto element = static_cast<int64_t>(c10::elementSize(type));
  if (first < 0 || count < 0 || static_cast<uint64_t>((first + count) * element) > it->bytes)
    throw CheckpointError(
        fmt::format("{}: elements [{}, {}) lie outside tensor '{}'", where, first, first + count, name));
  auto out = torch::empty({count}, torch::TensorOptions().dtype(type));
  auto& in = impl_->shard.in;
  in.clear();
  in.seekg(static_cast<std::streamoff>(impl_->shard.data_start + it->offset + static_cast<uint64_t>(first * element)));
  read_into(in, static_cast<char*>(out.data_ptr()), static_cast<uint64_t>(count * element), nullptr);
  if (!in) throw CheckpointError(where + " is truncated: tensor '" + name + "' is cut off");
  return out;
}

std::vector<NamedTensor> read_shard_file(const std::filesystem::path& path, const std::string& file_sha256) {
  OpenShard shard = open_shard(path);
  const std::string where = "checkpoint file '" + path.string() + "'";
  const bool whole_file = !file_sha256.empty();
  Sha256 file_digest;
  if (whole_file) file_digest.update(shard.head.data(), shard.head.size());
  // In the order the bytes lie in the file, so the file is read front to back once; returned in
  // the header's order.
  std::vector<std::size_t> by_offset(shard.entries.size());
  std::iota(by_offset.begin(), by_offset.end(), std::size_t{0});
  std::stable_sort(by_offset.begin(), by_offset.end(),
                   [&](std::size_t a, std::size_t b) { return shard.entries[a].offset < shard.entries[b].offset; });
  std::vector<NamedTensor> out(shard.entries.size());
  uint64_t at = 0;  // offset within the data
  for (const std::size_t i : by_offset) {
    const ShardEntry* entry = &shard.entries[i];
    auto t = torch::empty(entry->shape, torch::TensorOptions().dtype(dtype_of(entry->dtype, path)));
    if (static_cast<uint64_t>(t.nbytes()) != entry->bytes)
      throw CheckpointError(where + ": tensor '" + entry->name + "' has a shape that does not match its length");
    if (entry->offset < at) throw CheckpointError(where + ": tensor '" + entry->name + "' overlaps another");
    read_into(shard.in, nullptr, entry->offset - at, whole_file ? &file_digest : nullptr);
    read_into(shard.in, static_cast<char*>(t.data_ptr()), entry->bytes, whole_file ? &file_digest : nullptr);
    if (!shard.in) throw CheckpointError(where + " is truncated: tensor '" + entry->name + "' is cut off");
    if (!whole_file && sha256_hex(t.data_ptr(), entry->bytes) != entry->sha256)
      throw CheckpointError(where + ": tensor '" + entry->name + "' does not match its checksum (damaged file)");
    at = entry->offset + entry->bytes;
    out[i] = {entry->name, std::move(t)};
  }
  if (whole_file) {
    read_into(shard.in, nullptr, std::numeric_limits<uint64_t>::max(), &file_digest);  // to the end
    if (file_digest.hex() != file_sha256) throw CheckpointError(where + " does not match its SHA-256 (damaged)");
  }
  return out;
}

}  // namespace mt

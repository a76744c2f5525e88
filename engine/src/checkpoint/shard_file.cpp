#include "checkpoint/shard_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/durable_file.h"
#include "checkpoint/sha256.h"

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
  if (fd < 0) throw std::runtime_error("cannot create checkpoint file '" + path.string() + "': " + std::strerror(errno));
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

std::vector<ShardEntry> read_shard_index(const std::filesystem::path& path) {
  const std::string where = "checkpoint file '" + path.string() + "'";
  std::ifstream in(path, std::ios::binary);
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
  const int version = doc.value("format_version", 0);
  if (version > kShardFormatVersion)
    throw CheckpointError(where + " has format version " + std::to_string(version) + "; this mtengine reads up to " +
                          std::to_string(kShardFormatVersion) + ": use a newer mtengine");
  std::vector<ShardEntry> entries;
  for (const auto& e : doc.at("tensors")) {
    ShardEntry entry{e.at("name"), e.at("dtype"), e.at("shape").get<std::vector<int64_t>>(),
                     e.at("offset").get<uint64_t>(), e.at("bytes").get<uint64_t>(), e.at("sha256")};
    if (data_start + entry.offset + entry.bytes > file_bytes)
      throw CheckpointError(where + " is truncated: tensor '" + entry.name + "' is cut off");
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<NamedTensor> read_shard_file(const std::filesystem::path& path) {
  const auto entries = read_shard_index(path);
  std::ifstream in(path, std::ios::binary);
  uint64_t header_bytes = 0;
  in.seekg(sizeof(kMagic));
  in.read(reinterpret_cast<char*>(&header_bytes), sizeof(header_bytes));
  const uint64_t data_start = sizeof(kMagic) + sizeof(header_bytes) + header_bytes;
  std::vector<NamedTensor> out;
  for (const auto& entry : entries) {
    auto t = torch::empty(entry.shape, torch::TensorOptions().dtype(dtype_of(entry.dtype, path)));
    if (static_cast<uint64_t>(t.nbytes()) != entry.bytes)
      throw CheckpointError("checkpoint file '" + path.string() + "': tensor '" + entry.name +
                            "' has a shape that does not match its length");
    in.seekg(static_cast<std::streamoff>(data_start + entry.offset));
    in.read(static_cast<char*>(t.data_ptr()), static_cast<std::streamsize>(entry.bytes));
    if (!in || sha256_hex(t.data_ptr(), entry.bytes) != entry.sha256)
      throw CheckpointError("checkpoint file '" + path.string() + "': tensor '" + entry.name +
                            "' does not match its checksum (damaged file)");
    out.push_back({entry.name, std::move(t)});
  }
  return out;
}

}  // namespace mt

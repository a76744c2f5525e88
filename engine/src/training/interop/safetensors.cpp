#include "training/interop/safetensors.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/job/input_error.h"
#include "core/job/output_file.h"
#include "core/job/whole_numbers.h"
#include "training/checkpoint/durable_file.h"

namespace mt {
namespace {

namespace fs = std::filesystem;

// The safetensors package refuses headers above 100 MB; so do we, before allocating one.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DtypeName {
  torch::ScalarType dtype;
  const char* name;
};
constexpr std::array<DtypeName, 9> kDtypes = {{{torch::kFloat, "F32"},
                                               {torch::kDouble, "F64"},
                                               {torch::kBFloat16, "BF16"},
                                               {torch::kHalf, "F16"},
                                               {torch::kLong, "I64"},
                                               {torch::kInt, "I32"},
                                               {torch::kShort, "I16"},
                                               {torch::kChar, "I8"},
                                               {torch::kByte, "U8"}}};

uint64_t element_bytes(torch::ScalarType dtype) { return c10::elementSize(dtype); }

uint64_t checked_numel(const std::vector<int64_t>& shape, const std::string& where) {
  uint64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw InputError(where + ": negative dimension");
    if (d != 0 && n > UINT64_MAX / static_cast<uint64_t>(d)) throw InputError(where + ": shape overflows");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

uint64_t read_le64(const unsigned char* b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[i];
  return v;
}

}  // namespace

const SafetensorsEntry* SafetensorsIndex::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::string safetensors_dtype_name(torch::ScalarType dtype) {
  for (const auto& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  throw InputError(fmt::format("safetensors cannot hold {} tensors", c10::toString(dtype)));
}

SafetensorsIndex read_safetensors_index(const fs::path& path) {
  const std::string file = fmt::format("'{}'", path.string());
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(file + " does not exist");
  if (!fs::is_regular_file(path, ec)) throw InputError(file + " is not a regular file");
  const uint64_t size = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (!in || ec) throw InputError("cannot read " + file);
  std::array<unsigned char, 8> length{};
  if (size < 8 || !in.read(reinterpret_cast<char*>(length.data()), 8))
    throw InputError(file + " is not a safetensors file: shorter than its 8-byte header length");
  const uint64_t header_bytes = read_le64(length.data());
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8)
    throw InputError(
        fmt::format("{} is not a safetensors file: header length {} for a file of {} bytes", file, header_bytes, size));
  std::string text(header_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(header_bytes));
  if (!in) throw InputError("cannot read the header of " + file);

  SafetensorsIndex index;
  index.data_start = 8 + header_bytes;
  const uint64_t data_bytes = size - index.data_start;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file + " is not a safetensors file: its header is not JSON (" + e.what() + ")");
  }
  if (!header.is_object()) throw InputError(file + " is not a safetensors file: its header is not a JSON object");
  for (const auto& [name, value] : header.items()) {
    const std::string where = fmt::format("{}: tensor '{}'", file, name);
    if (name == "__metadata__") {
      if (!value.is_object()) throw InputError(file + ": __metadata__ is not an object");
      for (const auto& [key, v] : value.items()) {
        if (!v.is_string()) throw InputError(fmt::format("{}: metadata '{}' is not a string", file, key));
        index.metadata[key] = v.get<std::string>();
      }
      continue;
    }
    try {
      SafetensorsEntry entry;
      entry.name = name;
      const auto dtype = value.at("dtype").get<std::string>();
      const auto* known = std::find_if(kDtypes.begin(), kDtypes.end(), [&](const auto& d) { return dtype == d.name; });
      if (known == kDtypes.end()) throw InputError(where + ": dtype '" + dtype + "' is not supported");
      entry.dtype = known->dtype;
      // Whole numbers, before anything is sized by them (1.5 would truncate, 1e300 convert with
      // undefined behaviour); a negative dimension is named below.
      std::vector<uint64_t> offsets;
      try {
        entry.shape = shape_field(value, "shape", std::numeric_limits<int64_t>::min());
        if (value.at("data_offsets").is_array())
          for (const auto& offset : value.at("data_offsets"))
            offsets.push_back(uint64_t(whole_number(offset, "data_offsets", 0, std::numeric_limits<int64_t>::max())));
      } catch (const InputError& e) {
        throw InputError(where + ": " + e.what());
      }
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_bytes)
        throw InputError(fmt::format("{}: data_offsets {} outside the {} data bytes", where,
                                     value.at("data_offsets").dump(), data_bytes));
      entry.begin = offsets[0];
      entry.end = offsets[1];
      const uint64_t numel = checked_numel(entry.shape, where);
      if (numel > data_bytes || numel * element_bytes(entry.dtype) != entry.end - entry.begin)
        throw InputError(fmt::format("{}: shape {} of {} needs {} bytes, its range holds {}", where,
                                     value.at("shape").dump(), dtype, numel * element_bytes(entry.dtype),
                                     entry.end - entry.begin));
      index.tensors.push_back(std::move(entry));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + " is malformed: " + e.what());
    }
  }
  std::sort(index.tensors.begin(), index.tensors.end(), [](const auto& a, const auto& b) { return a.begin < b.begin; });
  for (std::size_t i = 1; i < index.tensors.size(); ++i)
    if (index.tensors[i].begin < index.tensors[i - 1].end)
      throw InputError(
          fmt::format("{}: tensors '{}' and '{}' overlap", file, index.tensors[i - 1].name, index.tensors[i].name));
  return index;
}

torch::Tensor read_safetensors_tensor(const fs::path& path, const SafetensorsIndex& index,
                                      const SafetensorsEntry& entry) {
  auto out = torch::empty(entry.shape, torch::TensorOptions().dtype(entry.dtype));
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(index.data_start + entry.begin));
  // The host is little-endian (x86-64, AArch64), as the format is.
  in.read(static_cast<char*>(out.data_ptr()), static_cast<std::streamsize>(entry.end - entry.begin));
  if (!in) throw InputError(fmt::format("cannot read tensor '{}' of '{}'", entry.name, path.string()));
  return out;
}

std::map<std::string, torch::Tensor> read_safetensors(const fs::path& path) {
  const auto index = read_safetensors_index(path);
  std::map<std::string, torch::Tensor> out;
  for (const auto& entry : index.tensors) out[entry.name] = read_safetensors_tensor(path, index, entry);
  return out;
}

SafetensorsWriter::SafetensorsWriter(fs::path path, std::vector<Declared> tensors,
                                     const std::map<std::string, std::string>& metadata)
    : path_(std::move(path)),
      target_(output_target(path_)),
      temp_(target_.string() + fmt::format(".tmp.{}", getpid())),
      tensors_(std::move(tensors)) {
  // Renaming over a device, FIFO or directory would replace it, not write to it.
  try {
    require_replaceable(path_);
  } catch (const std::runtime_error& e) {
    throw InputError(e.what());
  }
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    const uint64_t bytes = checked_numel(t.shape, "tensor '" + t.name + "'") * element_bytes(t.dtype);
    if (header.contains(t.name)) throw std::invalid_argument("safetensors: tensor '" + t.name + "' declared twice");
    header[t.name] = {
        {"dtype", safetensors_dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // the data section starts 8-byte aligned
  errno = 0;
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  // Named by the file asked for, not the temporary one beside it, with the system's reason.
  if (!out_)
    throw InputError(
        fmt::format("cannot write '{}': {}", path_.string(), errno ? std::strerror(errno) : "cannot create it"));
  std::array<char, 8> length{};
  for (int i = 0; i < 8; ++i) length[static_cast<std::size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xff);
  out_.write(length.data(), 8);
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
}

SafetensorsWriter::~SafetensorsWriter() {
  if (finished_) return;
  out_.close();
  std::error_code ignored;
  fs::remove(temp_, ignored);
}

void SafetensorsWriter::write(const torch::Tensor& tensor) {
  if (next_ >= tensors_.size()) throw std::logic_error("safetensors: more tensors written than declared");
  const auto& declared = tensors_[next_++];
  if (tensor.scalar_type() != declared.dtype || tensor.sizes() != c10::IntArrayRef(declared.shape))
    throw std::logic_error("safetensors: tensor '" + declared.name + "' differs from its declaration");
  const auto bytes = tensor.to(torch::kCPU).contiguous();
  out_.write(static_cast<const char*>(bytes.data_ptr()), static_cast<std::streamsize>(bytes.nbytes()));
  if (!out_) throw InputError("cannot write '" + temp_.string() + "' (disk full?)");
}

void SafetensorsWriter::finish() {
  if (next_ != tensors_.size()) throw std::logic_error("safetensors: fewer tensors written than declared");
  out_.close();
  if (!out_) throw InputError("cannot write '" + temp_.string() + "' (disk full?)");
  fsync_path(temp_);
  fs::rename(temp_, target_);
  fsync_path(target_.parent_path().empty() ? fs::path(".") : target_.parent_path());
  finished_ = true;
}

void write_safetensors(const fs::path& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::vector<SafetensorsWriter::Declared> declared;
  for (const auto& t : tensors)
    declared.push_back(
        {t.name, t.tensor.scalar_type(), std::vector<int64_t>(t.tensor.sizes().begin(), t.tensor.sizes().end())});
  SafetensorsWriter writer(path, std::move(declared), metadata);
  for (const auto& t : tensors) writer.write(t.tensor);
  writer.finish();
}

}  // namespace mt

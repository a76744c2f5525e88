// The safetensors file format (as the Hugging Face `safetensors` package reads and writes it): an
// 8-byte little-endian header length, a JSON header mapping each tensor's name to its dtype, shape
// and [begin, end) byte range within the data that follows, plus an optional "__metadata__" map of
// strings, then the tensors' bytes, little-endian, row-major. Reading validates everything
// (header size, dtypes, shapes against byte ranges, ranges inside the file, no overlaps) and
// names the file and the tensor in its error; writing streams one tensor at a time and publishes
// the file atomically.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "training/checkpoint/named_tensor.h"

namespace mt {

struct SafetensorsEntry {
  std::string name;
  torch::ScalarType dtype = torch::kFloat;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range within the data section
};

struct SafetensorsIndex {
  std::vector<SafetensorsEntry> tensors;  // in the order of their bytes
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // file offset of the data section

  const SafetensorsEntry* find(const std::string& name) const;
};

// "F32" for torch::kFloat, and so on; throws InputError for a dtype safetensors cannot hold.
std::string safetensors_dtype_name(torch::ScalarType dtype);

// Throws InputError naming the file and what is wrong.
SafetensorsIndex read_safetensors_index(const std::filesystem::path& path);
torch::Tensor read_safetensors_tensor(const std::filesystem::path& path, const SafetensorsIndex& index,
                                      const SafetensorsEntry& entry);
std::map<std::string, torch::Tensor> read_safetensors(const std::filesystem::path& path);

// Declares every tensor up front (the header comes first), then takes their values in that order,
// writing each as it arrives: a writer never holds more than the tensor it is given. finish()
// fsyncs and renames the file into place; a writer destroyed before finish() leaves nothing.
class SafetensorsWriter {
 public:
  struct Declared {
    std::string name;
    torch::ScalarType dtype;
    std::vector<int64_t> shape;
  };
  SafetensorsWriter(std::filesystem::path path, std::vector<Declared> tensors,
                    const std::map<std::string, std::string>& metadata);
  ~SafetensorsWriter();
  SafetensorsWriter(const SafetensorsWriter&) = delete;
  SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

  void write(const torch::Tensor& tensor);  // the next declared tensor, checked against its declaration
  void finish();

 private:
  std::filesystem::path path_;    // as asked for: messages name it
  std::filesystem::path target_;  // the file a symlink names, or path_: renamed over
  std::filesystem::path temp_;
  std::vector<Declared> tensors_;
  std::size_t next_ = 0;
  std::ofstream out_;
  bool finished_ = false;
};

void write_safetensors(const std::filesystem::path& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata);

}  // namespace mt

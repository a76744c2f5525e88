#include "torch_doctest.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "training/checkpoint/metadata.h"
#include "training/checkpoint/sha256.h"
#include "training/checkpoint/shard_file.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch_file(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mt_ckpt_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST_CASE("SHA-256 matches the standard test vector") {
  CHECK(mt::sha256_hex(std::string("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_CASE("a shard file round-trips every tensor bit for bit, with its type and shape") {
  const auto path = scratch_file("roundtrip.shard");
  torch::manual_seed(1);
  const std::vector<mt::NamedTensor> tensors = {
      {"model/unit_0", torch::randn({3, 5})},
      {"optimizer/steps", torch::tensor({1, 2, 3}, torch::TensorOptions().dtype(torch::kLong))},
      {"rng/cpu", torch::randint(0, 255, {16}, torch::TensorOptions().dtype(torch::kByte))},
      {"scheduler/learning_rate", torch::tensor({3e-4}, torch::TensorOptions().dtype(torch::kDouble))}};
  const mt::WrittenFile written = mt::write_shard_file(path, tensors);
  // The digest taken on the way out is the file's: what metadata records and loading checks.
  CHECK(written.bytes == fs::file_size(path));
  CHECK(written.sha256 == mt::sha256_file(path));
  // Checked tensor by tensor, and checked as a whole file in one read: the same tensors.
  for (const std::string& file_sha256 : {std::string(), written.sha256}) {
    const auto back = mt::read_shard_file(path, file_sha256);
    REQUIRE(back.size() == tensors.size());
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      CHECK(back[i].name == tensors[i].name);
      CHECK(std::string(c10::toString(back[i].tensor.scalar_type())) == c10::toString(tensors[i].tensor.scalar_type()));
      CHECK(torch::equal(back[i].tensor, tensors[i].tensor));
    }
  }
  fs::remove(path);
}

TEST_CASE("a flipped byte or a truncation is caught, naming the file and tensor") {
  const auto path = scratch_file("damaged.shard");
  const mt::WrittenFile written =
      mt::write_shard_file(path, {{"model/a", torch::ones({64})}, {"model/b", torch::zeros({64})}});
  const auto size = fs::file_size(path);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 10));
    f.put('\x7f');
  }
  CHECK_THROWS_WITH(mt::read_shard_file(path), doctest::Contains("tensor 'model/b' does not match its checksum"));
  // Read once against the file's recorded digest, the flipped byte fails the whole file.
  CHECK_THROWS_WITH(mt::read_shard_file(path, written.sha256), doctest::Contains("does not match its SHA-256"));
  fs::resize_file(path, size - 100);
  CHECK_THROWS_WITH(mt::read_shard_file(path), doctest::Contains("is truncated"));
  CHECK_THROWS_WITH(mt::read_shard_file(path, written.sha256), doctest::Contains("is truncated"));
  fs::remove(path);
}

TEST_CASE("read against its digest, bytes appended past the last tensor are damage too") {
  const auto path = scratch_file("trailing.shard");
  const mt::WrittenFile written = mt::write_shard_file(path, {{"model/a", torch::ones({8})}});
  CHECK(mt::read_shard_file(path, written.sha256).size() == 1);
  { std::ofstream(path, std::ios::app | std::ios::binary) << "trailing"; }
  CHECK(mt::read_shard_file(path).size() == 1);  // tensor digests alone cannot see bytes past the tensors
  CHECK_THROWS_WITH(mt::read_shard_file(path, written.sha256), doctest::Contains("does not match its SHA-256"));
  fs::remove(path);
}

TEST_CASE("the kill hook runs after each tensor: a save can be cut short mid-file") {
  const auto path = scratch_file("partial.shard");
  std::vector<std::size_t> seen;
  mt::write_shard_file(path, {{"a/x", torch::ones({4})}, {"a/y", torch::ones({4})}},
                       [&](std::size_t i) { seen.push_back(i); });
  CHECK(seen == std::vector<std::size_t>{0, 1});
  fs::remove(path);
}

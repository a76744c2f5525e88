#include "store/wal_copy.h"

#include <stdlib.h>

#include <array>
#include <cstdint>
#include <fstream>

#include <fmt/format.h>

#include "runner_error.h"

namespace mt {
namespace {

constexpr std::size_t kWalHeader = 32;
constexpr std::size_t kFrameHeader = 24;

std::filesystem::path wal_of(const std::filesystem::path& file) { return file.string() + "-wal"; }

std::uint32_t big_endian(const unsigned char* p) {
  return std::uint32_t(p[0]) << 24 | std::uint32_t(p[1]) << 16 | std::uint32_t(p[2]) << 8 | p[3];
}

// The first `n` bytes of `file`, fewer if it is shorter.
std::string head(const std::filesystem::path& file, std::size_t n) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes(n, '\0');
  in.read(bytes.data(), std::streamsize(n));
  bytes.resize(std::size_t(in.gcount()));
  return bytes;
}

RunnerError foreign(const std::filesystem::path& file, const std::string& why) {
  return RunnerError(kExitUsage, fmt::format("{} is not a write-ahead log of {} ({}); move it aside to read {} "
                                             "without it",
                                             wal_of(file).string(), file.string(), why, file.string()));
}

// The database's page size from its header (offset 16; 1 stands for 65536), or 0 if unreadable.
std::uint32_t database_page_size(const std::filesystem::path& file) {
  const std::string h = head(file, 100);
  if (h.size() < 100) return 0;
  const auto* p = reinterpret_cast<const unsigned char*>(h.data()) + 16;
  const std::uint32_t size = std::uint32_t(p[0]) << 8 | p[1];
  return size == 1 ? 65536 : size;
}

// The WAL header's checksum over its first 24 bytes, as SQLite computes it (the magic number's
// last bit says the byte order of the words).
bool header_checksum_matches(const unsigned char* h) {
  const bool big = big_endian(h) & 1;
  std::uint32_t s1 = 0, s2 = 0;
  for (int i = 0; i < 24; i += 8) {
    auto word = [&](int at) {
      const unsigned char* p = h + at;
      return big ? big_endian(p)
                 : std::uint32_t(p[3]) << 24 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[1]) << 8 | p[0];
    };
    s1 += word(i) + s2;
    s2 += word(i + 4) + s1;
  }
  return s1 == big_endian(h + 24) && s2 == big_endian(h + 28);
}

}  // namespace

WalFile inspect_wal(const std::filesystem::path& file) {
  const auto wal = wal_of(file);
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(wal, ec);
  if (!std::filesystem::exists(status)) return WalFile::None;
  if (!std::filesystem::is_regular_file(std::filesystem::status(wal, ec))) {
    throw RunnerError(kExitUsage, fmt::format("{} is not a regular file, so {} cannot be read with its write-ahead "
                                              "log; move it aside to read {} without it",
                                              wal.string(), file.string(), file.string()));
  }
  const std::string h = head(wal, kWalHeader);
  if (h.empty()) return WalFile::Empty;
  if (h.size() < kWalHeader) throw foreign(file, "it is shorter than a WAL header");
  const auto* p = reinterpret_cast<const unsigned char*>(h.data());
  const std::uint32_t magic = big_endian(p);
  if ((magic != 0x377f0682 && magic != 0x377f0683) || big_endian(p + 4) != 3007000) {
    throw foreign(file, "its header is not a WAL header");
  }
  if (!header_checksum_matches(p)) throw foreign(file, "its header checksum does not match");
  const std::uint32_t page_size = big_endian(p + 8);
  if (page_size != database_page_size(file)) {
    throw foreign(file, fmt::format("its page size {} is not the database's {}", page_size, database_page_size(file)));
  }
  return WalFile::Frames;
}

std::unique_ptr<Database> open_private_copy(const std::filesystem::path& file) {
  std::string pattern = (std::filesystem::temp_directory_path() / "mtrun-read.XXXXXX").string();
  if (!::mkdtemp(pattern.data())) {
    throw RunnerError(kExitUsage, fmt::format("cannot read {} with its write-ahead log: no private directory for a "
                                              "copy under {}",
                                              file.string(), std::filesystem::temp_directory_path().string()));
  }
  const std::filesystem::path dir = pattern;
  const std::filesystem::path copy = dir / "copy.sqlite";
  std::error_code ec;
  std::filesystem::copy_file(file, copy, ec);
  if (!ec) std::filesystem::copy_file(wal_of(file), wal_of(copy), ec);
  // The copies keep the originals' permissions; SQLite must be able to write the copy's WAL index.
  const auto owner = std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;
  if (!ec) std::filesystem::permissions(copy, owner, ec);
  if (!ec) std::filesystem::permissions(wal_of(copy), owner, ec);
  if (ec) {
    std::filesystem::remove_all(dir, ec);
    throw RunnerError(kExitUsage, fmt::format("cannot read {} with its write-ahead log: copying it to {} failed: {}",
                                              file.string(), dir.string(), ec.message()));
  }
  try {
    const auto wal_size = std::filesystem::file_size(wal_of(copy));
    const auto page_size = database_page_size(copy);
    const std::uintmax_t frames_in_file =
        page_size && wal_size > kWalHeader ? (wal_size - kWalHeader) / (page_size + kFrameHeader) : 0;
    // The copy is ours: a checkpoint says how many of the WAL's frames SQLite took as the database's.
    Database probe(copy, Database::Mode::ReadWrite);
    auto s = probe.prepare("PRAGMA wal_checkpoint");
    s.step();
    if (frames_in_file > 0 && s.integer(1) <= 0) {
      throw foreign(file, fmt::format("it has {} frame{} but none belongs to the database (salt or checksum mismatch)",
                                      frames_in_file, frames_in_file == 1 ? "" : "s"));
    }
  } catch (...) {
    std::filesystem::remove_all(dir, ec);
    throw;
  }
  auto db = std::make_unique<Database>(copy, Database::Mode::ReadOnly);
  db->remove_on_close(dir);
  return db;
}

}  // namespace mt

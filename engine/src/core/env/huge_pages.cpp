#include "core/env/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include "core/env/resources.h"

namespace mt {
namespace {

std::atomic<int64_t> heap_huge_pages{-1};

bool user_chose_huge_pages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables && std::string_view(tunables).find("glibc.malloc.hugetlb") != std::string_view::npos;
}

}  // namespace

std::string transparent_huge_pages_mode(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "";
  const auto open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

int64_t advise_heap_huge_pages() {
  int64_t advised = 0;
  if (transparent_huge_pages_mode() == "madvise" && !user_chose_huge_pages() &&
      freed_memory_kept_bytes() > kHugePageHeapBytes) {
    // Below the mmap threshold, so malloc takes it from the heap by moving the break: address space
    // only (glibc writes the chunk headers, a page at each end).
    auto* block = static_cast<char*>(std::malloc(static_cast<std::size_t>(kHugePageHeapBytes)));
    const auto at = reinterpret_cast<std::uintptr_t>(block);
    const auto top = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const std::uintptr_t start = (at + page - 1) / page * page;
    // Where the heap could not grow, glibc maps the block elsewhere, above the break: nothing is advised.
    if (block && at + kHugePageHeapBytes <= top &&
        madvise(reinterpret_cast<void*>(start), top - start, MADV_HUGEPAGE) == 0)
      advised = static_cast<int64_t>(top - start);
    std::free(block);  // into the heap's top, which is never trimmed: later blocks are carved from it
  }
  heap_huge_pages = advised;
  return advised;
}

int64_t heap_huge_pages_bytes() { return heap_huge_pages.load(); }

}  // namespace mt

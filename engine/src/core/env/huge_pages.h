// Transparent huge pages for the heap. Open MPI's shared-memory transport moves a large message
// with one process_vm_readv, which pins and copies the peer's memory page by page: over 4 KiB pages
// that per-page work, not memory bandwidth, bounds the copy. On 2 ranks of a 2-vCPU AMD EPYC (Zen 5),
// taking turns in one campaign (20 repeats each), the engine with its heap on 2 MiB pages (glibc's
// own glibc.malloc.hugetlb=1, before this reservation existed) against the same engine on 4 KiB ones: broadcast of 1-8 MiB 46-52 against 13-15 GB/s busbw, all-to-all
// 23-27 against 11-12, out-of-place all-reduce 15-17 against 8-9, and from 16 MiB 1.5-2.5x; a
// training step of the 23.2M model at 2 ranks moved within noise (392 against 397 ms).
//
// Where the kernel gives huge pages only to memory that asks for them (THP mode "madvise", the
// default of most distributions), glibc asks only when told at start (GLIBC_TUNABLES'
// glibc.malloc.hugetlb). So the engine reserves address space at the top of its heap, advises it,
// and gives it back to malloc, which carves later blocks from it: no memory is used until touched,
// and each block then faults in 2 MiB at a time.
#pragma once

#include <cstdint>
#include <string>

namespace mt {

// The kernel's THP mode from `path` (the bracketed word of "always [madvise] never"), or "" where
// it cannot be read.
std::string transparent_huge_pages_mode(const std::string& path = "/sys/kernel/mm/transparent_hugepage/enabled");

// Advises huge pages for kHugePageHeapBytes at the heap's top, after keep_freed_memory_for_reuse()
// (resources.h) left the heap untrimmed, so that freeing the reservation keeps it. Returns the bytes
// advised: 0 where the mode is not "madvise" ("always" needs no advice, "never" takes none), the user
// chose glibc's huge-page tunable, freed memory is not kept, or the heap cannot grow that far (the
// reservation then goes back untouched). Blocks beyond the reservation come on 4 KiB pages.
int64_t advise_heap_huge_pages();
constexpr int64_t kHugePageHeapBytes = (int64_t{1} << 30) - (int64_t{4} << 20);

// The value of advise_heap_huge_pages()'s last call in this process (-1 before any).
int64_t heap_huge_pages_bytes();

}  // namespace mt

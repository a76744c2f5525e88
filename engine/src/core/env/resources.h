// Process resources: thread count policy and peak memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mt {

// OMP_NUM_THREADS when set (its first level where it lists several), else max(1, hardware threads
// / ranks_on_this_node()).
int default_threads();

// The ranks the launcher started on this node (Open MPI's, PMIx's, MPICH's or Slurm's local
// size), else 1.
int ranks_on_this_node();

// Applies `threads` to the BLAS's own thread pool when it has one (OpenBLAS's pthread build
// ignores at::set_num_threads and otherwise starts one thread per core in every rank).
// Returns whether a BLAS thread setting was found.
bool set_blas_threads(int threads);

// Every training step frees and re-allocates the same activation and gradient sizes, and Open MPI's
// in-place all-reduce allocates a message-sized scratch buffer per call. glibc returns large freed
// blocks to the kernel (mmap'd ones, from 32 MiB at most by default, and the heap top past
// 128 KiB), so each step or call faults them back in as fresh zeroed pages: ~1,800 faults a step on
// the quick-start model, and a 64 MiB in-place all-reduce on 2 ranks at 2.6 instead of 6 GB/s busbw.
// This keeps blocks up to kFreedMemoryKeptBytes in the heap and the heap untrimmed, unless the user
// sets either threshold (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_, or GLIBC_TUNABLES'
// glibc.malloc.mmap_threshold / trim_threshold). Returns the largest block kept for reuse: 0 where
// the user sets them, 32 MiB where glibc refuses more.
int64_t keep_freed_memory_for_reuse();
constexpr int64_t kFreedMemoryKeptBytes = int64_t{1} << 30;

// The value of keep_freed_memory_for_reuse()'s last call in this process (-1 before any).
int64_t freed_memory_kept_bytes();

// Backs up to `bytes` of the heap's free top with memory now (MADV_POPULATE_WRITE: faulted in,
// contents untouched), so that blocks malloc carves from it later do not fault on first touch.
// A step whose allocations change shape (LibTorch's profiler keeps its records in small blocks
// split from freed activation blocks, so the next activation of that size comes from the top)
// otherwise pays that first touch inside an operator: on a 2-vCPU VM with the heap on huge pages,
// up to 12 ms in one 4 MiB GELU backward of the 23.2M model, 0.35 ms in the others. Returns the
// bytes backed: 0 where freed memory is not kept (the next free would trim them again) or the
// kernel refuses (before Linux 5.14).
int64_t prefault_heap_top(int64_t bytes);

// Peak resident set size of this process (VmHWM, else getrusage), bytes.
int64_t peak_rss_bytes();

// CPU time of this process so far, user and system, every thread, seconds.
double process_cpu_seconds();

// Memory the kernel can give new allocations without swapping (MemAvailable), bytes; 0 unknown.
int64_t memory_available_bytes();

// Why a job whose ranks on this host each need `per_rank_bytes` of host memory should not start
// (the need, per rank and for this host's `local_ranks`, against what is available), or nothing
// when it fits. Starting anyway would let the machine's OOM killer choose a victim.
std::optional<std::string> host_memory_problem(int64_t per_rank_bytes, int local_ranks, const std::string& what);

}  // namespace mt

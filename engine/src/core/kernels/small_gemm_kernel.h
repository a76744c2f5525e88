// Single-threaded GEMM for the attention's per-head products: one call a block of queries and
// product, the operands a few hundred rows of head_dim floats. Register tiles of 6 rows x 2
// vectors; B is copied into contiguous panels, once per call (a per-thread buffer) or once for
// several calls (SmallGemmPackedB), a transposed B such as kᵀ transposed by that copy; A is read
// where it lies. Where a triangle of an operand is zero or of the result unused (causality), that
// part is skipped tile by tile, not computed. A BLAS multiplies whole products of these shapes as
// fast (MKL and this kernel both 70-75 GFLOP/s a thread on a 2-vCPU EPYC, Zen 3), but skipping the
// hidden half through it takes a call per block of positions, run on one thread inside each
// head's worker: this kernel does it with neither.
#pragma once

#include <cstdint>
#include <vector>

#include "core/kernels/isa.h"

namespace mt {

// Which triangle the caller does not need computed, on either side of a diagonal (SmallGemmOptions).
enum class Triangle {
  none,
  unused_c_upper,  // C[i, j] for j > i + diagonal is never read (left as anything, may be left unwritten)
  zero_a_upper,    // A[i, p] = 0 for p > i + diagonal: row i sums over p <= i + diagonal only
  zero_a_lower,    // A[i, p] = 0 for p < i + diagonal: row i sums over p >= i + diagonal only
};

// B copied once into the kernel's panels, for several products that each use its first k rows
// and first n columns (a head's kᵀ or v, for every block of queries), where each call would
// otherwise copy it again. Packed for the kernel copy current when pack() runs, which the
// products must run on too.
class SmallGemmPackedB {
 public:
  // B [k × n], its element (p, j) at b[p · b_row_stride + j · b_col_stride].
  void pack(int64_t k, int64_t n, const float* b, int64_t b_row_stride, int64_t b_col_stride);
  const float* panels() const { return panels_.data(); }
  int64_t depth() const { return depth_; }
  int64_t columns() const { return columns_; }
  KernelIsa isa() const { return isa_; }

 private:
  std::vector<float> panels_;
  int64_t depth_ = 0, columns_ = 0;
  KernelIsa isa_ = KernelIsa::baseline;
};

// A triangle's diagonal is the line column = row + diagonal: 0 for a whole causal product; for
// the block of queries q0 .. q0 + R - 1 of one (its rows of C or A), q0 where the queries are the
// rows, -q0 where they are the depth (Pᵀ of a block of rows of P).
struct SmallGemmOptions {
  Triangle triangle = Triangle::none;
  int64_t diagonal = 0;
  bool add_to_c = false;                       // C += alpha · A · B, where false leaves C's old contents unread
  const SmallGemmPackedB* packed_b = nullptr;  // B already packed: the operands' b is not read
};

// A's element (i, p) at a[i · a_row_stride + p · a_col_stride] (so Aᵀ of a row-major matrix is
// strides 1 and its row length), B's element (p, j) likewise at b[p · b_row_stride + j ·
// b_col_stride]; C row-major with row stride ldc.
struct SmallGemmOperands {
  const float* a;
  int64_t a_row_stride, a_col_stride;
  const float* b;
  int64_t b_row_stride, b_col_stride;
  float* c;
  int64_t ldc;
};

// C[m × n] = alpha · A[m × k] · B[k × n] (or C += that, with add_to_c). Throws
// std::invalid_argument if a packed B is smaller than k × n or packed for another kernel copy.
void small_gemm(int64_t m, int64_t n, int64_t k, float alpha, const SmallGemmOperands& operands,
                const SmallGemmOptions& options = {});

}  // namespace mt

// Row-major single-precision GEMM straight into the BLAS LibTorch itself uses (libblas.so.3,
// OpenBLAS on Debian). For many small products, such as one per attention head, this skips the
// per-call tensor dispatch that at::bmm pays for every matrix of the batch.
#pragma once

#include <cstdint>

namespace mt {

// C[m×n] = alpha · op(A) · op(B) + beta · C, all row-major with row strides lda, ldb, ldc;
// op(X) is X, or Xᵀ when trans_x. With beta = 0, C's old contents are never read.
void gemm_row_major(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace mt

// Row-major single-precision GEMM straight into the BLAS LibTorch itself uses (MKL in the PyTorch
// wheel), with no tensors around it: the environment probes ask that library what it is and how
// fast it runs on this CPU.
#pragma once

#include <cstdint>

namespace mt {

// C[m×n] = alpha · op(A) · op(B) + beta · C, all row-major with row strides lda, ldb, ldc;
// op(X) is X, or Xᵀ when trans_x. With beta = 0, C's old contents are never read.
void gemm_row_major(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

}  // namespace mt

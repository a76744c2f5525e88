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

// For its life, the BLAS calls this thread makes run on this thread alone. Called from a worker of
// a parallel region (one attention head per thread), MKL otherwise spreads every small product
// over threads of its own: on a 2-vCPU EPYC (Zen 3), 2 threads, one process taking turns with and
// without it, the attention's forward and backward took 22-30 % less time with it at the
// quick-start shape and 15-16 % less at the 23.2M model's. Where the BLAS has no per-thread
// setting (not MKL), nothing changes.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int previous_ = 0;  // the thread's setting before, 0 meaning "the process-wide one"
};

}  // namespace mt

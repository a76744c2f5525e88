#include "core/kernels/blas.h"

#include <climits>
#include <stdexcept>

extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                       const float* beta, float* c, const int* ldc);

namespace mt {
namespace {

int as_blas_int(int64_t value) {
  if (value < 0 || value > INT_MAX) throw std::out_of_range("gemm: dimension exceeds BLAS int");
  return static_cast<int>(value);
}

}  // namespace

void gemm_row_major(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  // A row-major matrix is its transpose in column-major: Cᵀ = op(B)ᵀ · op(A)ᵀ, so the operands
  // swap places and keep their own transpose flags.
  const char ta = trans_b ? 'T' : 'N', tb = trans_a ? 'T' : 'N';
  const int rows = as_blas_int(n), cols = as_blas_int(m), inner = as_blas_int(k);
  const int ld_first = as_blas_int(ldb), ld_second = as_blas_int(lda), ld_c = as_blas_int(ldc);
  sgemm_(&ta, &tb, &rows, &cols, &inner, &alpha, b, &ld_first, a, &ld_second, &beta, c, &ld_c);
}

}  // namespace mt

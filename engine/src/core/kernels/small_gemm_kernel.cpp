#include "core/kernels/small_gemm_kernel.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/kernels/isa.h"
#include "core/kernels/simd.h"

namespace mt {
namespace {

template <int Lanes>
struct SmallGemm {
  using S = simd::Simd<Lanes>;
  using F = typename S::F;
  static constexpr int64_t kRows = 6;  // 12 accumulators, 2 of B, 1 of A: 15 registers
  static constexpr int64_t kCols = 2 * Lanes;

  // acc[r] += Σ_{p in [k_begin, k_end)} A[r, p] · B[p, :], B one packed panel (kCols floats a
  // row, zero past the panel's columns).
  template <int Rows>
  static MT_SIMD_INLINE void accumulate(F (&acc)[Rows][2], int64_t k_begin, int64_t k_end, const float* a,
                                        int64_t a_row_stride, int64_t a_col_stride, const float* panel) {
    for (int64_t p = k_begin; p < k_end; ++p) {
      const F b0 = S::load(panel + p * kCols), b1 = S::load(panel + p * kCols + Lanes);
      const float* a_p = a + p * a_col_stride;
      for (int r = 0; r < Rows; ++r) {
        const F a_rp = S::broadcast(a_p + r * a_row_stride);
        acc[r][0] += a_rp * b0;
        acc[r][1] += a_rp * b1;
      }
    }
  }

  // C[Rows × cols] (cols <= kCols) = alpha · A[Rows, k_begin:k_end] · panel[k_begin:k_end, :].
  template <int Rows>
  static MT_SIMD_INLINE void tile(int64_t cols, int64_t k_begin, int64_t k_end, float alpha, const float* a,
                                  int64_t a_row_stride, int64_t a_col_stride, const float* panel, float* c, int64_t ldc,
                                  bool add_to_c) {
    // Each branch keeps accumulators of its own: shared by both, they were kept in memory (the
    // narrow branch's lane-by-lane stores), which halved the speed of the whole kernel.
    if (cols == kCols) {
      F acc[Rows][2] = {};
      accumulate<Rows>(acc, k_begin, k_end, a, a_row_stride, a_col_stride, panel);
      for (int r = 0; r < Rows; ++r) {
        float* row = c + r * ldc;
        S::store(row, add_to_c ? S::load(row) + acc[r][0] * alpha : acc[r][0] * alpha);
        S::store(row + Lanes, add_to_c ? S::load(row + Lanes) + acc[r][1] * alpha : acc[r][1] * alpha);
      }
      return;
    }
    // A narrow last panel (n not a multiple of kCols) stores only its columns.
    F acc[Rows][2] = {};
    accumulate<Rows>(acc, k_begin, k_end, a, a_row_stride, a_col_stride, panel);
    const int64_t first = std::min<int64_t>(cols, Lanes), second = cols - first;
    for (int r = 0; r < Rows; ++r) {
      float* row = c + r * ldc;
      const F sum0 = add_to_c ? S::load_partial(row, first, 0.0f) + acc[r][0] * alpha : acc[r][0] * alpha;
      S::store_partial(row, sum0, first);
      if (second > 0) {
        const F old1 = add_to_c ? S::load_partial(row + Lanes, second, 0.0f) : F{};
        S::store_partial(row + Lanes, old1 + acc[r][1] * alpha, second);
      }
    }
  }

  // Rows i .. i + Rows - 1 of the panel of columns j .. j + cols - 1. A zero triangle of A bounds
  // the depth by what the tile's first or last row needs (row i's diagonal element at p = i + diagonal).
  template <int Rows>
  static MT_SIMD_INLINE void tile_at(const SmallGemmOptions& options, int64_t i, int64_t j, int64_t cols, int64_t k,
                                     float alpha, const SmallGemmOperands& o, const float* panels, int64_t depth) {
    const int64_t diagonal = i + options.diagonal;
    const int64_t k_begin = options.triangle == Triangle::zero_a_lower ? std::clamp<int64_t>(diagonal, 0, k) : 0;
    const int64_t k_end =
        options.triangle == Triangle::zero_a_upper ? std::clamp<int64_t>(diagonal + Rows, k_begin, k) : k;
    tile<Rows>(cols, k_begin, k_end, alpha, o.a + i * o.a_row_stride, o.a_row_stride, o.a_col_stride,
               panels + j / kCols * depth * kCols, o.c + i * o.ldc + j, o.ldc, options.add_to_c);
  }

  // B's panels of kCols columns, each one contiguous block of k rows (the last zero-padded), so
  // the tiles read B in order, not one row of its home layout (a head's slice of a wider matrix,
  // kilobytes apart) at a time.
  static MT_SIMD_INLINE void pack_b(int64_t n, int64_t k, const SmallGemmOperands& o, float* packed) {
    for (int64_t j = 0; j < n; j += kCols) {
      const int64_t cols = std::min(kCols, n - j);
      float* panel = packed + j / kCols * k * kCols;  // panels k rows apart
      if (o.b_col_stride == 1 && cols == kCols) {     // rows of B: whole vectors
        for (int64_t p = 0; p < k; ++p) {
          const float* row = o.b + p * o.b_row_stride + j;
          S::store(panel + p * kCols, S::load(row));
          S::store(panel + p * kCols + Lanes, S::load(row + Lanes));
        }
        continue;
      }
      // Column by column: a transposed B (row stride 1) is read along its own rows.
      for (int64_t c = 0; c < kCols; ++c) {
        const float* column = o.b + (j + c) * o.b_col_stride;
        for (int64_t p = 0; p < k; ++p) panel[p * kCols + c] = c < cols ? column[p * o.b_row_stride] : 0.0f;
      }
    }
  }

  // Rows i .. i + Rows - 1, every panel they need: with the upper triangle of C unused, the
  // panels up to the one holding the last row's diagonal, column i + Rows - 1 + diagonal.
  template <int Rows>
  static MT_SIMD_INLINE void tiles_of_rows(const SmallGemmOptions& options, int64_t i, int64_t n, int64_t k,
                                           float alpha, const SmallGemmOperands& o, const float* panels,
                                           int64_t depth) {
    const int64_t n_end =
        options.triangle == Triangle::unused_c_upper ? std::clamp<int64_t>(i + Rows + options.diagonal, 0, n) : n;
    for (int64_t j = 0; j < n_end; j += kCols)
      tile_at<Rows>(options, i, j, std::min(kCols, n - j), k, alpha, o, panels, depth);
  }

  // B comes packed: panels of kCols columns, `depth` rows apart.
  static MT_SIMD_INLINE void run(const SmallGemmOptions& options, int64_t m, int64_t n, int64_t k, float alpha,
                                 const SmallGemmOperands& o, const float* panels, int64_t depth) {
    // Row tile by row tile: the tile's rows of A stay in L1 while the panels of B pass (measured
    // faster than the other order, panel by panel, at the attention's shapes).
    int64_t i = 0;
    for (; i + kRows <= m; i += kRows) tiles_of_rows<kRows>(options, i, n, k, alpha, o, panels, depth);
    switch (m - i) {
      case 5: return tiles_of_rows<5>(options, i, n, k, alpha, o, panels, depth);
      case 4: return tiles_of_rows<4>(options, i, n, k, alpha, o, panels, depth);
      case 3: return tiles_of_rows<3>(options, i, n, k, alpha, o, panels, depth);
      case 2: return tiles_of_rows<2>(options, i, n, k, alpha, o, panels, depth);
      case 1: return tiles_of_rows<1>(options, i, n, k, alpha, o, panels, depth);
      default: return;
    }
  }
};

MT_TARGET_X86_64_V3 void small_gemm_v3(const SmallGemmOptions& options, int64_t m, int64_t n, int64_t k, float alpha,
                                       const SmallGemmOperands& o, const float* panels, int64_t depth) {
  SmallGemm<8>::run(options, m, n, k, alpha, o, panels, depth);
}

MT_TARGET_X86_64_V4 void small_gemm_v4(const SmallGemmOptions& options, int64_t m, int64_t n, int64_t k, float alpha,
                                       const SmallGemmOperands& o, const float* panels, int64_t depth) {
  SmallGemm<16>::run(options, m, n, k, alpha, o, panels, depth);
}

MT_TARGET_X86_64_V3 void pack_b_v3(int64_t n, int64_t k, const SmallGemmOperands& o, float* packed) {
  SmallGemm<8>::pack_b(n, k, o, packed);
}

MT_TARGET_X86_64_V4 void pack_b_v4(int64_t n, int64_t k, const SmallGemmOperands& o, float* packed) {
  SmallGemm<16>::pack_b(n, k, o, packed);
}

// Floats the panels of a [k × n] B take in any kernel copy.
std::size_t panel_floats(int64_t k, int64_t n) {
  constexpr int64_t kWidestPanel = SmallGemm<16>::kCols;
  return static_cast<std::size_t>(std::max<int64_t>(1, k * ((n + kWidestPanel - 1) / kWidestPanel) * kWidestPanel));
}

}  // namespace

void SmallGemmPackedB::pack(int64_t k, int64_t n, const float* b, int64_t b_row_stride, int64_t b_col_stride) {
  isa_ = kernel_isa();
  depth_ = k;
  columns_ = n;
  panels_.resize(panel_floats(k, n));
  const SmallGemmOperands operands{nullptr, 0, 0, b, b_row_stride, b_col_stride, nullptr, 0};
  switch (isa_) {
    case KernelIsa::x86_64_v4: return pack_b_v4(n, k, operands, panels_.data());
    case KernelIsa::x86_64_v3: return pack_b_v3(n, k, operands, panels_.data());
    case KernelIsa::baseline: return SmallGemm<4>::pack_b(n, k, operands, panels_.data());
  }
}

void small_gemm(int64_t m, int64_t n, int64_t k, float alpha, const SmallGemmOperands& operands,
                const SmallGemmOptions& options) {
  const SmallGemmPackedB* packed = options.packed_b;
  if (packed == nullptr) {  // packed for this call alone, in a buffer per thread (callers run heads in parallel)
    thread_local SmallGemmPackedB own;
    own.pack(k, n, operands.b, operands.b_row_stride, operands.b_col_stride);
    packed = &own;
  } else if (k > packed->depth() || n > packed->columns() || packed->isa() != kernel_isa()) {
    throw std::invalid_argument(fmt::format("small_gemm: B packed as {} x {} for {}, used as {} x {} on {}",
                                            packed->depth(), packed->columns(), kernel_isa_name(packed->isa()), k, n,
                                            kernel_isa_name(kernel_isa())));
  }
  switch (packed->isa()) {
    case KernelIsa::x86_64_v4:
      return small_gemm_v4(options, m, n, k, alpha, operands, packed->panels(), packed->depth());
    case KernelIsa::x86_64_v3:
      return small_gemm_v3(options, m, n, k, alpha, operands, packed->panels(), packed->depth());
    case KernelIsa::baseline:
      return SmallGemm<4>::run(options, m, n, k, alpha, operands, packed->panels(), packed->depth());
  }
}

}  // namespace mt

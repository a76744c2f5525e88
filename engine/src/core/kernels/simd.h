// Portable SIMD for the engine's hand-written kernels: GCC vector extensions of `Lanes` floats.
// A kernel is written once against Simd<Lanes> and instantiated three times (see isa.h): sixteen
// lanes inside x86-64-v4 (AVX-512) functions, eight inside x86-64-v3 (AVX2 + FMA) ones, four for
// baseline x86-64. Every helper is forced
// inline, so each copy is compiled for its caller's instruction set. Include only from kernel
// .cpp files, never from a header: the types change meaning with the target.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#define MT_SIMD_INLINE inline __attribute__((always_inline))

namespace mt::simd {

template <int Lanes>
struct VectorTypes;
template <>
struct VectorTypes<4> {
  typedef float F __attribute__((vector_size(16)));
  typedef int32_t I __attribute__((vector_size(16)));
};
template <>
struct VectorTypes<8> {
  typedef float F __attribute__((vector_size(32)));
  typedef int32_t I __attribute__((vector_size(32)));
};

template <>
struct VectorTypes<16> {
  typedef float F __attribute__((vector_size(64)));
  typedef int32_t I __attribute__((vector_size(64)));
};

template <int Lanes>
struct Simd {
  using F = typename VectorTypes<Lanes>::F;
  using I = typename VectorTypes<Lanes>::I;
  static constexpr int64_t kLanes = Lanes;

  static MT_SIMD_INLINE F splat(float value) { return F{} + value; }

  // *p in every lane. With AVX one vbroadcastss from memory, written out: splat adds 0 to its
  // value first, and a vector built from a list of lanes is assembled lane by lane here, both
  // slower in the inner loop of a product. Eight and sixteen lanes are used only inside
  // x86-64-v3 and -v4 functions, where the instruction exists.
  static MT_SIMD_INLINE F broadcast(const float* p) {
#if defined(__x86_64__)
    if constexpr (Lanes >= 8) {
      F v;
      asm("vbroadcastss %1, %0" : "=v"(v) : "m"(*p));
      return v;
    }
#endif
    return splat(*p);
  }

  static MT_SIMD_INLINE F load(const float* p) {
    F v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  static MT_SIMD_INLINE void store(float* p, F v) { std::memcpy(p, &v, sizeof v); }

  // The first `count` (< Lanes) floats at p; the other lanes `fill`.
  static MT_SIMD_INLINE F load_partial(const float* p, int64_t count, float fill) {
    F v = splat(fill);
    for (int64_t i = 0; i < count; ++i) v[i] = p[i];
    return v;
  }

  static MT_SIMD_INLINE void store_partial(float* p, F v, int64_t count) {
    for (int64_t i = 0; i < count; ++i) p[i] = v[i];
  }

  // v's first `count` lanes, `fill` in the others: a compare and a blend. With a whole vector
  // loaded where the memory past the wanted floats may be read, what load_partial does lane by lane.
  static MT_SIMD_INLINE F keep_first(F v, int64_t count, float fill) {
    I index;
    for (int i = 0; i < Lanes; ++i) index[i] = i;  // a constant once inlined
    return index < static_cast<int32_t>(count) ? v : splat(fill);
  }

  // load_partial where `room` floats from p may be read (whatever those past `count` hold): one
  // load and a blend when a whole vector fits.
  static MT_SIMD_INLINE F load_last(const float* p, int64_t count, int64_t room, float fill) {
    return room >= Lanes ? keep_first(load(p), count, fill) : load_partial(p, count, fill);
  }

  // store_partial where `room` floats from p may be written and v's lanes past `count` hold what
  // belongs there: the whole vector when it fits. Returns how many floats it wrote.
  static MT_SIMD_INLINE int64_t store_last(float* p, F v, int64_t count, int64_t room) {
    if (room < Lanes) {
      store_partial(p, v, count);
      return count;
    }
    store(p, v);
    return Lanes;
  }

  static MT_SIMD_INLINE F abs(F x) { return x < 0.0f ? -x : x; }

  static MT_SIMD_INLINE float max_of(F v) {
    float out = v[0];
    for (int i = 1; i < Lanes; ++i) out = v[i] > out ? v[i] : out;
    return out;
  }

  // Largest of p[0, n), -inf for n = 0. A NaN is passed over here; callers' sums still see it.
  // `room`: how many floats from p may be read (see load_last).
  static MT_SIMD_INLINE float max_over(const float* p, int64_t n, int64_t room = 0) {
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    F m = splat(kNegInf);
    int64_t j = 0;
    for (; j + Lanes <= n; j += Lanes) {
      const F v = load(p + j);
      m = v > m ? v : m;
    }
    if (j < n) {
      const F v = load_last(p + j, n - j, room - j, kNegInf);
      m = v > m ? v : m;
    }
    return max_of(m);
  }

  static MT_SIMD_INLINE float sum_of(F v) {
    float out = 0;
    for (int i = 0; i < Lanes; ++i) out += v[i];
    return out;
  }

  // exp(x) by the Cephes expf scheme: x = n·ln2 + r with |r| <= ln2/2, e^r by a polynomial,
  // 2^n built in the exponent bits. About 1 ulp; underflow gives 0, overflow +inf, NaN stays NaN.
  static MT_SIMD_INLINE F exp(F x) {
    const F lowest = splat(-87.3365447504f), highest = splat(88.3762626647949f);
    const auto underflow = x<lowest, overflow = x> highest;
    x = underflow ? lowest : x;
    x = overflow ? highest : x;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
    const F n = (x * 1.44269504088896341f + kRound) - kRound;
    const F r = x - n * 0.693359375f + n * 2.12194440e-4f;
    F p = splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    const I exponent = (__builtin_convertvector(n, I) + 127) << 23;
    const F result = p * (F)exponent;  // the integer bits read as a float: 2^n
    return underflow ? splat(0.0f) : overflow ? splat(std::numeric_limits<float>::infinity()) : result;
  }
};

}  // namespace mt::simd

/* lanes.h — four double lanes for the solvers' pair rows (issue 33), at three
 * levels: portable C (vd4, a struct of four doubles, lane by lane), AVX2 + FMA
 * (__m256d), and the AVX2 code compiled for AVX-512VL (its 32 registers; the
 * same 256-bit operations).  A solver writes its rows once over the V_*
 * operations and includes them once per level, between
 * core/lanes_portable.inc or core/lanes_avx2.inc (which define V_*) and
 * core/lanes_undef.inc, choosing a level at run time (lanes_level).
 *
 * The contract: every level gives the same bits.  Each lane does the same IEEE
 * operations in the same order (V_FMA rounds once at every level: C99 fma in
 * the portable code; sqrt and division correctly rounded), selections give +0
 * where the condition fails (as AVX's masks), horizontal sums are (l0 + l1) +
 * (l2 + l3), and the scattered additions (V_ADD1/3/4) add lane 0 first, then
 * 1, 2, 3.  tests/test_lanes.c checks each operation bit for bit (a NaN's
 * sign and payload excepted: C lets the compiler commute operands).
 *
 * V_GATHER(a, j) loads a[j[0..3]] from a plain array, V_LOADU(a) a[0..3],
 * V_STORE(t, v) writes the lanes to t[0..3], and V_NEG flips the signs (a
 * zero's too), as C's -x.
 *
 * V_COMPACT4(src, keep, dst) copies src[p] for each bit p of keep, in order,
 * to dst and returns how many; it reads all four of src and may write four.
 *
 * Packed records: a row's data for particle j are 8 doubles at pk + 8 (j &
 * wmask), 64-byte aligned; V_RECORD loads four consecutive values of four
 * particles' records as four vectors (one per value). */
#ifndef PFB_LANES_H
#define PFB_LANES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Clears the upper halves of the vector registers (vzeroupper; a no-op
 * without AVX).  Code that leaves them in use (which, in mao_yang's step and
 * frame, was not found: not the solver's own C, compiled for SSE2) gives every
 * later SSE instruction a false dependency on them until something clears
 * them: mao_yang's pair passes ran 2.0-2.7 times slower, on 1 and 2 threads,
 * once its mirrors no longer came from a grid search, whose AVX2 rows had
 * cleared them twice a step.  Each thread calls it as it enters the pair
 * passes (core/pairtasks.c), and mao_yang's step first: the step's time came
 * back to the grid search's (3,700-4,030 against 3,750-3,980 ns per
 * particle-step, alternating, 3D dam break at 60k, 2 threads). */
static inline void lanes_clean_upper(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (__builtin_cpu_supports("avx"))
        __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

/* portable: four lanes of plain C */
/* portable: four lanes of plain C */
typedef struct vd4 {
    double l[4];
} vd4;
#define VD4_BINARY(name, expr)                                                                           \
    static inline vd4 name(vd4 a, vd4 b)                                                                 \
    {                                                                                                    \
        vd4 r;                                                                                           \
        for (int k = 0; k < 4; k++)                                                                      \
            r.l[k] = expr;                                                                               \
        return r;                                                                                        \
    }
VD4_BINARY(vd4_add, a.l[k] + b.l[k])
VD4_BINARY(vd4_sub, a.l[k] - b.l[k])
VD4_BINARY(vd4_mul, a.l[k] * b.l[k])
VD4_BINARY(vd4_div, a.l[k] / b.l[k])
#undef VD4_BINARY
/* a b + c rounded once (C99 fma: the same bits as the FMA instruction) */
static inline vd4 vd4_fma(vd4 a, vd4 b, vd4 c)
{
    for (int k = 0; k < 4; k++)
        c.l[k] = fma(a.l[k], b.l[k], c.l[k]);
    return c;
}
/* min and max as AVX's: the second operand where the comparison fails (NaN, equal) */
static inline vd4 vd4_min(vd4 a, vd4 b)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = a.l[k] < b.l[k] ? a.l[k] : b.l[k];
    return a;
}
static inline vd4 vd4_max(vd4 a, vd4 b)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = a.l[k] > b.l[k] ? a.l[k] : b.l[k];
    return a;
}
static inline vd4 vd4_set1(double a)
{
    vd4 r = {{a, a, a, a}};
    return r;
}
/* the nearest integer, ties to even (as the AVX round to nearest) */
static inline vd4 vd4_rint(vd4 a)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = rint(a.l[k]);
    return a;
}
static inline vd4 vd4_sqrt(vd4 a)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = sqrt(a.l[k]);
    return a;
}
/* the four values at offset o of the packed records of j[0..3], one vd per value */
#define vd4_record(pk, wmask, j, o, a, b, c, d)                                                                 \
    do {                                                                                                 \
        for (int k_ = 0; k_ < 4; k_++) {                                                                 \
            const double *r_ = (pk) + 8 * ((size_t)(j)[k_] & (wmask)) + (o);                              \
            (a).l[k_] = r_[0];                                                                           \
            (b).l[k_] = r_[1];                                                                           \
            (c).l[k_] = r_[2];                                                                           \
            (d).l[k_] = r_[3];                                                                           \
        }                                                                                                \
    } while (0)
static inline vd4 vd4_index(const uint32_t *j)
{
    vd4 r = {{(double)j[0], (double)j[1], (double)j[2], (double)j[3]}};
    return r;
}
/* x where a OP b, else +0 (as the AVX2 masks give) */
#define VD4_SELECT(name, op)                                                                             \
    static inline vd4 name(vd4 a, vd4 b, vd4 x)                                                          \
    {                                                                                                    \
        for (int k = 0; k < 4; k++)                                                                      \
            x.l[k] = a.l[k] op b.l[k] ? x.l[k] : 0.0;                                                    \
        return x;                                                                                        \
    }
VD4_SELECT(vd4_sel_lt, <)
VD4_SELECT(vd4_sel_gt, >)
#undef VD4_SELECT
/* x where a != b and neither is NaN (AVX's ordered not-equal), else +0 */
static inline vd4 vd4_sel_ne(vd4 a, vd4 b, vd4 x)
{
    for (int k = 0; k < 4; k++)
        x.l[k] = a.l[k] < b.l[k] || a.l[k] > b.l[k] ? x.l[k] : 0.0;
    return x;
}
/* -a (the sign flipped, as the scalar unary minus: -0 from +0) */
static inline vd4 vd4_neg(vd4 a)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = -a.l[k];
    return a;
}
/* a[j[0..3]]: four values of a plain array */
static inline vd4 vd4_gather(const double *a, const uint32_t *j)
{
    vd4 r = {{a[j[0]], a[j[1]], a[j[2]], a[j[3]]}};
    return r;
}
/* a[0..3]: four consecutive values */
static inline vd4 vd4_loadu(const double *a)
{
    vd4 r;
    memcpy(r.l, a, sizeof r.l);
    return r;
}
/* t[0..3] = the four lanes */
static inline void vd4_store(double *t, vd4 a)
{
    memcpy(t, a.l, sizeof a.l);
}
static inline double vd4_hsum(vd4 a)
{
    return (a.l[0] + a.l[1]) + (a.l[2] + a.l[3]);
}
/* t[j[p]] += a lane p, lanes 0 to 3 in order */
static inline void vd4_add1(double *t, const uint32_t *j, vd4 a)
{
    for (size_t p = 0; p < 4; p++)
        t[j[p]] += a.l[p];
}
/* t[3 j[p] + 0..2] += (a, b, c) lane p */
static inline void vd4_add3(double *t, const uint32_t *j, vd4 a, vd4 b, vd4 c)
{
    for (size_t p = 0; p < 4; p++) {
        double *r = t + 3 * (size_t)j[p];
        r[0] += a.l[p];
        r[1] += b.l[p];
        r[2] += c.l[p];
    }
}
/* t[4 j[p] + 0..3] += (a, b, c, d) lane p */
static inline void vd4_add4(double *t, const uint32_t *j, vd4 a, vd4 b, vd4 c, vd4 d)
{
    for (size_t p = 0; p < 4; p++) {
        double *r = t + 4 * (size_t)j[p];
        r[0] += a.l[p];
        r[1] += b.l[p];
        r[2] += c.l[p];
        r[3] += d.l[p];
    }
}
/* the number of bits set in b */
static inline size_t lanes_bits_set(uint32_t b)
{
    b = b - ((b >> 1) & 0x55555555u);
    b = (b & 0x33333333u) + ((b >> 2) & 0x33333333u);
    return (size_t)((((b + (b >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}
/* bit p set where lane p of d is above 0 */
static inline uint32_t vd4_pos_bits(vd4 d)
{
    uint32_t b = 0;
    for (int k = 0; k < 4; k++)
        b |= (uint32_t)(d.l[k] > 0.0) << k;
    return b;
}
/* src[p] for each bit p of keep, in order, to dst; returns how many */
static inline size_t lanes_compact4_base(const uint32_t *src, unsigned keep, uint32_t *dst)
{
    size_t m = 0;
    for (int k = 0; k < 4; k++)
        if (keep >> k & 1u)
            dst[m++] = src[k];
    return m;
}

/* The indices of pairs q .. q+3 of a row of len pairs of particle i: in the
 * row, or, for a last four that runs short, copied into tail and padded with i
 * (a solver pads so that a pad adds exactly 0). */
static inline const uint32_t *lanes_row_quad(const uint32_t *row, size_t len, size_t q, size_t i, uint32_t tail[4])
{
    if (len - q >= 4)
        return row + q;
    for (size_t k = 0; k < 4; k++)
        tail[k] = q + k < len ? row[q + k] : (uint32_t)i;
    return tail;
}

/* AVX2: the same lanes in one register */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define PFB_LANES_AVX2 1
__attribute__((target("avx2,fma"))) static inline double lanes_hsum_avx2(__m256d v)
{
    double t[4];
    _mm256_storeu_pd(t, v);
    return (t[0] + t[1]) + (t[2] + t[3]);
}
/* the same as vd4_record: four 32-byte loads, transposed */
#define lanes_record_avx2(pk, wmask, j, o, a, b, c, d)                                                         \
    do {                                                                                                 \
        const __m256d r0_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[0] & (wmask)) + (o)),                             \
                      r1_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[1] & (wmask)) + (o)),                             \
                      r2_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[2] & (wmask)) + (o)),                             \
                      r3_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[3] & (wmask)) + (o));                             \
        const __m256d t0_ = _mm256_unpacklo_pd(r0_, r1_), t1_ = _mm256_unpackhi_pd(r0_, r1_),            \
                      t2_ = _mm256_unpacklo_pd(r2_, r3_), t3_ = _mm256_unpackhi_pd(r2_, r3_);            \
        (a) = _mm256_permute2f128_pd(t0_, t2_, 0x20);                                                    \
        (b) = _mm256_permute2f128_pd(t1_, t3_, 0x20);                                                    \
        (c) = _mm256_permute2f128_pd(t0_, t2_, 0x31);                                                    \
        (d) = _mm256_permute2f128_pd(t1_, t3_, 0x31);                                                    \
    } while (0)
/* the same as lanes_compact4_base, by one byte shuffle: it reads all four of src
 * (the list keeps 4 spare entries after its last row) and writes four to dst */

__attribute__((target("avx2,fma"))) static inline size_t lanes_compact4_avx2(const uint32_t *src, unsigned keep,
                                                                         uint32_t *dst)
{
    static const uint8_t lut[16][16] = {
    #define L_(a, b, c, d) {4 * a, 4 * a + 1, 4 * a + 2, 4 * a + 3, 4 * b, 4 * b + 1, 4 * b + 2, 4 * b + 3,         \
                            4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3, 4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}
        L_(0, 0, 0, 0), L_(0, 0, 0, 0), L_(1, 0, 0, 0), L_(0, 1, 0, 0), L_(2, 0, 0, 0), L_(0, 2, 0, 0),
        L_(1, 2, 0, 0), L_(0, 1, 2, 0), L_(3, 0, 0, 0), L_(0, 3, 0, 0), L_(1, 3, 0, 0), L_(0, 1, 3, 0),
        L_(2, 3, 0, 0), L_(0, 2, 3, 0), L_(1, 2, 3, 0), L_(0, 1, 2, 3)
    #undef L_
    };
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);
    _mm_storeu_si128((__m128i *)(void *)dst,
                     _mm_shuffle_epi8(v, _mm_loadu_si128((const __m128i *)(const void *)lut[keep])));
    return lanes_bits_set(keep);
}
/* the same as lanes_row_quad: the last four's indices by one blend (reading up to
 * three entries past the row: the list and the compacted rows have them) */
__attribute__((target("avx2,fma"))) static inline const uint32_t *lanes_row_quad_avx2(const uint32_t *row, size_t len,
                                                                                  size_t q, size_t i,
                                                                                  uint32_t tail[4])
{
    if (len - q >= 4)
        return row + q;
    const __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32((int)(len - q)), _mm_setr_epi32(0, 1, 2, 3));
    _mm_storeu_si128((__m128i *)(void *)tail,
                     _mm_blendv_epi8(_mm_set1_epi32((int)(uint32_t)i),
                                     _mm_loadu_si128((const __m128i *)(const void *)(row + q)), in));
    return tail;
}
/* (a0 + a1) + (a2 + a3) for each of a, b, c, d, as one vector */
__attribute__((target("avx2,fma"))) static inline __m256d lanes_hsum4_avx2(__m256d a, __m256d b, __m256d c,
                                                                       __m256d d)
{
    const __m256d ab = _mm256_hadd_pd(a, b), cd = _mm256_hadd_pd(c, d);
    return _mm256_add_pd(_mm256_permute2f128_pd(ab, cd, 0x20), _mm256_permute2f128_pd(ab, cd, 0x31));
}
/* the same as vd4_add1 */
__attribute__((target("avx2,fma"))) static inline void lanes_add1_avx2(double *t, const uint32_t *j, __m256d a)
{
    const __m128d lo = _mm256_castpd256_pd128(a), hi = _mm256_extractf128_pd(a, 1);
    _mm_store_sd(t + j[0], _mm_add_sd(_mm_load_sd(t + j[0]), lo));
    _mm_store_sd(t + j[1], _mm_add_sd(_mm_load_sd(t + j[1]), _mm_unpackhi_pd(lo, lo)));
    _mm_store_sd(t + j[2], _mm_add_sd(_mm_load_sd(t + j[2]), hi));
    _mm_store_sd(t + j[3], _mm_add_sd(_mm_load_sd(t + j[3]), _mm_unpackhi_pd(hi, hi)));
}
/* the same as vd4_add3: (a, b) lanes transposed into pairs, c lane by lane */
__attribute__((target("avx2,fma"))) static inline void lanes_add3_avx2(double *t, const uint32_t *j, __m256d a,
                                                                   __m256d b, __m256d c)
{
    const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
    const __m128d ab[4] = {_mm256_castpd256_pd128(t0), _mm256_castpd256_pd128(t1), _mm256_extractf128_pd(t0, 1),
                           _mm256_extractf128_pd(t1, 1)};
    const __m128d clo = _mm256_castpd256_pd128(c), chi = _mm256_extractf128_pd(c, 1);
    const __m128d cc[4] = {clo, _mm_unpackhi_pd(clo, clo), chi, _mm_unpackhi_pd(chi, chi)};
    for (size_t p = 0; p < 4; p++) {
        double *q = t + 3 * (size_t)j[p];
        _mm_storeu_pd(q, _mm_add_pd(_mm_loadu_pd(q), ab[p]));
        _mm_store_sd(q + 2, _mm_add_sd(_mm_load_sd(q + 2), cc[p]));
    }
}
/* the same as vd4_add4: lanes transposed into one vector per pair */
__attribute__((target("avx2,fma"))) static inline void lanes_add4_avx2(double *t, const uint32_t *j, __m256d a,
                                                                   __m256d b, __m256d c, __m256d d)
{
    const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b), t2 = _mm256_unpacklo_pd(c, d),
                  t3 = _mm256_unpackhi_pd(c, d);
    const __m256d r[4] = {_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                          _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31)};
    for (size_t p = 0; p < 4; p++) {
        double *q = t + 4 * (size_t)j[p];
        _mm256_storeu_pd(q, _mm256_add_pd(_mm256_loadu_pd(q), r[p]));
    }
}
#endif

/* The minimum image of four pairs' differences (dx, dy, dz) on a sheared box
 * (core/periodic.h, period_vec's operations in its order, in the lanes of the
 * including level's V_ macros): k = rint(dy / L_y) into K, dy - k L_y, dx - k s,
 * then x's and z's minimum image.  PL[0..2] the periods, PL[3..5] their
 * inverses, PL[6] the images' offset s (PL[7], their speed U, is the caller's:
 * the image of j moves at v_j + k U). */
#define V_WRAP_LE(PL, dx, dy, dz, K)                                                                     \
    do {                                                                                                 \
        (K) = V_RINT(V_MUL(dy, (PL)[4]));                                                                 \
        (dy) = V_SUB(dy, V_MUL((PL)[1], K));                                                              \
        (dx) = V_SUB(dx, V_MUL((PL)[6], K));                                                              \
        (dx) = V_SUB(dx, V_MUL((PL)[0], V_RINT(V_MUL(dx, (PL)[3]))));                                     \
        (dz) = V_SUB(dz, V_MUL((PL)[2], V_RINT(V_MUL(dz, (PL)[5]))));                                     \
    } while (0)

/* The highest level this CPU runs, at most max (0 portable, 1 AVX2 + FMA, 2
 * AVX-512VL as well); 0 where the AVX2 code is not compiled. */
static inline int lanes_level(int max)
{
#ifdef PFB_LANES_AVX2
    if (max >= 1 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return max >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") ? 2 : 1;
#endif
    (void)max;
    return 0;
}

/* fn at lane level level (0, 1, 2): fn_base, fn_avx2 or fn_avx512, the rows a
 * file compiled at each level by core/lanes_levels.inc */
#ifdef PFB_LANES_AVX2
#define LANES_AT(level, fn, ...)                                                                                \
    do {                                                                                                        \
        if ((level) == 2)                                                                                       \
            fn##_avx512(__VA_ARGS__);                                                                           \
        else if ((level) == 1)                                                                                  \
            fn##_avx2(__VA_ARGS__);                                                                             \
        else                                                                                                    \
            fn##_base(__VA_ARGS__);                                                                             \
    } while (0)
#else
#define LANES_AT(level, fn, ...) fn##_base(__VA_ARGS__)
#endif

#endif

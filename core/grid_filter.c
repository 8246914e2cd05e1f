/* grid_filter.c — the neighbour search's single-precision filter (see grid.h
 * and grid_search.c, which calls it).
 *
 * Single-precision filter (AVX2 + FMA, bounded mode, boxes up to 4096 h wide,
 * unless exact_only).  grid_neighbours first converts xs once into float
 * offsets x - origin (xf, in parallel); a cell's candidates are then copied from
 * xf into one block (padded to a multiple of eight with far entries, the rows'
 * next cells prefetched: at 10^6 points the z +- 1 layers are out of L2), so
 * that each of the cell's points scans one loop of eight lanes instead of nine
 * short ranges of four.  A point's own entry is moved far away for its scan, so
 * the loop needs no test for it.  A float r^2 below f_lo2 is surely a pair, one at or
 * above f_hi2 surely not, and the rare ones in between are decided by
 * pfb_dist2 < h^2, so the list is the exact one.  The bounds: a float offset of
 * a value up to E (the box's widest span) errs by at most E 2^-24 after the
 * double subtraction, so the float difference of a pair closer than h errs by
 * delta <= 2 E 2^-24 + (h + 2 E 2^-24) 2^-24 per axis (taken twice over), r^2
 * by at most 2 sqrt(3) delta h + 3 delta^2 plus three roundings of the sum of
 * squares; f_hi2 and f_lo2 are h^2 plus and minus that, rounded outwards
 * (test_filter_band puts pairs within a few ulps of h in a box 4000 h long;
 * a bound one float step too tight fails it). */
#include "grid_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether the CPU runs the AVX2 + FMA kernels of the single-precision filter. */
static int have_avx2_fma(void)
{
#if GRID_HAVE_AVX2
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* The single-precision filter's bounds (see this file's header), for cell size h and a
 * box of widest span E: whether to use it, and the float thresholds lo2 < h^2 <
 * hi2 between which a float r^2 is decided by the exact test.  delta bounds the
 * error of a float coordinate difference of a pair closer than h (two
 * conversions of offsets up to E, one rounded subtraction), doubled for safety;
 * the squared distance adds three roundings. */
int grid_filter_bounds(double h, double E, size_t n, int exact_only, float *lo2, float *hi2)
{
    if (exact_only || !have_avx2_fma() || n >= ((size_t)1 << 31) || !(E <= GRID_FILTER_SPAN * h) || !(E < 1e30))
        return 0;
    const double u = 0x1p-24, hh = h * h;
    const double delta = 2.0 * (2.0 * E * u + (h + 2.0 * E * u) * u) * (1.0 + 1e-6);
    const double spread = 3.5 * delta * h * (1.0 + 1e-3) + 3.0 * delta * delta;
    const double up = (hh * (1.0 + 0x1p-50) + spread) * (1.0 + 4.0 * u);
    const double dn = (hh * (1.0 - 0x1p-50) - spread) * (1.0 - 4.0 * u);
    if (!(dn > 0.5 * hh) || !(up < 1e37))
        return 0;
    float a = (float)dn, b = (float)up;
    if ((double)a > dn)
        a = nextafterf(a, 0.0f);
    if ((double)b < up)
        b = nextafterf(b, INFINITY);
    *lo2 = a;
    *hi2 = b;
    return 1;
}

/* Whether sorted positions ki and c are a pair: pfb_dist2 < hh, in this
 * (default-target, unfused) function so its bits are pfb_dist2's. */
__attribute__((noinline)) static int exact_hit(int dim, const double *const xs[3], size_t ki, size_t c, double hh)
{
    return pfb_dist2(dim, xs, ki, c) < hh;
}

#if GRID_HAVE_AVX2
/* Byte q of lut8[mask] is the q-th set bit of the 8-bit mask: the 32-bit lanes a
 * permutation moves to the front. */
static const uint64_t lut8[256] = {
    0x0, 0x0, 0x1, 0x100, 0x2, 0x200,
    0x201, 0x20100, 0x3, 0x300, 0x301, 0x30100,
    0x302, 0x30200, 0x30201, 0x3020100, 0x4, 0x400,
    0x401, 0x40100, 0x402, 0x40200, 0x40201, 0x4020100,
    0x403, 0x40300, 0x40301, 0x4030100, 0x40302, 0x4030200,
    0x4030201, 0x403020100, 0x5, 0x500, 0x501, 0x50100,
    0x502, 0x50200, 0x50201, 0x5020100, 0x503, 0x50300,
    0x50301, 0x5030100, 0x50302, 0x5030200, 0x5030201, 0x503020100,
    0x504, 0x50400, 0x50401, 0x5040100, 0x50402, 0x5040200,
    0x5040201, 0x504020100, 0x50403, 0x5040300, 0x5040301, 0x504030100,
    0x5040302, 0x504030200, 0x504030201, 0x50403020100, 0x6, 0x600,
    0x601, 0x60100, 0x602, 0x60200, 0x60201, 0x6020100,
    0x603, 0x60300, 0x60301, 0x6030100, 0x60302, 0x6030200,
    0x6030201, 0x603020100, 0x604, 0x60400, 0x60401, 0x6040100,
    0x60402, 0x6040200, 0x6040201, 0x604020100, 0x60403, 0x6040300,
    0x6040301, 0x604030100, 0x6040302, 0x604030200, 0x604030201, 0x60403020100,
    0x605, 0x60500, 0x60501, 0x6050100, 0x60502, 0x6050200,
    0x6050201, 0x605020100, 0x60503, 0x6050300, 0x6050301, 0x605030100,
    0x6050302, 0x605030200, 0x605030201, 0x60503020100, 0x60504, 0x6050400,
    0x6050401, 0x605040100, 0x6050402, 0x605040200, 0x605040201, 0x60504020100,
    0x6050403, 0x605040300, 0x605040301, 0x60504030100, 0x605040302, 0x60504030200,
    0x60504030201, 0x6050403020100, 0x7, 0x700, 0x701, 0x70100,
    0x702, 0x70200, 0x70201, 0x7020100, 0x703, 0x70300,
    0x70301, 0x7030100, 0x70302, 0x7030200, 0x7030201, 0x703020100,
    0x704, 0x70400, 0x70401, 0x7040100, 0x70402, 0x7040200,
    0x7040201, 0x704020100, 0x70403, 0x7040300, 0x7040301, 0x704030100,
    0x7040302, 0x704030200, 0x704030201, 0x70403020100, 0x705, 0x70500,
    0x70501, 0x7050100, 0x70502, 0x7050200, 0x7050201, 0x705020100,
    0x70503, 0x7050300, 0x7050301, 0x705030100, 0x7050302, 0x705030200,
    0x705030201, 0x70503020100, 0x70504, 0x7050400, 0x7050401, 0x705040100,
    0x7050402, 0x705040200, 0x705040201, 0x70504020100, 0x7050403, 0x705040300,
    0x705040301, 0x70504030100, 0x705040302, 0x70504030200, 0x70504030201, 0x7050403020100,
    0x706, 0x70600, 0x70601, 0x7060100, 0x70602, 0x7060200,
    0x7060201, 0x706020100, 0x70603, 0x7060300, 0x7060301, 0x706030100,
    0x7060302, 0x706030200, 0x706030201, 0x70603020100, 0x70604, 0x7060400,
    0x7060401, 0x706040100, 0x7060402, 0x706040200, 0x706040201, 0x70604020100,
    0x7060403, 0x706040300, 0x706040301, 0x70604030100, 0x706040302, 0x70604030200,
    0x70604030201, 0x7060403020100, 0x70605, 0x7060500, 0x7060501, 0x706050100,
    0x7060502, 0x706050200, 0x706050201, 0x70605020100, 0x7060503, 0x706050300,
    0x706050301, 0x70605030100, 0x706050302, 0x70605030200, 0x70605030201, 0x7060503020100,
    0x7060504, 0x706050400, 0x706050401, 0x70605040100, 0x706050402, 0x70605040200,
    0x70605040201, 0x7060504020100, 0x706050403, 0x70605040300, 0x70605040301, 0x7060504030100,
    0x70605040302, 0x7060504030200, 0x7060504030201, 0x706050403020100,
};

#endif

#if GRID_HAVE_AVX2
/* dst[c] = (float)(src[c] - o) for c < len, four at a time (the tail's loads
 * and stores masked: nothing past len is read or written). */
__attribute__((target("avx2"))) static void offsets_f(float *restrict dst, const double *restrict src, double o,
                                                       size_t len)
{
    const __m256d O = _mm256_set1_pd(o);
    size_t c = 0;
    for (; c + 4 <= len; c += 4)
        _mm_storeu_ps(dst + c, _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_loadu_pd(src + c), O)));
    if (c < len) {
        const __m256i lm =
            _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(len - c)), _mm256_setr_epi64x(0, 1, 2, 3));
        const __m128i sm = _mm_cmpgt_epi32(_mm_set1_epi32((int)(len - c)), _mm_setr_epi32(0, 1, 2, 3));
        _mm_maskstore_ps(dst + c, sm, _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_maskload_pd(src + c, lm), O)));
    }
    _mm256_zeroupper();
}
#endif

/* The float offsets g->xf (from xs) that grid_block_fill copies, made in parallel
 * on nt threads; returns PFB_ENOMEM if they cannot be stored. */
int grid_make_xf(pfb_grid *g, int nt)
{
    const size_t n = g->n, dim = (size_t)g->dim;
    if (n > g->cap_xf || !g->xf) {
        const size_t cap = grid_grown(g->cap_xf, n);
        /* 8 floats of room past the end: grid_block_fill reads whole vectors */
        g->xf = cap > SIZE_MAX / dim - 8 ? (free(g->xf), NULL) : grid_fresh_array(g->xf, cap * dim + 8, sizeof *g->xf);
        g->cap_xf = g->xf ? cap : 0;
        if (!g->xf)
            return PFB_ENOMEM;
    }
    const size_t np = n / (4 * (size_t)GRID_PIECE) + 1; /* pieces, taken by the threads as they come */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
    for (size_t t = 0; t < np; t++) {
        const size_t a = n * t / np, b = n * (t + 1) / np;
        for (size_t d = 0; d < dim; d++) {
            const double *src = g->xs + d * g->cap_points + a, o = g->origin[d];
            float *dst = g->xf + d * g->cap_xf + a;
#if GRID_HAVE_AVX2
            offsets_f(dst, src, o, b - a);
#else
            for (size_t c = 0; c < b - a; c++)
                dst[c] = (float)(src[c] - o);
#endif
        }
    }
    return PFB_OK;
}

#if GRID_HAVE_AVX2
/* Fill b with the candidates of ranges r (a cell's: its points share them), from
 * the float offsets g->xf (grid_make_xf); b->ids is then their point indices.  Only
 * for a build that allows the filter (g->filter: AVX2 + FMA, bounded mode, a box
 * at most 4096 h wide).  Returns 0 (b unusable) if r holds more than
 * GRID_BLOCK_MAX candidates; then use grid_hits.  Runs are copied eight floats
 * at a time: up to seven entries past a run are written (the next run, or the
 * padding, overwrites them; the arrays have room) and read (xf has room). */
__attribute__((target("avx2"), always_inline)) static inline int block_fill_any(const pfb_grid *g,
                                                                            const pfb_cell_ranges *r,
                                                                            cand_block *b, int from_xs)
{
    size_t m = 0;
    for (int q = 0; q < r->n; q++)
        m += r->hi[q] - r->lo[q];
    b->n = 0;
    if (m > GRID_BLOCK_MAX)
        return 0;
    m = 0;
    const uint32_t *order = g->order;
    const size_t cap = g->cap_xf;
    const int dim = g->dim, ordered = g->ordered;
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int q = 0; q < r->n; q++) {
        const size_t lo = r->lo[q], len = r->hi[q] - lo;
        for (int d = 0; d < dim; d++) {
            if (from_xs) { /* the same values as grid_make_xf's, made here */
                offsets_f(b->x[d] + m, g->xs + (size_t)d * g->cap_points + lo, g->origin[d], len);
                continue;
            }
            const float *src = g->xf + (size_t)d * cap + lo;
            float *dst = b->x[d] + m;
            for (size_t c = 0; c < len; c += 8)
                _mm256_storeu_ps(dst + c, _mm256_loadu_ps(src + c));
            /* the rows' next cells, which the next cell's block reads */
            __builtin_prefetch(src + len + 16);
            __builtin_prefetch(src + len + 32);
        }
        for (size_t c = 0; c < len; c += 8)
            _mm256_storeu_si256((__m256i *)(b->pos + m + c),
                                _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)(lo + c)), iota));
        if (!ordered)
            for (size_t c = 0; c < len; c++)
                b->id[m + c] = (uint32_t)order[lo + c];
        b->at[q] = m;
        m += len;
    }
    for (; m % 8; m++) {
        for (int d = 0; d < 3; d++)
            b->x[d][m] = 1e30f; /* (1e30)^2 overflows to inf: never below hi2 */
        b->pos[m] = b->pos[0];
        if (!ordered)
            b->id[m] = b->id[0];
    }
    if (dim == 2)
        memset(b->x[2], 0, m * sizeof(float));
    b->n = m;
    b->ids = !ordered ? b->id : b->pos; /* ordered: position = index */
    return 1;
}

/* block_fill_any from xf (made once by grid_make_xf for the whole list), or from
 * xs (grid_half_row: no stored copy); separate so each loop is its own */
__attribute__((target("avx2"))) int grid_block_fill(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b)
{
    return block_fill_any(g, r, b, 0);
}

__attribute__((target("avx2"))) int grid_block_fill_xs(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b)
{
    return block_fill_any(g, r, b, 1);
}
#endif

#if GRID_HAVE_AVX2
/* The float squared distances from (a0, a1, a2) to block entries t..t+7. */
__attribute__((target("avx2,fma"))) static inline __m256 block_dist2(const cand_block *b, size_t t, __m256 a0,
                                                                      __m256 a1, __m256 a2)
{
    const __m256 dx = _mm256_sub_ps(a0, _mm256_loadu_ps(b->x[0] + t));
    const __m256 dy = _mm256_sub_ps(a1, _mm256_loadu_ps(b->x[1] + t));
    const __m256 dz = _mm256_sub_ps(a2, _mm256_loadu_ps(b->x[2] + t));
    return _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
}

/* One step of grid_block_hits_from: block_hits' loop body, for entries t..t+7 of b (only the lanes set in keep),
 * the hits' entries of ids moved to the front of a 256-bit store at out + m;
 * returns the new m. */
__attribute__((target("avx2,fma"), always_inline)) static inline size_t
block_step(int dim, const double *const xs[3], double hh, const cand_block *b, const uint32_t *ids, size_t ki,
           size_t t, __m256 a0, __m256 a1, __m256 a2, __m256 L, __m256 H, unsigned keep, uint32_t *restrict out,
           size_t m)
{
    const __m256 r2 = block_dist2(b, t, a0, a1, a2);
    unsigned mask = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(r2, L, _CMP_LT_OQ));
    unsigned below = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(r2, H, _CMP_LT_OQ));
    if (keep != 0xffu) {
        mask &= keep;
        below &= keep;
    }
    if (below != mask) {
        /* the rare candidates between lo2 and hi2: the exact test */
        unsigned band = below & ~mask;
        while (band) {
            const unsigned lane = (unsigned)__builtin_ctz(band);
            mask |= (unsigned)exact_hit(dim, xs, ki, (size_t)b->pos[t + lane], hh) << lane;
            band &= band - 1u;
        }
    }
    const __m256i sel = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)lut8[mask]));
    const __m256i id = _mm256_loadu_si256((const __m256i *)(ids + t));
    _mm256_storeu_si256((__m256i *)(out + m), _mm256_permutevar8x32_epi32(id, sel));
    return m + (size_t)__builtin_popcount(mask);
}

/* grid_block_pairs with AVX2: eight candidates at a time, the hits' entries of
 * ids moved to the front of a 256-bit store.  Its loop keeps its own body:
 * written as block_step (inlined, keep = 0xff) it has fewer instructions but
 * made the list 1.10-1.15x slower (8 alternating runs of bench nsearch). */
__attribute__((target("avx2,fma"))) size_t grid_block_hits(const pfb_grid *g, const double *const xs[3],
                                                              const cand_block *b, size_t ki, const float a[3],
                                                              uint32_t *restrict out)
{
    const int dim = g->dim;
    const double hh = g->h * g->h;
    const __m256 a0 = _mm256_set1_ps(a[0]), a1 = _mm256_set1_ps(a[1]), a2 = _mm256_set1_ps(a[2]);
    const __m256 L = _mm256_set1_ps(g->f_lo2), H = _mm256_set1_ps(g->f_hi2);
    const uint32_t *ids = b->ids;
    size_t m = 0;
    for (size_t t = 0; t < b->n; t += 8) {
        const __m256 r2 = block_dist2(b, t, a0, a1, a2);
        unsigned mask = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(r2, L, _CMP_LT_OQ));
        const unsigned below = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(r2, H, _CMP_LT_OQ));
        if (below != mask) {
            /* the rare candidates between lo2 and hi2: the exact test */
            unsigned band = below & ~mask;
            while (band) {
                const unsigned lane = (unsigned)__builtin_ctz(band);
                mask |= (unsigned)exact_hit(dim, xs, ki, (size_t)b->pos[t + lane], hh) << lane;
                band &= band - 1u;
            }
        }
        const __m256i sel = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)lut8[mask]));
        const __m256i id = _mm256_loadu_si256((const __m256i *)(ids + t));
        _mm256_storeu_si256((__m256i *)(out + m), _mm256_permutevar8x32_epi32(id, sel));
        m += (size_t)__builtin_popcount(mask);
    }
    _mm256_zeroupper();
    return m;
}

/* The hits among b's entries from place `from` on (entries before it not
 * tested), as sorted positions (b->pos), into out (room for b->n + 8). */
__attribute__((target("avx2,fma"))) size_t grid_block_hits_from(const pfb_grid *g, const double *const xs[3],
                                                                   const cand_block *b, size_t ki, size_t from,
                                                                   uint32_t *restrict out)
{
    const int dim = g->dim;
    const double hh = g->h * g->h;
    const size_t self = from - 1;
    const __m256 a0 = _mm256_set1_ps(b->x[0][self]), a1 = _mm256_set1_ps(b->x[1][self]),
                 a2 = _mm256_set1_ps(b->x[2][self]);
    const __m256 L = _mm256_set1_ps(g->f_lo2), H = _mm256_set1_ps(g->f_hi2);
    size_t t = from & ~(size_t)7, m = 0;
    if (t < b->n) {
        m = block_step(dim, xs, hh, b, b->pos, ki, t, a0, a1, a2, L, H, (0xffu << (from & 7)) & 0xffu, out, m);
        for (t += 8; t < b->n; t += 8)
            m = block_step(dim, xs, hh, b, b->pos, ki, t, a0, a1, a2, L, H, 0xffu, out, m);
    }
    _mm256_zeroupper();
    return m;
}
#endif

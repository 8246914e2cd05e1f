/* grid_internal.h — what the grid's three files share (core/grid.c: the grid;
 * core/grid_search.c: the neighbour search; core/grid_filter.c: its
 * single-precision filter).  Not for use outside them: the interface is
 * grid.h. */
#ifndef PFB_GRID_INTERNAL_H
#define PFB_GRID_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>

#include "grid.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GRID_HAVE_AVX2 1
#else
#define GRID_HAVE_AVX2 0
#endif

/* below this many points the search runs on one thread, unless threads are set */
#define GRID_PARALLEL_MIN 512
/* most chunks (and threads) of a search */
#define GRID_MAX_CHUNKS 256
/* points per piece of the parallel per-point loops, taken by the threads as
 * they come (the cores of a shared machine often differ in speed; the results
 * do not depend on who takes a piece) */
#define GRID_PIECE 16384
/* points per chunk of a parallel search, about, and most chunks per thread */
#define GRID_CHUNK_POINTS 16384
#define GRID_CHUNKS_PER_THREAD 16
/* rows shorter than this go through a scratch row on the stack */
#define GRID_ROW_MAX 512
/* widest box, in cells of edge h, searched through the single-precision filter
 * (its float offsets then err by at most ~5e-4 h) */
#define GRID_FILTER_SPAN 4096.0
/* slack, in cell units, added to h when leaving out cells by their gap to a point:
 * far above the rounding of the cell coordinates (a few ulps of at most 2^40) */
#define GRID_GAP_MARGIN 1e-4

/* A cell's candidates in one block for the single-precision filter: their
 * offsets x - origin as floats (one array per axis) and their sorted positions,
 * padded to a multiple of eight with far-away entries.  About 41 KB: keep one
 * per thread and fill it once per cell. */
#define GRID_BLOCK_MAX 2048
typedef struct cand_block {
    size_t n;                          /* entries, padded */
    float x[3][GRID_BLOCK_MAX + 8];
    uint32_t pos[GRID_BLOCK_MAX + 8];  /* sorted positions */
    uint32_t id[GRID_BLOCK_MAX + 8];   /* their point indices (order[pos]) when asked for */
    const uint32_t *ids;               /* what block_pairs reports: id, or pos */
    size_t at[27];                     /* where each of the ranges it was filled from starts */
} cand_block;

/* The checks every entry point makes: dim and h, the coordinate arrays, and
 * the bounding box of the points (failing on the first non-finite value),
 * with `who` naming the caller in the message (grid.c). */
int grid_check_params(const char *who, int dim, double h, pfb_err *err);
int grid_check_arrays(const char *who, int dim, const double *const x[3], size_t n, pfb_err *err);
int grid_bound_points(const char *who, int dim, const double *const x[3], size_t n, int nt, double lo[3],
                      double hi[3], pfb_err *err);

/* Replace *old by an uninitialised array of count elements of size sz (contents are
 * not kept); returns NULL on overflow or allocation failure (old is freed). */
static inline void *grid_fresh_array(void *old, size_t count, size_t sz)
{
    free(old);
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / sz)
        return NULL;
    return malloc(count * sz);
}

/* Capacity to allocate for a need that exceeds cap: 1.5x growth, at least need. */
static inline size_t grid_grown(size_t cap, size_t need)
{
    const size_t g = cap + cap / 2;
    return (g > need && g > cap) ? g : need;
}

/* Slot of a cell in hashed mode (mask = ntable - 1). */
static inline size_t grid_hash_cell(long cx, long cy, long cz, size_t mask)
{
    uint64_t k = (uint64_t)cx * UINT64_C(0x9E3779B97F4A7C15);
    k ^= (uint64_t)cy * UINT64_C(0xC2B2AE3D27D4EB4F);
    k ^= (uint64_t)cz * UINT64_C(0x165667B19E3779F9);
    k ^= k >> 31;
    k *= UINT64_C(0xD6E8FEB86659FD93);
    k ^= k >> 32;
    return (size_t)k & mask;
}

/* The single-precision filter (grid_filter.c; its header says what each
 * bound means).  grid_filter_bounds: whether a build of n points in a box of
 * widest span E may use it, and its thresholds.  grid_make_xf: the float
 * offsets g->xf of the whole build, on nt threads.  grid_block_fill (from xf)
 * and grid_block_fill_xs (from xs): a cell's candidates into b, or 0 when
 * they are more than GRID_BLOCK_MAX.  grid_block_place: the place of sorted
 * position k in b.  grid_block_pairs: the pairs of ki (at place self) among
 * b's entries, as b->ids (grid_block_hits scans them).  grid_block_hits_from: the hits among b's entries
 * from place `from` on, as sorted positions. */
int grid_filter_bounds(double h, double E, size_t n, int exact_only, float *lo2, float *hi2);
int grid_make_xf(pfb_grid *g, int nt);
#if GRID_HAVE_AVX2
__attribute__((target("avx2"))) int grid_block_fill(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b);
__attribute__((target("avx2"))) int grid_block_fill_xs(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b);
__attribute__((target("avx2,fma"))) size_t grid_block_hits_from(const pfb_grid *g, const double *const xs[3],
                                                                const cand_block *b, size_t ki, size_t from,
                                                                uint32_t *restrict out);
__attribute__((target("avx2,fma"))) size_t grid_block_hits(const pfb_grid *g, const double *const xs[3],
                                                           const cand_block *b, size_t ki, const float a[3],
                                                           uint32_t *restrict out);
#endif

/* Inline: called for every point of a cell (the list's inner calls). */
/* The place of sorted position k in block b (k is one of its candidates). */
static inline size_t grid_block_place(const cand_block *b, const pfb_cell_ranges *r, size_t k)
{
    int q = 0;
    while (q + 1 < r->n && !(k >= r->lo[q] && k < r->hi[q]))
        q++;
    return b->at[q] + (k - r->lo[q]);
}

/* The pairs of sorted position ki (one of b's candidates, at place self in b:
 * grid_block_place) among b's candidates: the same set as grid_hits over the ranges
 * b was filled from, in the same order, written to out (which needs room for
 * b->n + 8 entries) as point indices or sorted positions; returns their number.
 * ki's own entry is moved far away for the scan (its float r^2 is then infinite)
 * and put back, which spares the scan a test for it in every step. */
static inline size_t grid_block_pairs(const pfb_grid *g, cand_block *b, size_t self, size_t ki, uint32_t *out)
{
    const double *xs[3];
    grid_xs(g, xs);
#if GRID_HAVE_AVX2
    const float a[3] = {b->x[0][self], b->x[1][self], b->x[2][self]};
    b->x[0][self] = 1e30f;
    const size_t m = grid_block_hits(g, xs, b, ki, a, out);
    b->x[0][self] = a[0];
    return m;
#else
    (void)xs;
    (void)self;
    (void)ki;
    (void)out;
    return 0; /* no filter without AVX2: grid_block_fill refuses */
#endif
}

#endif

/* grid.c — uniform-grid neighbour search with counting sort (see grid.h).
 *
 * Build: one pass finds the bounding box (and rejects non-finite coordinates),
 * one pass bins every point into a cell slot (both parallel from 512 points, as
 * the list), one counts slot occupancy, then a
 * stable counting sort (inclusive prefix sum, scatter from the last point down)
 * fills `order` and leaves cell_start[s] at the first entry of slot s.  The same
 * scatter also writes `xs`, a cell-ordered copy of the coordinates, so that the
 * neighbour scan reads candidates from contiguous memory.  Points already in
 * slot order (the framework keeps storage so; checked in parallel) skip the
 * sort, whose result would be the identity: order, cell_start and xs are then
 * written directly, in parallel.
 *
 * Bounded mode: slot = (cz * ny + cy) * nx + cx, with cells of edge h / S (S =
 * sub_used: 1 by default; 2 when grid.sub asks for it and the box needs at most
 * max_cells such cells), so the cells cx-S..cx+S of one row are one contiguous
 * range of `order`.  A
 * point's candidates are one range per row of the (2S + 1)^(dim-1) rows around
 * its cell, in increasing slot order, minus what its position rules out: with f
 * the point's place in its cell (in cell units, from the binning's own
 * expression), a row whose (y, z) gap to the point is h or more, and cells at a
 * row's ends whose gap is, are skipped: in 3D, 20.6 h^3 of candidate volume at
 * S = 1 (27 h^3 without the test) and 10.7 h^3 at S = 2 (the ball is 4.19 h^3).
 * The neighbour list scans whole cells' ranges (shared by the cell's points,
 * cheaper there than the test); muller's traversal prunes.  Hashed mode (cells
 * of edge h or wider): slot = hash(cell) mod ntable (ntable a power of two >=
 * 2n); the 3^dim neighbour slots of a cell are
 * de-duplicated so that a slot shared by two neighbour cells is scanned once, and
 * points of a far cell that collides are rejected by the distance test.
 *
 * Exactness.  A pair is reported iff pfb_dist2 < h*h, the expression the brute
 * force uses, so the only way to differ from it is to miss a pair whose cells are
 * more than S apart on some axis, or one the gap test leaves out.  The gap test
 * keeps a cell unless its gap, in cell units, is at least h scale + 1e-4: the
 * points of such a cell have cell coordinates (the same rounded expression) at
 * least that far from the point's, and a difference of 1e-4 cell units is far
 * above the rounding of coordinates below 2^40, so their true distance exceeds h
 * by more than pfb_dist2's rounding can hide.  Nor can a pair be more than S
 * cells apart: rounding is monotone,
 * so fl(dx*dx) <= pfb_dist2 < fl(h*h) implies |dx| < h exactly on every axis (also
 * if the compiler fuses pfb_dist2 into FMAs), and every cell is at least h / S
 * wide in exact arithmetic.  That last claim needs care: floor(fl(fl(x - origin) * scale))
 * has a rounding error of a few ulps of the cell coordinate, and with scale =
 * fl(S/h) the cell just after the index crosses a power of two can be narrower
 * than h / S by ~K ulps, so a pair just under h apart can land two cells apart (a
 * search finds such pairs in ~2% of tries aimed at those cells; test_grid.c keeps
 * four).  So the binning scale is S inv_h shrunk by the relative amount
 * 4 (K + 4) DBL_EPSILON, K the span in cells (2e-9 at 2.5e6 cells), which makes
 * every cell provably at least h / S wide.  When the span exceeds kcap() = 2^40 cells
 * the cells are widened to span / 2^40 (hashed mode; correct, only slower), which
 * keeps the margin below 2^-10 for any finite input.  ncell per axis is still
 * floor((max - min) * S inv_h) + 1; the smaller scale can only leave the last cell
 * of an axis emptier.
 *
 * Neighbour list.  The points, in cell order, are cut into chunks of whole
 * cells, up to 16 per thread (about 16k points each).  One parallel pass writes
 * every point's row (its hits among the candidate ranges of its cell, read from
 * xs, contiguous), sorted by index (insertion sort: linear when storage is cell
 * ordered, since ranges are visited in slot order and each cell holds
 * increasing indices), and its length into start[i + 1].  Thread 0 takes the
 * chunks from the first on and, with cell-ordered storage, writes their rows in
 * place while the list's storage lasts; the other threads take chunks from the
 * last down, each into the chunk's buffer, until the two sides meet, so a faster
 * core takes more chunks (the cores of a shared machine often differ in speed).
 * A prefix sum over point index gives start, and a second parallel pass copies
 * the buffered rows into place (rows adjacent in both as one run: with
 * cell-ordered storage, one run per chunk, copied in pieces).  Each row is made
 * by one thread from the same values, whichever thread that is, so nothing
 * depends on the thread count or on the timing.  The buffers are kept between
 * calls, each as large as its chunk's rows have needed.  The list holds
 * indices only (4 bytes a pair): a pair's squared distance is pfb_dist2 of the
 * same coordinates, which its users recompute (they read those coordinates
 * anyway); storing it quadrupled what the search writes.
 *
 * Half rows (grid_half_row: the pairs c > k of one point, for callers that
 * evaluate each pair once).  In bounded mode a cell's ranges come in
 * increasing slot order, so its block's entries ascend and the pairs of larger
 * position are the entries after the point's own: the scan starts there.  The
 * block is made from xs directly (the same float offsets as xf, not stored)
 * and kept while the caller's points stay in its cell.  Without the filter,
 * the exact ranges from k + 1 on are scanned (in hashed mode the row is then
 * sorted, its slots coming in no particular order).
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
#include "grid.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
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

/* Largest span in cells binned at cell edge h (above it cells are widened). */
static double kcap(void)
{
    const double lim = (double)(LONG_MAX / 4);
    return lim < 0x1p40 ? lim : 0x1p40;
}

/* ------------------------------------------------------------------ checks */

static int check_params(const char *who, int dim, double h, pfb_err *err)
{
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "%s: dim = %d is invalid; dim must be 2 or 3", who,
                           dim);
    if (!(h > 0.0) || !isfinite(h))
        return pfb_err_set(err, PFB_EINVAL, "%s: h = %g is invalid; h must be a finite number > 0",
                           who, h);
    if (!isfinite(1.0 / h))
        return pfb_err_set(err, PFB_EINVAL,
                           "%s: h = %g is too small (1/h overflows); h must be >= %g", who, h,
                           1.0 / DBL_MAX);
    return PFB_OK;
}

static int check_arrays(const char *who, int dim, const double *const x[3], size_t n, pfb_err *err)
{
    if (n == 0)
        return PFB_OK;
    if (!x || !x[0] || !x[1] || (dim == 3 && !x[2]))
        return pfb_err_set(err, PFB_EINVAL, "%s: coordinate array is NULL for %zu points; "
                           "x[0..%d] must point to n values each", who, n, dim - 1);
    return PFB_OK;
}

/* Bounding box of the points; fails on the first (lowest index) non-finite value. */
static int bound_points(const char *who, int dim, const double *const x[3], size_t n, int nt,
                        double lo[3], double hi[3], pfb_err *err)
{
    int bad = 0;
    for (int d = 0; d < 3; d++)
        lo[d] = hi[d] = 0.0;
    (void)nt;
    for (int d = 0; d < dim && n > 0; d++) {
        const double *restrict xd = x[d];
        double a = xd[0], b = xd[0];
        /* min and max do not depend on the order (a NaN is reported below) */
#pragma omp parallel for schedule(dynamic, GRID_PIECE) num_threads(nt) if (nt > 1) reduction(min : a) reduction(max : b) \
    reduction(| : bad)
        for (size_t i = 0; i < n; i++) {
            const double v = xd[i];
            bad |= !isfinite(v);
            a = v < a ? v : a;
            b = v > b ? v : b;
        }
        lo[d] = a;
        hi[d] = b;
    }
    if (bad) {
        for (size_t i = 0; i < n; i++)
            for (int d = 0; d < dim; d++)
                if (!isfinite(x[d][i]))
                    return pfb_err_set(err, PFB_EINVAL, "%s: point %zu has non-finite %c "
                                       "coordinate %g; coordinates must be finite", who, i,
                                       'x' + d, x[d][i]);
    }
    return PFB_OK;
}

/* --------------------------------------------------------------- storage */

/* Replace *old by an uninitialised array of count elements of size sz (contents are
 * not kept); returns NULL on overflow or allocation failure (old is freed). */
static void *fresh_array(void *old, size_t count, size_t sz)
{
    free(old);
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / sz)
        return NULL;
    return malloc(count * sz);
}

/* Capacity to allocate for a need that exceeds cap: 1.5x growth, at least need. */
static size_t grown(size_t cap, size_t need)
{
    const size_t g = cap + cap / 2;
    return (g > need && g > cap) ? g : need;
}

static void free_point_arrays(pfb_grid *g)
{
    free(g->order);
    free(g->slot);
    free(g->cellc);
    free(g->xs);
    g->order = g->slot = NULL;
    g->cellc = NULL;
    g->xs = NULL;
    g->cap_points = 0;
}

static int reserve_points(pfb_grid *g, size_t n)
{
    if (n <= g->cap_points && g->order)
        return PFB_OK;
    const size_t cap = grown(g->cap_points, n);
    const size_t dim = (size_t)g->dim;
    g->order = fresh_array(g->order, cap, sizeof *g->order);
    g->slot = fresh_array(g->slot, cap, sizeof *g->slot);
    free(g->cellc); /* made again, at the new capacity, by a hashed build */
    g->cellc = NULL;
    g->xs = (cap > SIZE_MAX / dim) ? (free(g->xs), NULL)
                                   : fresh_array(g->xs, cap * dim, sizeof *g->xs);
    if (!g->order || !g->slot || !g->xs) {
        free_point_arrays(g);
        return PFB_ENOMEM;
    }
    g->cap_points = cap;
    return PFB_OK;
}

/* The per-point cell coordinates hashed mode needs (bounded mode derives them
 * from the slot). */
static int reserve_cellc(pfb_grid *g)
{
    if (g->cellc)
        return PFB_OK;
    const size_t dim = (size_t)g->dim, cap = g->cap_points;
    g->cellc = cap > SIZE_MAX / dim ? NULL : fresh_array(NULL, cap * dim, sizeof *g->cellc);
    return g->cellc ? PFB_OK : PFB_ENOMEM;
}

static int reserve_table(pfb_grid *g, size_t ntable)
{
    if (ntable == SIZE_MAX)
        return PFB_ENOMEM;
    if (ntable + 1 <= g->cap_table && g->cell_start)
        return PFB_OK;
    const size_t cap = grown(g->cap_table, ntable + 1);
    g->cell_start = fresh_array(g->cell_start, cap, sizeof *g->cell_start);
    if (!g->cell_start) {
        g->cap_table = 0;
        return PFB_ENOMEM;
    }
    g->cap_table = cap;
    return PFB_OK;
}

static int reserve_start(pfb_nlist *nl, size_t n)
{
    if (n == SIZE_MAX)
        return PFB_ENOMEM;
    if (n + 1 <= nl->cap_n && nl->start)
        return PFB_OK;
    const size_t cap = grown(nl->cap_n, n + 1);
    nl->start = fresh_array(nl->start, cap, sizeof *nl->start);
    if (!nl->start) {
        nl->cap_n = 0;
        return PFB_ENOMEM;
    }
    nl->cap_n = cap;
    return PFB_OK;
}

static int reserve_pairs(pfb_nlist *nl, size_t npairs)
{
    if (npairs <= nl->cap_pairs && nl->idx)
        return PFB_OK;
    const size_t cap = grown(nl->cap_pairs, npairs);
    nl->idx = fresh_array(nl->idx, cap, sizeof *nl->idx);
    if (!nl->idx) {
        nl->cap_pairs = 0;
        return PFB_ENOMEM;
    }
    nl->cap_pairs = cap;
    return PFB_OK;
}

/* Room for npairs entries, keeping the first keep. */
static int keep_pairs(pfb_nlist *nl, size_t npairs, size_t keep)
{
    if (keep == 0)
        return reserve_pairs(nl, npairs);
    if (npairs <= nl->cap_pairs)
        return PFB_OK;
    const size_t cap = grown(nl->cap_pairs, npairs);
    if (cap > SIZE_MAX / sizeof *nl->idx)
        return PFB_ENOMEM;
    uint32_t *b = realloc(nl->idx, cap * sizeof *b);
    if (!b)
        return PFB_ENOMEM;
    nl->idx = b;
    nl->cap_pairs = cap;
    return PFB_OK;
}

/* The per-chunk row buffers of a list: nt of them (kept between calls). */
static int reserve_chunks(pfb_nlist *nl, int nt)
{
    if (nt <= nl->nchunk)
        return PFB_OK;
    uint32_t **c = realloc(nl->chunk, (size_t)nt * sizeof *c);
    if (!c)
        return PFB_ENOMEM;
    nl->chunk = c;
    size_t *cap = realloc(nl->chunk_cap, (size_t)nt * sizeof *cap);
    if (!cap)
        return PFB_ENOMEM;
    nl->chunk_cap = cap;
    for (int t = nl->nchunk; t < nt; t++) {
        c[t] = NULL;
        cap[t] = 0;
    }
    nl->nchunk = nt;
    return PFB_OK;
}

/* Room for need entries in chunk t's buffer (contents kept). */
static int chunk_room(pfb_nlist *nl, int t, size_t need)
{
    if (need <= nl->chunk_cap[t])
        return PFB_OK;
    const size_t cap = grown(nl->chunk_cap[t], need + need / 4);
    if (cap > SIZE_MAX / sizeof(uint32_t))
        return PFB_ENOMEM;
    uint32_t *b = realloc(nl->chunk[t], cap * sizeof *b);
    if (!b)
        return PFB_ENOMEM;
    nl->chunk[t] = b;
    nl->chunk_cap[t] = cap;
    return PFB_OK;
}

/* ------------------------------------------------------------------- grid */

int grid_init(pfb_grid *g, int dim, double h, pfb_err *err)
{
    if (!g)
        return pfb_err_set(err, PFB_EINVAL, "grid_init: grid is NULL");
    const int rc = check_params("grid_init", dim, h, err);
    if (rc != PFB_OK)
        return rc;
    memset(g, 0, sizeof *g);
    g->dim = dim;
    g->h = h;
    g->inv_h = 1.0 / h;
    g->scale = g->inv_h;
    g->ncell[0] = g->ncell[1] = g->ncell[2] = 1;
    g->sub = 1;
    g->sub_used = 1;
    return PFB_OK;
}

void grid_free(pfb_grid *g)
{
    if (!g)
        return;
    free_point_arrays(g);
    free(g->cell_start);
    free(g->xf);
    memset(g, 0, sizeof *g);
}

/* Slot of a cell in hashed mode (mask = ntable - 1). */
static size_t hash_cell(long cx, long cy, long cz, size_t mask)
{
    uint64_t k = (uint64_t)cx * UINT64_C(0x9E3779B97F4A7C15);
    k ^= (uint64_t)cy * UINT64_C(0xC2B2AE3D27D4EB4F);
    k ^= (uint64_t)cz * UINT64_C(0x165667B19E3779F9);
    k ^= k >> 31;
    k *= UINT64_C(0xD6E8FEB86659FD93);
    k ^= k >> 32;
    return (size_t)k & mask;
}

/* Whether the CPU runs the AVX2 + FMA kernels of the single-precision filter. */
static int have_avx2_fma(void)
{
#if GRID_HAVE_AVX2
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* The single-precision filter's bounds (see the header), for cell size h and a
 * box of widest span E: whether to use it, and the float thresholds lo2 < h^2 <
 * hi2 between which a float r^2 is decided by the exact test.  delta bounds the
 * error of a float coordinate difference of a pair closer than h (two
 * conversions of offsets up to E, one rounded subtraction), doubled for safety;
 * the squared distance adds three roundings. */
static int filter_bounds(double h, double E, size_t n, int exact_only, float *lo2, float *hi2)
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

/* grid_build's stable counting sort of the n points by slot on nt threads,
 * each taking the slots of one range: thread t's range starts at the slot of
 * point t n / nt (balanced when the storage is near slot order, as the
 * framework's sorts keep it), and every thread scans all points twice, counting
 * and then placing only those in its range.  The same cell_start, order and xs
 * as the serial sort, whatever nt; returns whether order is the identity. */
static int counting_sort_ranges(pfb_grid *g, const uint32_t *restrict slot, const double *const x[3], size_t n,
                                int nt)
{
    size_t *restrict cs = g->cell_start;
    uint32_t *restrict order = g->order;
    double *restrict xs = g->xs;
    const size_t cap = g->cap_points, ntable = g->ntable;
    const int dim = g->dim;
    size_t own[GRID_MAX_CHUNKS + 1];
    nt = nt < GRID_MAX_CHUNKS ? nt : GRID_MAX_CHUNKS;
    int ordered = 1;
#pragma omp parallel num_threads(nt) reduction(& : ordered)
    {
        int t = 0, m = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        m = omp_get_num_threads();
#endif
        /* slots [bnd(t), bnd(t + 1)), bnd(0) = 0, bnd(m) = ntable and between
         * bnd(u) = max(bnd(u - 1), slot of point u n / m) */
        size_t lo = 0, hi = 0;
        for (int u = 1; u <= t + 1; u++) {
            const size_t b = u == m ? ntable : slot[(size_t)u * n / (size_t)m];
            lo = hi;
            hi = b > hi ? b : hi;
        }
        memset(cs + lo, 0, (hi - lo) * sizeof *cs);
        size_t count = 0;
        for (size_t i = 0; i < n; i++)
            if (slot[i] - lo < hi - lo) { /* lo <= slot < hi */
                cs[slot[i]]++;
                count++;
            }
        own[t] = count;
#pragma omp barrier
        size_t sum = 0; /* the points of the ranges before this one */
        for (int u = 0; u < t; u++)
            sum += own[u];
        for (size_t c = lo; c < hi; c++) {
            sum += cs[c];
            cs[c] = sum;
        }
        for (size_t i = n; i-- > 0;)
            if (slot[i] - lo < hi - lo) {
                const size_t k = --cs[slot[i]];
                order[k] = (uint32_t)i;
                ordered &= k == i;
                for (int d = 0; d < dim; d++)
                    xs[(size_t)d * cap + k] = x[d][i];
            }
    }
    cs[ntable] = n;
    return ordered;
}

int grid_build(pfb_grid *g, const double *const x[3], size_t n, pfb_err *err)
{
    if (!g)
        return pfb_err_set(err, PFB_EINVAL, "grid_build: grid is NULL");
    g->ready = 0;
    g->n = 0;
    const int dim = g->dim;
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "grid_build: grid has dim = %d; call grid_init first "
                           "(dim must be 2 or 3)", dim);
    int rc = check_arrays("grid_build", dim, x, n, err);
    if (rc != PFB_OK)
        return rc;
    if (n > GRID_MAX_POINTS)
        return pfb_err_set(err, PFB_EINVAL, "grid_build: %zu points; at most %lu (32-bit point and cell "
                           "indices)", n, (unsigned long)GRID_MAX_POINTS);
    static const double *const no_points[3] = {NULL, NULL, NULL};
    if (n == 0)
        x = no_points; /* x may be NULL; nothing is read through it */
    double lo[3], hi[3];
    int nt = 1;
#ifdef _OPENMP
    nt = g->threads > 0 ? g->threads : n >= GRID_PARALLEL_MIN ? omp_get_max_threads() : 1;
#endif
    rc = bound_points("grid_build", dim, x, n, nt, lo, hi, err);
    if (rc != PFB_OK)
        return rc;

    /* span, in cells of edge h / sub, of the widest axis */
    int sub = g->sub == 2 ? 2 : 1;
    double inv = g->inv_h * (double)sub;
    double ext[3] = {0.0, 0.0, 0.0}, maxext = 0.0, kmax = 0.0;
    for (int d = 0; d < dim; d++) {
        ext[d] = hi[d] - lo[d];
        if (!isfinite(ext[d]))
            return pfb_err_set(err, PFB_EINVAL, "grid_build: points span %g to %g along %c, a "
                               "width that overflows a double; the span must be finite",
                               lo[d], hi[d], 'x' + d);
        maxext = ext[d] > maxext ? ext[d] : maxext;
        const double k = ext[d] * g->inv_h;
        kmax = k > kmax ? k : kmax; /* in cells of edge h */
    }
    const double kc = kcap();
    int hashed = kmax > kc / (double)sub;

    /* bounded mode if the box needs at most max_cells cells (at edge h / sub, else
     * at edge h), else hashed cells of edge h (or wider, see the header) */
    size_t maxc = g->max_cells ? g->max_cells
                  : (n > SIZE_MAX / 16 ? SIZE_MAX : (4 * (size_t)sub * n > 1024 ? 4 * (size_t)sub * n : 1024));
    maxc = maxc < UINT32_MAX ? maxc : UINT32_MAX; /* slots are 32-bit */
    long nc[3] = {1, 1, 1};
    size_t ntable = 1;
    for (int attempt = 0; !hashed; attempt++) {
        int fits = 1;
        nc[0] = nc[1] = nc[2] = 1;
        ntable = 1;
        for (int d = 0; d < dim && fits; d++) {
            const double c = floor(ext[d] * inv) + 1.0;
            if (!(c <= (double)maxc)) {
                fits = 0;
                break;
            }
            nc[d] = (long)c;
            if ((size_t)nc[d] > maxc / ntable) {
                fits = 0;
                break;
            }
            ntable *= (size_t)nc[d];
        }
        if (fits)
            break;
        if (sub == 1 || attempt > 0) {
            hashed = 1;
            break;
        }
        sub = 1; /* too many half cells: try whole ones */
        inv = g->inv_h;
    }
    if (hashed)
        sub = 1;
    double s = !hashed ? inv : kmax > kc ? kc / maxext : g->inv_h;
    s *= 1.0 - 4.0 * (maxext * s + 4.0) * DBL_EPSILON;
    if (hashed) {
        nc[0] = nc[1] = nc[2] = 1;
        if (n > SIZE_MAX / 4)
            return pfb_err_set(err, PFB_ENOMEM, "grid_build: %zu points is too many to hash", n);
        ntable = 2;
        while (ntable < 2 * n)
            ntable *= 2;
    }

    if (reserve_points(g, n) != PFB_OK || reserve_table(g, ntable) != PFB_OK ||
        (hashed && reserve_cellc(g) != PFB_OK))
        return pfb_err_set(err, PFB_ENOMEM, "grid_build: out of memory for %zu points and %zu "
                           "cell slots", n, ntable);

    g->hashed = hashed;
    g->filter = !hashed && filter_bounds(g->h, maxext, n, g->exact_only, &g->f_lo2, &g->f_hi2);
    g->sub_used = sub;
    g->ntable = ntable;
    g->scale = s;
    for (int d = 0; d < 3; d++) {
        g->origin[d] = lo[d];
        g->ncell[d] = nc[d];
    }

    /* bin: cell coordinates and slot (in parallel), then slot counts */
    size_t *restrict cs = g->cell_start;
    uint32_t *restrict slot = g->slot;
    long *restrict cellc = g->cellc;
    const size_t mask = ntable - 1;
    const double o0 = lo[0], o1 = lo[1], o2 = lo[2];
    const size_t nx = (size_t)nc[0], ny = (size_t)nc[1];
    const long mx = nc[0] - 1, my = nc[1] - 1, mz = nc[2] - 1;
    if (dim == 3) {
        const double *restrict x0 = x[0], *restrict x1 = x[1], *restrict x2 = x[2];
#pragma omp parallel for schedule(dynamic, GRID_PIECE) num_threads(nt) if (nt > 1)
        for (size_t i = 0; i < n; i++) {
            long cx = (long)((x0[i] - o0) * s);
            long cy = (long)((x1[i] - o1) * s);
            long cz = (long)((x2[i] - o2) * s);
            size_t sl;
            if (hashed) {
                sl = hash_cell(cx, cy, cz, mask);
            } else {
                cx = cx < mx ? cx : mx;
                cy = cy < my ? cy : my;
                cz = cz < mz ? cz : mz;
                sl = ((size_t)cz * ny + (size_t)cy) * nx + (size_t)cx;
            }
            if (hashed) {
                cellc[3 * i] = cx;
                cellc[3 * i + 1] = cy;
                cellc[3 * i + 2] = cz;
            }
            slot[i] = (uint32_t)sl;
        }
    } else {
        const double *restrict x0 = x[0], *restrict x1 = x[1];
#pragma omp parallel for schedule(dynamic, GRID_PIECE) num_threads(nt) if (nt > 1)
        for (size_t i = 0; i < n; i++) {
            long cx = (long)((x0[i] - o0) * s);
            long cy = (long)((x1[i] - o1) * s);
            size_t sl;
            if (hashed) {
                sl = hash_cell(cx, cy, 0, mask);
            } else {
                cx = cx < mx ? cx : mx;
                cy = cy < my ? cy : my;
                sl = (size_t)cy * nx + (size_t)cx;
            }
            if (hashed) {
                cellc[2 * i] = cx;
                cellc[2 * i + 1] = cy;
            }
            slot[i] = (uint32_t)sl;
        }
    }
    uint32_t *restrict order = g->order;
    double *restrict xs = g->xs;
    const size_t cap = g->cap_points;

    /* Points already in slot order (the framework keeps storage so): the stable
     * counting sort below would be the identity, so order, cell_start and xs are
     * written directly, in parallel; the result is the same. */
    int sorted = 1;
#pragma omp parallel for schedule(dynamic, GRID_PIECE) num_threads(nt) if (nt > 1) reduction(& : sorted)
    for (size_t i = 1; i < n; i++)
        sorted &= slot[i - 1] <= slot[i];
    if (sorted) {
#pragma omp parallel for schedule(dynamic, GRID_PIECE) num_threads(nt) if (nt > 1)
        for (size_t k = 0; k < n; k++) {
            /* the slots after the previous point's, up to this point's, start here */
            for (size_t t = k ? (size_t)slot[k - 1] + 1 : 0; t <= slot[k]; t++)
                cs[t] = k;
            order[k] = (uint32_t)k;
            for (int d = 0; d < dim; d++)
                xs[(size_t)d * cap + k] = x[d][k];
        }
        for (size_t t = n ? (size_t)slot[n - 1] + 1 : 0; t <= ntable; t++)
            cs[t] = n;
        g->ordered = 1;
        g->n = n;
        g->ready = 1;
        return PFB_OK;
    }

    int ordered = 1;
    if (nt > 1 && n >= GRID_PIECE) {
        ordered = counting_sort_ranges(g, slot, x, n, nt);
    } else {
        memset(cs, 0, (ntable + 1) * sizeof *cs);
        for (size_t i = 0; i < n; i++) /* the counts (the binning above runs in parallel) */
            cs[slot[i]]++;

        /* stable counting sort: inclusive prefix sums, then scatter from the last point
         * down, which leaves cs[s] at the first entry of slot s */
        size_t sum = 0;
        for (size_t t = 0; t < ntable; t++) {
            sum += cs[t];
            cs[t] = sum;
        }
        cs[ntable] = n;
        for (size_t i = n; i-- > 0;) {
            const size_t k = --cs[slot[i]];
            order[k] = (uint32_t)i;
            ordered &= k == i;
            for (int d = 0; d < dim; d++)
                xs[(size_t)d * cap + k] = x[d][i];
        }
    }
    g->ordered = ordered;

    g->n = n;
    g->ready = 1;
    return PFB_OK;
}

const uint32_t *grid_sort_permutation(const pfb_grid *g)
{
    return g ? g->order : NULL;
}

/* ------------------------------------------------------- neighbour search */

typedef pfb_cell_ranges cell_ranges;

/* Gap, in cell units, between a point at fraction f in [0, 1] of its cell and the
 * cell d cells away along one axis. */
static inline double cell_gap(int d, double f)
{
    return d > 0 ? (double)d - f : d < 0 ? (double)(-d - 1) + f : 0.0;
}

/* Bounded mode: one range per (dy, dz) row of the (2 S + 1)^(dim-1) rows around
 * the cell of sorted position k (S = sub_used cells per h), covering cells
 * cx-S..cx+S, each contiguous in slot order.  Rows, and cells at a row's ends,
 * whose gap to the point is h or more are left out (see the header: the margin
 * covers the rounding of the cell coordinates). */
__attribute__((always_inline)) static inline void bounded_ranges(const pfb_grid *g, size_t k, const long c[3],
                                                                int prune, cell_ranges *r)
{
    const int S = g->sub_used == 2 ? 2 : 1, Sz = g->dim == 3 ? S : 0;
    const long nx = g->ncell[0], ny = g->ncell[1], nz = g->ncell[2];
    const size_t slot = g->slot[g->order[k]];
    if (!r->cached || r->cache_slot != slot) {
        /* the rows of this cell: cell_start at x offsets -S..S+1, clipped to the grid */
        const size_t *cs = g->cell_start;
        const long y0 = c[1] - S > 0 ? c[1] - S : 0, y1 = c[1] + S < ny - 1 ? c[1] + S : ny - 1;
        const long z0 = c[2] - Sz > 0 ? c[2] - Sz : 0, z1 = c[2] + Sz < nz - 1 ? c[2] + Sz : nz - 1;
        r->nrows = 0;
        for (long z = z0; z <= z1; z++)
            for (long y = y0; y <= y1; y++) {
                const size_t row = ((size_t)z * (size_t)ny + (size_t)y) * (size_t)nx;
                const int q = r->nrows++;
                r->row_dy[q] = (int)(y - c[1]);
                r->row_dz[q] = (int)(z - c[2]);
                for (int o = -S; o <= S + 1; o++) {
                    long x = c[0] + o;
                    x = x < 0 ? 0 : x > nx ? nx : x; /* outside the grid: an empty end */
                    r->row_x[q][o + S] = cs[row + (size_t)x];
                }
            }
        r->cached = 1;
        r->cache_slot = slot;
    }
    /* squared gaps, in cell units, from the point (its place within its cell from
     * the binning's own expression) to the cells -S..S away on each axis; without
     * pruning, or for a point clamped into the last cell, every cell is kept */
    double g2[3][5];
    for (int d = 0; d < 3; d++)
        for (int o = 0; o < 5; o++)
            g2[d][o] = 0.0;
    double R2 = INFINITY;
    if (prune) {
        double f[3] = {0.0, 0.0, 0.0};
        for (int d = 0; d < g->dim; d++) {
            f[d] = (g->xs[(size_t)d * g->cap_points + k] - g->origin[d]) * g->scale - (double)c[d];
            prune &= f[d] >= 0.0 && f[d] <= 1.0;
        }
        if (prune) {
            const double R = g->h * g->scale + GRID_GAP_MARGIN;
            R2 = R * R;
            for (int d = 0; d < g->dim; d++)
                for (int o = -S; o <= S; o++) {
                    const double gp = cell_gap(o, f[d]);
                    g2[d][o + S] = gp * gp;
                }
        }
    }
    /* branch-free: the gaps shrink towards the point, so the cells left out at a
     * row's ends are the far ones, counted; a row left out entirely is empty */
    size_t *restrict lo = r->lo, *restrict hi = r->hi;
    int m = 0;
    const int nrows = r->nrows;
    for (int q = 0; q < nrows; q++) {
        const double gq = g2[2][r->row_dz[q] + S] + g2[1][r->row_dy[q] + S];
        int xl = -S, xr = S;
        for (int o = 1; o <= S; o++) {
            xl += g2[0][S - o] + gq >= R2;
            xr -= g2[0][S + o] + gq >= R2;
        }
        const size_t a = r->row_x[q][xl + S], b0 = r->row_x[q][xr + S + 1];
        const size_t b = gq >= R2 ? a : b0;
        lo[m] = a;
        hi[m] = b;
        m += a < b;
    }
    r->n = m;
}

/* Hashed mode: the slots of the 3^dim neighbour cells, each distinct slot once. */
static void hashed_ranges(const pfb_grid *g, const long *c, cell_ranges *r)
{
    const size_t mask = g->ntable - 1;
    const size_t *cs = g->cell_start;
    const long cz = g->dim == 3 ? c[2] : 0;
    const int dzr = g->dim == 3 ? 1 : 0;
    size_t seen[27];
    int nseen = 0;
    r->n = 0;
    for (int dz = -dzr; dz <= dzr; dz++) {
        for (int dy = -1; dy <= 1; dy++) {
            for (int dx = -1; dx <= 1; dx++) {
                const size_t s = hash_cell(c[0] + dx, c[1] + dy, cz + dz, mask);
                int dup = 0;
                for (int t = 0; t < nseen; t++)
                    dup |= seen[t] == s;
                if (dup)
                    continue;
                seen[nseen++] = s;
                if (cs[s] < cs[s + 1]) {
                    r->lo[r->n] = cs[s];
                    r->hi[r->n] = cs[s + 1];
                    r->n++;
                }
            }
        }
    }
}

/* grid_hits, one candidate at a time, branch-free. */
static size_t hits_scalar(int dim, const double *const xs[3], size_t ki, size_t lo, size_t hi, double hh,
                          size_t *restrict pos, size_t m)
{
    const double *restrict x0 = xs[0], *restrict x1 = xs[1], *restrict x2 = xs[2];
    const double a0 = x0[ki], a1 = x1[ki], a2 = dim == 3 ? x2[ki] : 0.0;
    for (size_t k = lo; k < hi; k++) {
        const double dx = a0 - x0[k], dy = a1 - x1[k];
        double r2 = dx * dx + dy * dy;
        if (dim == 3) {
            const double dz = a2 - x2[k];
            r2 += dz * dz;
        }
        pos[m] = k;
        m += (size_t)((r2 < hh) & (k != ki));
    }
    return m;
}

#if GRID_HAVE_AVX2
/* The 32-bit lanes that move the 64-bit lanes selected by a 4-bit mask to the front. */
static const int32_t compact_lut[16][8] = {
    {0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1}, {2, 3, 0, 1, 0, 1, 0, 1}, {0, 1, 2, 3, 0, 1, 0, 1},
    {4, 5, 0, 1, 0, 1, 0, 1}, {0, 1, 4, 5, 0, 1, 0, 1}, {2, 3, 4, 5, 0, 1, 0, 1}, {0, 1, 2, 3, 4, 5, 0, 1},
    {6, 7, 0, 1, 0, 1, 0, 1}, {0, 1, 6, 7, 0, 1, 0, 1}, {2, 3, 6, 7, 0, 1, 0, 1}, {0, 1, 2, 3, 6, 7, 0, 1},
    {4, 5, 6, 7, 0, 1, 0, 1}, {0, 1, 4, 5, 6, 7, 0, 1}, {2, 3, 4, 5, 6, 7, 0, 1}, {0, 1, 2, 3, 4, 5, 6, 7}};

/* grid_hits, four candidates at a time: the squared distances as pfb_dist2 forms
 * them (separate multiplies and adds, in its order: no FMA in this target), a
 * 4-bit mask of the hits, and the selected positions moved to the front of a
 * 256-bit store (four entries written, the hits' count kept). */
__attribute__((target("avx2"))) static size_t hits_avx2(int dim, const double *const xs[3], size_t ki, size_t lo,
                                                       size_t hi, double hh, size_t *restrict pos, size_t m)
{
    const double *restrict x0 = xs[0], *restrict x1 = xs[1], *restrict x2 = xs[2];
    const __m256d a0 = _mm256_set1_pd(x0[ki]), a1 = _mm256_set1_pd(x1[ki]);
    const __m256d a2 = _mm256_set1_pd(dim == 3 ? x2[ki] : 0.0), H = _mm256_set1_pd(hh);
    __m256i kk = _mm256_set_epi64x((long long)lo + 3, (long long)lo + 2, (long long)lo + 1, (long long)lo);
    const __m256i four = _mm256_set1_epi64x(4);
    size_t k = lo;
    for (; k + 4 <= hi; k += 4) {
        const __m256d dx = _mm256_sub_pd(a0, _mm256_loadu_pd(x0 + k));
        const __m256d dy = _mm256_sub_pd(a1, _mm256_loadu_pd(x1 + k));
        __m256d r2 = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
        if (dim == 3) {
            const __m256d dz = _mm256_sub_pd(a2, _mm256_loadu_pd(x2 + k));
            r2 = _mm256_add_pd(r2, _mm256_mul_pd(dz, dz));
        }
        unsigned mask = (unsigned)_mm256_movemask_pd(_mm256_cmp_pd(r2, H, _CMP_LT_OQ));
        if (ki - k < 4)
            mask &= ~(1u << (ki - k)); /* the point itself */
        const __m256i sel = _mm256_loadu_si256((const __m256i *)compact_lut[mask]);
        _mm256_storeu_si256((__m256i *)(pos + m), _mm256_permutevar8x32_epi32(kk, sel));
        m += (size_t)__builtin_popcount(mask);
        kk = _mm256_add_epi64(kk, four);
    }
    /* clean upper halves before the SSE code that follows (GCC 12 emits no
     * vzeroupper before this tail call; without it clavet ran 1.3x slower) */
    _mm256_zeroupper();
    return hits_scalar(dim, xs, ki, k, hi, hh, pos, m);
}
#endif

size_t grid_hits(int dim, const double *const xs[3], size_t ki, size_t lo, size_t hi, double hh, size_t *pos,
                 size_t m)
{
#if GRID_HAVE_AVX2
    if (__builtin_cpu_supports("avx2"))
        return hits_avx2(dim, xs, ki, lo, hi, hh, pos, m);
#endif
    return hits_scalar(dim, xs, ki, lo, hi, hh, pos, m);
}

/* ------------------------------------------------ single-precision filter */

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

/* The float offsets g->xf (from xs) that block_fill copies, made in parallel
 * on nt threads; returns PFB_ENOMEM if they cannot be stored. */
static int make_xf(pfb_grid *g, int nt)
{
    const size_t n = g->n, dim = (size_t)g->dim;
    if (n > g->cap_xf || !g->xf) {
        const size_t cap = grown(g->cap_xf, n);
        /* 8 floats of room past the end: block_fill reads whole vectors */
        g->xf = cap > SIZE_MAX / dim - 8 ? (free(g->xf), NULL) : fresh_array(g->xf, cap * dim + 8, sizeof *g->xf);
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
 * the float offsets g->xf (make_xf); b->ids is then their point indices.  Only
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
            if (from_xs) { /* the same values as make_xf's, made here */
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

/* block_fill_any from xf (made once by make_xf for the whole list), or from
 * xs (grid_half_row: no stored copy); separate so each loop is its own */
__attribute__((target("avx2"))) static int block_fill(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b)
{
    return block_fill_any(g, r, b, 0);
}

__attribute__((target("avx2"))) static int block_fill_xs(const pfb_grid *g, const pfb_cell_ranges *r, cand_block *b)
{
    return block_fill_any(g, r, b, 1);
}
#endif

/* The place of sorted position k in block b (k is one of its candidates). */
static size_t block_place(const cand_block *b, const pfb_cell_ranges *r, size_t k)
{
    int q = 0;
    while (q + 1 < r->n && !(k >= r->lo[q] && k < r->hi[q]))
        q++;
    return b->at[q] + (k - r->lo[q]);
}

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

/* One step of block_hits_from: block_hits' loop body, for entries t..t+7 of b (only the lanes set in keep),
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

/* block_pairs with AVX2: eight candidates at a time, the hits' entries of
 * ids moved to the front of a 256-bit store.  Its loop keeps its own body:
 * written as block_step (inlined, keep = 0xff) it has fewer instructions but
 * made the list 1.10-1.15x slower (8 alternating runs of bench nsearch). */
__attribute__((target("avx2,fma"))) static size_t block_hits(const pfb_grid *g, const double *const xs[3],
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
__attribute__((target("avx2,fma"))) static size_t block_hits_from(const pfb_grid *g, const double *const xs[3],
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

/* The pairs of sorted position ki (one of b's candidates, at place self in b:
 * block_place) among b's candidates: the same set as grid_hits over the ranges
 * b was filled from, in the same order, written to out (which needs room for
 * b->n + 8 entries) as point indices or sorted positions; returns their number.
 * ki's own entry is moved far away for the scan (its float r^2 is then infinite)
 * and put back, which spares the scan a test for it in every step. */
static size_t block_pairs(const pfb_grid *g, cand_block *b, size_t self, size_t ki, uint32_t *out)
{
    const double *xs[3];
    grid_xs(g, xs);
#if GRID_HAVE_AVX2
    const float a[3] = {b->x[0][self], b->x[1][self], b->x[2][self]};
    b->x[0][self] = 1e30f;
    const size_t m = block_hits(g, xs, b, ki, a, out);
    b->x[0][self] = a[0];
    return m;
#else
    (void)xs;
    (void)self;
    (void)ki;
    (void)out;
    return 0; /* no filter without AVX2: block_fill refuses */
#endif
}

/* Sort a row by index; linear when already sorted. */
static void sort_row(uint32_t *restrict idx, size_t m)
{
    for (size_t t = 1; t < m; t++) {
        const uint32_t key = idx[t];
        if (idx[t - 1] <= key)
            continue;
        size_t b = t;
        do {
            idx[b] = idx[b - 1];
            b--;
        } while (b > 0 && idx[b - 1] > key);
        idx[b] = key;
    }
}

/* The candidate ranges of sorted position k: pruned by its position, or those of
 * its whole cell (shared by every point of the cell). */
__attribute__((always_inline)) static inline void ranges_of(const pfb_grid *g, size_t k, int prune,
                                                           pfb_cell_ranges *r)
{
    if (g->hashed) {
        hashed_ranges(g, g->cellc + (size_t)g->dim * g->order[k], r);
    } else {
        if (!r->cached || r->cache_slot != g->slot[g->order[k]])
            grid_cell_of(g, g->order[k], r->cache_c);
        bounded_ranges(g, k, r->cache_c, prune, r);
    }
}

void grid_cell_of(const pfb_grid *g, size_t i, long c[3])
{
    c[2] = 0;
    if (g->hashed) {
        for (int d = 0; d < g->dim; d++)
            c[d] = g->cellc[(size_t)g->dim * i + (size_t)d];
        return;
    }
    const size_t s = g->slot[i], nx = (size_t)g->ncell[0], ny = (size_t)g->ncell[1];
    c[0] = (long)(s % nx);
    c[1] = (long)((s / nx) % ny);
    if (g->dim == 3)
        c[2] = (long)(s / (nx * ny));
}

void grid_candidates(const pfb_grid *g, size_t k, pfb_cell_ranges *r)
{
    ranges_of(g, k, 1, r);
}

/* Whether sorted positions a and b hold points of the same cell (in hashed mode
 * two cells may share a slot). */
static int same_cell(const pfb_grid *g, size_t a, size_t b)
{
    const size_t ia = g->order[a], ib = g->order[b];
    if (!g->hashed)
        return g->slot[ia] == g->slot[ib];
    const long *ca = g->cellc + (size_t)g->dim * ia, *cb = g->cellc + (size_t)g->dim * ib;
    return ca[0] == cb[0] && ca[1] == cb[1] && (g->dim == 2 || ca[2] == cb[2]);
}

/* The sorted position after the last point of the cell of position k (at most lim). */
static size_t cell_end(const pfb_grid *g, size_t k, size_t lim)
{
    if (!g->hashed) {
        const size_t e = g->cell_start[g->slot[g->order[k]] + 1];
        return e < lim ? e : lim;
    }
    size_t e = k + 1;
    while (e < lim && same_cell(g, e, k))
        e++;
    return e;
}

/* The sorted positions where each of nt chunks starts: equal shares of [0, n),
 * each moved forward to the start of a cell (so a cell's points share one chunk). */
static void chunk_bounds(const pfb_grid *g, int nt, size_t *kb)
{
    const size_t n = g->n;
    kb[0] = 0;
    for (int t = 1; t < nt; t++) {
        size_t k = n * (size_t)t / (size_t)nt;
        if (k < kb[t - 1])
            k = kb[t - 1];
        while (k > 0 && k < n && same_cell(g, k, k - 1))
            k++;
        kb[t] = k;
    }
    kb[nt] = n;
}

/* A thread's state across the chunks it takes (grid_neighbours). */
typedef struct chunk_work {
    cell_ranges r;  /* the current cell's candidate ranges (cached between its points) */
    cand_block blk; /* its block for the filter */
    int direct;     /* rows still written in place (thread 0, cell-ordered storage) */
    size_t used;    /* entries written: in place while direct, else in the chunk's buffer */
} chunk_work;

/* The rows of points k0 .. k1 - 1 (whole cells) of chunk c: in place at
 * nl->idx + w->used while w->direct and the storage lasts (then *bf is where
 * the rest begins, and *direct_len what was written in place), else into
 * chunk c's buffer; each row's length to start[i + 1].  Returns 1 when out
 * of memory. */
static int chunk_rows(const pfb_grid *g, pfb_nlist *nl, int c, size_t k0, size_t k1, chunk_work *w, size_t *bf,
                      size_t *direct_len)
{
    const int dim = g->dim;
    const double hh = g->h * g->h;
    const double *xs[3];
    grid_xs(g, xs);
    const uint32_t *restrict order = g->order;
    size_t *restrict start = nl->start;
    size_t bk[GRID_ROW_MAX + GRID_HITS_SPARE];
    cell_ranges *r = &w->r;
    for (size_t k = k0; k < k1;) {
        ranges_of(g, k, 0, r); /* the cell's, for all its points */
#if GRID_HAVE_AVX2
        const int use_block = g->filter && block_fill(g, r, &w->blk);
#else
        const int use_block = 0;
#endif
        /* the cell's points are consecutive in one of its ranges: point kp
         * sits at place self0 + (kp - k) of the block */
        const size_t self0 = use_block ? block_place(&w->blk, r, k) : 0;
        size_t ncand = 0;
        for (int q = 0; q < r->n; q++)
            ncand += r->hi[q] - r->lo[q];
        const size_t kend = cell_end(g, k, k1);
        size_t kp = k;
        for (; kp < kend; kp++) {
            if (w->direct && w->used + ncand + 8 > nl->cap_pairs) { /* the rest through the buffer */
                w->direct = 0;
                *bf = kp;
                *direct_len = w->used;
                w->used = 0;
            }
            if (!w->direct && chunk_room(nl, c, w->used + ncand + 8) != PFB_OK)
                return 1;
            uint32_t *row = (w->direct ? nl->idx : nl->chunk[c]) + w->used;
            size_t m = 0;
#if GRID_HAVE_AVX2
            if (use_block) {
                m = block_pairs(g, &w->blk, self0 + (kp - k), kp, row);
            } else
#endif
            {
                /* through the scratch row, at most half of it per piece */
                for (int q = 0; q < r->n; q++)
                    for (size_t lo = r->lo[q]; lo < r->hi[q]; lo += GRID_ROW_MAX / 2) {
                        const size_t hi = r->hi[q] - lo > GRID_ROW_MAX / 2 ? lo + GRID_ROW_MAX / 2 : r->hi[q];
                        const size_t mp = grid_hits(dim, xs, kp, lo, hi, hh, bk, 0);
                        for (size_t e = 0; e < mp; e++)
                            row[m + e] = (uint32_t)order[bk[e]];
                        m += mp;
                    }
            }
            if (!g->ordered) /* else the row is in slot order, which is index order */
                sort_row(row, m);
            start[order[kp] + 1] = m;
            w->used += m;
        }
        k = kp;
    }
    if (w->direct) {
        *bf = k1;
        *direct_len = w->used;
    }
    return 0;
}

/* x must hold the values given to the last grid_build: the scan reads their
 * cell-ordered copy g->xs (the same values, so the same squared distances).
 *
 * One pass over the candidates, parallel over chunks of whole cells, writes
 * every point's row (see the header of this file); a prefix sum gives start,
 * and the rows made in the buffers are copied into place.  Every row is computed
 * by one thread from the same values in the same order, so the list does not
 * depend on the number of threads. */
int grid_neighbours(pfb_grid *g, const double *const x[3], pfb_nlist *nl, pfb_err *err)
{
    if (!g || !nl)
        return pfb_err_set(err, PFB_EINVAL, "grid_neighbours: %s is NULL", g ? "list" : "grid");
    if (!g->ready)
        return pfb_err_set(err, PFB_EINVAL, "grid_neighbours: the grid has no successful "
                           "grid_build; build it before listing neighbours");
    const size_t n = g->n;
    const int dim = g->dim;
    int rc = check_arrays("grid_neighbours", dim, x, n, err);
    if (rc != PFB_OK)
        return rc;
    nl->n = 0;
    if (n > UINT32_MAX)
        return pfb_err_set(err, PFB_EINVAL, "grid_neighbours: %zu points exceed the list's 32-bit "
                           "indices; at most %lu points", n, (unsigned long)UINT32_MAX);
    if (reserve_start(nl, n) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "grid_neighbours: out of memory for %zu row offsets",
                           n + 1);
    const uint32_t *restrict order = g->order;
    size_t *restrict start = nl->start;
    int nt = 1;
#ifdef _OPENMP
    nt = g->threads > 0 ? g->threads : n >= GRID_PARALLEL_MIN ? omp_get_max_threads() : 1;
#endif
    if (nt > GRID_MAX_CHUNKS)
        nt = GRID_MAX_CHUNKS;
    /* chunks of whole cells, more than threads so that a faster core can take
     * more of them (the cores of a shared machine often differ in speed) */
    int nch = nt;
    if (nt > 1) {
        const size_t want = n / (g->chunk_points ? g->chunk_points : GRID_CHUNK_POINTS);
        nch = want > (size_t)nt * GRID_CHUNKS_PER_THREAD ? nt * GRID_CHUNKS_PER_THREAD
              : want > (size_t)nt                      ? (int)want
                                                       : nt;
        if (nch > GRID_MAX_CHUNKS)
            nch = GRID_MAX_CHUNKS;
    }
    size_t kb[GRID_MAX_CHUNKS + 1];
    chunk_bounds(g, nch, kb);

    /* one pass: thread 0 takes the chunks from the first on and writes their
     * rows in place while the list's storage lasts (with cell-ordered storage,
     * where row order is point order); the other threads take chunks from the
     * last down, each chunk's rows into the chunk's buffer, until the two
     * meet; the rows' lengths go to start[i + 1].  Then the offsets, and the
     * buffered rows copied into place.  Who makes a row does not change it. */
    if (reserve_chunks(nl, nch) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "grid_neighbours: out of memory for %d row buffers", nch);
    if (g->filter && make_xf(g, nt) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "grid_neighbours: out of memory for the float copy of %zu points", n);
    const int inplace = g->ordered && nl->idx && nl->cap_pairs > 0;
    size_t direct_len = 0; /* entries written in place, rows 0 .. bf[first buffered chunk] - 1 */
    size_t bf[GRID_MAX_CHUNKS]; /* chunk c's rows from point bf[c] on are in its buffer */
    atomic_uchar claimed[GRID_MAX_CHUNKS];
    for (int c = 0; c < nch; c++)
        atomic_init(&claimed[c], 0);
    atomic_int back;
    atomic_init(&back, nch);
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : failed)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        chunk_work w;
        w.r.cached = 0;
        w.direct = tid == 0 && inplace;
        w.used = 0;
        for (int step = 0; !failed; step++) {
            int c;
            if (tid == 0) {
                c = step;
                if (c >= nch)
                    break;
            } else {
                c = atomic_fetch_sub_explicit(&back, 1, memory_order_relaxed) - 1;
                if (c < 0)
                    break;
            }
            if (atomic_exchange_explicit(&claimed[c], 1, memory_order_relaxed))
                break; /* the other side has it: the two have met */
            if (!w.direct)
                w.used = 0;
            bf[c] = kb[c];
            failed |= chunk_rows(g, nl, c, kb[c], kb[c + 1], &w, &bf[c], &direct_len);
        }
    }
    if (failed)
        return pfb_err_set(err, PFB_ENOMEM, "grid_neighbours: out of memory for the rows of %zu points", n);
    start[0] = 0;
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    if (keep_pairs(nl, start[n], direct_len) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "grid_neighbours: out of memory for %zu pairs", start[n]);
    uint32_t *restrict idx = nl->idx;
    if (g->ordered) {
        /* each chunk's buffered rows are one run (row i at start[i]): the runs'
         * entries are copied in pieces of 4 MB, taken by the threads as they come */
        size_t rs[GRID_MAX_CHUNKS], rd[GRID_MAX_CHUNKS + 1], total = 0;
        for (int c = 0; c < nch; c++) {
            rs[c] = start[bf[c]];                     /* destination of the run */
            rd[c] = total;                            /* its place in the concatenation */
            total += start[kb[c + 1]] - start[bf[c]]; /* (bf[c] <= kb[c + 1]) */
        }
        rd[nch] = total;
        const size_t npc = total / (64 * (size_t)GRID_PIECE) + 1; /* pieces of the concatenation */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
        for (size_t t = 0; t < npc; t++) {
            const size_t a = total / npc * t + (t < total % npc ? t : total % npc),
                         b = a + total / npc + (t < total % npc);
            for (int c = 0; c < nch; c++) {
                const size_t lo = a > rd[c] ? a : rd[c], hi = b < rd[c + 1] ? b : rd[c + 1];
                if (lo < hi)
                    memcpy(idx + rs[c] + (lo - rd[c]), nl->chunk[c] + (lo - rd[c]), (hi - lo) * sizeof *idx);
            }
        }
    } else {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1)
        for (int c = 0; c < nch; c++) {
            /* rows that follow each other in both places are copied as one run */
            const uint32_t *src = nl->chunk[c];
            size_t run_src = 0, run_dst = 0, run_len = 0, off = 0;
            for (size_t k = kb[c]; k < kb[c + 1]; k++) {
                const size_t i = order[k], len = start[i + 1] - start[i];
                if (run_dst + run_len != start[i]) {
                    memcpy(idx + run_dst, src + run_src, run_len * sizeof *idx);
                    run_src = off;
                    run_dst = start[i];
                    run_len = 0;
                }
                run_len += len;
                off += len;
            }
            if (run_len)
                memcpy(idx + run_dst, src + run_src, run_len * sizeof *idx);
        }
    }
    nl->n = n;
    return PFB_OK;
}

/* --------------------------------------------- half rows (pairs c > k) */

/* A thread's state for grid_half_row: the candidate block of the cell last
 * asked for (cell_slot), and scratch rows. */
struct pfb_half_scan {
    cell_ranges r;     /* that cell's whole ranges */
    size_t cell_slot;  /* its slot; SIZE_MAX: none yet */
    int use_block;     /* its block is filled (else the exact ranges are scanned) */
    cand_block blk;
    uint32_t out[GRID_BLOCK_MAX + 16];
    size_t hit[GRID_ROW_MAX + GRID_HITS_SPARE];
};

pfb_half_scan *grid_half_scan_new(void)
{
    pfb_half_scan *w = aligned_alloc(64, (sizeof(pfb_half_scan) + 63) / 64 * 64);
    if (w)
        grid_half_scan_reset(w);
    return w;
}

void grid_half_scan_reset(pfb_half_scan *w)
{
    w->r.cached = 0;
    w->cell_slot = SIZE_MAX;
    w->use_block = 0;
}

void grid_half_scan_free(pfb_half_scan *w)
{
    free(w);
}

size_t grid_half_row(const pfb_grid *g, pfb_half_scan *w, size_t k, uint32_t *row, size_t cap)
{
    if (!row)
        cap = 0;
    const double *xs[3];
    grid_xs(g, xs);
    size_t len = 0;
#if GRID_HAVE_AVX2
    /* bounded mode visits a cell's ranges in increasing slot order, so its
     * block's entries ascend and the pairs c > k are the entries after k's own */
    if (g->filter && !g->hashed) {
        const size_t slot = g->slot[g->order[k]];
        if (slot != w->cell_slot) {
            ranges_of(g, k, 0, &w->r);
            w->use_block = block_fill_xs(g, &w->r, &w->blk);
            w->cell_slot = slot;
        }
        if (w->use_block) {
            len = block_hits_from(g, xs, &w->blk, k, block_place(&w->blk, &w->r, k) + 1, w->out);
            if (row && len <= cap)
                memcpy(row, w->out, len * sizeof *row);
            return len;
        }
    }
#endif
    /* the exact ranges around k, from k + 1 on, in pieces of GRID_ROW_MAX / 2 */
    cell_ranges *r = &w->r;
    w->cell_slot = SIZE_MAX; /* r now holds k's pruned ranges */
    ranges_of(g, k, 1, r);
    for (int q = 0; q < r->n; q++)
        for (size_t lo = r->lo[q] > k ? r->lo[q] : k + 1; lo < r->hi[q]; lo += GRID_ROW_MAX / 2) {
            const size_t hi = r->hi[q] - lo > GRID_ROW_MAX / 2 ? lo + GRID_ROW_MAX / 2 : r->hi[q];
            const size_t m = grid_hits(g->dim, xs, k, lo, hi, g->h * g->h, w->hit, 0);
            if (len + m <= cap)
                for (size_t e = 0; e < m; e++)
                    row[len + e] = (uint32_t)w->hit[e];
            len += m;
        }
    if (row && len <= cap && g->hashed) /* hashed slots come in no particular order */
        sort_row(row, len);
    return len;
}

/* -------------------------------------------------------------- reference */

void nlist_free(pfb_nlist *nl)
{
    if (!nl)
        return;
    free(nl->start);
    free(nl->idx);
    for (int t = 0; t < nl->nchunk; t++)
        free(nl->chunk[t]);
    free(nl->chunk);
    free(nl->chunk_cap);
    memset(nl, 0, sizeof *nl);
}

int nlist_brute_force(int dim, double h, const double *const x[3], size_t n, pfb_nlist *nl,
                      pfb_err *err)
{
    int rc = check_params("nlist_brute_force", dim, h, err);
    if (rc != PFB_OK)
        return rc;
    if (!nl)
        return pfb_err_set(err, PFB_EINVAL, "nlist_brute_force: list is NULL");
    rc = check_arrays("nlist_brute_force", dim, x, n, err);
    if (rc != PFB_OK)
        return rc;
    double lo[3], hi[3];
    rc = bound_points("nlist_brute_force", dim, x, n, 1, lo, hi, err);
    if (rc != PFB_OK)
        return rc;
    nl->n = 0;
    if (n > UINT32_MAX)
        return pfb_err_set(err, PFB_EINVAL, "nlist_brute_force: %zu points exceed the list's 32-bit "
                           "indices; at most %lu points", n, (unsigned long)UINT32_MAX);
    if (reserve_start(nl, n) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "nlist_brute_force: out of memory for %zu row offsets",
                           n + 1);
    const double hh = h * h;
    nl->start[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            c += (j != i) && pfb_dist2(dim, x, i, j) < hh;
        nl->start[i + 1] = nl->start[i] + c;
    }
    const size_t total = nl->start[n];
    if (reserve_pairs(nl, total) != PFB_OK)
        return pfb_err_set(err, PFB_ENOMEM, "nlist_brute_force: out of memory for %zu pairs",
                           total);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            if (pfb_dist2(dim, x, i, j) < hh)
                nl->idx[m++] = (uint32_t)j;
        }
    }
    nl->n = n;
    return PFB_OK;
}

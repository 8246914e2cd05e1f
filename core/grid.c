/* grid.c — the grid: cells, binning and the counting sort (see grid.h; the
 * neighbour search over it is grid_search.c, its single-precision filter
 * grid_filter.c).
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
 * of an axis emptier. */
#include "grid_internal.h"

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

/* Largest span in cells binned at cell edge h (above it cells are widened). */
static double kcap(void)
{
    const double lim = (double)(LONG_MAX / 4);
    return lim < 0x1p40 ? lim : 0x1p40;
}

/* ------------------------------------------------------------------ checks */

int grid_check_params(const char *who, int dim, double h, pfb_err *err)
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

int grid_check_arrays(const char *who, int dim, const double *const x[3], size_t n, pfb_err *err)
{
    if (n == 0)
        return PFB_OK;
    if (!x || !x[0] || !x[1] || (dim == 3 && !x[2]))
        return pfb_err_set(err, PFB_EINVAL, "%s: coordinate array is NULL for %zu points; "
                           "x[0..%d] must point to n values each", who, n, dim - 1);
    return PFB_OK;
}

/* Bounding box of the points; fails on the first (lowest index) non-finite value. */
int grid_bound_points(const char *who, int dim, const double *const x[3], size_t n, int nt, double lo[3],
                      double hi[3], pfb_err *err)
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
    const size_t cap = grid_grown(g->cap_points, n);
    const size_t dim = (size_t)g->dim;
    g->order = grid_fresh_array(g->order, cap, sizeof *g->order);
    g->slot = grid_fresh_array(g->slot, cap, sizeof *g->slot);
    free(g->cellc); /* made again, at the new capacity, by a hashed build */
    g->cellc = NULL;
    g->xs = (cap > SIZE_MAX / dim) ? (free(g->xs), NULL)
                                   : grid_fresh_array(g->xs, cap * dim, sizeof *g->xs);
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
    g->cellc = cap > SIZE_MAX / dim ? NULL : grid_fresh_array(NULL, cap * dim, sizeof *g->cellc);
    return g->cellc ? PFB_OK : PFB_ENOMEM;
}

static int reserve_table(pfb_grid *g, size_t ntable)
{
    if (ntable == SIZE_MAX)
        return PFB_ENOMEM;
    if (ntable + 1 <= g->cap_table && g->cell_start)
        return PFB_OK;
    const size_t cap = grid_grown(g->cap_table, ntable + 1);
    g->cell_start = grid_fresh_array(g->cell_start, cap, sizeof *g->cell_start);
    if (!g->cell_start) {
        g->cap_table = 0;
        return PFB_ENOMEM;
    }
    g->cap_table = cap;
    return PFB_OK;
}

/* ------------------------------------------------------------------- grid */

int grid_init(pfb_grid *g, int dim, double h, pfb_err *err)
{
    if (!g)
        return pfb_err_set(err, PFB_EINVAL, "grid_init: grid is NULL");
    const int rc = grid_check_params("grid_init", dim, h, err);
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
    int rc = grid_check_arrays("grid_build", dim, x, n, err);
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
    rc = grid_bound_points("grid_build", dim, x, n, nt, lo, hi, err);
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
    g->filter = !hashed && grid_filter_bounds(g->h, maxext, n, g->exact_only, &g->f_lo2, &g->f_hi2);
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
                sl = grid_hash_cell(cx, cy, cz, mask);
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
                sl = grid_hash_cell(cx, cy, 0, mask);
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

/* grid_search.c — the neighbour search over the grid (see grid.h): every
 * point's candidate ranges (grid.c's header: bounded and hashed mode), the
 * full list and the half rows.  The single-precision filter the scans use is
 * grid_filter.c.
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
 * sorted, its slots coming in no particular order). */
#include "grid_internal.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------ list storage */

static int reserve_start(pfb_nlist *nl, size_t n)
{
    if (n == SIZE_MAX)
        return PFB_ENOMEM;
    if (n + 1 <= nl->cap_n && nl->start)
        return PFB_OK;
    const size_t cap = grid_grown(nl->cap_n, n + 1);
    nl->start = grid_fresh_array(nl->start, cap, sizeof *nl->start);
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
    const size_t cap = grid_grown(nl->cap_pairs, npairs);
    nl->idx = grid_fresh_array(nl->idx, cap, sizeof *nl->idx);
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
    const size_t cap = grid_grown(nl->cap_pairs, npairs);
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
    const size_t cap = grid_grown(nl->chunk_cap[t], need + need / 4);
    if (cap > SIZE_MAX / sizeof(uint32_t))
        return PFB_ENOMEM;
    uint32_t *b = realloc(nl->chunk[t], cap * sizeof *b);
    if (!b)
        return PFB_ENOMEM;
    nl->chunk[t] = b;
    nl->chunk_cap[t] = cap;
    return PFB_OK;
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
 * whose gap to the point is h or more are left out (see grid.c's header: the margin
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
                const size_t s = grid_hash_cell(c[0] + dx, c[1] + dy, cz + dz, mask);
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
        const int use_block = g->filter && grid_block_fill(g, r, &w->blk);
#else
        const int use_block = 0;
#endif
        /* the cell's points are consecutive in one of its ranges: point kp
         * sits at place self0 + (kp - k) of the block */
        const size_t self0 = use_block ? grid_block_place(&w->blk, r, k) : 0;
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
                m = grid_block_pairs(g, &w->blk, self0 + (kp - k), kp, row);
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
    int rc = grid_check_arrays("grid_neighbours", dim, x, n, err);
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
    if (g->filter && grid_make_xf(g, nt) != PFB_OK)
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
            w->use_block = grid_block_fill_xs(g, &w->r, &w->blk);
            w->cell_slot = slot;
        }
        if (w->use_block) {
            len = grid_block_hits_from(g, xs, &w->blk, k, grid_block_place(&w->blk, &w->r, k) + 1, w->out);
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
    int rc = grid_check_params("nlist_brute_force", dim, h, err);
    if (rc != PFB_OK)
        return rc;
    if (!nl)
        return pfb_err_set(err, PFB_EINVAL, "nlist_brute_force: list is NULL");
    rc = grid_check_arrays("nlist_brute_force", dim, x, n, err);
    if (rc != PFB_OK)
        return rc;
    double lo[3], hi[3];
    rc = grid_bound_points("nlist_brute_force", dim, x, n, 1, lo, hi, err);
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

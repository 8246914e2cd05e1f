/* test_grid.c — Check suite for the grid and its neighbour search (core/grid.c, grid_search.c, grid_filter.c).
 *
 * The grid's neighbour list is compared with nlist_brute_force for random points,
 * lattices whose pairs sit exactly at distance h, points on the corners of the
 * bounding box, far-apart clusters (hashed mode) and forced hashing with many slot
 * collisions; rebuilds reuse storage; order/cell_start must be a stable counting
 * sort.  Exact lattices are also checked against integer arithmetic, which does not
 * share any code with the library. */
#include "../core/grid.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An assertion for inner loops: Check records every passing ck_assert (one write
 * each), so per-element checks call into Check only when they fail. */
#define REQUIRE(cond, ...)                                                                     \
    do {                                                                                       \
        if (!(cond))                                                                           \
            ck_abort_msg(__VA_ARGS__);                                                         \
    } while (0)

/* ------------------------------------------------------------ helpers */

/* splitmix64: fixed-seed, portable random bits. */
static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static double unif(uint64_t *s)
{
    return (double)(sm64(s) >> 11) * 0x1p-53;
}

typedef struct pts {
    int dim;
    size_t n;
    double *c[3];        /* writable coordinates */
    const double *x[3];  /* the same arrays, as the library takes them */
} pts;

static void pts_alloc(pts *p, int dim, size_t n)
{
    p->dim = dim;
    p->n = n;
    for (int d = 0; d < 3; d++) {
        p->c[d] = calloc(n ? n : 1, sizeof(double));
        ck_assert_ptr_nonnull(p->c[d]);
        p->x[d] = p->c[d];
    }
}

static void pts_free(pts *p)
{
    for (int d = 0; d < 3; d++)
        free(p->c[d]);
    memset(p, 0, sizeof *p);
}

/* n uniform random points in [off, off + len)^dim. */
static void pts_random(pts *p, int dim, size_t n, double off, double len, uint64_t seed)
{
    pts_alloc(p, dim, n);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            p->c[d][i] = off + len * unif(&seed);
}

/* Edge of a box holding n uniform points with about nb neighbours each at radius h. */
static double box_for(int dim, size_t n, double h, double nb)
{
    const double pi = 3.14159265358979323846;
    const double ball = dim == 3 ? 4.0 / 3.0 * pi * h * h * h : pi * h * h;
    return pow((double)n * ball / nb, 1.0 / dim);
}

/* Lattice of side m^dim with spacing a, point (i, j, k) at off + i a etc.; the index
 * is i + m (j + m k). */
static void pts_lattice(pts *p, int dim, size_t m, double a, double off)
{
    const size_t n = dim == 3 ? m * m * m : m * m;
    pts_alloc(p, dim, n);
    for (size_t t = 0; t < n; t++) {
        p->c[0][t] = off + (double)(t % m) * a;
        p->c[1][t] = off + (double)((t / m) % m) * a;
        if (dim == 3)
            p->c[2][t] = off + (double)(t / (m * m)) * a;
    }
}

/* Exact equality of two lists: same start offsets, same indices. */
static void assert_same_list(const pfb_nlist *a, const pfb_nlist *b, const char *what)
{
    REQUIRE(a->n == b->n, "%s: n %zu vs %zu", what, a->n, b->n);
    for (size_t i = 0; i <= a->n; i++)
        REQUIRE(a->start[i] == b->start[i], "%s: start[%zu] = %zu vs %zu (row %zu has %zu vs %zu"
                " neighbours)", what, i, a->start[i], b->start[i], i ? i - 1 : 0,
                i ? a->start[i] - a->start[i - 1] : 0, i ? b->start[i] - b->start[i - 1] : 0);
    const size_t m = a->start[a->n];
    for (size_t k = 0; k < m; k++) {
        REQUIRE(a->idx[k] == b->idx[k], "%s: idx[%zu] = %u vs %u", what, k, (unsigned)a->idx[k],
                (unsigned)b->idx[k]);
    }
}

/* order and cell_start form a stable counting sort of the points by slot, and the
 * library's other per-point arrays agree with it. */
static void assert_valid_sort(const pfb_grid *g, const pts *p)
{
    const size_t n = p->n;
    REQUIRE(g->n == n, "g->n = %zu, expected %zu", g->n, n);
    const uint32_t *order = grid_sort_permutation(g);
    REQUIRE(order == g->order, "grid_sort_permutation is not g->order");
    const size_t *cs = g->cell_start;
    REQUIRE(cs[0] == 0 && cs[g->ntable] == n, "cell_start runs %zu..%zu, expected 0..%zu", cs[0],
            cs[g->ntable], n);
    if (g->hashed) {
        REQUIRE(g->ntable >= 2 * n && (g->ntable & (g->ntable - 1)) == 0,
                "hash table of %zu slots for %zu points", g->ntable, n);
    } else {
        size_t prod = 1;
        for (int d = 0; d < g->dim; d++)
            prod *= (size_t)g->ncell[d];
        REQUIRE(prod == g->ntable, "ntable %zu is not the product of ncell (%zu)", g->ntable, prod);
    }
    unsigned char *seen = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(seen);
    for (size_t k = 0; k < n; k++) {
        const size_t i = order[k];
        REQUIRE(i < n, "order[%zu] = %zu out of range", k, i);
        REQUIRE(!seen[i], "point %zu appears twice in order", i);
        seen[i] = 1;
        /* cells nondecreasing along order; within a cell, increasing index (stable) */
        if (k > 0) {
            const size_t sa = g->slot[order[k - 1]], sb = g->slot[i];
            REQUIRE(sa < sb || (sa == sb && order[k - 1] < i),
                    "order[%zu..%zu] = %zu, %zu in slots %zu, %zu", k - 1, k, (size_t)order[k - 1], i, sa,
                    sb);
        }
        for (int d = 0; d < g->dim; d++)
            REQUIRE(g->xs[(size_t)d * g->cap_points + k] == p->x[d][i],
                    "xs copy differs at position %zu axis %d", k, d);
    }
    free(seen);
    for (size_t s = 0; s < g->ntable; s++)
        for (size_t k = cs[s]; k < cs[s + 1]; k++)
            REQUIRE(g->slot[order[k]] == s, "position %zu lies in slot %zu's range but the point"
                    " is in slot %zu", k, s, (size_t)g->slot[order[k]]);
    /* cell coordinates: floor((x - origin) * scale), scale a few ulps under sub_used / h */
    for (size_t i = 0; i < n; i++) {
        size_t lin = 0;
        long ci[3];
        grid_cell_of(g, i, ci);
        for (int d = g->dim - 1; d >= 0; d--) {
            const long c = ci[d];
            const double u = (p->x[d][i] - g->origin[d]) * g->scale;
            REQUIRE(c == (long)floor(u) || (!g->hashed && c == g->ncell[d] - 1),
                    "point %zu axis %d: cell %ld for u = %.17g", i, d, c, u);
            REQUIRE(fabs(u - (p->x[d][i] - g->origin[d]) * g->inv_h * g->sub_used) <= 1e-6 * (1.0 + u),
                    "scale %.17g too far from %d/h = %.17g", g->scale, g->sub_used, g->inv_h * g->sub_used);
            if (!g->hashed) {
                REQUIRE(c >= 0 && c < g->ncell[d], "point %zu axis %d: cell %ld of %ld", i, d, c,
                        g->ncell[d]);
                lin = lin * (size_t)g->ncell[d] + (size_t)c;
            }
        }
        if (!g->hashed)
            REQUIRE(lin == g->slot[i], "point %zu: slot %zu, cell linear index %zu", i,
                    (size_t)g->slot[i], lin);
    }
}

/* grid_half_row against the brute-force list nb: the half row of sorted
 * position k is exactly the positions c > k of the points in the brute-force
 * row of order[k], ascending, and counting alone gives its length, as does a
 * call with room for one pair fewer, which writes nothing past that room.  Walked in
 * sorted order (as muller does: a cell's block is shared by its points) and
 * then in a scattered order (the cached block must follow the cell). */
static void check_half_rows(const pfb_grid *g, const pfb_nlist *nb, const char *what)
{
    const size_t n = g->n;
    size_t *pos = malloc((n ? n : 1) * sizeof *pos);
    uint32_t *want = malloc((n ? n : 1) * sizeof *want), *got = malloc((n + 16) * sizeof *got);
    ck_assert(pos && want && got);
    for (size_t k = 0; k < n; k++)
        pos[g->order[k]] = k;
    pfb_half_scan *w = grid_half_scan_new();
    ck_assert_ptr_nonnull(w);
    size_t total = 0;
    for (int walk = 0; walk < 2; walk++)
        for (size_t t = 0; t < n; t++) {
            const size_t k = walk == 0 ? t : (t * 7919u + 13u) % n;
            const size_t i = g->order[k];
            size_t m = 0;
            for (size_t q = nb->start[i]; q < nb->start[i + 1]; q++)
                if (pos[nb->idx[q]] > k)
                    want[m++] = (uint32_t)pos[nb->idx[q]];
            for (size_t a = 1; a < m; a++) /* insertion sort */
                for (size_t b = a; b > 0 && want[b - 1] > want[b]; b--) {
                    const uint32_t tmp = want[b];
                    want[b] = want[b - 1];
                    want[b - 1] = tmp;
                }
            const size_t len = grid_half_row(g, w, k, got, n + 16);
            REQUIRE(len == m, "%s: half row of position %zu has %zu pairs, expected %zu", what, k, len, m);
            for (size_t a = 0; a < m; a++)
                REQUIRE(got[a] == want[a], "%s: half row of position %zu, entry %zu: %u, expected %u", what, k,
                        a, (unsigned)got[a], (unsigned)want[a]);
            REQUIRE(grid_half_row(g, w, k, NULL, 0) == m, "%s: counted half row of %zu differs", what, k);
            if (m > 0) { /* room for one pair fewer: the length still, and nothing written from got[m - 1] on */
                got[m - 1] = UINT32_MAX;
                REQUIRE(grid_half_row(g, w, k, got, m - 1) == m, "%s: half row of %zu with too little room", what, k);
                REQUIRE(got[m - 1] == UINT32_MAX, "%s: half row of %zu written past its room", what, k);
            }
            total += walk == 0 ? m : 0;
        }
    /* every pair once: half of the full list's directed pairs */
    REQUIRE(2 * total == nb->start[n], "%s: %zu half pairs for %zu directed pairs", what, total, nb->start[n]);
    grid_half_scan_free(w);
    free(pos);
    free(want);
    free(got);
}

/* Build the grid list and the brute-force list and require them identical.
 * max_cells = 0 keeps the default.  Returns the number of (directed) pairs;
 * if out is non-NULL the grid list is moved there. */
static size_t check_against_brute(const pts *p, double h, size_t max_cells, int expect_hashed,
                                  pfb_nlist *out, const char *what)
{
    pfb_nlist nb = {0};
    pfb_err err = {{0}};
    ck_assert_msg(nlist_brute_force(p->dim, h, p->x, p->n, &nb, &err) == PFB_OK, "%s: %s", what,
                  err.msg);
    size_t pairs = 0;
    /* whole cells (the default) and half cells, each with the single-precision
     * filter (where the CPU and the box allow it) and without, give the same list */
    for (int variant = 0; variant < 4; variant++) {
        const int sub = 1 + variant % 2, exact_only = variant / 2;
        pfb_grid g;
        pfb_nlist ng = {0};
        ck_assert_msg(grid_init(&g, p->dim, h, &err) == PFB_OK, "%s: %s", what, err.msg);
        g.max_cells = max_cells;
        g.sub = sub;
        g.exact_only = exact_only;
        /* and the parallel list in many small chunks, on 2 and 3 threads (two
         * taking chunks from the end) */
        if (variant % 2) {
            g.chunk_points = 61;
            g.threads = variant == 1 ? 2 : 3;
        }
        ck_assert_msg(grid_build(&g, p->x, p->n, &err) == PFB_OK, "%s: %s", what, err.msg);
        if (expect_hashed >= 0)
            ck_assert_msg(g.hashed == expect_hashed, "%s: hashed = %d, expected %d", what, g.hashed,
                          expect_hashed);
        ck_assert(g.sub_used >= 1 && g.sub_used <= sub && (g.sub_used == 1 || !g.hashed));
        assert_valid_sort(&g, p);
        ck_assert_msg(grid_neighbours(&g, p->x, &ng, &err) == PFB_OK, "%s: %s", what, err.msg);
        assert_same_list(&ng, &nb, what);
        check_half_rows(&g, &nb, what);
        ck_assert_msg(!g.filter || (!exact_only && !g.hashed), "%s: filter used where it must not be", what);
        pairs = ng.start[ng.n];
        grid_free(&g);
        if (out && variant == 3)
            *out = ng;
        else
            nlist_free(&ng);
    }
    nlist_free(&nb);
    return pairs;
}

/* grid_build's parallel counting sort (from 16384 points on more than one
 * thread; each thread takes a range of slots): the unique stable sort that
 * assert_valid_sort pins down, on 2, 3 and 5 threads, for points in random
 * order, in near slot order (storage sorted, then moved a little, as the
 * framework re-sorts it), and all in one cell (the ranges of all threads but
 * one empty). */
START_TEST(test_parallel_counting_sort)
{
    const size_t n = 40000;
    for (int dim = 2; dim <= 3; dim++)
        for (int kind = 0; kind < 3; kind++) {
            pts p;
            pts_random(&p, dim, n, 0.0, kind == 2 ? 0.5 : box_for(dim, n, 1.0, 30.0), 11 + (uint64_t)kind);
            if (kind == 1) { /* into slot order, then jittered by up to 0.2 h */
                pfb_grid g;
                pfb_err err;
                ck_assert(grid_init(&g, dim, 1.0, &err) == PFB_OK);
                ck_assert(grid_build(&g, p.x, n, &err) == PFB_OK);
                uint64_t st = 99;
                for (int d = 0; d < dim; d++) {
                    double *tmp = malloc(n * sizeof *tmp);
                    ck_assert_ptr_nonnull(tmp);
                    for (size_t k = 0; k < n; k++)
                        tmp[k] = p.c[d][g.order[k]] + 0.4 * (unif(&st) - 0.5);
                    memcpy(p.c[d], tmp, n * sizeof *tmp);
                    free(tmp);
                }
                grid_free(&g);
            }
            for (int threads = 2; threads <= 5; threads += threads == 3 ? 2 : 1) {
                pfb_grid g;
                pfb_err err;
                ck_assert(grid_init(&g, dim, 1.0, &err) == PFB_OK);
                g.threads = threads;
                ck_assert(grid_build(&g, p.x, n, &err) == PFB_OK);
                ck_assert(!g.hashed);
                assert_valid_sort(&g, &p);
                grid_free(&g);
            }
            pts_free(&p);
        }
}
END_TEST

/* The candidates a point scans: every neighbour lies in its ranges (checked by
 * the lists above), and the ranges are small.  With whole cells and no gap test
 * a 3D point would scan 27 h^3 of cells around it, 6.4 times the ball's 4.19 h^3;
 * half cells with the gap test leave the cells meeting the ball grown by about
 * the half cell's diagonal, about 11 h^3 for a point at a random place (so
 * 2.7 times the neighbours).  Uniform random points with 40 neighbours on average
 * must scan fewer than 13.5 h^3 of them (half the unpruned stencil), and whole
 * cells with the gap test fewer than 27 h^3 but more than half cells. */
START_TEST(test_candidate_volume)
{
    const size_t n = 20000;
    const double L = box_for(3, n, 1.0, 40.0);
    pts p;
    pts_random(&p, 3, n, 0.0, L, 7);
    double per_h3[3] = {0, 0, 0};
    for (int sub = 1; sub <= 2; sub++) {
        pfb_grid g;
        pfb_err err;
        ck_assert(grid_init(&g, 3, 1.0, &err) == PFB_OK);
        g.sub = sub;
        ck_assert(grid_build(&g, p.x, n, &err) == PFB_OK);
        ck_assert_int_eq(g.sub_used, sub);
        double cand = 0.0;
        size_t inner = 0;
        pfb_cell_ranges r;
        r.cached = 0;
        for (size_t k = 0; k < n; k++) {
            /* points at least h from the box's faces: a full neighbourhood */
            const size_t i = g.order[k];
            int in = 1;
            for (int a = 0; a < 3; a++)
                in &= p.x[a][i] > 1.0 && p.x[a][i] < L - 1.0;
            if (!in)
                continue;
            grid_candidates(&g, k, &r);
            for (int q = 0; q < r.n; q++)
                cand += (double)(r.hi[q] - r.lo[q]);
            inner++;
        }
        ck_assert(inner > n / 4);
        per_h3[sub] = cand / (double)inner / ((double)n / (L * L * L)); /* candidate volume, h^3 */
        grid_free(&g);
    }
    if (getenv("PFB_TEST_VERBOSE"))
        printf("candidate volume: whole cells %.2f h^3, half cells %.2f h^3\n", per_h3[1], per_h3[2]);
    ck_assert_msg(per_h3[2] < 13.5, "half cells scan %g h^3", per_h3[2]);
    ck_assert_msg(per_h3[1] < 27.0 && per_h3[1] > per_h3[2], "whole cells scan %g h^3", per_h3[1]);
    pts_free(&p);
}
END_TEST

/* ---------------------------------------------------------------- tests */

/* Random points, several h (exact and inexact binary fractions) and offsets (the
 * large offset makes x - origin round).  Exact equality is the right tolerance:
 * both searches decide every pair with the same expression, pfb_dist2 < h*h, and
 * store the same double, so any difference at all is a missed or extra pair. */
START_TEST(test_random_2d)
{
    const double hs[] = {0.1, 0.37, 1.0};
    const double offs[] = {0.0, -3.7, 12345.678};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            pts p;
            const size_t n = 1500;
            pts_random(&p, 2, n, offs[b], box_for(2, n, hs[a], 20.0), 100 + 3 * (uint64_t)a + b);
            char what[64];
            snprintf(what, sizeof what, "random 2D h=%g off=%g", hs[a], offs[b]);
            const size_t pairs = check_against_brute(&p, hs[a], 0, 0, NULL, what);
            ck_assert_msg(pairs > 10 * n, "%s: only %zu pairs", what, pairs);
            pts_free(&p);
        }
}
END_TEST

/* As test_random_2d in 3D, about 40 neighbours per point.  Exact equality: same
 * pfb_dist2 expression in both searches, so the lists must agree bit for bit. */
START_TEST(test_random_3d)
{
    const double hs[] = {0.1, 0.37, 1.0};
    const double offs[] = {0.0, -3.7, 12345.678};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            pts p;
            const size_t n = 2000;
            pts_random(&p, 3, n, offs[b], box_for(3, n, hs[a], 40.0), 200 + 3 * (uint64_t)a + b);
            char what[64];
            snprintf(what, sizeof what, "random 3D h=%g off=%g", hs[a], offs[b]);
            const size_t pairs = check_against_brute(&p, hs[a], 0, 0, NULL, what);
            ck_assert_msg(pairs > 20 * n, "%s: only %zu pairs", what, pairs);
            pts_free(&p);
        }
}
END_TEST

/* Lattices with spacing h/2 and h: many pairs lie at distance h (excluded) and
 * points lie exactly on cell borders.  With h = 1 and offset 0 every coordinate and
 * distance is exact, so the list is also checked against integer arithmetic; with
 * h = 0.1 or 0.3 and offsets, i*a rounds and pairs near h fall either side of it, and
 * the brute force is the arbiter.  Exact equality: both searches evaluate the same
 * pfb_dist2 < h*h, so rounding cannot make them disagree. */
START_TEST(test_lattice)
{
    const double hs[] = {1.0, 0.1, 0.3};
    const double offs[] = {0.0, -7.3, 1e5};
    for (int dim = 2; dim <= 3; dim++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int half = 0; half <= 1; half++) {
                    const double h = hs[a];
                    const double sp = half ? h / 2 : h;
                    const size_t m = dim == 3 ? 11 : 37;
                    pts p;
                    pts_lattice(&p, dim, m, sp, offs[b]);
                    char what[96];
                    snprintf(what, sizeof what, "lattice %dD h=%g spacing=%s off=%g", dim, h,
                             half ? "h/2" : "h", offs[b]);
                    pfb_nlist nl;
                    check_against_brute(&p, h, 0, 0, &nl, what);
                    if (a == 0 && b == 0) {
                        /* exact case: (i,j,k), (i',j',k') are neighbours iff the integer
                         * squared distance in lattice steps is < 4 (spacing h/2) or < 1
                         * (spacing h, i.e. none); r2 = steps^2 * spacing^2 exactly */
                        const long lim = half ? 4 : 1;
                        for (size_t i = 0; i < p.n; i++) {
                            size_t row = nl.start[i];
                            for (size_t j = 0; j < p.n; j++) {
                                long s2 = 0;
                                for (int d = 0; d < dim; d++) {
                                    const size_t md = d == 0 ? 1 : (d == 1 ? m : m * m);
                                    const long di = (long)((i / md) % m) - (long)((j / md) % m);
                                    s2 += di * di;
                                }
                                if (j == i || s2 >= lim)
                                    continue;
                                REQUIRE(row < nl.start[i + 1] && nl.idx[row] == j,
                                        "%s: row %zu lacks %zu", what, i, j);
                                REQUIRE(pfb_dist2(dim, p.x, i, j) == (double)s2 * sp * sp,
                                        "%s: r2 of %zu-%zu", what, i, j);
                                row++;
                            }
                            REQUIRE(row == nl.start[i + 1], "%s: row %zu has extra entries",
                                    what, i);
                        }
                        if (!half)
                            ck_assert_uint_eq(nl.start[p.n], 0);
                    }
                    nlist_free(&nl);
                    pts_free(&p);
                }
}
END_TEST

/* Points on the corners, edges and faces of the bounding box [0, L]^dim with L a
 * multiple of h (the max corner lands exactly on a cell border and is clamped into
 * the last cell) and L not a multiple, plus interior points and points just inside
 * h of a corner.  Exact equality: same pfb_dist2 < h*h in both searches. */
START_TEST(test_box_corners)
{
    const double Ls[] = {1.0, 3.0, 2.5, 0.999999999};
    for (int dim = 2; dim <= 3; dim++)
        for (int a = 0; a < 4; a++) {
            const double h = 1.0, L = Ls[a];
            const size_t nc = dim == 3 ? 8 : 4;
            const size_t n = 3 * nc + 200;
            pts p;
            pts_alloc(&p, dim, n);
            uint64_t seed = 300 + (uint64_t)(10 * dim + a);
            size_t t = 0;
            for (size_t c = 0; c < nc; c++, t++)        /* the corners */
                for (int d = 0; d < dim; d++)
                    p.c[d][t] = (c >> d) & 1 ? L : 0.0;
            for (size_t c = 0; c < nc; c++, t++)        /* just under h from a corner */
                for (int d = 0; d < dim; d++)
                    p.c[d][t] = d == 0 ? ((c & 1) ? L - nextafter(h, 0.0) : nextafter(h, 0.0))
                                       : ((c >> d) & 1 ? L : 0.0);
            for (size_t c = 0; c < nc; c++, t++)        /* exactly h from a corner */
                for (int d = 0; d < dim; d++)
                    p.c[d][t] = d == dim - 1 ? ((c >> d) & 1 ? L - h : h)
                                             : ((c >> d) & 1 ? L : 0.0);
            for (; t < n; t++)                         /* faces and interior */
                for (int d = 0; d < dim; d++) {
                    const double u = unif(&seed);
                    p.c[d][t] = u < 0.2 ? 0.0 : (u < 0.4 ? L : L * unif(&seed));
                }
            /* keep the box [0, L]: points placed at L - h etc. stay inside for L >= h */
            for (size_t i = 0; i < n; i++)
                for (int d = 0; d < dim; d++)
                    p.c[d][i] = fmin(fmax(p.c[d][i], 0.0), L);
            char what[64];
            snprintf(what, sizeof what, "box corners %dD L=%.10g", dim, L);
            pfb_nlist nl;
            check_against_brute(&p, h, 0, 0, &nl, what);
            if (a == 0) {
                /* L = h: adjacent corners are exactly h apart and must not pair */
                for (size_t i = 0; i < nc; i++)
                    for (size_t k = nl.start[i]; k < nl.start[i + 1]; k++)
                        REQUIRE(nl.idx[k] >= nc, "corner %zu paired with corner %u at r2 %g", i,
                                (unsigned)nl.idx[k], pfb_dist2(dim, p.x, i, nl.idx[k]));
            }
            nlist_free(&nl);
            pts_free(&p);
        }
}
END_TEST

/* Coincident points (distance 0) and points sharing one border coordinate.  Exact
 * equality: same pfb_dist2 < h*h in both searches. */
START_TEST(test_coincident)
{
    for (int dim = 2; dim <= 3; dim++) {
        pts p;
        const size_t n = 300;
        pts_alloc(&p, dim, n);
        uint64_t seed = 400 + (uint64_t)dim;
        for (size_t i = 0; i < n; i++)
            for (int d = 0; d < dim; d++)
                p.c[d][i] = (double)(sm64(&seed) % 5) * 0.25; /* 5 values per axis: many ties */
        check_against_brute(&p, 0.5, 0, 0, NULL, dim == 3 ? "coincident 3D" : "coincident 2D");
        pts_free(&p);
    }
}
END_TEST

/* Pairs just under h apart whose cells, binned with scale exactly fl(1/h), would be
 * two apart (found by search: the cell after the index crosses a power of two is
 * narrower than h by ~k ulps).  Each case is {origin, h, xj, xi}: a point at the
 * origin fixes the bounding box, and xj, xi (same other coordinates) are a pair
 * per pfb_dist2 < h*h.  Run bounded and hashed.  Exact equality: both searches
 * evaluate the same pfb_dist2 < h*h, so the pair must be listed by both. */
START_TEST(test_rounding_adversarial)
{
    static const double cases[][4] = {
        {1.0, 0.10288142011576244, 1.8230513609260994, 1.9259327810418618},
        {1.0, 0.18948938873449198, 1.7579575549379678, 1.9474469436724597},
        {-3.0, 0.24518722063753295, -1.0385022348997366, -0.7933150142622039},
        {0.0, 0.0018480080550496293, 0.9461801241854101, 0.9480281322404597},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int dim = 2; dim <= 3; dim++)
            for (int hashed = 0; hashed <= 1; hashed++) {
                const double o = cases[c][0], h = cases[c][1];
                pts p;
                pts_alloc(&p, dim, 3);
                for (int d = 0; d < dim; d++)
                    p.c[d][0] = p.c[d][1] = p.c[d][2] = o;
                p.c[0][1] = cases[c][2];
                p.c[0][2] = cases[c][3];
                const double *const xp[3] = {p.x[0], p.x[1], p.x[2]};
                ck_assert(pfb_dist2(dim, xp, 1, 2) < h * h); /* the case is a pair */
                char what[64];
                snprintf(what, sizeof what, "adversarial %zu %dD %s", c, dim,
                         hashed ? "hashed" : "bounded");
                pfb_nlist nl;
                check_against_brute(&p, h, hashed ? 1 : 0, hashed, &nl, what);
                ck_assert_msg(nl.start[2] - nl.start[1] == 1 && nl.idx[nl.start[1]] == 2,
                              "%s: pair 1-2 missing", what);
                nlist_free(&nl);
                pts_free(&p);
            }
}
END_TEST

/* The single-precision filter at its limit: a box 4000 h long (the filter's
 * float offsets then err by up to ~2.4e-4 h, its widest allowed span is 4096 h)
 * holding pairs whose distance is h times 1 + e, e from -1e-4 to 1e-4 down to a
 * few ulps either side, in random directions.  A filter bound one rounding too
 * tight would drop a pair or count one that is not (and the rows would differ
 * from the brute force's, which check_against_brute requires to be identical). */
START_TEST(test_filter_band)
{
    static const double eps[] = {-1e-4, -1e-5, -1e-6, -1e-7, -1e-9, -1e-12, -4e-16, 0.0,
                                 4e-16,  1e-12, 1e-9,  1e-7,  1e-6, 1e-5,   1e-4};
    const size_t ne = sizeof eps / sizeof eps[0], reps = 60, n = 2 * ne * reps;
    for (int dim = 2; dim <= 3; dim++) {
        const double h = 0.37, len = 4000.0 * h;
        pts p;
        pts_alloc(&p, dim, n);
        uint64_t seed = 77 + (uint64_t)dim;
        for (size_t t = 0; t < n / 2; t++) {
            double u[3] = {0.0, 0.0, 0.0}, uu = 0.0;
            for (int d = 0; d < dim; d++) {
                u[d] = 2.0 * unif(&seed) - 1.0;
                uu += u[d] * u[d];
            }
            const double r = h * (1.0 + eps[t % ne]) / sqrt(uu);
            p.c[0][2 * t] = 5.0 + len * unif(&seed);
            for (int d = 1; d < dim; d++)
                p.c[d][2 * t] = 5.0 + 2.0 * h * unif(&seed);
            for (int d = 0; d < dim; d++)
                p.c[d][2 * t + 1] = p.c[d][2 * t] + r * u[d];
        }
        pfb_grid g;
        pfb_err err = {{0}};
        const size_t cells = (size_t)1 << 20; /* bounded: the box needs ~4e4 cells */
        ck_assert(grid_init(&g, dim, h, &err) == PFB_OK);
        g.max_cells = cells;
        ck_assert(grid_build(&g, p.x, p.n, &err) == PFB_OK);
#if defined(__x86_64__) && defined(__GNUC__)
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            ck_assert_msg(g.filter && !g.hashed, "%dD: the filter is not used (hashed %d)", dim, g.hashed);
#endif
        grid_free(&g);
        char what[64];
        snprintf(what, sizeof what, "filter band %dD", dim);
        const size_t pairs = check_against_brute(&p, h, cells, 0, NULL, what);
        ck_assert_msg(pairs >= n / 2, "%s: only %zu pairs", what, pairs); /* the e < 0 ones, twice */
        pts_free(&p);
    }
}
END_TEST

/* Two tight clusters 1e6 h apart on every axis: the bounding box would need ~1e18
 * cells, so the grid must hash.  Exact equality: same pfb_dist2 < h*h in both. */
START_TEST(test_hashed_clusters)
{
    for (int dim = 2; dim <= 3; dim++) {
        const double h = 0.25;
        const size_t half = 400;
        pts p, q;
        pts_random(&p, dim, half, -1.0, 4 * h, 500 + (uint64_t)dim);
        pts_random(&q, dim, half, -1.0 + 1e6 * h, 4 * h, 600 + (uint64_t)dim);
        pts all;
        pts_alloc(&all, dim, 2 * half);
        for (size_t i = 0; i < half; i++)
            for (int d = 0; d < dim; d++) {
                all.c[d][2 * i] = p.c[d][i]; /* interleave the clusters */
                all.c[d][2 * i + 1] = q.c[d][i];
            }
        pfb_nlist nl;
        const size_t pairs =
            check_against_brute(&all, h, 0, 1, &nl, dim == 3 ? "clusters 3D" : "clusters 2D");
        ck_assert_uint_gt(pairs, 10 * half);
        for (size_t i = 0; i < all.n; i++)
            for (size_t k = nl.start[i]; k < nl.start[i + 1]; k++)
                REQUIRE(nl.idx[k] % 2 == i % 2, "pair %zu-%u across clusters", i, (unsigned)nl.idx[k]);
        nlist_free(&nl);
        pts_free(&p);
        pts_free(&q);
        pts_free(&all);
    }
}
END_TEST

/* Hashing forced (max_cells = 1) on few, spread points: the table has only 2n..4n
 * slots, so the 3^dim neighbour cells of a cell often share a slot and far cells
 * collide into near ones.  A slot scanned twice would list a pair twice; a far
 * point must be rejected by the distance test.  Exact equality: same pfb_dist2 <
 * h*h in both searches, so even one duplicate or miss shows. */
START_TEST(test_hashed_collisions)
{
    for (int dim = 2; dim <= 3; dim++)
        for (uint64_t seed = 0; seed < 20; seed++) {
            pts p;
            const size_t n = 20 + 7 * (size_t)seed;
            pts_random(&p, dim, n, -2.0, dim == 3 ? 5.0 : 9.0, 700 + seed);
            check_against_brute(&p, 1.0, 1, 1, NULL, "forced hashing");
            pts_free(&p);
        }
    /* a larger random set hashed, and the same set bounded, agree */
    pts p;
    pts_random(&p, 3, 3000, 0.0, box_for(3, 3000, 0.2, 40.0), 777);
    pfb_nlist a, b;
    check_against_brute(&p, 0.2, 1, 1, &a, "forced hashing 3000");
    check_against_brute(&p, 0.2, 0, 0, &b, "bounded 3000");
    assert_same_list(&a, &b, "hashed vs bounded");
    nlist_free(&a);
    nlist_free(&b);
    pts_free(&p);
}
END_TEST

/* One grid and one list rebuilt with more, then fewer points: results stay exact
 * and the shrink reuses the storage (no reallocation).  Exact equality: same
 * pfb_dist2 < h*h in both searches. */
/* Points stored in cell order (as the framework keeps particles): thread 0
 * writes its chunks' rows in place while the list's storage lasts, the other
 * threads take chunks from the end into buffers, and rows are not re-sorted.
 * Lists of growing size through one list, so that the storage runs out part
 * way (the rest through the buffers) and then suffices, on 1, 2 and 3 threads,
 * with one chunk a thread and with many small chunks, must equal the brute
 * force's. */
START_TEST(test_ordered_storage)
{
    const size_t ns[] = {1500, 6000, 6000, 9000, 500};
    for (int threads = 1; threads <= 3; threads++) {
        pfb_nlist nl = {0}, nb = {0};
        pfb_err err = {{0}};
        for (int r = 0; r < 5; r++) {
            pts p, q;
            pts_random(&p, 3, ns[r], 0.0, box_for(3, ns[r], 0.3, 30.0), 900 + (uint64_t)r);
            pfb_grid g;
            ck_assert(grid_init(&g, 3, 0.3, &err) == PFB_OK);
            ck_assert(grid_build(&g, p.x, p.n, &err) == PFB_OK);
            pts_alloc(&q, 3, p.n);
            for (size_t k = 0; k < p.n; k++)
                for (int d = 0; d < 3; d++)
                    q.c[d][k] = p.c[d][g.order[k]];
            g.threads = threads;
            g.chunk_points = r % 2 ? 0 : 97; /* many chunks (up to 16 a thread), or one a thread */
            ck_assert(grid_build(&g, q.x, q.n, &err) == PFB_OK);
            ck_assert_msg(g.ordered, "points sorted by cell are not seen as ordered");
            /* the build's path for sorted points (no counting sort) must give
             * what the counting sort gives: the identity, and the same cells */
            assert_valid_sort(&g, &q);
            ck_assert_msg(grid_neighbours(&g, q.x, &nl, &err) == PFB_OK, "%s", err.msg);
            ck_assert(nlist_brute_force(3, 0.3, q.x, q.n, &nb, &err) == PFB_OK);
            char what[64];
            snprintf(what, sizeof what, "ordered n=%zu threads=%d", ns[r], threads);
            assert_same_list(&nl, &nb, what);
            grid_free(&g);
            pts_free(&p);
            pts_free(&q);
        }
        nlist_free(&nl);
        nlist_free(&nb);
    }
}
END_TEST

START_TEST(test_rebuild_reuse)
{
    const size_t ns[] = {400, 3000, 200, 3000};
    pfb_grid g;
    pfb_nlist nl = {0}, nb = {0};
    pfb_err err = {{0}};
    ck_assert(grid_init(&g, 3, 0.3, &err) == PFB_OK);
    const uint32_t *order_big = NULL;
    const size_t *cs_big = NULL;
    const uint32_t *idx_big = NULL;
    const double *xs_big = NULL;
    for (int r = 0; r < 4; r++) {
        pts p;
        pts_random(&p, 3, ns[r], 1.0, box_for(3, ns[r], 0.3, 30.0), 800 + (uint64_t)r);
        ck_assert_msg(grid_build(&g, p.x, p.n, &err) == PFB_OK, "%s", err.msg);
        assert_valid_sort(&g, &p);
        ck_assert_msg(grid_neighbours(&g, p.x, &nl, &err) == PFB_OK, "%s", err.msg);
        ck_assert(nlist_brute_force(3, 0.3, p.x, p.n, &nb, &err) == PFB_OK);
        assert_same_list(&nl, &nb, "rebuild");
        if (r == 1) {
            order_big = g.order;
            cs_big = g.cell_start;
            xs_big = g.xs;
            idx_big = nl.idx;
        } else if (r >= 2) {
            ck_assert_ptr_eq(g.order, order_big);
            ck_assert_ptr_eq(g.cell_start, cs_big);
            ck_assert_ptr_eq(g.xs, xs_big);
            ck_assert_ptr_eq(nl.idx, idx_big);
            ck_assert_uint_ge(g.cap_points, 3000);
        }
        pts_free(&p);
    }
    grid_free(&g);
    nlist_free(&nl);
    nlist_free(&nb);
}
END_TEST

/* n = 0 and n = 1: empty lists with start[0] (and start[1]) = 0. */
START_TEST(test_tiny)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_grid g;
        pfb_nlist nl = {0}, nb = {0};
        pfb_err err = {{0}};
        ck_assert(grid_init(&g, dim, 1.0, &err) == PFB_OK);
        pts p;
        pts_alloc(&p, dim, 0);
        ck_assert_msg(grid_build(&g, p.x, 0, &err) == PFB_OK, "%s", err.msg);
        ck_assert_msg(grid_neighbours(&g, p.x, &nl, &err) == PFB_OK, "%s", err.msg);
        ck_assert_uint_eq(nl.n, 0);
        ck_assert_uint_eq(nl.start[0], 0);
        ck_assert(nlist_brute_force(dim, 1.0, p.x, 0, &nb, &err) == PFB_OK);
        ck_assert_uint_eq(nb.n, 0);
        ck_assert_uint_eq(nb.start[0], 0);
        /* n = 0 with NULL coordinates is fine too */
        ck_assert(grid_build(&g, NULL, 0, &err) == PFB_OK);
        ck_assert(grid_neighbours(&g, NULL, &nl, &err) == PFB_OK);
        pts_free(&p);

        pts_alloc(&p, dim, 1);
        p.c[0][0] = -4.0;
        p.c[1][0] = 1e9;
        ck_assert_msg(grid_build(&g, p.x, 1, &err) == PFB_OK, "%s", err.msg);
        assert_valid_sort(&g, &p);
        ck_assert_uint_eq(grid_sort_permutation(&g)[0], 0);
        ck_assert_msg(grid_neighbours(&g, p.x, &nl, &err) == PFB_OK, "%s", err.msg);
        ck_assert_uint_eq(nl.n, 1);
        ck_assert_uint_eq(nl.start[0], 0);
        ck_assert_uint_eq(nl.start[1], 0);
        ck_assert(nlist_brute_force(dim, 1.0, p.x, 1, &nb, &err) == PFB_OK);
        assert_same_list(&nl, &nb, "n = 1");
        pts_free(&p);
        grid_free(&g);
        nlist_free(&nl);
        nlist_free(&nb);
    }
}
END_TEST

/* Bad dim and h fail with a one-line message naming the value; so do non-finite
 * coordinates (naming the point) and listing before building. */
START_TEST(test_errors)
{
    pfb_grid g;
    pfb_err err = {{0}};
    ck_assert_int_eq(grid_init(&g, 3, 0.0, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "h = 0") && strstr(err.msg, "> 0"), "%s", err.msg);
    ck_assert_int_eq(grid_init(&g, 3, NAN, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "h = nan") && strstr(err.msg, "finite"), "%s", err.msg);
    ck_assert_int_eq(grid_init(&g, 2, -1.5, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "h = -1.5"), "%s", err.msg);
    ck_assert_int_eq(grid_init(&g, 2, INFINITY, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "h = inf"), "%s", err.msg);
    ck_assert_int_eq(grid_init(&g, 4, 1.0, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "dim = 4") && strstr(err.msg, "2 or 3"), "%s", err.msg);
    ck_assert_int_eq(grid_init(&g, 1, 1.0, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "dim = 1"), "%s", err.msg);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    ck_assert_int_eq(grid_init(&g, 3, 1.0, NULL), PFB_OK); /* err may be NULL */

    pfb_nlist nl = {0};
    ck_assert_int_eq(nlist_brute_force(5, 1.0, NULL, 0, &nl, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "dim = 5"), "%s", err.msg);

    ck_assert_int_eq(grid_neighbours(&g, NULL, &nl, &err), PFB_EINVAL); /* not built */

    pts p;
    pts_random(&p, 3, 10, 0.0, 1.0, 900);
    p.c[1][7] = NAN;
    ck_assert_int_eq(grid_build(&g, p.x, p.n, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "point 7") && strstr(err.msg, "nan"), "%s", err.msg);
    ck_assert_int_eq(grid_neighbours(&g, p.x, &nl, &err), PFB_EINVAL); /* failed build */
    p.c[1][7] = 0.5;
    p.c[2][3] = -INFINITY;
    ck_assert_int_eq(grid_build(&g, p.x, p.n, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "point 3") && strstr(err.msg, "-inf"), "%s", err.msg);
    p.c[2][3] = 0.5;
    ck_assert_int_eq(grid_build(&g, p.x, p.n, &err), PFB_OK);
    ck_assert_int_eq(grid_neighbours(&g, p.x, &nl, &err), PFB_OK);
    pts_free(&p);
    grid_free(&g);
    nlist_free(&nl);
}
END_TEST

/* grid_free and nlist_free accept zeroed structs, and freeing twice is harmless. */
START_TEST(test_free_zeroed)
{
    pfb_grid g;
    pfb_nlist nl;
    memset(&g, 0, sizeof g);
    memset(&nl, 0, sizeof nl);
    grid_free(&g);
    nlist_free(&nl);
    grid_free(&g);
    nlist_free(&nl);
    grid_free(NULL);
    nlist_free(NULL);
}
END_TEST

static Suite *grid_suite(void)
{
    Suite *s = suite_create("grid");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_2d);
    tcase_add_test(tc, test_random_3d);
    tcase_add_test(tc, test_parallel_counting_sort);
    tcase_add_test(tc, test_lattice);
    tcase_add_test(tc, test_box_corners);
    tcase_add_test(tc, test_coincident);
    tcase_add_test(tc, test_rounding_adversarial);
    tcase_add_test(tc, test_filter_band);
    tcase_add_test(tc, test_hashed_clusters);
    tcase_add_test(tc, test_hashed_collisions);
    tcase_add_test(tc, test_rebuild_reuse);
    tcase_add_test(tc, test_ordered_storage);
    tcase_add_test(tc, test_tiny);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_free_zeroed);
    tcase_add_test(tc, test_candidate_volume);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(grid_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* test_periodic.c — Check suite for core/periodic.c (periodic boundaries).
 *
 * The periodic list is compared with nlist_brute_periodic (the minimum image by
 * the same period_dist2, O(n^2), sharing no search code) entry for entry: random
 * points in 2D and 3D with every axis periodic and with some axes open, points
 * spread up to a quarter period outside the box (positions are wrapped only at
 * sorts), and points in the corners, whose pairs cross two or three faces at once.
 * Exact equality is the claim, so there is no tolerance.  A particle that crosses
 * a face and is wrapped keeps its neighbours; the wrap's image counts give back
 * the unwrapped position; the list does not depend on the thread count; bad
 * periods and spreads are refused with a message naming them.  Lees-Edwards
 * boxes (sliding y faces) are checked the same way and against their images
 * written out, at several offsets, and a point wrapped across a sliding face
 * keeps its neighbours, vectors and velocity differences. */
#include "../core/periodic.h"

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* splitmix64: fixed-seed, portable random bits. */
static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double unif(uint64_t *s)
{
    return (double)(sm64(s) >> 11) * 0x1p-53;
}

typedef struct {
    size_t n;
    double *c[3];
} pset;

static void pset_alloc(pset *p, size_t n)
{
    p->n = n;
    for (int d = 0; d < 3; d++) {
        p->c[d] = calloc(n ? n : 1, sizeof(double));
        ck_assert_ptr_nonnull(p->c[d]);
    }
}

static void pset_free(pset *p)
{
    for (int d = 0; d < 3; d++)
        free(p->c[d]);
}

/* The periodic list of p equals the brute-force one, row by row. */
static void check_equal(const pfb_period *pp, int dim, double h, const pset *p, int threads)
{
    const double *const x[3] = {p->c[0], p->c[1], p->c[2]};
    pfb_periodic_ws w;
    memset(&w, 0, sizeof w);
    pfb_nlist a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    pfb_err err = {0};
    ck_assert_msg(periodic_neighbours(&w, pp, dim, h, threads, x, p->n, &a, &err) == PFB_OK, "%s", err.msg);
    ck_assert_msg(nlist_brute_periodic(pp, dim, h, x, p->n, &b, &err) == PFB_OK, "%s", err.msg);
    ck_assert_uint_eq(a.n, p->n);
    for (size_t i = 0; i <= p->n; i++)
        if (a.start[i] != b.start[i])
            ck_abort_msg("row offsets differ at %zu: %zu against brute force %zu", i, a.start[i], b.start[i]);
    for (size_t q = 0; q < a.start[p->n]; q++)
        if (a.idx[q] != b.idx[q])
            ck_abort_msg("entry %zu differs: %u against brute force %u", q, a.idx[q], b.idx[q]);
    ck_assert_uint_gt(a.start[p->n], 0);
    periodic_ws_free(&w);
    nlist_free(&a);
    nlist_free(&b);
}

/* n random points in the box [lo, lo + L) per axis, spread by `out` periods beyond it. */
static void random_points(pset *p, int dim, const double lo[3], const double L[3], double out, uint64_t seed)
{
    for (size_t i = 0; i < p->n; i++)
        for (int d = 0; d < 3; d++)
            p->c[d][i] = d < dim ? lo[d] - out * L[d] + (1.0 + 2.0 * out) * L[d] * unif(&seed) : 0.0;
}

START_TEST(test_random_all_periodic)
{
    for (int dim = 2; dim <= 3; dim++) {
        const double lo[3] = {0.0, -0.5, 0.25}, L[3] = {1.0, 0.8, 0.6}, h = 0.09;
        pfb_period pp;
        memset(&pp, 0, sizeof pp);
        for (int d = 0; d < dim; d++)
            period_set(&pp, d, lo[d], L[d]);
        pset p;
        pset_alloc(&p, dim == 2 ? 2000 : 3000);
        random_points(&p, dim, lo, L, 0.0, 11 + (uint64_t)dim);
        check_equal(&pp, dim, h, &p, 1);
        /* a quarter period outside the box on each side: unwrapped positions */
        random_points(&p, dim, lo, L, 0.25, 21 + (uint64_t)dim);
        check_equal(&pp, dim, h, &p, 2);
        pset_free(&p);
    }
}
END_TEST

START_TEST(test_random_mixed_axes)
{
    /* x periodic only; x and z periodic (y open) */
    const double lo[3] = {-1.0, 0.0, 0.0}, L[3] = {0.7, 0.9, 0.5}, h = 0.1;
    for (int c = 0; c < 2; c++) {
        const int dim = c == 0 ? 2 : 3;
        pfb_period pp;
        memset(&pp, 0, sizeof pp);
        period_set(&pp, 0, lo[0], L[0]);
        if (dim == 3)
            period_set(&pp, 2, lo[2], L[2]);
        pset p;
        pset_alloc(&p, 2500);
        random_points(&p, dim, lo, L, 0.1, 31 + (uint64_t)c);
        check_equal(&pp, dim, h, &p, 2);
        pset_free(&p);
    }
}
END_TEST

/* Points within h of a corner of the box pair with those in the opposite
 * corners: across two faces in 2D, up to three in 3D. */
START_TEST(test_corners)
{
    for (int dim = 2; dim <= 3; dim++) {
        const double L = 1.0, h = 0.1;
        pfb_period pp;
        memset(&pp, 0, sizeof pp);
        for (int d = 0; d < dim; d++)
            period_set(&pp, d, 0.0, L);
        const int ncorner = dim == 2 ? 4 : 8;
        pset p;
        pset_alloc(&p, (size_t)ncorner * 40);
        uint64_t seed = 5;
        for (size_t i = 0; i < p.n; i++) {
            const size_t corner = i % (size_t)ncorner;
            for (int d = 0; d < dim; d++) {
                const double e = 0.06 * h * unif(&seed) * 8.0; /* within 0.48 h of the corner */
                p.c[d][i] = (corner >> d) & 1u ? L - e - 1e-12 : e;
            }
        }
        check_equal(&pp, dim, h, &p, 1);
        /* and the pair of opposite corners is there */
        const double *const x[3] = {p.c[0], p.c[1], p.c[2]};
        pfb_periodic_ws w;
        memset(&w, 0, sizeof w);
        pfb_nlist a;
        memset(&a, 0, sizeof a);
        pfb_err err = {0};
        p.c[0][0] = p.c[1][0] = p.c[2][0] = 0.01;               /* corner 0 */
        const size_t far = (size_t)ncorner - 1;                 /* the opposite corner */
        for (int d = 0; d < 3; d++)
            p.c[d][far] = d < dim ? L - 0.01 : 0.0;
        ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &a, &err) == PFB_OK);
        int found = 0;
        for (size_t q = a.start[0]; q < a.start[1]; q++)
            found |= a.idx[q] == far;
        ck_assert_msg(found, "%dD: points 0.02 sqrt(dim) apart across every face are not neighbours", dim);
        periodic_ws_free(&w);
        nlist_free(&a);
        pset_free(&p);
    }
}
END_TEST

/* A particle moved across a face keeps its neighbours, before and after the
 * wrap; the wrap's image count restores its unwrapped position. */
START_TEST(test_cross_face_keeps_neighbours)
{
    const int dim = 3;
    const double L = 1.0, h = 0.1;
    pfb_period pp;
    memset(&pp, 0, sizeof pp);
    for (int d = 0; d < dim; d++)
        period_set(&pp, d, 0.0, L);
    pset p;
    pset_alloc(&p, 6000);
    uint64_t seed = 7;
    random_points(&p, dim, (const double[3]){0, 0, 0}, (const double[3]){L, L, L}, 0.0, seed);
    /* particle 0 just inside the upper x face, then moved 0.03 across it */
    p.c[0][0] = L - 0.01;
    p.c[1][0] = 0.5;
    p.c[2][0] = 0.5;
    const double *const x[3] = {p.c[0], p.c[1], p.c[2]};
    pfb_periodic_ws w;
    memset(&w, 0, sizeof w);
    pfb_nlist a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    pfb_err err = {0};
    /* a neighbour set that the small move cannot change: the others at least
     * 0.035 from the radius h (the move is 0.03) */
    for (size_t i = 1; i < p.n; i++) {
        const double r = sqrt(period_dist2(&pp, dim, x, 0, i));
        if (fabs(r - h) < 0.035)
            p.c[1][i] = 0.0; /* moved to a plane far from particle 0 */
    }
    /* three neighbours for certain, two across the face, all within h - 0.035 */
    const double near[3][3] = {{0.02, 0.5, 0.5}, {0.04, 0.52, 0.5}, {L - 0.05, 0.5, 0.49}};
    for (size_t k = 0; k < 3; k++)
        for (int d = 0; d < 3; d++)
            p.c[d][1 + k] = near[k][d];
    ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &a, &err) == PFB_OK);
    size_t n0 = a.start[1] - a.start[0];
    uint32_t *before = malloc((n0 + 1) * sizeof *before);
    ck_assert_ptr_nonnull(before);
    memcpy(before, a.idx, n0 * sizeof *before);
    ck_assert_uint_gt(n0, 2);
    int across = 0;
    for (size_t q = 0; q < n0; q++)
        across |= p.c[0][before[q]] < 0.5; /* some neighbour on the far side */
    ck_assert_msg(across, "no neighbour across the face: the test does not test the crossing");
    p.c[0][0] += 0.03; /* now outside the box, unwrapped */
    ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &b, &err) == PFB_OK);
    ck_assert_uint_eq(b.start[1] - b.start[0], n0);
    ck_assert_int_eq(memcmp(before, b.idx, n0 * sizeof *before), 0);
    double *image = calloc(3 * p.n, sizeof *image);
    ck_assert_ptr_nonnull(image);
    const double unwrapped = p.c[0][0];
    period_wrap(&pp, dim, p.c, p.n, image);
    ck_assert(p.c[0][0] >= 0.0 && p.c[0][0] < L);
    ck_assert(image[0] == 1.0);
    /* x + image L is the unwrapped position up to the wrap's one rounding */
    ck_assert(fabs(p.c[0][0] + image[0] * L - unwrapped) <= 4.0 * 0x1p-52 * L);
    ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &b, &err) == PFB_OK);
    ck_assert_uint_eq(b.start[1] - b.start[0], n0);
    ck_assert_int_eq(memcmp(before, b.idx, n0 * sizeof *before), 0);
    free(image);
    free(before);
    periodic_ws_free(&w);
    nlist_free(&a);
    nlist_free(&b);
    pset_free(&p);
}
END_TEST

/* The minimum image itself: exact on open axes, |d| <= L / 2 on periodic ones. */
START_TEST(test_min_image)
{
    pfb_period pp;
    memset(&pp, 0, sizeof pp);
    period_set(&pp, 0, 0.0, 2.0);
    ck_assert(period_delta(&pp, 1, 1.2345) == 1.2345); /* open */
    ck_assert(fabs(period_delta(&pp, 0, 1.5) - (-0.5)) < 1e-15);
    ck_assert(fabs(period_delta(&pp, 0, -1.9) - 0.1) < 1e-15);
    ck_assert(period_delta(&pp, 0, 0.3) == 0.3);
    ck_assert(period_any(&pp, 2));
    pfb_period none;
    memset(&none, 0, sizeof none);
    ck_assert(!period_any(&none, 3));
}
END_TEST

START_TEST(test_bad_input)
{
    pfb_period pp;
    memset(&pp, 0, sizeof pp);
    period_set(&pp, 0, 0.0, 0.15);
    pset p;
    pset_alloc(&p, 10);
    for (size_t i = 0; i < p.n; i++)
        p.c[0][i] = 0.01 * (double)i;
    const double *const x[3] = {p.c[0], p.c[1], p.c[2]};
    pfb_periodic_ws w;
    memset(&w, 0, sizeof w);
    pfb_nlist a;
    memset(&a, 0, sizeof a);
    pfb_err err = {0};
    /* period 0.15 <= 2h = 0.2: refused, naming the period and what is valid */
    ck_assert_int_eq(periodic_neighbours(&w, &pp, 2, 0.1, 1, x, p.n, &a, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "0.15") && strstr(err.msg, "twice the radius"), "%s", err.msg);
    /* points spread over more than 1.5 periods */
    period_set(&pp, 0, 0.0, 1.0);
    p.c[0][3] = 2.0;
    ck_assert_int_eq(periodic_neighbours(&w, &pp, 2, 0.1, 1, x, p.n, &a, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "1.5 periods"), "%s", err.msg);
    p.c[0][3] = NAN;
    ck_assert_int_eq(periodic_neighbours(&w, &pp, 2, 0.1, 1, x, p.n, &a, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "non-finite"), "%s", err.msg);
    periodic_ws_free(&w);
    nlist_free(&a);
    pset_free(&p);
}
END_TEST

/* ---- Lees-Edwards (sliding y faces) ------------------------------------ */

/* The sheared box's list against brute force twice: nlist_brute_periodic (the
 * same period_dist2), entry for entry, and the explicit images (x_j + k s + m
 * L_x, y_j + k L_y, z_j + l L_z), k, m in -2..2, l in -1..1, written out here
 * without period_vec: j is in i's row iff one of them is within h.  The two
 * distances are the same sums in another order, so they agree to a few ulps of
 * h^2; a pair that close to the radius is not decided by the second check (the
 * count of such pairs is asserted to be small, and is 0 for these seeds). */
static void check_le(const pfb_period *pp, int dim, double h, const pset *p, int threads)
{
    check_equal(pp, dim, h, p, threads);
    const double *const x[3] = {p->c[0], p->c[1], p->c[2]};
    pfb_periodic_ws w;
    memset(&w, 0, sizeof w);
    pfb_nlist a;
    memset(&a, 0, sizeof a);
    pfb_err err = {0};
    ck_assert_msg(periodic_neighbours(&w, pp, dim, h, threads, x, p->n, &a, &err) == PFB_OK, "%s", err.msg);
    const double hh = h * h, tie = 64.0 * 0x1p-52 * hh;
    size_t ties = 0, across = 0;
    unsigned char *in = calloc(p->n, 1);
    ck_assert_ptr_nonnull(in);
    for (size_t i = 0; i < p->n; i++) {
        for (size_t q = a.start[i]; q < a.start[i + 1]; q++)
            in[a.idx[q]] = 1;
        for (size_t j = 0; j < p->n; j++) {
            if (j == i)
                continue;
            double best = INFINITY;
            int bestk = 0;
            for (int k = -2; k <= 2; k++)
                for (int m = -2; m <= 2; m++)
                    for (int l = dim == 3 ? -1 : 0; l <= (dim == 3 ? 1 : 0); l++) {
                        const double dx = x[0][i] - (x[0][j] + k * pp->le_s + m * pp->L[0]);
                        const double dy = x[1][i] - (x[1][j] + k * pp->L[1]);
                        const double dz = dim == 3 ? x[2][i] - (x[2][j] + l * pp->L[2]) : 0.0;
                        const double d2 = dx * dx + dy * dy + dz * dz;
                        if (d2 < best) {
                            best = d2;
                            bestk = k;
                        }
                    }
            if (fabs(best - hh) <= tie) {
                ties++;
                continue;
            }
            if ((best < hh) != (in[j] != 0))
                ck_abort_msg("%dD, s = %g: pair (%zu, %zu) at explicit distance^2 %.17g (h^2 %g) is %s the list",
                             dim, pp->le_s, i, j, best, hh, in[j] ? "in" : "not in");
            across += best < hh && bestk != 0;
        }
        for (size_t q = a.start[i]; q < a.start[i + 1]; q++)
            in[a.idx[q]] = 0;
    }
    ck_assert_uint_le(ties, 2);
    ck_assert_msg(across > 0, "no pair across the sliding faces: the test does not test them");
    free(in);
    periodic_ws_free(&w);
    nlist_free(&a);
}

START_TEST(test_le_brute)
{
    for (int dim = 2; dim <= 3; dim++) {
        const double lo[3] = {0.0, -0.5, 0.25}, L[3] = {1.0, 0.8, 0.6}, h = 0.09;
        pfb_period pp;
        memset(&pp, 0, sizeof pp);
        for (int d = 0; d < dim; d++)
            period_set(&pp, d, lo[d], L[d]);
        pfb_err err = {0};
        ck_assert_int_eq(period_set_le(&pp, 2.0, &err), PFB_OK);
        pset p;
        pset_alloc(&p, dim == 2 ? 1200 : 1600);
        /* offsets: none, a fraction of h, one not a multiple of anything, just
         * below L_x (the images nearly back in line) */
        const double ts[4] = {0.0, 0.02, 0.1618, 0.4999999};
        for (int c = 0; c < 4; c++) {
            period_le_at(&pp, ts[c]);
            ck_assert(pp.le_s >= 0.0 && pp.le_s < L[0]);
            random_points(&p, dim, lo, L, 0.0, 41 + (uint64_t)(10 * dim + c));
            check_le(&pp, dim, h, &p, 1);
            /* a quarter period outside on each side: positions between sorts */
            random_points(&p, dim, lo, L, 0.25, 51 + (uint64_t)(10 * dim + c));
            check_le(&pp, dim, h, &p, 2);
        }
        pset_free(&p);
    }
}
END_TEST

/* A point that leaves through the upper y face and is wrapped becomes the
 * image it was: y - L_y, x - s, v_x - U; its neighbours stay the same, with the
 * same minimum-image vectors and velocity differences (to the wrap's
 * rounding), and the image field gives back its unwrapped x and velocity. */
START_TEST(test_le_wrap)
{
    const int dim = 2;
    const double L = 1.0, h = 0.1, U = 3.0;
    pfb_period pp;
    memset(&pp, 0, sizeof pp);
    period_set(&pp, 0, 0.0, L);
    period_set(&pp, 1, 0.0, L);
    pfb_err err = {0};
    ck_assert_int_eq(period_set_le(&pp, U, &err), PFB_OK);
    period_le_at(&pp, 0.3); /* s = 0.9 */
    ck_assert(fabs(pp.le_s - 0.9) < 1e-15);
    pset p, v;
    pset_alloc(&p, 800);
    pset_alloc(&v, 800);
    random_points(&p, dim, (const double[3]){0, 0, 0}, (const double[3]){L, L, L}, 0.0, 61);
    for (size_t i = 0; i < p.n; i++)
        v.c[0][i] = U * (p.c[1][i] - 0.5); /* the uniform shear: continuous across the faces */
    p.c[0][0] = 0.3;
    p.c[1][0] = L + 0.02; /* just out of the top */
    v.c[0][0] = U * (p.c[1][0] - 0.5);
    const double *const x[3] = {p.c[0], p.c[1], p.c[2]};
    pfb_periodic_ws w;
    memset(&w, 0, sizeof w);
    pfb_nlist a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &a, &err) == PFB_OK);
    const size_t n0 = a.start[1];
    ck_assert_uint_gt(n0, 3);
    double d0[64][3], dv0[64];
    ck_assert_uint_lt(n0, 64);
    for (size_t q = 0; q < n0; q++) {
        const double k = period_diff(&pp, dim, x, 0, a.idx[q], d0[q]);
        dv0[q] = v.c[0][0] - v.c[0][a.idx[q]] - period_le_dv(&pp, k);
        /* uniform shear: the velocity difference is U/L_y times the y difference */
        ck_assert(fabs(dv0[q] - U * d0[q][1]) < 1e-12);
    }
    double *image = calloc(3 * p.n, sizeof *image);
    ck_assert_ptr_nonnull(image);
    const double x_un = p.c[0][0], v_un = v.c[0][0];
    period_wrap_le(&pp, dim, p.c, v.c, p.n, image);
    ck_assert(p.c[1][0] >= 0.0 && p.c[1][0] < L && p.c[0][0] >= 0.0 && p.c[0][0] < L);
    ck_assert(fabs(p.c[1][0] - 0.02) < 1e-15);
    ck_assert(fabs(p.c[0][0] - (0.3 - 0.9 + 1.0)) < 1e-15);
    ck_assert(image[1] == 1.0);
    ck_assert(fabs(p.c[0][0] + image[0] * L - x_un) < 1e-15);
    ck_assert(fabs(v.c[0][0] + image[1] * U - v_un) < 1e-15);
    ck_assert(periodic_neighbours(&w, &pp, dim, h, 1, x, p.n, &b, &err) == PFB_OK);
    ck_assert_uint_eq(b.start[1], n0);
    ck_assert_int_eq(memcmp(a.idx, b.idx, n0 * sizeof *a.idx), 0);
    for (size_t q = 0; q < n0; q++) {
        double d[3];
        const double k = period_diff(&pp, dim, x, 0, b.idx[q], d);
        const double dv = v.c[0][0] - v.c[0][b.idx[q]] - period_le_dv(&pp, k);
        ck_assert(fabs(d[0] - d0[q][0]) < 1e-14 && fabs(d[1] - d0[q][1]) < 1e-14);
        ck_assert(fabs(dv - dv0[q]) < 1e-13);
    }
    /* refused without both axes periodic, or with a non-finite velocity */
    pfb_period open;
    memset(&open, 0, sizeof open);
    period_set(&open, 0, 0.0, L);
    ck_assert_int_eq(period_set_le(&open, 1.0, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "x and y periodic"), "%s", err.msg);
    ck_assert_int_eq(period_set_le(&pp, NAN, &err), PFB_EINVAL);
    free(image);
    periodic_ws_free(&w);
    nlist_free(&a);
    nlist_free(&b);
    pset_free(&p);
    pset_free(&v);
}
END_TEST

static Suite *periodic_suite(void)
{
    Suite *s = suite_create("periodic");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_random_all_periodic);
    tcase_add_test(tc, test_random_mixed_axes);
    tcase_add_test(tc, test_corners);
    tcase_add_test(tc, test_cross_face_keeps_neighbours);
    tcase_add_test(tc, test_min_image);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_le_brute);
    tcase_add_test(tc, test_le_wrap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(periodic_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

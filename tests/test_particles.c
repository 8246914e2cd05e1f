/* test_particles.c — Check suite for core/particles.c (structure-of-arrays storage).
 *
 * Storage only moves doubles around, so every check here is exact: a value read
 * back is the value written, bit for bit, except the total mass, whose tolerance
 * is the round-off of a sum. */
#include "../core/particles.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Distinct, exactly representable values for particle i. */
static double val_x(size_t i, int k)
{
    return (double)i + 0.25 * (double)(k + 1);
}

static double val_v(size_t i, int k)
{
    return -(double)i - 0.125 * (double)(k + 1);
}

static double val_m(size_t i)
{
    return 1.0 + 0.5 * (double)i;
}

static double val_f(size_t i, int f, int c)
{
    return 1000.0 * (double)(f + 1) + (double)i + 0.0625 * (double)c;
}

static void add_n(pfb_particles *p, size_t n)
{
    pfb_err err = {{0}};
    for (size_t i = p->n, end = p->n + n; i < end; i++) {
        double x[3], v[3];
        for (int k = 0; k < 3; k++) {
            x[k] = val_x(i, k);
            v[k] = val_v(i, k);
        }
        ck_assert_int_eq(particles_add(p, x, v, val_m(i), &err), PFB_OK);
    }
}

static void msg_has(const pfb_err *err, const char *needle)
{
    ck_assert_msg(strchr(err->msg, '\n') == NULL, "message spans lines: %s", err->msg);
    ck_assert_msg(strstr(err->msg, needle) != NULL, "message '%s' lacks '%s'", err->msg, needle);
}

/* ------------------------------------------------------------------------- */

START_TEST(test_init_free)
{
    pfb_particles p;
    pfb_err err = {{0}};
    ck_assert_int_eq(particles_init(&p, 3, &err), PFB_OK);
    ck_assert_uint_eq(p.n, 0);
    ck_assert_uint_eq(p.cap, 0);
    ck_assert_uint_eq(p.nfields, 0);
    ck_assert(particles_total_mass(&p) == 0.0);
    particles_free(&p);
    particles_free(&p); /* a zeroed struct is fine */
    particles_free(NULL);
    ck_assert_int_eq(particles_init(&p, 4, &err), PFB_EINVAL);
    msg_has(&err, "dimension 4");
    ck_assert_int_eq(particles_init(&p, 1, &err), PFB_EINVAL);
    msg_has(&err, "dimension 1");
}
END_TEST

START_TEST(test_add_grows_keeps_values)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_particles p;
        pfb_err err = {{0}};
        ck_assert_int_eq(particles_init(&p, dim, &err), PFB_OK);
        const size_t n = 1000; /* several doublings from the first capacity */
        size_t last_cap = 0;
        int grew = 0;
        for (size_t i = 0; i < n; i++) {
            add_n(&p, 1);
            ck_assert_uint_eq(p.n, i + 1);
            ck_assert_uint_ge(p.cap, p.n);
            grew += p.cap != last_cap;
            last_cap = p.cap;
        }
        ck_assert_int_ge(grew, 3);
        for (size_t i = 0; i < n; i++) {
            ck_assert_uint_eq(p.id[i], i);
            ck_assert(p.m[i] == val_m(i));
            for (int k = 0; k < 3; k++) {
                /* z is stored as zero in 2D whatever was passed */
                double wx = k < dim ? val_x(i, k) : 0.0, wv = k < dim ? val_v(i, k) : 0.0;
                ck_assert_msg(p.x[k][i] == wx && p.v[k][i] == wv, "%dD particle %zu axis %d: x %g v %g", dim,
                              i, k, p.x[k][i], p.v[k][i]);
            }
        }
        ck_assert_uint_eq(p.next_id, n);
        particles_free(&p);
    }
}
END_TEST

START_TEST(test_reserve)
{
    pfb_particles p;
    pfb_err err = {{0}};
    ck_assert_int_eq(particles_init(&p, 2, &err), PFB_OK);
    ck_assert_int_eq(particles_reserve(&p, 300, &err), PFB_OK);
    ck_assert_uint_ge(p.cap, 300);
    size_t cap = p.cap;
    ck_assert_int_eq(particles_reserve(&p, 10, &err), PFB_OK); /* never shrinks */
    ck_assert_uint_eq(p.cap, cap);
    ck_assert_uint_eq(p.n, 0);
    add_n(&p, 300);
    ck_assert_uint_eq(p.cap, cap); /* no growth needed */
    particles_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Fields                                                                     */

START_TEST(test_field_zero_and_growth)
{
    pfb_particles p;
    pfb_err err = {{0}};
    ck_assert_int_eq(particles_init(&p, 3, &err), PFB_OK);
    /* registered before any particle, with a few particles, and after growth */
    int fa = -1, fb = -1, fc = -1;
    ck_assert_int_eq(particles_add_field(&p, "density", 1, &fa, &err), PFB_OK);
    add_n(&p, 5);
    ck_assert_int_eq(particles_add_field(&p, "force", 3, &fb, &err), PFB_OK);
    ck_assert_int_eq(fa, 0);
    ck_assert_int_eq(fb, 1);
    ck_assert_int_eq(particles_find_field(&p, "force"), 1);
    ck_assert_int_eq(particles_find_field(&p, "density"), 0);
    ck_assert_int_eq(particles_find_field(&p, "nope"), -1);
    ck_assert_str_eq(p.field[1].name, "force");
    ck_assert_int_eq(p.field[1].ncomp, 3);
    /* zero-filled over the whole capacity */
    for (size_t i = 0; i < p.cap; i++) {
        ck_assert(p.field[0].data[i] == 0.0);
        for (int c = 0; c < 3; c++)
            ck_assert(p.field[1].data[i * 3 + c] == 0.0);
    }
    for (size_t i = 0; i < p.n; i++) {
        p.field[0].data[i] = val_f(i, 0, 0);
        for (int c = 0; c < 3; c++)
            p.field[1].data[i * 3 + c] = val_f(i, 1, c);
    }
    /* grow through several reallocations: old values kept, new slots zero */
    size_t cap0 = p.cap;
    add_n(&p, 600);
    ck_assert_uint_gt(p.cap, cap0);
    ck_assert_int_eq(particles_add_field(&p, "pressure", 2, &fc, &err), PFB_OK);
    ck_assert_int_eq(fc, 2);
    for (size_t i = 0; i < p.cap; i++) {
        double want0 = i < 5 ? val_f(i, 0, 0) : 0.0;
        ck_assert_msg(p.field[0].data[i] == want0, "density[%zu] = %g, want %g", i, p.field[0].data[i], want0);
        for (int c = 0; c < 3; c++) {
            double want1 = i < 5 ? val_f(i, 1, c) : 0.0;
            ck_assert_msg(p.field[1].data[i * 3 + c] == want1, "force[%zu][%d] = %g, want %g", i, c,
                          p.field[1].data[i * 3 + c], want1);
        }
        for (int c = 0; c < 2; c++)
            ck_assert(p.field[2].data[i * 2 + c] == 0.0);
    }
    /* particles_add zeroes the new particle's slot even if it held data (after remove) */
    size_t last = p.n - 1;
    p.field[0].data[last] = 42.0;
    particles_remove(&p, last);
    add_n(&p, 1);
    ck_assert(p.field[0].data[last] == 0.0);
    particles_free(&p);
}
END_TEST

START_TEST(test_field_errors)
{
    pfb_particles p;
    pfb_err err = {{0}};
    int idx = -7;
    ck_assert_int_eq(particles_init(&p, 2, &err), PFB_OK);
    ck_assert_int_eq(particles_add_field(&p, "rho", 1, &idx, &err), PFB_OK);

    ck_assert_int_eq(particles_add_field(&p, "rho", 2, &idx, &err), PFB_EINVAL);
    msg_has(&err, "'rho' is already registered");
    ck_assert_int_eq(idx, 0);

    ck_assert_int_eq(particles_add_field(&p, "bad0", 0, &idx, &err), PFB_EINVAL);
    msg_has(&err, "'bad0' has 0 components");
    msg_has(&err, "1 to 9");
    ck_assert_int_eq(particles_add_field(&p, "bad10", 10, &idx, &err), PFB_EINVAL);
    msg_has(&err, "'bad10' has 10 components");
    ck_assert_int_eq(particles_add_field(&p, "neg", -1, &idx, &err), PFB_EINVAL);
    msg_has(&err, "has -1 components");

    ck_assert_int_eq(particles_add_field(&p, "", 1, &idx, &err), PFB_EINVAL);
    msg_has(&err, "field name '' is invalid");
    char longname[PFB_FIELD_NAME + 1];
    memset(longname, 'a', PFB_FIELD_NAME);
    longname[PFB_FIELD_NAME] = '\0';
    ck_assert_int_eq(particles_add_field(&p, longname, 1, &idx, &err), PFB_EINVAL);
    msg_has(&err, longname);
    longname[PFB_FIELD_NAME - 1] = '\0'; /* the longest valid name */
    ck_assert_int_eq(particles_add_field(&p, longname, 1, &idx, &err), PFB_OK);
    ck_assert_int_eq(particles_find_field(&p, longname), 1);
    ck_assert_uint_eq(p.nfields, 2);

    /* fill up to the limit, then one more */
    char name[64];
    for (int f = (int)p.nfields; f < PFB_MAX_FIELDS; f++) {
        snprintf(name, sizeof name, "f%d", f);
        ck_assert_int_eq(particles_add_field(&p, name, 1 + f % 9, &idx, &err), PFB_OK);
        ck_assert_int_eq(idx, f);
    }
    ck_assert_uint_eq(p.nfields, PFB_MAX_FIELDS);
    ck_assert_int_eq(particles_add_field(&p, "extra", 1, &idx, &err), PFB_EINVAL);
    msg_has(&err, "'extra'");
    snprintf(name, sizeof name, "at most %d fields", PFB_MAX_FIELDS);
    msg_has(&err, name);
    ck_assert_uint_eq(p.nfields, PFB_MAX_FIELDS);
    /* storage still works with the maximum number of fields */
    add_n(&p, 200);
    ck_assert_uint_eq(p.n, 200);
    for (size_t f = 0; f < p.nfields; f++)
        for (size_t i = 0; i < p.n * (size_t)p.field[f].ncomp; i++)
            ck_assert(p.field[f].data[i] == 0.0);
    particles_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Reordering and removal                                                     */

/* Particles 0..n-1 with two fields filled from val_f. */
static void make_filled(pfb_particles *p, int dim, size_t n)
{
    pfb_err err = {{0}};
    ck_assert_int_eq(particles_init(p, dim, &err), PFB_OK);
    ck_assert_int_eq(particles_add_field(p, "a", 1, NULL, &err), PFB_OK);
    ck_assert_int_eq(particles_add_field(p, "b", 4, NULL, &err), PFB_OK);
    add_n(p, n);
    for (size_t i = 0; i < n; i++)
        for (size_t f = 0; f < p->nfields; f++)
            for (int c = 0; c < p->field[f].ncomp; c++)
                p->field[f].data[i * (size_t)p->field[f].ncomp + (size_t)c] = val_f(i, (int)f, c);
}

/* Slot s holds everything of original particle `orig`. */
static void expect_slot(const pfb_particles *p, size_t s, size_t orig)
{
    ck_assert_msg(p->id[s] == orig, "slot %zu: id %llu, want %zu", s, (unsigned long long)p->id[s], orig);
    ck_assert(p->m[s] == val_m(orig));
    for (int k = 0; k < 3; k++) {
        double wx = k < p->dim ? val_x(orig, k) : 0.0, wv = k < p->dim ? val_v(orig, k) : 0.0;
        ck_assert_msg(p->x[k][s] == wx && p->v[k][s] == wv, "slot %zu axis %d: x %g v %g, want %g %g", s, k,
                      p->x[k][s], p->v[k][s], wx, wv);
    }
    for (size_t f = 0; f < p->nfields; f++)
        for (int c = 0; c < p->field[f].ncomp; c++)
            ck_assert_msg(p->field[f].data[s * (size_t)p->field[f].ncomp + (size_t)c] == val_f(orig, (int)f, c),
                          "slot %zu field %zu comp %d", s, f, c);
}

START_TEST(test_permute)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_particles p;
        pfb_err err = {{0}};
        const size_t n = 7;
        make_filled(&p, dim, n);
        /* new slot k holds old particle perm[k] */
        const size_t perm[7] = {3, 0, 6, 1, 5, 2, 4};
        ck_assert_int_eq(particles_permute(&p, perm, &err), PFB_OK);
        ck_assert_uint_eq(p.n, n);
        for (size_t k = 0; k < n; k++)
            expect_slot(&p, k, perm[k]);
        /* the inverse permutation restores the original order */
        size_t inv[7];
        for (size_t k = 0; k < n; k++)
            inv[perm[k]] = k;
        ck_assert_int_eq(particles_permute(&p, inv, &err), PFB_OK);
        for (size_t k = 0; k < n; k++)
            expect_slot(&p, k, k);
        ck_assert_uint_eq(p.next_id, n); /* ids are identities, not reissued */
        /* the 32-bit form through a caller's scratch (sim_sort_particles' path),
         * one, two and three columns per pass, columns of 9 > n words; then back */
        const uint32_t perm32[7] = {3, 0, 6, 1, 5, 2, 4};
        uint32_t inv32[7];
        for (size_t k = 0; k < n; k++)
            inv32[perm32[k]] = (uint32_t)k;
        for (size_t group = 1; group <= 3; group++) {
            uint64_t tmp[27];
            particles_permute_with(&p, perm32, tmp, group, 9, 0);
            for (size_t k = 0; k < n; k++)
                expect_slot(&p, k, perm32[k]);
            if (group == 3) /* the positions move last: the scratch holds them */
                for (size_t k = 0; k < n; k++)
                    for (int d = 0; d < 3; d++)
                        ck_assert(memcmp(&tmp[(size_t)d * 9 + k], &p.x[d][k], sizeof(double)) == 0);
            particles_permute_with(&p, inv32, tmp, group, 9, 0);
            for (size_t k = 0; k < n; k++)
                expect_slot(&p, k, k);
        }
        particles_free(&p);
    }
}
END_TEST

START_TEST(test_permute_large)
{
    /* a reversal of many particles (exercises the temporary buffers) */
    pfb_particles p;
    pfb_err err = {{0}};
    const size_t n = 1500;
    make_filled(&p, 3, n);
    size_t *perm = malloc(n * sizeof *perm);
    ck_assert_ptr_nonnull(perm);
    for (size_t k = 0; k < n; k++)
        perm[k] = n - 1 - k;
    ck_assert_int_eq(particles_permute(&p, perm, &err), PFB_OK);
    for (size_t k = 0; k < n; k++)
        expect_slot(&p, k, n - 1 - k);
    free(perm);
    particles_free(&p);
}
END_TEST

/* particles_permute_with in parallel (from 16384 particles), three columns per
 * pass, skipping field "a" (bit 0): everything else moves exactly, "a" stays */
START_TEST(test_permute_with_skip)
{
    pfb_particles p;
    const size_t n = 40000;
    make_filled(&p, 3, n);
    uint32_t *perm = malloc(n * sizeof *perm);
    uint64_t *tmp = malloc(3 * n * sizeof *tmp);
    ck_assert(perm && tmp);
    for (size_t k = 0; k < n; k++) /* a shift by 97 within blocks of 1000, reversed blocks */
        perm[k] = (uint32_t)((n / 1000 - 1 - k / 1000) * 1000 + (k % 1000 + 97) % 1000);
    particles_permute_with(&p, perm, tmp, 3, n, 1u);
    for (size_t k = 0; k < n; k++) {
        const size_t o = perm[k];
        ck_assert(p.id[k] == o && p.m[k] == val_m(o));
        for (int d = 0; d < 3; d++)
            ck_assert(p.x[d][k] == val_x(o, d) && p.v[d][k] == val_v(o, d) && memcmp(&tmp[(size_t)d * n + k],
                                                                                     &p.x[d][k], 8) == 0);
        ck_assert(p.field[0].data[k] == val_f(k, 0, 0));
        for (int c = 0; c < 4; c++)
            ck_assert(p.field[1].data[4 * k + (size_t)c] == val_f(o, 1, c));
    }
    free(perm);
    free(tmp);
    particles_free(&p);
}
END_TEST

START_TEST(test_remove)
{
    pfb_particles p;
    make_filled(&p, 3, 6);
    /* removing slot 1 moves the last particle (5) into it */
    particles_remove(&p, 1);
    ck_assert_uint_eq(p.n, 5);
    const size_t want1[5] = {0, 5, 2, 3, 4};
    for (size_t s = 0; s < p.n; s++)
        expect_slot(&p, s, want1[s]);
    /* removing the last slot just shortens the set */
    particles_remove(&p, 4);
    ck_assert_uint_eq(p.n, 4);
    const size_t want2[4] = {0, 5, 2, 3};
    for (size_t s = 0; s < p.n; s++)
        expect_slot(&p, s, want2[s]);
    /* removing slot 0 moves particle 3 there */
    particles_remove(&p, 0);
    const size_t want3[3] = {3, 5, 2};
    for (size_t s = 0; s < p.n; s++)
        expect_slot(&p, s, want3[s]);
    /* a new particle gets a fresh id, never a removed one */
    add_n(&p, 1);
    ck_assert_uint_eq(p.id[3], 6);
    particles_free(&p);
}
END_TEST

START_TEST(test_total_mass)
{
    pfb_particles p;
    pfb_err err = {{0}};
    ck_assert_int_eq(particles_init(&p, 2, &err), PFB_OK);
    /* masses 1 + i/2 are exact and so is every partial sum (multiples of 1/2 far
     * below 2^52): the total is exact, n + n(n-1)/4 */
    const size_t n = 101;
    add_n(&p, n);
    double want = (double)n + 0.25 * (double)(n * (n - 1));
    ck_assert_msg(particles_total_mass(&p) == want, "total %.17g, want %.17g", particles_total_mass(&p), want);
    particles_free(&p);

    /* inexact masses (0.1 each): the sum in index order carries n - 1 roundings
     * of partial sums no larger than the total, plus the representation error of
     * 0.1 itself (eps/2 relative on every term, eps/2 * total in all);
     * round-off: n * eps/2 * total */
    ck_assert_int_eq(particles_init(&p, 3, &err), PFB_OK);
    const double x[3] = {0, 0, 0};
    const size_t n2 = 1000;
    for (size_t i = 0; i < n2; i++)
        ck_assert_int_eq(particles_add(&p, x, x, 0.1, &err), PFB_OK);
    double total = particles_total_mass(&p), exact = 100.0;
    double tol = (double)n2 * 0.5 * DBL_EPSILON * exact;
    ck_assert_msg(fabs(total - exact) <= tol, "total %.17g, want %.17g (tol %g)", total, exact, tol);
    particles_free(&p);
}
END_TEST

/* ------------------------------------------------------------------------- */

static Suite *particles_suite(void)
{
    Suite *s = suite_create("particles");

    TCase *core = tcase_create("core");
    tcase_add_test(core, test_init_free);
    tcase_add_test(core, test_add_grows_keeps_values);
    tcase_add_test(core, test_reserve);
    tcase_add_test(core, test_total_mass);
    suite_add_tcase(s, core);

    TCase *fields = tcase_create("fields");
    tcase_add_test(fields, test_field_zero_and_growth);
    tcase_add_test(fields, test_field_errors);
    suite_add_tcase(s, fields);

    TCase *order = tcase_create("order");
    tcase_add_test(order, test_permute);
    tcase_add_test(order, test_permute_large);
    tcase_add_test(order, test_permute_with_skip);
    tcase_add_test(order, test_remove);
    suite_add_tcase(s, order);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(particles_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

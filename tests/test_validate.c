/* test_validate.c — the validation's measurements on data with a known answer:
 * the front locator and its spray gap, the observed order, Martin & Moyce's
 * units (the Ritter front is Z = 1 + 2 T in them, and a sqrt(2) slip breaks it),
 * the reference data's loader, good and bad files, and the settled pool's
 * weight above a plane and surface rise on lattices. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../experiments/validate.h"

/* 25 particles of spacing 0.01 from the wall: the column a = 0.25 wide */
static size_t column(double *x)
{
    for (size_t i = 0; i < 25; i++)
        x[i] = 0.005 + 0.01 * (double)i;
    return 25;
}

/* The initial column's front is a (the last particle plus half a spacing); a
 * particle more than the gap ahead is spray and left out, one within it counts.
 * Exact but for the one rounding of each sum: tolerance 4 ulp of 0.25. */
START_TEST(test_front_gap)
{
    double x[32], work[32];
    size_t n = column(x);
    const double dx = 0.01, gap = 2.0 * dx, tol = 4.0 * 0.25 * 2.2e-16;
    ck_assert_double_eq_tol(validate_front(x, n, 0.0, dx, gap, work), 0.25, tol);
    x[n] = 0.245 + 0.0201; /* spray: 2.01 spacings ahead */
    ck_assert_double_eq_tol(validate_front(x, n + 1, 0.0, dx, gap, work), 0.25, tol);
    x[n] = 0.245 + 0.0199; /* within the gap: the front moves to it */
    ck_assert_double_eq_tol(validate_front(x, n + 1, 0.0, dx, gap, work), 0.2649 + 0.005, tol);
    /* order does not matter, x is not changed, and the wall's position is subtracted */
    double r[32];
    for (size_t i = 0; i <= n; i++)
        r[i] = x[n - i] + 1.0;
    ck_assert_double_eq_tol(validate_front(r, n + 1, 1.0, dx, gap, work), 0.2699, 8.0 * 1.3 * 2.2e-16);
    ck_assert_double_eq(r[0], x[n] + 1.0);
    ck_assert(isnan(validate_front(x, 0, 0.0, dx, gap, work)));
}
END_TEST

/* err = C dx^p is recovered exactly (to round-off of the logs: 1e-12) from two
 * and from three resolutions; a zero or NaN error is left out. */
START_TEST(test_order_synthetic)
{
    const double dx[4] = {0.04, 0.02, 0.01, 0.005};
    double e[4], p, perr;
    for (int k = 0; k < 4; k++)
        e[k] = 3.0 * pow(dx[k], 1.5);
    validate_order(dx, e, 2, &p, &perr);
    ck_assert_double_eq_tol(p, 1.5, 1e-12);
    ck_assert(isnan(perr));
    validate_order(dx, e, 4, &p, &perr);
    ck_assert_double_eq_tol(p, 1.5, 1e-12);
    ck_assert_double_le(perr, 1e-12);
    e[1] = 0.0;
    e[2] = NAN;
    validate_order(dx, e, 4, &p, &perr); /* two left: 0.04 and 0.005 */
    ck_assert_double_eq_tol(p, 1.5, 1e-12);
    ck_assert(isnan(perr));
    validate_order(dx, e, 3, &p, &perr); /* one left */
    ck_assert(isnan(p));
}
END_TEST

/* Martin & Moyce's units: the Ritter (inviscid shallow-water) front of a column of
 * depth 2a, x = a + 2 sqrt(2 g a) t, is Z = 1 + 2 T with T = t sqrt(2 g / a).  With
 * T = t sqrt(g / a) (the sqrt(2) slip) the same front would be Z = 1 + 2 sqrt(2) T,
 * which the tolerance (round-off, 1e-12) rejects by 41%. */
START_TEST(test_mm_units)
{
    const double g = 9.81, a = 0.25;
    for (int k = 1; k <= 10; k++) {
        const double t = 0.02 * k, x = a + 2.0 * sqrt(2.0 * g * a) * t;
        ck_assert_double_eq_tol(validate_mm_Z(x, a), 1.0 + 2.0 * validate_mm_T(t, g, a), 1e-12);
    }
}
END_TEST

/* The committed data: two series, the column sizes of Figure 3, T increasing, and
 * every point behind the Ritter front Z = 1 + 2T and ahead of the column (Z > 1):
 * a real column is slower than the inviscid theory, never faster. */
START_TEST(test_mm_data)
{
    validate_mm_data d;
    pfb_err err;
    ck_assert_msg(validate_mm_load("data/reference/martin_moyce_1952.csv", &d, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(d.ns, 2);
    ck_assert_double_eq(d.s[0].a_inch, 1.125);
    ck_assert_double_eq(d.s[1].a_inch, 2.25);
    ck_assert_uint_eq(d.s[0].n, 10);
    ck_assert_uint_eq(d.s[1].n, 15);
    ck_assert_double_eq(d.s[0].T[0], 0.849);
    ck_assert_double_eq(d.s[0].Z[0], 1.245);
    for (size_t s = 0; s < d.ns; s++)
        for (size_t k = 0; k < d.s[s].n; k++) {
            ck_assert_double_gt(d.s[s].Z[k], 1.0);
            ck_assert_double_lt(d.s[s].Z[k], 1.0 + 2.0 * d.s[s].T[k]);
        }
    /* interpolation: exact at a point, linear between two, NaN outside */
    ck_assert_double_eq(validate_mm_interp(&d.s[1], 1.219), 1.474);
    ck_assert_double_eq_tol(validate_mm_interp(&d.s[1], 0.5 * (1.219 + 1.997)), 0.5 * (1.474 + 2.292), 1e-12);
    ck_assert(isnan(validate_mm_interp(&d.s[1], 0.5)));
    /* the experiment's compiled-in copy is the same data, bit for bit */
    validate_mm_data b;
    ck_assert_msg(validate_mm_builtin(&b, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(b.ns, d.ns);
    for (size_t s = 0; s < d.ns; s++) {
        ck_assert_str_eq(b.s[s].name, d.s[s].name);
        ck_assert_uint_eq(b.s[s].n, d.s[s].n);
        ck_assert(!memcmp(b.s[s].T, d.s[s].T, d.s[s].n * sizeof *d.s[s].T));
        ck_assert(!memcmp(b.s[s].Z, d.s[s].Z, d.s[s].n * sizeof *d.s[s].Z));
    }
    validate_mm_free(&b);
    validate_mm_free(&d);
}
END_TEST

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* Each bad file gives one error naming the file, the line and what is valid. */
START_TEST(test_mm_bad)
{
    static const struct {
        const char *text, *expect;
    } cases[] = {
        {"series,a,T,Z\nx,1,1,1\n", ":1: header is not"},
        {"series,a_inch,T,Z\nx,1,1\n", ":2: 3 fields; valid: 4"},
        {"series,a_inch,T,Z\nx,1,1,-2\n", ":2: 'x,1,1,-2'; valid:"},
        {"series,a_inch,T,Z\nx,1,nan,2\n", ":2: 'x,1,nan,2'; valid:"},
        {"series,a_inch,T,Z\nx,1,1,2\nx,1,0.5,3\n", ":3: T = 0.5 after 1; valid: T increasing"},
        {"series,a_inch,T,Z\nx,1,1,2\ny,1,1,2\nx,1,2,3\n", ":4: series 'x' resumes"},
        {"series,a_inch,T,Z\n", ": no data rows"},
    };
    char dir[] = "/tmp/pfb_validate_XXXXXX", path[256];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/mm.csv", dir);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_file(path, cases[k].text);
        validate_mm_data d;
        pfb_err err;
        ck_assert_int_ne(validate_mm_load(path, &d, &err), 0);
        ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, cases[k].expect), "case %zu: %s", k, err.msg);
        ck_assert_ptr_null(strchr(err.msg, '\n'));
        ck_assert_uint_eq(d.ns, 0);
    }
    unlink(path);
    validate_mm_data d;
    pfb_err err;
    ck_assert_int_eq(validate_mm_load(path, &d, &err), PFB_EIO);
    ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);
    rmdir(dir);
}
END_TEST

/* A lattice pool: nx columns (and nz in 3D) of ny particles of spacing dx and
 * mass m, centres at (k + 1/2) dx; extra particles stacked on column (ra, rb).
 * Returns the count. */
static size_t lattice_pool(double *x[3], double *m, int dim, int nx, int ny, int nz, double dx, int ra, int rb,
                           int extra)
{
    size_t n = 0;
    for (int a = 0; a < nx; a++)
        for (int b = 0; b < (dim == 3 ? nz : 1); b++)
            for (int c = 0; c < ny + (a == ra && b == rb ? extra : 0); c++) {
                x[0][n] = (a + 0.5) * dx;
                x[1][n] = (c + 0.5) * dx;
                x[2][n] = dim == 3 ? (b + 0.5) * dx : 0.0;
                m[n++] = 2.5;
            }
    return n;
}

/* The mass above a plane of a lattice pool is the mass of its layers above the
 * plane, exactly: columns in the span times m (ny dx - yc) / dx for any yc
 * between the lowest and the highest layer's centre, all of it below, none
 * above.  The columns in the span are counted by hand (their centres inside
 * [lo, hi]).  Each particle's share is one rounding, the sum of at most 1,200
 * terms: 1e-12 of the result. */
START_TEST(test_mass_above_lattice)
{
    enum { NX = 10, NY = 20, NZ = 6 };
    static double xb[3][NX * (NY + 3) * NZ], m[NX * (NY + 3) * NZ];
    double *x[3] = {xb[0], xb[1], xb[2]};
    const double dx = 0.05;
    for (int dim = 2; dim <= 3; dim++) {
        const size_t n = lattice_pool(x, m, dim, NX, NY, NZ, dx, -1, -1, 0);
        /* x in [0.1, 0.4]: centres 0.125 .. 0.375, 6 columns; z in [0.05, 0.2]: 0.075 .. 0.175, 3 */
        const double lo[3] = {0.1, 0.0, 0.05}, hi[3] = {0.4, 0.0, 0.2};
        const double cols = dim == 3 ? 18.0 : 6.0;
        const double ycs[3] = {0.5 * dx, 0.3123, (NY - 0.5) * dx};
        for (int k = 0; k < 3; k++) {
            const double want = cols * 2.5 * (NY * dx - ycs[k]) / dx;
            const double got = validate_mass_above((const double *const *)x, m, n, dim, ycs[k], dx, lo, hi);
            ck_assert_msg(fabs(got - want) <= 1e-12 * want, "%dD, yc %g: mass above %.15g, want %.15g", dim, ycs[k],
                          got, want);
        }
        ck_assert_double_eq(validate_mass_above((const double *const *)x, m, n, dim, NY * dx + dx, dx, lo, hi), 0.0);
        const double all = validate_mass_above((const double *const *)x, m, n, dim, -dx, dx, lo, hi);
        ck_assert_msg(fabs(all - cols * NY * 2.5) <= 1e-12 * all, "%dD: all below %.15g", dim, all);
    }
}
END_TEST

/* A flat lattice pool rises 0 exactly; three particles stacked on one column in
 * the span make it 3 dx (the stack's top less the other columns' top, exact
 * for these binary-exact positions up to one rounding); stacked on a column
 * outside the span they still set the highest particle (the depth reference),
 * so the rise is 3 dx too; with no particle in the span it is NaN. */
START_TEST(test_surface_rise_lattice)
{
    enum { NX = 10, NY = 20, NZ = 6 };
    static double xb[3][NX * (NY + 3) * NZ], m[NX * (NY + 3) * NZ];
    double *x[3] = {xb[0], xb[1], xb[2]};
    const double dx = 0.0625, lo[3] = {0.1, 0.0, 0.1}, hi[3] = {0.5, 0.0, 0.3};
    for (int dim = 2; dim <= 3; dim++) {
        size_t n = lattice_pool(x, m, dim, NX, NY, NZ, dx, -1, -1, 0);
        ck_assert_double_eq(validate_surface_rise((const double *const *)x, n, dim, lo, hi, 0.1), 0.0);
        n = lattice_pool(x, m, dim, NX, NY, NZ, dx, 3, dim == 3 ? 2 : 0, 3); /* x = 0.21875 (z 0.15625): in the span */
        double r = validate_surface_rise((const double *const *)x, n, dim, lo, hi, 0.1);
        ck_assert_msg(fabs(r - 3 * dx) <= 1e-15, "%dD: rise %.17g, want %g", dim, r, 3 * dx);
        n = lattice_pool(x, m, dim, NX, NY, NZ, dx, 9, 0, 3); /* x = 0.59375: outside */
        r = validate_surface_rise((const double *const *)x, n, dim, lo, hi, 0.1);
        ck_assert_msg(fabs(r - 3 * dx) <= 1e-15, "%dD: rise %.17g with the stack outside, want %g", dim, r, 3 * dx);
        const double far_lo[3] = {5.0, 0.0, 5.0}, far_hi[3] = {6.0, 0.0, 6.0};
        ck_assert(isnan(validate_surface_rise((const double *const *)x, n, dim, far_lo, far_hi, 0.1)));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("validate");
    tcase_add_test(tc, test_front_gap);
    tcase_add_test(tc, test_order_synthetic);
    tcase_add_test(tc, test_mm_units);
    tcase_add_test(tc, test_mm_data);
    tcase_add_test(tc, test_mm_bad);
    tcase_add_test(tc, test_mass_above_lattice);
    tcase_add_test(tc, test_surface_rise_lattice);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

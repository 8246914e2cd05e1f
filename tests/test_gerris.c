/* test_gerris.c — the continuum reference's plumbing (experiments/gerris.h):
 * the input files Gerris accepts (each case run for a few steps at a coarse
 * level, with a conservation check where one is exact), the reader of Gerris's
 * outputs on files made here, the Richardson estimate and observed order on
 * data with a known answer, and the refusals of a bad reference CSV. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/output.h"
#include "../experiments/gerris.h"
#include "../experiments/validate.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static char tmpdir[64];

static void mk_tmp(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pfb_gerris_XXXXXX");
    ck_assert(mkdtemp(tmpdir) != NULL);
}

static void rm_tmp(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Write case c at level into tmpdir/<name>/input.gfs and run Gerris on it;
 * returns the run's directory (static). */
static const char *run_case(const gfs_case *c, int level)
{
    static char dir[256];
    pfb_err err;
    char *text = NULL, path[320];
    size_t len = 0;
    ck_assert_msg(gfs_input(c, level, &text, &len, &err) == 0, "%s", err.msg);
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, c->name);
    ck_assert_msg(output_prepare_dir(dir, &err) == 0, "%s", err.msg);
    snprintf(path, sizeof path, "%s/input.gfs", dir);
    ck_assert_msg(output_write_file(path, text, len, &err) == 0, "%s", err.msg);
    free(text);
    double wall, cpu;
    ck_assert_msg(gfs_run(c->dim == 2 ? "gerris2D" : "gerris3D", dir, &wall, &cpu, &err) == 0, "%s", err.msg);
    return dir;
}

static void read_series(const char *dir, const char *file, gfs_series *s)
{
    char path[320], *text = NULL;
    size_t len;
    pfb_err err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_msg(output_read_file(path, "output", &text, &len, &err) == 0, "%s", err.msg);
    ck_assert_msg(gfs_read_series(text, path, s, &err) == 0, "%s", err.msg);
    free(text);
}

/* Each kind's input runs in Gerris (a few steps, the coarsest levels).  The dam
 * break's column starts on cell faces (a = 0.25 m is 4 cells at level 2), so
 * its area a x 2a = 0.125 m^2 is exact at t = 0, and VOF advection conserves it
 * to round-off per step (1e-9 relative over these few steps), and its front
 * starts at Z = 1 (the interface's x at the face, printed to 4 digits by
 * Gerris: 1e-3 m). */
START_TEST(test_inputs_run)
{
    char version[128];
    pfb_err err;
    ck_assert_msg(gfs_version("gerris2D", version, sizeof version, &err) == 0, "%s", err.msg);
    ck_assert_msg(strstr(version, "1.3") != NULL, "gerris2D version '%s'", version);
    mk_tmp();
    gfs_case dam = {"dam", GFS_DAM_BREAK, 2, 1, 1000, 0.011, 0.0728, 0.004, 0.001, 0, {2, 0, 0}, 2};
    const char *dir = run_case(&dam, 2);
    gfs_series vol, front;
    read_series(dir, "volume", &vol);
    read_series(dir, "front", &front);
    ck_assert_uint_ge(vol.n, 4);
    for (size_t k = 0; k < vol.n; k++)
        ck_assert_msg(fabs(vol.v[k] / 0.125 - 1.0) <= 1e-9, "volume %.17g at t %g", vol.v[k], vol.t[k]);
    ck_assert_double_eq_tol(front.v[0] + 0.5 * GFS_DAM_A, GFS_DAM_A, 1e-3);
    ck_assert_double_eq_tol(front.t[0], 0.0, 1e-12);
    gfs_series_free(&vol);
    gfs_series_free(&front);
    /* the drop: the ellipse's area pi A B = pi R^2 (the stretch keeps it) and
     * its moments' deformation D = (A^2 - B^2) / (A^2 + B^2), A = R (1 + eps),
     * B = R / (1 + eps) (0.0973 for eps = 0.05), at R/dx = 10.  The fractions
     * cut the ellipse by straight segments: the area to O((dx/R)^2) = 1%; the
     * moments put each cell's liquid at the cell's centre, off by up to dx/2
     * in the ring of interface cells: D to O(dx/R) = 10% */
    gfs_case drop = {"drop", GFS_DROP, 2, 0, 1000, 0.011, 26.3, 0.005, 0.005, 0, {7, 0, 0}, 7};
    dir = run_case(&drop, 7);
    gfs_series ixx, iyy, dvol;
    read_series(dir, "ixx", &ixx);
    read_series(dir, "iyy", &iyy);
    read_series(dir, "volume", &dvol);
    const double A2 = pow(1.0 + GFS_DROP_EPS, 2), B2 = 1.0 / A2, D0 = (A2 - B2) / (A2 + B2);
    const double D = (ixx.v[0] - iyy.v[0]) / (ixx.v[0] + iyy.v[0]);
    ck_assert_msg(fabs(D / D0 - 1.0) <= 0.1, "deformation %.6g, want %.6g", D, D0);
    ck_assert_msg(fabs(dvol.v[0] / (M_PI * GFS_DROP_R * GFS_DROP_R) - 1.0) <= 0.01, "area %.6g", dvol.v[0]);
    printf("drop at R/dx = 10: D %.6g (exact %.6g), area / (pi R^2) - 1 = %.3g\n", D, D0,
           dvol.v[0] / (M_PI * GFS_DROP_R * GFS_DROP_R) - 1.0);
    gfs_series_free(&dvol);
    gfs_series_free(&ixx);
    gfs_series_free(&iyy);
    /* the pool at rest: P at the depths read back, hydrostatic to the cell's
     * interpolation (at level 3 the points 0.25 and 0.35 m deep lie in cells
     * wholly liquid, where P is linear in y: 1e-3 relative) */
    gfs_case pool = {"pool", GFS_POOL, 2, 0, 1000, 0.011, 0.0728, 0.002, 0.002, 0, {3, 0, 0}, 3};
    dir = run_case(&pool, 3);
    char path[320], *text = NULL;
    size_t len, np;
    double P[8];
    snprintf(path, sizeof path, "%s/pressure", dir);
    ck_assert_msg(output_read_file(path, "output", &text, &len, &err) == 0, "%s", err.msg);
    ck_assert_msg(gfs_read_location_last(text, path, P, 8, &np, &err) == 0, "%s", err.msg);
    free(text);
    ck_assert_uint_eq(np, 4);
    const double p0 = P[3] + GFS_AIR_RHO * GFS_GRAVITY * 0.25;
    ck_assert_msg(fabs((P[2] - P[1]) / (1000 * GFS_GRAVITY * 0.1) - 1.0) <= 1e-3, "dp %g", P[2] - P[1]);
    ck_assert_msg(fabs((P[1] - p0) / (1000 * GFS_GRAVITY * 0.25) - 1.0) <= 1e-3, "p(0.25) %g", P[1] - p0);
    /* the periodic wave: A(0) = U (the sum of U sin(k y) over the box is U L^2 / 2;
     * the midpoint rule on 8 cells per wavelength integrates sin^2 exactly) */
    gfs_case wave = {"wave", GFS_WAVE, 2, 0, 1000, 0.011, 0.0728, 0.01, 0.005, 0, {3, 0, 0}, 3};
    dir = run_case(&wave, 3);
    gfs_series amp;
    read_series(dir, "amplitude", &amp);
    ck_assert_double_eq_tol(2.0 * amp.v[0] / (GFS_WAVE_L * GFS_WAVE_L), GFS_WAVE_U, 1e-9);
    gfs_series_free(&amp);
    /* 3D: the dam break's column a x 2a x a (VariableTracerVOF) */
    gfs_case dam3 = {"dam3", GFS_DAM_BREAK, 3, 0, 1000, 0.011, 0.0728, 0.002, 0.001, 0, {1, 0, 0}, 1};
    ck_assert_msg(gfs_version("gerris3D", version, sizeof version, &err) == 0, "%s", err.msg);
    dir = run_case(&dam3, 1);
    read_series(dir, "volume", &vol);
    ck_assert_msg(fabs(vol.v[0] / (2.0 * pow(GFS_DAM_A, 3)) - 1.0) <= 1e-9, "3D volume %.17g", vol.v[0]);
    gfs_series_free(&vol);
    rm_tmp();
}
END_TEST

/* A case Gerris would not run is refused before it is written. */
START_TEST(test_inputs_bad)
{
    pfb_err err;
    char *text = NULL;
    size_t len;
    gfs_case c = {"dam", GFS_DAM_BREAK, 2, 0, 1000, 0.011, 0.0728, 0.3, 0.01, 0, {4, 0, 0}, 3};
    ck_assert_int_ne(gfs_input(&c, 0, &text, &len, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "level 0"));
    c.nu = -1;
    ck_assert_int_ne(gfs_input(&c, 4, &text, &len, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "nu -1"));
    c.nu = 0.011;
    c.kind = GFS_DROP;
    c.dim = 3;
    ck_assert_int_ne(gfs_input(&c, 4, &text, &len, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "3D"));
    ck_assert_ptr_null(text);
}
END_TEST

/* Gerris's two line forms read back; anything else names its line. */
START_TEST(test_read_outputs)
{
    const char *stats = "X time: 0 min: -1.172e-01 avg:  8.302e-02 |  7.253e-02 max:  1.250e-01\n"
                        "X time: 0.05 min: -1.172e-01 avg:  8.650e-02 |  7.515e-02 max:  1.489e-01\n";
    gfs_series s;
    pfb_err err;
    ck_assert_int_eq(gfs_read_series(stats, "front", &s, &err), 0);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_double_eq(s.t[1], 0.05);
    ck_assert_double_eq(s.v[1], 0.1489);
    gfs_series_free(&s);
    const char *sum = "T time: 0 sum:    1.250000e-01\nT time: 0.05 sum:    1.250001e-01\n\n";
    ck_assert_int_eq(gfs_read_series(sum, "volume", &s, &err), 0);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_double_eq(s.v[1], 0.1250001);
    gfs_series_free(&s);
    const char *bad = "T time: 0 sum: 0.125\nstep: 100 t: 0.01\n";
    ck_assert_int_ne(gfs_read_series(bad, "volume", &s, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "line 2"));
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    ck_assert_int_ne(gfs_read_series("T time: nan sum: 1\n", "volume", &s, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "not finite"));
    /* OutputLocation: the last time's P, in the points' order */
    const char *loc = "# 1:t 2:x 3:y 4:z 5:P 6:U\n0 0 -0.15 0 10 0\n0 0 -0.25 0 20 0\n"
                      "0.5 0 -0.15 0 11 0\n0.5 0 -0.25 0 21 0\n";
    double P[4];
    size_t n;
    ck_assert_int_eq(gfs_read_location_last(loc, "pressure", P, 4, &n, &err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_double_eq(P[0], 11);
    ck_assert_double_eq(P[1], 21);
    ck_assert_int_ne(gfs_read_location_last("0 0 0 0 1\n", "pressure", P, 4, &n, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "no P column"));
}
END_TEST

/* f(h) = f0 + C h^p at h = 4, 2, 1 (ratio 2): the order and the limit exactly
 * (to the round-off of a log2 and a pow: 1e-12), the error bar |f(1) - f0| = C;
 * for p = 1 and p = 2, either sign of C.  Differences that grow or change sign
 * have no asymptotic order: NaN and the levels' spread as the bar. */
START_TEST(test_richardson_synthetic)
{
    const double ps[2] = {1.0, 2.0}, Cs[2] = {0.3, -0.07}, f0 = 3.81;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double f[3];
            for (int k = 0; k < 3; k++)
                f[k] = f0 + Cs[j] * pow(4.0 / pow(2.0, k), ps[i]);
            gfs_richardson r;
            gfs_richardson3(f, &r);
            ck_assert_double_eq_tol(r.p, ps[i], 1e-12);
            ck_assert_double_eq_tol(r.f_inf, f0, 1e-12);
            ck_assert_double_eq_tol(r.bar, fabs(Cs[j]), 1e-12);
        }
    /* the no-slip front's levels of issue 46: 2.45, 2.05, 1.67 shrink by 0.95, not
     * by a power of two: p = log2(0.40 / 0.38) = 0.074, an estimate far below */
    gfs_richardson r;
    const double ns[3] = {2.45, 2.05, 1.67};
    gfs_richardson3(ns, &r);
    ck_assert_double_eq_tol(r.p, log2(0.40 / 0.38), 1e-12);
    ck_assert_double_gt(r.bar, 1.0);
    const double grow[3] = {1.0, 1.1, 1.3};
    gfs_richardson3(grow, &r);
    ck_assert(isnan(r.p) && isnan(r.f_inf));
    ck_assert_double_eq_tol(r.bar, 0.3, 1e-12);
    const double osc[3] = {1.0, 1.1, 1.05};
    gfs_richardson3(osc, &r);
    ck_assert(isnan(r.p));
    ck_assert_double_eq_tol(r.bar, 0.15, 1e-12);
    const double same[3] = {2.0, 2.0, 2.0};
    gfs_richardson3(same, &r);
    ck_assert_double_eq(r.f_inf, 2.0);
    ck_assert_double_eq(r.bar, 0.0);
}
END_TEST

static const char *const need[] = {"t", "T", "Z", NULL};

/* A good reference reads back with its provenance; each defect is refused with
 * one line naming the file and the defect. */
START_TEST(test_ref_csv)
{
    pfb_err err;
    gfs_ref r;
    const char *good = "# case: dam_break_slip\n# gerris: 1.3.2 (131206-155120)\n"
                       "# fluid: rho 1000 nu 0.0110736173 sigma 0.0727744807\n# level: 6\n# dx: 0.00390625\n"
                       "# error bar: 0.0012\nt,T,Z\n0,0,1\n0.1,0.886,1.5\n";
    ck_assert_msg(gfs_ref_parse(good, "good.csv", need, 1000, 0.0110736173, 0.0727744807, &r, &err) == 0, "%s",
                  err.msg);
    ck_assert_uint_eq(r.nrow, 2);
    ck_assert_int_eq(r.level, 6);
    ck_assert_double_eq(r.dx, 0.00390625);
    ck_assert_double_eq(r.bar, 0.0012);
    ck_assert_str_eq(r.version, "1.3.2 (131206-155120)");
    ck_assert_double_eq(gfs_ref_get(&r, 1, gfs_ref_col(&r, "Z")), 1.5);
    gfs_ref_free(&r);
    /* a missing column */
    const char *nocol = "# fluid: rho 1000 nu 0.0110736173 sigma 0.0727744807\nt,T\n0,0\n";
    ck_assert_int_ne(gfs_ref_parse(nocol, "nocol.csv", need, 1000, 0.0110736173, 0.0727744807, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "nocol.csv") && strstr(err.msg, "no column 'Z'"), "%s", err.msg);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    /* a value that is not finite (an empty cell reads as NaN too) */
    const char *nan = "# fluid: rho 1000 nu 0.0110736173 sigma 0.0727744807\nt,T,Z\n0,0,1\n0.1,0.886,nan\n";
    ck_assert_int_ne(gfs_ref_parse(nan, "nan.csv", need, 1000, 0.0110736173, 0.0727744807, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "row 2 column 'Z'") && strstr(err.msg, "not a finite"), "%s", err.msg);
    const char *empty = "# fluid: rho 1000 nu 0.0110736173 sigma 0.0727744807\nt,T,Z\n0,,1\n";
    ck_assert_int_ne(gfs_ref_parse(empty, "empty.csv", need, 1000, 0.0110736173, 0.0727744807, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "row 1 column 'T'"), "%s", err.msg);
    /* another fluid: water's viscosity */
    const char *water = "# fluid: rho 1000 nu 1e-06 sigma 0.0728\nt,T,Z\n0,0,1\n";
    ck_assert_int_ne(gfs_ref_parse(water, "water.csv", need, 1000, 0.0110736173, 0.0727744807, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "water.csv") && strstr(err.msg, "nu 1e-06") && strstr(err.msg, "nu 0.0110736"),
                  "%s", err.msg);
    ck_assert_ptr_null(strchr(err.msg, '\n'));
    /* no provenance at all */
    ck_assert_int_ne(gfs_ref_parse("t,T,Z\n0,0,1\n", "bare.csv", need, 1000, 0.011, 0.07, &r, &err), 0);
    ck_assert_msg(strstr(err.msg, "no '# fluid:' line"), "%s", err.msg);
    /* a missing file */
    ck_assert_int_ne(gfs_ref_load("/nonexistent/ref.csv", need, 1000, 0.011, 0.07, &r, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/ref.csv"));
}
END_TEST

/* Linear interpolation (validate_interp, the reference's and the validation's
 * one), NaN outside; exact on these dyadic values.  The strided form reads the
 * columns of a row-major table, as the reference CSVs are held. */
START_TEST(test_interp)
{
    const double x[3] = {0, 1, 3}, y[3] = {1, 3, 4};
    ck_assert_double_eq(validate_interp(x, y, 3, 1, 0.5), 2.0);
    ck_assert_double_eq(validate_interp(x, y, 3, 1, 2.0), 3.5);
    ck_assert(isnan(validate_interp(x, y, 3, 1, 3.5)));
    ck_assert(isnan(validate_interp(x, y, 3, 1, -0.1)));
    const double tab[3][2] = {{0, 1}, {1, 3}, {3, 4}};
    ck_assert_double_eq(validate_interp(&tab[0][0], &tab[0][1], 3, 2, 2.0), 3.5);
    /* a repeated abscissa gives its first sample, not 0/0 */
    const double xr[3] = {1, 1, 2}, yr[3] = {1, 3, 5};
    ck_assert_double_eq(validate_interp(xr, yr, 3, 1, 1.0), 1.0);
}
END_TEST

/* The front's response to its viscosity (validate_viscous_response) on fronts
 * made with known ratios: the reference at nu/2 runs 3 % ahead of it at nu, the
 * run 1.5 % ahead of the reference and 1.5 % further at half its viscosity.  Then
 * bias 0.015, s_ref 0.03, s_run 0.015, response 0.5 and nu_equiv_rel
 * 2^(-0.5), each a mean of equal ratios: exact to a few ulps (1e-14 relative).
 * A NaN sample (a run that stopped early) makes every output NaN. */
START_TEST(test_viscous_response)
{
    enum { N = 26 };
    double zr[N], zrh[N], z[N], zh[N];
    for (int k = 0; k < N; k++) {
        const double T = 0.5 + 0.1 * k;
        zr[k] = 1.0 + 0.9 * T;
        zrh[k] = zr[k] * 1.03;
        z[k] = zr[k] * 1.015;
        zh[k] = z[k] * 1.015;
    }
    validate_visc_response v;
    validate_viscous_response(zr, zrh, z, zh, N, &v);
    ck_assert_double_eq_tol(v.bias, 0.015, 1e-14);
    ck_assert_double_eq_tol(v.bias_half, 1.015 * 1.015 / 1.03 - 1.0, 1e-14);
    ck_assert_double_eq_tol(v.s_ref, 0.03, 1e-14);
    ck_assert_double_eq_tol(v.s_run, 0.015, 1e-14);
    ck_assert_double_eq_tol(v.response, 0.5, 1e-12);
    ck_assert_double_eq_tol(v.nu_equiv_rel, pow(2.0, -0.5), 1e-12);
    zh[N - 1] = NAN;
    validate_viscous_response(zr, zrh, z, zh, N, &v);
    ck_assert(isnan(v.bias) && isnan(v.s_ref) && isnan(v.response) && isnan(v.nu_equiv_rel));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gerris");
    TCase *tc = tcase_create("gerris");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_inputs_run);
    tcase_add_test(tc, test_inputs_bad);
    tcase_add_test(tc, test_read_outputs);
    tcase_add_test(tc, test_richardson_synthetic);
    tcase_add_test(tc, test_ref_csv);
    tcase_add_test(tc, test_interp);
    tcase_add_test(tc, test_viscous_response);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

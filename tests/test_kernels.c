/* test_kernels.c — Check suite for core/kernels.c.
 *
 * Every property is tested for every kernel type, in 2D and 3D, for two
 * support radii (h = 0.1 and h = 1.7); loop tests enumerate the 24 cases. */
#include "../core/kernels.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double TEST_PI = 3.14159265358979323846;
static const double TEST_H[] = {0.1, 1.7};

#define N_TYPES ((int)PFB_KERNEL_COUNT)
#define N_CASES (N_TYPES * 2 * 2)

/* Case i -> kernel (type i % 6, dim 2 or 3, h from TEST_H). */
static void case_kernel(const int i, pfb_kernel *k)
{
    const pfb_kernel_type type = (pfb_kernel_type)(i % N_TYPES);
    const int dim = 2 + (i / N_TYPES) % 2;
    const double h = TEST_H[i / (2 * N_TYPES)];
    pfb_err err = {{0}};
    ck_assert_msg(kernel_init(k, type, dim, h, &err) == PFB_OK, "kernel_init(%s, %d, %g): %s",
                  kernel_name(type), dim, h, err.msg);
}

/* Interior sample points r/h, away from the cubic-spline knot (0.5), the 2D
 * viscosity branch points (0.5, 0.9) and the ends of the support. */
static const double SAMPLE_S[] = {0.07, 0.23, 0.41, 0.58, 0.74, 0.86, 0.95};
#define N_SAMPLES ((int)(sizeof SAMPLE_S / sizeof SAMPLE_S[0]))

/* ---------------------------------------------------------------- quadrature */

#define GL_MAX 32

/* n-point Gauss–Legendre nodes and weights on [-1, 1] (Newton on P_n). */
static void gl_rule(const int n, double *x, double *w)
{
    for (int i = 0; i < n; i++) {
        double z = cos(TEST_PI * (i + 0.75) / (n + 0.5));
        double dp = 1.0;
        for (int it = 0; it < 100; it++) {
            double p0 = 1.0, p1 = z;
            for (int j = 2; j <= n; j++) {
                const double p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (z * p1 - p0) / (z * z - 1.0);
            const double dz = p1 / dp;
            z -= dz;
            if (fabs(dz) < 1e-16)
                break;
        }
        /* recompute the derivative at the converged node */
        double p0 = 1.0, p1 = z;
        for (int j = 2; j <= n; j++) {
            const double p2 = ((2.0 * j - 1.0) * z * p1 - (j - 1.0) * p0) / j;
            p0 = p1;
            p1 = p2;
        }
        dp = n * (z * p1 - p0) / (z * z - 1.0);
        x[i] = z;
        w[i] = 2.0 / ((1.0 - z * z) * dp * dp);
    }
}

/* Panels [0, h 2^-K], [h 2^-(j+1), h 2^-j] (j = K-1 .. 0): geometric grading
 * towards r = 0 so the log singularity of the 2D viscosity kernel (r W ~ r ln r)
 * is resolved; the cubic-spline knot h/2 is a panel edge. */
#define QUAD_K 40

/* Mass integral  int_0^h 2 pi r W dr (2D) or int_0^h 4 pi r^2 W dr (3D)
 * with n-point Gauss–Legendre on every panel.  Nodes are interior, so the
 * viscosity kernel is never evaluated at r = 0. */
static double mass_integral(const pfb_kernel *k, const int n)
{
    double x[GL_MAX], w[GL_MAX];
    gl_rule(n, x, w);
    double total = 0.0;
    for (int j = QUAD_K; j >= 0; j--) {
        const double a = j == QUAD_K ? 0.0 : ldexp(k->h, -(j + 1));
        const double b = ldexp(k->h, -j);
        const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
        double panel = 0.0;
        for (int i = 0; i < n; i++) {
            const double r = mid + half * x[i];
            const double shell = k->dim == 2 ? 2.0 * TEST_PI * r : 4.0 * TEST_PI * r * r;
            panel += w[i] * shell * kernel_w(k, r);
        }
        total += half * panel;
    }
    return total;
}

/* The Gauss–Legendre rule itself: n points integrate x^(2n-1) exactly. */
START_TEST(test_gl_rule_exact)
{
    double x[GL_MAX], w[GL_MAX];
    for (int n = 10; n <= 20; n += 10) {
        gl_rule(n, x, w);
        double sum = 0.0, mom = 0.0;
        for (int i = 0; i < n; i++) {
            sum += w[i];
            mom += w[i] * pow(x[i], 2 * n - 2);
        }
        ck_assert_msg(fabs(sum - 2.0) < 1e-14, "GL%d weights sum %.17g", n, sum);
        ck_assert_msg(fabs(mom - 2.0 / (2 * n - 1)) < 1e-14, "GL%d x^%d: %.17g", n, 2 * n - 2,
                      mom);
    }
}
END_TEST

/* Each kernel integrates to 1.
 * Tolerance from the quadrature error: every kernel except the 2D viscosity
 * one is a polynomial of degree <= 9 in r on every panel, which 10-point GL
 * integrates exactly; for 2D viscosity the error of the 10-point result is
 * estimated by its difference from the 20-point result, est = |I20 - I10|,
 * which bounds the (much smaller) error of I20.  We require est <= 1e-10
 * (the rule has converged) and |I20 - 1| <= est + 1e-12, where 1e-12 covers
 * rounding in the sum of ~41*20 positive terms (worst case ~N eps ~ 2e-13).
 * Clamping the viscosity kernel below r = 1e-12 h only touches the first panel
 * [0, 9.1e-13 h], whose whole mass is below 1e-22. */
START_TEST(test_normalisation)
{
    pfb_kernel k;
    case_kernel(_i, &k);
    const double i10 = mass_integral(&k, 10);
    const double i20 = mass_integral(&k, 20);
    const double est = fabs(i20 - i10);
    ck_assert_msg(est <= 1e-10, "%s %dD h=%g: quadrature not converged, |I20 - I10| = %.3g",
                  kernel_name(k.type), k.dim, k.h, est);
    ck_assert_msg(fabs(i20 - 1.0) <= est + 1e-12,
                  "%s %dD h=%g: integral %.17g, |I - 1| = %.3g > tol %.3g", kernel_name(k.type),
                  k.dim, k.h, i20, fabs(i20 - 1.0), est + 1e-12);
}
END_TEST

/* ------------------------------------------------------- finite differences */

/* Rounding scale for W near r: the largest |W| on the stencil plus 10/h^dim,
 * the magnitude of the individual terms of a normalised kernel (so that
 * cancellation inside the 2D viscosity formula is covered).  Each W value is
 * assumed accurate to 16 eps of this scale. */
static double w_scale(const pfb_kernel *k, const double r, const double d)
{
    double m = fabs(kernel_w(k, r));
    m = fmax(m, fabs(kernel_w(k, r - d)));
    m = fmax(m, fabs(kernel_w(k, r + d)));
    return m + 10.0 / pow(k->h, k->dim);
}

static double fd_first(const pfb_kernel *k, const double r, const double d)
{
    return (kernel_w(k, r + d) - kernel_w(k, r - d)) / (2.0 * d);
}

static double fd_lap(const pfb_kernel *k, const double r, const double d)
{
    const double wp = kernel_w(k, r + d), w0 = kernel_w(k, r), wm = kernel_w(k, r - d);
    return (wp - 2.0 * w0 + wm) / (d * d) + (k->dim - 1) / r * (wp - wm) / (2.0 * d);
}

/* Step: 1e-3 of the distance to the nearer end of (0, h), so the stencil
 * stays inside one smooth piece and the truncation error is uniform in s. */
static double fd_step(const pfb_kernel *k, const double r)
{
    return 1e-3 * fmin(r, k->h - r);
}

/* dW/dr against central differences D(d) = (W(r+d) - W(r-d)) / (2d).
 * D(d) = W' + W''' d^2/6 + O(d^4), so the truncation error of D(d/2) is about
 * |D(d) - D(d/2)| / 3; we allow |D(d) - D(d/2)| (3x that, covering the O(d^4)
 * term) plus the rounding bound 16 eps S / d for each of D(d/2) and D(d)
 * (S from w_scale). */
START_TEST(test_gradient_fd)
{
    pfb_kernel k;
    case_kernel(_i, &k);
    for (int j = 0; j < N_SAMPLES; j++) {
        const double r = SAMPLE_S[j] * k.h;
        const double d = fd_step(&k, r);
        const double d1 = fd_first(&k, r, d), d2 = fd_first(&k, r, 0.5 * d);
        const double rnd = 16.0 * DBL_EPSILON * w_scale(&k, r, d) * (1.0 / d + 2.0 / d);
        const double tol = fabs(d1 - d2) + rnd;
        const double dw = kernel_dw(&k, r);
        ck_assert_msg(fabs(dw - d2) <= tol, "%s %dD h=%g r/h=%g: dW %.17g, FD %.17g, tol %.3g",
                      kernel_name(k.type), k.dim, k.h, SAMPLE_S[j], dw, d2, tol);
    }
}
END_TEST

/* Laplacian against L(d) = (W(r+d) - 2W(r) + W(r-d))/d^2 + (dim-1)/r D(d).
 * L(d) = del^2 W + O(d^2) (W''''/12 and W'''/6 terms), so as above we allow
 * |L(d) - L(d/2)| plus rounding 16 eps S (4/d^2 + (dim-1)/(r d)) for each of
 * the two step sizes. */
START_TEST(test_laplacian_fd)
{
    pfb_kernel k;
    case_kernel(_i, &k);
    for (int j = 0; j < N_SAMPLES; j++) {
        const double r = SAMPLE_S[j] * k.h;
        const double d = fd_step(&k, r);
        const double l1 = fd_lap(&k, r, d), l2 = fd_lap(&k, r, 0.5 * d);
        const double sc = 16.0 * DBL_EPSILON * w_scale(&k, r, d);
        const double rnd = sc * (4.0 / (d * d) + (k.dim - 1) / (r * d)) +
                           sc * (16.0 / (d * d) + 2.0 * (k.dim - 1) / (r * d));
        const double tol = fabs(l1 - l2) + rnd;
        const double lap = kernel_lap(&k, r);
        ck_assert_msg(fabs(lap - l2) <= tol, "%s %dD h=%g r/h=%g: lap %.17g, FD %.17g, tol %.3g",
                      kernel_name(k.type), k.dim, k.h, SAMPLE_S[j], lap, l2, tol);
    }
}
END_TEST

/* Viscosity Laplacian is exactly 45/(pi h^6)(h - r) in 3D and
 * 40/(pi h^5)(h - r) in 2D (Müller 2003), to round-off (64 eps relative). */
START_TEST(test_viscosity_laplacian_closed_form)
{
    for (int ih = 0; ih < 2; ih++) {
        for (int dim = 2; dim <= 3; dim++) {
            const double h = TEST_H[ih];
            pfb_kernel k;
            pfb_err err = {{0}};
            ck_assert_int_eq(kernel_init(&k, PFB_KERNEL_VISCOSITY, dim, h, &err), PFB_OK);
            const double c = dim == 3 ? 45.0 / (TEST_PI * pow(h, 6)) : 40.0 / (TEST_PI * pow(h, 5));
            const double ss[] = {1e-9, 1e-3, 0.07, 0.3, 0.5, 0.77, 0.9, 0.999};
            for (size_t j = 0; j < sizeof ss / sizeof ss[0]; j++) {
                const double r = ss[j] * h;
                const double want = c * (h - r);
                const double got = kernel_lap(&k, r);
                ck_assert_msg(fabs(got - want) <= 64.0 * DBL_EPSILON * fabs(want),
                              "viscosity %dD h=%g r/h=%g: lap %.17g, want %.17g", dim, h, ss[j],
                              got, want);
            }
        }
    }
}
END_TEST

/* -------------------------------------------------------- support and values */

/* W = dW = lap = 0 at and beyond h; W > 0 and dW <= 0 inside; W finite at 0. */
START_TEST(test_support_and_sign)
{
    pfb_kernel k;
    case_kernel(_i, &k);
    const double h = k.h;
    const double outside[] = {h, nextafter(h, INFINITY), 1.0001 * h, 2.0 * h, 1e3 * h};
    for (size_t j = 0; j < sizeof outside / sizeof outside[0]; j++) {
        const double r = outside[j];
        ck_assert_msg(kernel_w(&k, r) == 0.0 && kernel_dw(&k, r) == 0.0 && kernel_lap(&k, r) == 0.0,
                      "%s %dD h=%g: nonzero at r/h = %.17g", kernel_name(k.type), k.dim, h, r / h);
        ck_assert_msg(kernel_w_r2(&k, r * r) == 0.0, "%s %dD h=%g: w_r2 nonzero at r/h = %.17g",
                      kernel_name(k.type), k.dim, h, r / h);
    }
    for (int j = 1; j < 1000; j++) {
        const double r = h * j / 1000.0;
        const double w = kernel_w(&k, r), dw = kernel_dw(&k, r);
        ck_assert_msg(w > 0.0 && isfinite(w), "%s %dD h=%g: W(%g h) = %g not positive",
                      kernel_name(k.type), k.dim, h, j / 1000.0, w);
        ck_assert_msg(dw <= 0.0 && isfinite(dw), "%s %dD h=%g: dW(%g h) = %g not <= 0",
                      kernel_name(k.type), k.dim, h, j / 1000.0, dw);
        ck_assert_msg(isfinite(kernel_lap(&k, r)), "%s %dD h=%g: lap(%g h) not finite",
                      kernel_name(k.type), k.dim, h, j / 1000.0);
    }
    /* Just inside the support the values are still positive (no cancellation). */
    const double rin = nextafter(h, 0.0);
    ck_assert_msg(kernel_w(&k, rin) >= 0.0, "%s %dD h=%g: W just inside h is negative",
                  kernel_name(k.type), k.dim, h);
    /* At r = 0 every value is finite (the viscosity kernel is clamped). */
    ck_assert_msg(isfinite(kernel_w(&k, 0.0)) && kernel_w(&k, 0.0) > 0.0,
                  "%s %dD h=%g: W(0) = %g", kernel_name(k.type), k.dim, h, kernel_w(&k, 0.0));
    ck_assert_msg(isfinite(kernel_dw(&k, 0.0)) && isfinite(kernel_lap(&k, 0.0)),
                  "%s %dD h=%g: dW(0) or lap(0) not finite", kernel_name(k.type), k.dim, h);
}
END_TEST

/* kernel_w_r2(r^2) == kernel_w(r) to round-off: sqrt(r*r) may differ from r
 * by an ulp or two, which moves W by about |W'| r 2 eps, so the tolerance is
 * 8 eps (|W| + r |W'|). */
START_TEST(test_w_r2_matches_w)
{
    pfb_kernel k;
    case_kernel(_i, &k);
    for (int j = 0; j <= 1000; j++) {
        const double r = k.h * j / 1000.0;
        const double w = kernel_w(&k, r), w2 = kernel_w_r2(&k, r * r);
        const double tol = 8.0 * DBL_EPSILON * (fabs(w) + r * fabs(kernel_dw(&k, r)));
        ck_assert_msg(fabs(w - w2) <= tol, "%s %dD h=%g r/h=%g: w %.17g, w_r2 %.17g",
                      kernel_name(k.type), k.dim, k.h, j / 1000.0, w, w2);
    }
}
END_TEST

/* Known values: W(0) for the non-singular kernels equals the prefactor times
 * f(0) written out independently here (catches a wrong constant even if the
 * normalisation test had a matching bug in the shell factor). */
START_TEST(test_values_at_origin)
{
    for (int ih = 0; ih < 2; ih++) {
        const double h = TEST_H[ih], pi = TEST_PI;
        const struct {
            pfb_kernel_type type;
            int dim;
            double w0;
        } want[] = {
            {PFB_KERNEL_POLY6, 3, 315.0 / (64.0 * pi * pow(h, 9)) * pow(h, 6)},
            {PFB_KERNEL_POLY6, 2, 4.0 / (pi * pow(h, 8)) * pow(h, 6)},
            {PFB_KERNEL_SPIKY, 3, 15.0 / (pi * pow(h, 6)) * pow(h, 3)},
            {PFB_KERNEL_SPIKY, 2, 10.0 / (pi * pow(h, 5)) * pow(h, 3)},
            {PFB_KERNEL_CUBIC, 3, 8.0 / (pi * pow(h, 3))},
            {PFB_KERNEL_CUBIC, 2, 40.0 / (7.0 * pi * h * h)},
            {PFB_KERNEL_CLAVET2, 3, 15.0 / (2.0 * pi * pow(h, 3))},
            {PFB_KERNEL_CLAVET2, 2, 6.0 / (pi * h * h)},
            {PFB_KERNEL_CLAVET3, 3, 15.0 / (pi * pow(h, 3))},
            {PFB_KERNEL_CLAVET3, 2, 10.0 / (pi * h * h)},
        };
        for (size_t j = 0; j < sizeof want / sizeof want[0]; j++) {
            pfb_kernel k;
            pfb_err err = {{0}};
            ck_assert_int_eq(kernel_init(&k, want[j].type, want[j].dim, h, &err), PFB_OK);
            const double got = kernel_w(&k, 0.0);
            ck_assert_msg(fabs(got - want[j].w0) <= 32.0 * DBL_EPSILON * want[j].w0,
                          "%s %dD h=%g: W(0) %.17g, want %.17g", kernel_name(want[j].type),
                          want[j].dim, h, got, want[j].w0);
        }
    }
}
END_TEST

/* The 2D viscosity kernel uses three formulas (s < 0.5, t >= 0.1, series);
 * they agree at the switch points to round-off of the closed form there
 * (absolute 64 eps of the prefactor, the size of its cancelling terms). */
START_TEST(test_viscosity2d_branches_continuous)
{
    pfb_kernel k;
    pfb_err err = {{0}};
    const double h = 1.7;
    ck_assert_int_eq(kernel_init(&k, PFB_KERNEL_VISCOSITY, 2, h, &err), PFB_OK);
    const double knots[] = {0.5, 0.9};
    for (size_t j = 0; j < 2; j++) {
        const double r = knots[j] * h;
        const double lo = kernel_w(&k, nextafter(r, 0.0)), hi = kernel_w(&k, nextafter(r, h));
        const double mid = kernel_w(&k, r);
        const double tol = 64.0 * DBL_EPSILON * k.norm + 4.0 * fabs(kernel_dw(&k, r)) * r * DBL_EPSILON;
        ck_assert_msg(fabs(lo - mid) <= tol && fabs(hi - mid) <= tol,
                      "viscosity 2D branch at s=%g: %.17g %.17g %.17g", knots[j], lo, mid, hi);
    }
    /* Near the edge, W ~ norm (1 - s)^3 / 6 to leading order. */
    const double t = 1e-5;
    const double w = kernel_w(&k, (1.0 - t) * h);
    const double lead = k.norm * t * t * t / 6.0;
    ck_assert_msg(fabs(w / lead - 1.0) < 1e-4, "viscosity 2D near edge: %.17g vs %.17g", w, lead);
}
END_TEST

/* ---------------------------------------------------------------- bad input */

static void expect_init_fails(const pfb_kernel_type type, const int dim, const double h,
                              const char *needle)
{
    pfb_kernel k;
    pfb_err err = {{0}};
    const int rc = kernel_init(&k, type, dim, h, &err);
    ck_assert_msg(rc == PFB_EINVAL, "kernel_init(type %d, dim %d, h %g) returned %d",
                  (int)type, dim, h, rc);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "message \"%s\" lacks \"%s\"", err.msg,
                  needle);
    ck_assert_msg(strstr(err.msg, "valid") != NULL, "message \"%s\" does not say what is valid",
                  err.msg);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message \"%s\" is not one line", err.msg);
}

START_TEST(test_bad_input)
{
    expect_init_fails(PFB_KERNEL_POLY6, 4, 1.0, "dimension 4");
    expect_init_fails(PFB_KERNEL_POLY6, 1, 1.0, "dimension 1");
    expect_init_fails(PFB_KERNEL_SPIKY, 3, 0.0, "h = 0");
    expect_init_fails(PFB_KERNEL_SPIKY, 3, -1.5, "h = -1.5");
    expect_init_fails(PFB_KERNEL_CUBIC, 2, NAN, "nan");
    expect_init_fails(PFB_KERNEL_CUBIC, 2, INFINITY, "inf");
    expect_init_fails(PFB_KERNEL_COUNT, 2, 1.0, "type 6");
    expect_init_fails((pfb_kernel_type)-1, 2, 1.0, "type -1");
    /* h so small that h^9 underflows: the constant is not representable. */
    expect_init_fails(PFB_KERNEL_POLY6, 3, 1e-40, "h = 1e-40");
    /* NULL err is allowed. */
    pfb_kernel k;
    ck_assert_int_eq(kernel_init(&k, PFB_KERNEL_POLY6, 4, 1.0, NULL), PFB_EINVAL);
}
END_TEST

START_TEST(test_names)
{
    for (int i = 0; i < N_TYPES; i++) {
        const char *a = kernel_name((pfb_kernel_type)i);
        ck_assert_msg(a && strcmp(a, "unknown") != 0, "type %d has no name", i);
        for (int j = 0; j < i; j++)
            ck_assert_str_ne(a, kernel_name((pfb_kernel_type)j));
    }
    ck_assert_str_eq(kernel_name(PFB_KERNEL_POLY6), "poly6");
    ck_assert_str_eq(kernel_name(PFB_KERNEL_COUNT), "unknown");
}
END_TEST

static Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");

    TCase *tc = tcase_create("quadrature");
    tcase_add_test(tc, test_gl_rule_exact);
    tcase_add_loop_test(tc, test_normalisation, 0, N_CASES);
    suite_add_tcase(s, tc);

    tc = tcase_create("derivatives");
    tcase_add_loop_test(tc, test_gradient_fd, 0, N_CASES);
    tcase_add_loop_test(tc, test_laplacian_fd, 0, N_CASES);
    tcase_add_test(tc, test_viscosity_laplacian_closed_form);
    suite_add_tcase(s, tc);

    tc = tcase_create("values");
    tcase_add_loop_test(tc, test_support_and_sign, 0, N_CASES);
    tcase_add_loop_test(tc, test_w_r2_matches_w, 0, N_CASES);
    tcase_add_test(tc, test_values_at_origin);
    tcase_add_test(tc, test_viscosity2d_branches_continuous);
    suite_add_tcase(s, tc);

    tc = tcase_create("input");
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_names);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(kernels_suite());
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

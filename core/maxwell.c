/* maxwell.c — the Maxwell standing shear wave (see maxwell.h for the model). */
#include "maxwell.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_fit.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int maxwell_roots(const pfb_maxwell *m, double rho, double k, double re[2], double im[2])
{
    const double k2 = k * k;
    const double a = rho * m->lambda, b = rho + m->eta_s * m->lambda * k2, c = k2 * (m->eta_s + m->G * m->lambda);
    const double disc = b * b - 4.0 * a * c;
    if (disc < 0.0) {
        re[0] = re[1] = -b / (2.0 * a);
        im[0] = sqrt(-disc) / (2.0 * a);
        im[1] = -im[0];
        return 1;
    }
    /* real roots, the smaller in magnitude without cancellation: q = -(b + sqrt(disc)) / 2 */
    const double q = -0.5 * (b + sqrt(disc));
    const double r1 = c / q, r2 = q / a;
    re[0] = r1 > r2 ? r1 : r2;
    re[1] = r1 > r2 ? r2 : r1;
    im[0] = im[1] = 0.0;
    return 0;
}

double maxwell_wave(const pfb_maxwell *m, double rho, double k, double t)
{
    double re[2], im[2];
    const double d = -m->eta_s * k * k / rho; /* dA/dt at t = 0, the polymer stress being 0 */
    if (maxwell_roots(m, rho, k, re, im)) {
        const double beta = -re[0], w = im[0];
        return exp(-beta * t) * (cos(w * t) + (d + beta) / w * sin(w * t));
    }
    const double s1 = re[0], s2 = re[1];
    if (s1 == s2)
        return (1.0 + (d - s1) * t) * exp(s1 * t);
    return ((d - s2) * exp(s1 * t) + (s1 - d) * exp(s2 * t)) / (s1 - s2);
}

void maxwell_moduli(const pfb_maxwell *m, double w, double *Gp, double *Gpp)
{
    const double lw = m->lambda * w, den = 1.0 + lw * lw;
    *Gp = m->G * lw * lw / den;
    *Gpp = m->G * lw / den + m->eta_s * w;
}

int maxwell_fit(const double *k, const double *sum, const double *prod, size_t n, double rho, pfb_maxwell_fit *out,
                pfb_err *e)
{
    out->m.G = out->m.lambda = out->m.eta_s = NAN;
    out->err.G = out->err.lambda = out->err.eta_s = NAN;
    out->inv_lambda = out->inv_lambda_err = NAN;
    if (n < 2 || n > 64)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_fit: %zu wavenumbers; valid: 2 to 64", n);
    double x[64], ys[64], yp[64];
    for (size_t i = 0; i < n; i++) {
        if (!(k[i] > 0) || !isfinite(k[i]))
            return pfb_err_set(e, PFB_EINVAL, "maxwell_fit: wavenumber %g; valid: finite and > 0", k[i]);
        if (!(sum[i] < 0) || !isfinite(sum[i]))
            return pfb_err_set(e, PFB_EINVAL, "maxwell_fit: root sum %g at k = %g; valid: negative (a decaying wave)",
                               sum[i], k[i]);
        if (!(prod[i] > 0) || !isfinite(prod[i]))
            return pfb_err_set(e, PFB_EINVAL, "maxwell_fit: root product %g at k = %g; valid: positive", prod[i], k[i]);
        x[i] = k[i] * k[i];
        ys[i] = -sum[i];        /* 1 / lambda + (eta_s / rho) k^2 */
        yp[i] = prod[i] / x[i]; /* (eta_s + G lambda) / (rho lambda) = eta_s / (rho lambda) + G / rho */
    }
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, ys, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    double pm = 0.0;
    for (size_t i = 0; i < n; i++)
        pm += yp[i];
    pm /= (double)n;
    double pv = 0.0;
    for (size_t i = 0; i < n; i++)
        pv += (yp[i] - pm) * (yp[i] - pm);
    const double eta = rho * c1;
    out->inv_lambda = c0;
    out->m.lambda = c0 > 0 ? 1.0 / c0 : INFINITY;
    out->m.eta_s = eta;
    out->m.G = rho * pm - eta * c0;
    if (n > 2) {
        /* gsl's covariances are scaled by sumsq / (n - 2): standard errors */
        const double s0 = sqrt(cov00), s1 = sqrt(cov11), sp = sqrt(pv / ((double)n - 1.0) / (double)n);
        out->inv_lambda_err = s0;
        out->err.lambda = c0 > 0 ? s0 / (c0 * c0) : NAN;
        out->err.eta_s = rho * s1;
        /* G = rho pm - eta_s c0: first-order propagation, the two lines' errors independent */
        out->err.G = sqrt(rho * rho * sp * sp + c0 * c0 * out->err.eta_s * out->err.eta_s + eta * eta * s0 * s0);
    }
    return PFB_OK;
}

/* dT/dt of maxwell_shear (2D in the xy plane: the tensor's xx, xy, yy). */
static void shear_rate(double G, double lambda, double yield, double gdot, const double T[3], double r[3])
{
    const double xx = T[0], xy = T[1], yy = T[2];
    /* w = L^T - L with L_xy = gdot: w_xy = -gdot, w_yx = gdot; Omega = (T w - w T) / 2 */
    const double oxx = 0.5 * (xy * gdot + xy * gdot), oyy = -oxx;
    const double oxy = 0.5 * (-xx * gdot + yy * gdot);
    const double n = sqrt(xx * xx + 2.0 * xy * xy + yy * yy);
    const double yf = yield > 0 ? (n > 0 ? fmax(0.0, n - yield) / n : 0.0) : 1.0;
    /* mu_e / 2 D' with D = L + L^T (D_xy = gdot) and mu_e = 2 G: G D'_xy = G gdot */
    r[0] = oxx - yf * xx / lambda;
    r[1] = oxy + G * gdot - yf * xy / lambda;
    r[2] = oyy - yf * yy / lambda;
}

void maxwell_shear(double G, double lambda, double yield, double gdot, double t, long steps, double T[3])
{
    T[0] = T[1] = T[2] = 0.0;
    if (!(steps > 0))
        return;
    const double h = t / (double)steps;
    for (long s = 0; s < steps; s++) {
        double k1[3], k2[3], k3[3], k4[3], y[3];
        shear_rate(G, lambda, yield, gdot, T, k1);
        for (int q = 0; q < 3; q++)
            y[q] = T[q] + 0.5 * h * k1[q];
        shear_rate(G, lambda, yield, gdot, y, k2);
        for (int q = 0; q < 3; q++)
            y[q] = T[q] + 0.5 * h * k2[q];
        shear_rate(G, lambda, yield, gdot, y, k3);
        for (int q = 0; q < 3; q++)
            y[q] = T[q] + h * k3[q];
        shear_rate(G, lambda, yield, gdot, y, k4);
        for (int q = 0; q < 3; q++)
            T[q] += h / 6.0 * (k1[q] + 2.0 * k2[q] + 2.0 * k3[q] + k4[q]);
    }
}

double maxwell_spring_modulus(int dim, double dx, double h, double rho, double k)
{
    const long m = (long)floor(h / dx) + 1;
    double S = 0.0;
    for (long a = -m; a <= m; a++)
        for (long b = -m; b <= m; b++)
            for (long c = dim == 3 ? -m : 0; c <= (dim == 3 ? m : 0); c++) {
                const double x = (double)a * dx, y = (double)b * dx, z = (double)c * dx;
                const double r = sqrt(x * x + y * y + z * z);
                if (r > 0 && r < h)
                    S += (1.0 - r / h) * x * x * y * y / (r * r);
            }
    return 0.25 * rho * k * S;
}

void maxwell_springs_shear(int dim, double dx, double h, double rho, double k, double alpha_s, double alpha_c,
                           double gamma_s, double gamma_c, double gdot, const double *t, size_t n, double *sigma)
{
    if (n == 0)
        return;
    const double tmax = t[n - 1], emax = fabs(gdot) * tmax;
    const long m = (long)floor(h / dx) + 1, ma = m + (long)ceil(emax * (double)m) + 1, mc = dim == 3 ? m : 0;
    const size_t na = (size_t)(2 * ma + 1), nb = (size_t)(2 * m + 1), nc = (size_t)(2 * mc + 1), no = na * nb * nc;
    double *L = malloc(no * sizeof *L);
    if (!L) {
        for (size_t q = 0; q < n; q++)
            sigma[q] = NAN;
        return;
    }
    for (size_t o = 0; o < no; o++)
        L[o] = NAN; /* no spring */
    const long steps = tmax > 0 ? 10000 : 0;
    const double dt = steps ? tmax / (double)steps : 0.0;
    size_t q = 0;
    for (long st = 0; st <= steps && q < n; st++) {
        const double ts = (double)st * dt, e = gdot * ts;
        double sum = 0.0;
        size_t o = 0;
        for (long a = -ma; a <= ma; a++)
            for (long b = -m; b <= m; b++)
                for (long c = -mc; c <= mc; c++, o++) {
                    const double y = (double)b * dx, x = (double)a * dx + e * y, z = (double)c * dx;
                    const double r = sqrt(x * x + y * y + z * z);
                    if (!(r > 0))
                        continue;
                    if (isnan(L[o]) && r < h) /* a new spring */
                        L[o] = st == 0 ? r : h;
                    if (isnan(L[o]))
                        continue;
                    if (st > 0 && r > L[o] + gamma_s * L[o]) /* eq. 8, over the step that led here */
                        L[o] += dt * alpha_s * (r - L[o] - gamma_s * L[o]);
                    else if (st > 0 && r < L[o] - gamma_c * L[o])
                        L[o] -= dt * alpha_c * (L[o] - gamma_c * L[o] - r);
                    if (L[o] > h) {
                        L[o] = NAN;
                        continue;
                    }
                    sum += (1.0 - L[o] / h) * (r - L[o]) * x * y / r;
                }
        /* the samples this step is the nearest to */
        while (q < n && (st == steps || t[q] < ts + 0.5 * dt)) {
            sigma[q] = 0.25 * rho * k * sum;
            q++;
        }
    }
    free(L);
}

/* ---- the free drop's normal mode (maxwell.h) ------------------------------ */

/* J_nu(x) / (x/2)^nu = sum_k (-X/4)^k / (k! Gamma(k + nu + 1)), X = x^2: an
 * entire function of X.  The terms fall below 1e-18 of the largest once k
 * exceeds |X|/4 well; 400 terms cover |x| up to about 60. */
static double complex bessel_hat(double nu, double complex X)
{
    double complex term = 1.0 / tgamma(nu + 1.0), sum = term;
    double big = cabs(term);
    for (int k = 1; k < 400; k++) {
        term *= -X / (4.0 * k * (k + nu));
        sum += term;
        big = fmax(big, cabs(term));
        if (cabs(term) < 1e-18 * big && k > cabs(X) / 4.0)
            break;
    }
    return sum;
}

/* The Bessel pair (a, b) = (J, x J') of the header's conditions, up to a
 * common factor (every B term carries one of them, so neither the determinant's
 * roots nor the forced solution's ratios see it): nu = n in 2D (x J_n' = x
 * J_{n-1} - n J_n) and n + 1/2 in 3D (j_n ~ J_{n+1/2} / sqrt(x), x j_n' =
 * x j_{n-1} - (n+1) j_n), kk = n or n + 1.  For |x| <= 20 the power series
 * with (x/2)^nu divided out: a = J^_nu, b = 2 J^_{nu-1} - kk a.  Beyond, the
 * series loses digits to cancellation (terms of e^|x| against a sum of
 * e^|Im x|), and a = 1, b = x J_{nu-1} / J_nu - kk with the ratio J_nu /
 * J_{nu-1} from its continued fraction 1 / (2 nu / x - 1 / (2 (nu + 1) / x -
 * ...)) (modified Lentz, to 1e-16), which holds for every complex x; x J_{nu-1}
 * / J_nu is even in x, so either square root of X serves. */
static void bessel_pair(double nu, double kk, double complex X, double complex *a, double complex *b)
{
    if (cabs(X) <= 400.0) {
        *a = bessel_hat(nu, X);
        *b = 2.0 * bessel_hat(nu - 1.0, X) - kk * *a;
        return;
    }
    const double complex x = csqrt(X), tiny = 1e-300;
    double complex f = 2.0 * nu / x, C = f, D = 0.0;
    for (int k = 1; k < 100000; k++) {
        const double complex bk = 2.0 * (nu + k) / x;
        D = bk - D;
        if (cabs(D) < 1e-300)
            D = tiny;
        C = bk - 1.0 / C;
        if (cabs(C) < 1e-300)
            C = tiny;
        D = 1.0 / D;
        const double complex delta = C * D;
        f *= delta;
        if (cabs(delta - 1.0) < 1e-16)
            break;
    }
    /* f = 2 nu / x - J_{nu+1} / J_nu ... : the continued fraction of J_{nu-1} / J_nu */
    *a = 1.0;
    *b = x * f - kk;
}

/* The header's two conditions at x^2 = X and Sigma as a matrix on (A, B)
 * (the Bessel factor divided out of B's column): M = {a11, a12, a21, a22},
 * and u_r(R) R = n A + *ub B.  tr = MAXWELL_GRADIENT (2D): the stress eta* grad
 * u, whose traction at the surface is eta* du/dr: the normal condition's
 * 2 G* du_r/dr becomes G* du_r/dr (half of each of its G* terms) and the
 * shear condition G* du_theta/dr = 0, i.e. -n (n-1) A + [x J' + (x^2 - n^2)
 * J] B = 0 (Bessel's equation for x^2 J''). */
static void drop_matrix(int tr, int dim, int n, double complex X, double complex S, double complex M[4],
                        double complex *ub)
{
    const double nn = n;
    double complex a, b;
    if (dim == 2) {
        bessel_pair(nn, nn, X, &a, &b);
        /* f: the viscous terms' factor, 2 for the fluid's stress, 1 for the gradient form */
        const double cn = nn * nn - 1.0, f = tr == MAXWELL_GRADIENT ? 1.0 : 2.0;
        M[0] = -X + f * nn * (nn - 1.0) + S * nn * cn;
        M[1] = f * nn * (b - a) + S * nn * cn * a;
        M[2] = -f * nn * (nn - 1.0);
        M[3] = f * b + (X - f * nn * nn) * a;
        *ub = nn * a;
        return;
    }
    bessel_pair(nn + 0.5, nn + 1.0, X, &a, &b);
    const double cn = (nn - 1.0) * (nn + 2.0);
    M[0] = -X + 2.0 * nn * (nn - 1.0) + S * nn * cn;
    M[1] = nn * (nn + 1.0) * (2.0 * (b - a) + S * cn * a);
    M[2] = 2.0 * (nn - 1.0);
    M[3] = -2.0 * b - X * a + 2.0 * (nn * nn + nn - 1.0) * a;
    *ub = nn * (nn + 1.0) * a;
}

static double complex drop_det(int tr, int dim, int n, double complex X, double complex S)
{
    double complex M[4], ub;
    drop_matrix(tr, dim, n, X, S, M, &ub);
    return M[0] * M[3] - M[1] * M[2];
}

/* G*(s) and the matrix's X = -rho s^2 R^2 / G* and Sigma = sigma / (G* R);
 * 0 when G*(s) is 0 or infinite (s = 0, s = -1/lambda). */
static int drop_xs(const pfb_maxwell *m, double rho, double R, double sigma, double complex s, double complex *Gs,
                   double complex *X, double complex *S)
{
    *Gs = m->G * s * m->lambda / (1.0 + s * m->lambda) + m->eta_s * s;
    if (!(cabs(*Gs) > 0) || !isfinite(cabs(*Gs)))
        return 0;
    *X = -rho * s * s * R * R / *Gs;
    *S = sigma / (*Gs * R);
    return 1;
}

/* The determinant at s (NaN where drop_xs has no G*). */
static double complex drop_det_s(const pfb_maxwell *m, int tr, int dim, int n, double rho, double R, double sigma,
                                 double complex s)
{
    double complex Gs, X, S;
    return drop_xs(m, rho, R, sigma, s, &Gs, &X, &S) ? drop_det(tr, dim, n, X, S) : NAN;
}

double maxwell_drop_det_re(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double sre,
                           double sim, double *det_im)
{
    const double complex d = drop_det_s(m, MAXWELL_SYMMETRIC, dim, n, rho, R, sigma, sre + I * sim);
    *det_im = cimag(d);
    return creal(d);
}

static double drop_elastic(int tr, int dim, int n)
{
    /* the first sign change of the real determinant at Sigma = 0 on x in (0.25, 30], then bisection */
    double x0 = 0.25, f0 = creal(drop_det(tr, dim, n, x0 * x0, 0.0));
    for (double x1 = 0.26; x1 <= 30.0; x1 += 0.01) {
        const double f1 = creal(drop_det(tr, dim, n, x1 * x1, 0.0));
        if ((f0 < 0) != (f1 < 0)) {
            double lo = x0, hi = x1, flo = f0;
            for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; it++) {
                const double mid = 0.5 * (lo + hi), fm = creal(drop_det(tr, dim, n, mid * mid, 0.0));
                if ((fm < 0) == (flo < 0)) {
                    lo = mid;
                    flo = fm;
                } else {
                    hi = mid;
                }
            }
            return 0.5 * (lo + hi);
        }
        x0 = x1;
        f0 = f1;
    }
    return NAN;
}

double maxwell_drop_elastic(int dim, int n)
{
    return drop_elastic(MAXWELL_SYMMETRIC, dim, n);
}

static int drop_check(const pfb_maxwell *m, int tr, int dim, int n, double rho, double R, double sigma, pfb_err *e)
{
    if (tr != MAXWELL_SYMMETRIC && tr != MAXWELL_GRADIENT)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: traction %d; valid: %d (symmetric) or %d (gradient)", tr,
                           MAXWELL_SYMMETRIC, MAXWELL_GRADIENT);
    if (tr == MAXWELL_GRADIENT && dim != 2)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: dim %d with the gradient traction; valid: 2", dim);
    if (dim != 2 && dim != 3)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: dim %d; valid: 2 or 3", dim);
    if (n < 2 || n > 20)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: mode %d; valid: 2 to 20", n);
    if (!(rho > 0) || !(R > 0) || !(sigma >= 0) || !isfinite(rho) || !isfinite(R) || !isfinite(sigma))
        return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: rho %g, R %g, sigma %g; valid: rho, R > 0, sigma >= 0", rho,
                           R, sigma);
    if (!(m->G >= 0) || !(m->lambda > 0) || !(m->eta_s >= 0) || !(m->G > 0 || m->eta_s > 0))
        return pfb_err_set(e, PFB_EINVAL,
                           "maxwell_drop: G %g, lambda %g, eta_s %g; valid: G, eta_s >= 0, not both 0, lambda > 0",
                           m->G, m->lambda, m->eta_s);
    return PFB_OK;
}

int maxwell_drop_root_traction(const pfb_maxwell *m, int tr, int dim, int n, double rho, double R, double sigma,
                               double s0_re, double s0_im, double *re, double *im, pfb_err *e)
{
    *re = *im = NAN;
    int rc = drop_check(m, tr, dim, n, rho, R, sigma, e);
    if (rc)
        return rc;
    double complex s = s0_re + I * s0_im;
    for (int it = 0; it < 100; it++) {
        const double h = 1e-6 * cabs(s) + 1e-300;
        const double complex f = drop_det_s(m, tr, dim, n, rho, R, sigma, s);
        const double complex df = (drop_det_s(m, tr, dim, n, rho, R, sigma, s + h) -
                                   drop_det_s(m, tr, dim, n, rho, R, sigma, s - h)) / (2.0 * h);
        if (!isfinite(cabs(f)) || !isfinite(cabs(df)) || cabs(df) == 0.0)
            break;
        const double complex ds = f / df;
        s -= ds;
        if (cabs(ds) < 1e-12 * cabs(s)) {
            *re = creal(s);
            *im = fabs(cimag(s));
            return PFB_OK;
        }
    }
    return pfb_err_set(e, PFB_EINVAL, "maxwell_drop: Newton's method from s = %g%+gi did not converge", s0_re, s0_im);
}

int maxwell_drop_root(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double s0_re,
                      double s0_im, double *re, double *im, pfb_err *e)
{
    return maxwell_drop_root_traction(m, MAXWELL_SYMMETRIC, dim, n, rho, R, sigma, s0_re, s0_im, re, im, e);
}

int maxwell_drop_mode_traction(const pfb_maxwell *m, int traction, int dim, int n, double rho, double R, double sigma,
                               double *re, double *im, pfb_err *e)
{
    *re = *im = NAN;
    int rc = drop_check(m, traction, dim, n, rho, R, sigma, e);
    if (rc)
        return rc;
    const double xe = drop_elastic(traction, dim, n);
    double r[2], i2[2];
    maxwell_roots(m, rho, xe / R, r, i2);
    double sr = r[0], si = i2[0];
    const int steps = 64;
    for (int j = 1; j <= steps && !rc; j++)
        rc = maxwell_drop_root_traction(m, traction, dim, n, rho, R, sigma * j / steps, sr, si, &sr, &si, e);
    if (rc)
        return rc;
    *re = sr;
    *im = si;
    return PFB_OK;
}

int maxwell_drop_mode(const pfb_maxwell *m, int dim, int n, double rho, double R, double sigma, double *re, double *im,
                      pfb_err *e)
{
    return maxwell_drop_mode_traction(m, MAXWELL_SYMMETRIC, dim, n, rho, R, sigma, re, im, e);
}

int maxwell_invert(maxwell_transform F, void *ctx, double slope, const double *t, size_t nt, double t_max, long kmax,
                   double *f, pfb_err *e)
{
    if (!(t_max > 0) || !isfinite(t_max) || kmax < 1)
        return pfb_err_set(e, PFB_EINVAL, "maxwell_invert: t_max %g, %ld terms; valid: t_max > 0, terms >= 1", t_max,
                           kmax);
    for (size_t i = 0; i < nt; i++)
        if (!(t[i] >= 0 && t[i] <= t_max))
            return pfb_err_set(e, PFB_EINVAL, "maxwell_invert: time %g; valid: 0 to t_max %g", t[i], t_max);
    const double T = 2.0 * t_max, c = 5.0 / t_max;
    double complex *Fk = malloc((size_t)(kmax + 1) * sizeof *Fk);
    if (!Fk)
        return pfb_err_set(e, PFB_ENOMEM, "maxwell_invert: %ld terms", kmax);
    for (long k = 0; k <= kmax; k++) {
        const double complex s = c + I * (M_PI * (double)k / T);
        double fr, fi;
        F(ctx, creal(s), cimag(s), &fr, &fi);
        Fk[k] = fr + I * fi - slope / ((s + c) * (s + c));
    }
    for (size_t i = 0; i < nt; i++) {
        double sum = 0.5 * creal(Fk[0]);
        const double complex step = cexp(I * M_PI * t[i] / T);
        double complex ph = 1.0;
        for (long k = 1; k <= kmax; k++) {
            ph *= step;
            if ((k & 255) == 0) /* renormalise the running phase against round-off drift */
                ph = cexp(I * M_PI * (double)k * t[i] / T);
            sum += creal(Fk[k] * ph);
        }
        f[i] = exp(c * t[i]) / T * sum + slope * t[i] * exp(-c * t[i]);
    }
    free(Fk);
    return PFB_OK;
}

typedef struct drop_forced {
    const pfb_maxwell *m;
    int dim;
    double rho, R, sigma, U;
} drop_forced;

/* D^(s) = 2 u_r(R) / R of maxwell_drop_deformation (the header): the
 * conditions' right-hand side (rho U R^3 / (2 G*), 0), Cramer's rule. */
static void drop_transform(void *vctx, double sre, double sim, double *fre, double *fim)
{
    const drop_forced *d = vctx;
    double complex Gs, X, S, M[4], ub;
    if (!drop_xs(d->m, d->rho, d->R, d->sigma, sre + I * sim, &Gs, &X, &S)) {
        *fre = *fim = NAN;
        return;
    }
    drop_matrix(MAXWELL_SYMMETRIC, d->dim, 2, X, S, M, &ub);
    const double complex rhs = d->rho * d->U * d->R * d->R * d->R / (2.0 * Gs);
    const double complex ur = rhs * (2.0 * M[3] - ub * M[2]) / (M[0] * M[3] - M[1] * M[2]); /* u_r(R) R */
    const double complex D = 2.0 * ur / (d->R * d->R);
    *fre = creal(D);
    *fim = cimag(D);
}

int maxwell_drop_deformation(const pfb_maxwell *m, int dim, double rho, double R, double sigma, double U,
                             const double *t, size_t nt, double *D, pfb_err *e)
{
    int rc = drop_check(m, MAXWELL_SYMMETRIC, dim, 2, rho, R, sigma, e);
    if (rc)
        return rc;
    double t_max = 0.0;
    for (size_t i = 0; i < nt; i++)
        t_max = fmax(t_max, t[i]);
    drop_forced d = {m, dim, rho, R, sigma, U};
    return maxwell_invert(drop_transform, &d, 2.0 * U / R, t, nt, t_max > 0 ? t_max : 1.0, 20000, D, e);
}

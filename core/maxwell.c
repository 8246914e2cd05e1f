/* maxwell.c — the Maxwell standing shear wave (see maxwell.h for the model). */
#include "maxwell.h"

#include <math.h>

#include <gsl/gsl_fit.h>

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

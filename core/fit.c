/* fit.c — damped-cosine fit with gsl_multifit_nlinear (see fit.h). */
#include "fit.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct fit_data {
    const double *t, *y;
    size_t n;
} fit_data;

static int model_f(const gsl_vector *x, void *data, gsl_vector *f)
{
    const fit_data *d = data;
    double A = gsl_vector_get(x, FIT_A), b = gsl_vector_get(x, FIT_BETA);
    double w = gsl_vector_get(x, FIT_OMEGA), ph = gsl_vector_get(x, FIT_PHI), c = gsl_vector_get(x, FIT_C);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, A * exp(-b * d->t[i]) * cos(w * d->t[i] + ph) + c - d->y[i]);
    return GSL_SUCCESS;
}

static int model_df(const gsl_vector *x, void *data, gsl_matrix *J)
{
    const fit_data *d = data;
    double A = gsl_vector_get(x, FIT_A), b = gsl_vector_get(x, FIT_BETA);
    double w = gsl_vector_get(x, FIT_OMEGA), ph = gsl_vector_get(x, FIT_PHI);
    for (size_t i = 0; i < d->n; i++) {
        double t = d->t[i], e = exp(-b * t), cs = cos(w * t + ph), sn = sin(w * t + ph);
        gsl_matrix_set(J, i, FIT_A, e * cs);
        gsl_matrix_set(J, i, FIT_BETA, -t * A * e * cs);
        gsl_matrix_set(J, i, FIT_OMEGA, -t * A * e * sn);
        gsl_matrix_set(J, i, FIT_PHI, -A * e * sn);
        gsl_matrix_set(J, i, FIT_C, 1.0);
    }
    return GSL_SUCCESS;
}

/* The settled value of a signal: the mean of its last quarter. */
static double settled_value(const double *y, size_t n)
{
    size_t q0 = n - n / 4;
    double c = 0.0;
    for (size_t i = q0; i < n; i++)
        c += y[i];
    return c / (double)(n - q0);
}

size_t fit_ringdown_window(const double *y, size_t n, double frac)
{
    if (n <= 8)
        return n;
    const double c = settled_value(y, n);
    double a0 = fabs(y[0] - c);
    size_t last = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(y[i] - c) > frac * a0)
            last = i;
    size_t w = last + 1 + (last + 1) / 4;
    if (w < 8)
        w = 8;
    return w < n ? w : n;
}

double fit_first_extremum(const double *t, const double *y, size_t n, double frac)
{
    if (n < 8)
        return NAN;
    const double c = settled_value(y, n);
    const double sgn = y[0] >= c ? 1.0 : -1.0, a0 = fabs(y[0] - c);
    size_t i1 = 0;
    while (i1 < n && sgn * (y[i1] - c) > 0)
        i1++;
    if (i1 == n || i1 == 0)
        return NAN;
    size_t best = i1, end = 3 * i1 < n ? 3 * i1 : n;
    for (size_t i = i1; i < end && sgn * (y[i] - c) <= 0; i++)
        if (sgn * (y[i] - c) < sgn * (y[best] - c))
            best = i;
    return sgn * (c - y[best]) >= frac * a0 ? t[best] : NAN;
}

int fit_damped_cosine_guess(const double *t, const double *y, size_t n, double g[FIT_NPAR], pfb_err *err)
{
    if (n < 8)
        return pfb_err_set(err, PFB_EINVAL, "damped-cosine fit needs at least 8 samples; got %zu", n);
    double mean = 0.0;
    for (size_t i = 0; i < n; i++)
        mean += y[i];
    mean /= (double)n;
    return fit_damped_cosine_guess_about(t, y, n, mean, g, err);
}

int fit_damped_cosine_guess_about(const double *t, const double *y, size_t n, double mean, double g[FIT_NPAR],
                                  pfb_err *err)
{
    if (n < 8)
        return pfb_err_set(err, PFB_EINVAL, "damped-cosine fit needs at least 8 samples; got %zu", n);
    /* zero crossings of y - mean, located by linear interpolation */
    double first = NAN, last = NAN;
    size_t ncross = 0;
    for (size_t i = 1; i < n; i++) {
        double a = y[i - 1] - mean, b = y[i] - mean;
        if ((a < 0 && b >= 0) || (a > 0 && b <= 0)) {
            double tc = t[i - 1] + (t[i] - t[i - 1]) * a / (a - b);
            if (ncross == 0)
                first = tc;
            last = tc;
            ncross++;
        }
    }
    if (ncross < 2)
        return pfb_err_set(err, PFB_EINVAL,
                           "signal crosses its mean %zu times; valid: at least 2 (half a period) to fit a cosine",
                           ncross);
    double half = (last - first) / (double)(ncross - 1);
    double w = M_PI / half;
    /* extrema between crossings give amplitude and decay */
    double amax = 0.0;
    for (size_t i = 0; i < n; i++)
        amax = fmax(amax, fabs(y[i] - mean));
    double a0 = 0.0, a1 = 0.0, t0 = 0.0, t1 = 0.0;
    for (size_t i = 0; i < n; i++) { /* largest excursion before the first and after the last crossing */
        double a = fabs(y[i] - mean);
        if (t[i] <= first && a > a0) {
            a0 = a;
            t0 = t[i];
        }
        if (t[i] >= last && a > a1) {
            a1 = a;
            t1 = t[i];
        }
    }
    double beta = (a0 > 0 && a1 > 0 && t1 > t0) ? log(a0 / a1) / (t1 - t0) : 0.0;
    if (!isfinite(beta) || beta < 0)
        beta = 0.0;
    double A = amax * exp(beta * t0);
    double c0 = (y[0] - mean) / A;
    c0 = fmax(-1.0, fmin(1.0, c0));
    double ph = acos(c0);
    if (y[1] - y[0] > 0) /* rising at t0: the phase is in (pi, 2 pi) */
        ph = -ph;
    ph -= w * t[0];
    g[FIT_A] = A;
    g[FIT_BETA] = beta;
    g[FIT_OMEGA] = w;
    g[FIT_PHI] = ph;
    g[FIT_C] = mean;
    return PFB_OK;
}

int fit_damped_cosine(const double *t, const double *y, size_t n, pfb_fit_result *res, pfb_err *err)
{
    int rc = fit_damped_cosine_guess(t, y, n, res->guess, err);
    if (rc)
        return rc;
    return fit_damped_cosine_from(t, y, n, res, err);
}

int fit_damped_cosine_from(const double *t, const double *y, size_t n, pfb_fit_result *res, pfb_err *err)
{
    if (n < 8)
        return pfb_err_set(err, PFB_EINVAL, "damped-cosine fit needs at least 8 samples; got %zu", n);
    fit_data d = {t, y, n};
    gsl_multifit_nlinear_fdf fdf;
    fdf.f = model_f;
    fdf.df = model_df;
    fdf.fvv = NULL;
    fdf.n = n;
    fdf.p = FIT_NPAR;
    fdf.params = &d;
    gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, FIT_NPAR);
    gsl_matrix *covar = gsl_matrix_alloc(FIT_NPAR, FIT_NPAR);
    if (!w || !covar) {
        if (w)
            gsl_multifit_nlinear_free(w);
        if (covar)
            gsl_matrix_free(covar);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for a fit of %zu samples", n);
    }
    gsl_vector_view x0 = gsl_vector_view_array(res->guess, FIT_NPAR);
    gsl_multifit_nlinear_init(&x0.vector, &fdf, w);
    int info = 0;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int status = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL, &info, w);
    gsl_set_error_handler(old);
    if (status != GSL_SUCCESS) {
        gsl_multifit_nlinear_free(w);
        gsl_matrix_free(covar);
        return pfb_err_set(err, PFB_EINVAL, "damped-cosine fit did not converge: %s", gsl_strerror(status));
    }
    gsl_matrix *J = gsl_multifit_nlinear_jac(w);
    gsl_multifit_nlinear_covar(J, 0.0, covar);
    gsl_vector *f = gsl_multifit_nlinear_residual(w);
    double chi2;
    gsl_blas_ddot(f, f, &chi2);
    res->chi2 = chi2;
    res->dof = n - FIT_NPAR;
    res->iterations = (int)gsl_multifit_nlinear_niter(w);
    double s2 = res->dof ? chi2 / (double)res->dof : 0.0;
    for (int k = 0; k < FIT_NPAR; k++) {
        res->p[k] = gsl_vector_get(w->x, (size_t)k);
        res->err[k] = sqrt(s2 * gsl_matrix_get(covar, (size_t)k, (size_t)k));
    }
    /* canonical form: A > 0, phi in (-pi, pi] */
    if (res->p[FIT_A] < 0) {
        res->p[FIT_A] = -res->p[FIT_A];
        res->p[FIT_PHI] += M_PI;
    }
    res->p[FIT_PHI] = remainder(res->p[FIT_PHI], 2.0 * M_PI);
    gsl_multifit_nlinear_free(w);
    gsl_matrix_free(covar);
    return PFB_OK;
}

/* validate.c — front locator, Martin & Moyce's units and data, observed order
 * (validate.h gives the definitions and their reasons). */
#include "validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>

#include "../core/output.h"

double validate_mm_T(double t, double g, double a)
{
    return t * sqrt(2.0 * g / a);
}

double validate_mm_Z(double x, double a)
{
    return x / a;
}

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double validate_front(const double *x, size_t n, double x_wall, double dx, double gap, double *work)
{
    if (n == 0)
        return NAN;
    memcpy(work, x, n * sizeof *work);
    qsort(work, n, sizeof *work, cmp_double);
    size_t i = 0;
    while (i + 1 < n && work[i + 1] - work[i] <= gap)
        i++;
    return work[i] + 0.5 * dx - x_wall;
}

void validate_order(const double *dx, const double *err, size_t n, double *p, double *perr)
{
    double lx[64], ly[64];
    size_t m = 0;
    for (size_t k = 0; k < n && m < 64; k++)
        if (isfinite(err[k]) && err[k] > 0.0 && dx[k] > 0.0) {
            lx[m] = log(dx[k]);
            ly[m] = log(err[k]);
            m++;
        }
    *p = NAN;
    *perr = NAN;
    if (m == 2) {
        *p = (ly[1] - ly[0]) / (lx[1] - lx[0]);
    } else if (m >= 3) {
        double c0, c1, cov00, cov01, cov11, sumsq;
        gsl_fit_linear(lx, 1, ly, 1, m, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
        *p = c1;
        *perr = sqrt(cov11);
    }
}

void validate_mm_free(validate_mm_data *d)
{
    for (size_t k = 0; k < d->ns; k++) {
        free(d->s[k].T);
        free(d->s[k].Z);
    }
    memset(d, 0, sizeof *d);
}

/* A finite positive number filling the whole field, or -1. */
static double parse_positive(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno || !isfinite(v) || !(v > 0.0))
        return -1.0;
    return v;
}

static int push_point(validate_mm_series *s, double T, double Z)
{
    double *nt = realloc(s->T, (s->n + 1) * sizeof *nt);
    if (!nt)
        return -1;
    s->T = nt;
    double *nz = realloc(s->Z, (s->n + 1) * sizeof *nz);
    if (!nz)
        return -1;
    s->Z = nz;
    s->T[s->n] = T;
    s->Z[s->n] = Z;
    s->n++;
    return 0;
}

/* The next line of *text (without its newline) into line; 0 at the end. */
static int next_line(const char **text, char *line, size_t len)
{
    if (!**text)
        return 0;
    const char *e = strchr(*text, '\n');
    size_t n = e ? (size_t)(e - *text) : strlen(*text);
    snprintf(line, len, "%.*s", (int)(n < len ? n : len - 1), *text);
    *text += n + (e ? 1 : 0);
    return 1;
}

int validate_mm_parse(const char *text, const char *name, validate_mm_data *d, pfb_err *err)
{
    memset(d, 0, sizeof *d);
    char line[512];
    int rc = PFB_OK;
    long ln = 1;
    if (!next_line(&text, line, sizeof line) || strcmp(line, "series,a_inch,T,Z") != 0)
        return pfb_err_set(err, PFB_EINVAL, "%s:1: header is not 'series,a_inch,T,Z'", name);
    while (next_line(&text, line, sizeof line)) {
        ln++;
        line[strcspn(line, "\r")] = '\0';
        char *field[4], *save = NULL;
        int nf = 0;
        for (char *tok = strtok_r(line, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (nf < 4)
                field[nf] = tok;
            nf++;
        }
        if (nf != 4) {
            rc = pfb_err_set(err, PFB_EINVAL, "%s:%ld: %d fields; valid: 4 (series,a_inch,T,Z)", name, ln, nf);
            break;
        }
        const double a = parse_positive(field[1]), T = parse_positive(field[2]), Z = parse_positive(field[3]);
        if (a < 0 || T < 0 || Z < 0 || strlen(field[0]) >= sizeof d->s[0].name) {
            rc = pfb_err_set(err, PFB_EINVAL,
                             "%s:%ld: '%s,%s,%s,%s'; valid: a series name under 32 characters and finite "
                             "positive a_inch, T, Z",
                             name, ln, field[0], field[1], field[2], field[3]);
            break;
        }
        validate_mm_series *s = d->ns ? &d->s[d->ns - 1] : NULL;
        if (!s || strcmp(s->name, field[0]) != 0) {
            for (size_t k = 0; k < d->ns && !rc; k++)
                if (!strcmp(d->s[k].name, field[0]))
                    rc = pfb_err_set(err, PFB_EINVAL, "%s:%ld: series '%s' resumes; valid: its rows together",
                                     name, ln, field[0]);
            if (!rc && d->ns == sizeof d->s / sizeof d->s[0])
                rc = pfb_err_set(err, PFB_EINVAL, "%s:%ld: a fifth series '%s'; valid: at most 4", name, ln,
                                 field[0]);
            if (rc)
                break;
            s = &d->s[d->ns++];
            snprintf(s->name, sizeof s->name, "%s", field[0]);
            s->a_inch = a;
        } else if (!(T > s->T[s->n - 1])) {
            rc = pfb_err_set(err, PFB_EINVAL, "%s:%ld: T = %g after %g; valid: T increasing within a series", name,
                             ln, T, s->T[s->n - 1]);
            break;
        }
        if (push_point(s, T, Z)) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s", name);
            break;
        }
    }
    if (!rc && d->ns == 0)
        rc = pfb_err_set(err, PFB_EINVAL, "%s: no data rows; valid: at least one series", name);
    if (rc)
        validate_mm_free(d);
    return rc;
}

int validate_mm_load(const char *path, validate_mm_data *d, pfb_err *err)
{
    memset(d, 0, sizeof *d);
    char *text;
    size_t len;
    int rc = output_read_file(path, "the reference data", &text, &len, err);
    if (rc)
        return rc;
    rc = validate_mm_parse(text, path, d, err);
    free(text);
    return rc;
}

double validate_interp(const double *x, const double *y, size_t n, size_t stride, double xq)
{
    for (size_t k = 0; k + 1 < n; k++) {
        const double x0 = x[k * stride], x1 = x[(k + 1) * stride];
        if (x0 <= xq && xq <= x1) {
            const double y0 = y[k * stride], y1 = y[(k + 1) * stride];
            return x1 > x0 ? y0 + (y1 - y0) * (xq - x0) / (x1 - x0) : y0;
        }
    }
    return NAN;
}

void validate_viscous_response(const double *zr, const double *zrh, const double *z, const double *zh, size_t n,
                               validate_visc_response *o)
{
    double b = 0.0, bh = 0.0, sr = 0.0, sf = 0.0;
    for (size_t k = 0; k < n; k++) {
        b += z[k] / zr[k] - 1.0;
        bh += zh[k] / zrh[k] - 1.0;
        sr += zh[k] / z[k] - 1.0;
        sf += zrh[k] / zr[k] - 1.0;
    }
    const double m = n ? 1.0 / (double)n : NAN;
    o->bias = b * m;
    o->bias_half = bh * m;
    o->s_run = sr * m;
    o->s_ref = sf * m;
    o->response = o->s_run / o->s_ref;
    o->nu_equiv_rel = pow(2.0, -o->bias / o->s_ref);
    if (isnan(o->bias + o->bias_half + o->s_run + o->s_ref))
        o->bias = o->bias_half = o->s_run = o->s_ref = o->response = o->nu_equiv_rel = NAN;
}

double validate_mm_interp(const validate_mm_series *s, double T)
{
    return validate_interp(s->T, s->Z, s->n, 1, T);
}

/* whether particle i lies in the span (validate.h) */
static int in_span(const double *const x[3], size_t i, int dim, const double lo[3], const double hi[3])
{
    for (int k = 0; k < dim; k++)
        if (k != 1 && !(x[k][i] >= lo[k] && x[k][i] <= hi[k]))
            return 0;
    return 1;
}

double validate_mass_above(const double *const x[3], const double *m, size_t n, int dim, double yc, double dy,
                           const double lo[3], const double hi[3])
{
    double above = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double f = (x[1][i] - yc) / dy + 0.5; /* the part of i's layer above yc */
        above += in_span(x, i, dim, lo, hi) ? m[i] * fmin(fmax(f, 0.0), 1.0) : 0.0;
    }
    return above;
}

double validate_surface_rise(const double *const x[3], size_t n, int dim, const double lo[3], const double hi[3],
                             double w)
{
    const size_t na = hi[0] > lo[0] ? (size_t)ceil((hi[0] - lo[0]) / w) + 1 : 1,
                 nb = dim == 3 && hi[2] > lo[2] ? (size_t)ceil((hi[2] - lo[2]) / w) + 1 : 1;
    double *col = malloc(na * nb * sizeof *col);
    if (!col)
        return NAN;
    for (size_t k = 0; k < na * nb; k++)
        col[k] = -INFINITY;
    double top = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        top = fmax(top, x[1][i]);
        if (!in_span(x, i, dim, lo, hi))
            continue;
        size_t a = (size_t)floor((x[0][i] - lo[0]) / w), b = dim == 3 ? (size_t)floor((x[2][i] - lo[2]) / w) : 0;
        a = a < na ? a : na - 1;
        b = b < nb ? b : nb - 1;
        col[a * nb + b] = fmax(col[a * nb + b], x[1][i]);
    }
    double low = INFINITY;
    for (size_t k = 0; k < na * nb; k++)
        low = fmin(low, col[k] > -INFINITY ? col[k] : INFINITY);
    free(col);
    return low < INFINITY ? top - low : NAN;
}

void validate_mm_errors(const double *T, const double *Z, size_t n, const validate_mm_data *mm, double T_max,
                        double *mean, double *max, double *bias, int *npoints)
{
    double s = 0.0, b = 0.0, m = 0.0;
    int k = 0;
    for (size_t si = 0; si < mm->ns; si++)
        for (size_t p = 0; p < mm->s[si].n; p++) {
            const double Tk = mm->s[si].T[p], Zk = mm->s[si].Z[p];
            if (Tk > T_max)
                continue;
            const double e = (validate_interp(T, Z, n, 1, Tk) - Zk) / Zk;
            s += fabs(e);
            b += e;
            m = fmax(m, fabs(e));
            k++;
        }
    *npoints = k;
    *mean = k ? s / k : NAN;
    *bias = k ? b / k : NAN;
    *max = k ? m : NAN; /* fmax drops NaN: a run that stopped early has NaN in s */
    if (isnan(s))
        *max = NAN;
}

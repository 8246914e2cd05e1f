/* kernels.c — SPH smoothing kernels, normalised in 2D and 3D (see kernels.h).
 *
 * Notation: h is the support radius, s = r/h in [0, 1), t = 1 - s = (h - r)/h.
 * Each kernel is W(r) = norm * f(r) with norm chosen so that
 *     2D:  integral_0^h 2 pi r   W(r) dr = 1,
 *     3D:  integral_0^h 4 pi r^2 W(r) dr = 1.
 * The integrals below were done by hand with r = h s (dr = h ds) and the Beta
 * integral B(a, b) = integral_0^1 s^(a-1) (1-s)^(b-1) ds = (a-1)!(b-1)!/(a+b-1)!.
 *
 * poly6, Müller 2003:  W = norm (h^2 - r^2)^3
 *   3D: 4 pi h^9 int s^2 (1-s^2)^3 ds = 4 pi h^9 (1/3 - 3/5 + 3/7 - 1/9)
 *       = 4 pi h^9 * 16/315 = 64 pi h^9 / 315          -> norm = 315/(64 pi h^9)
 *   2D: 2 pi h^8 int s (1-s^2)^3 ds = 2 pi h^8 * 1/8   -> norm = 4/(pi h^8)
 *
 * spiky, Müller 2003 (after Desbrun):  W = norm (h - r)^3
 *   3D: 4 pi h^6 B(3, 4) = 4 pi h^6 / 60               -> norm = 15/(pi h^6)
 *   2D: 2 pi h^5 B(2, 4) = 2 pi h^5 / 20               -> norm = 10/(pi h^5)
 *
 * viscosity, Müller 2003:  3D  W = norm (-s^3/2 + s^2 + 1/(2s) - 1)
 *   The bracket factors exactly as (1-s)^3 (1+s) / (2s), which is how it is
 *   evaluated here (no cancellation near s = 1, and positive on (0, 1)).
 *   3D: 4 pi h^3 int s^2 (...) ds = 4 pi h^3 (-1/12 + 1/5 + 1/4 - 1/3)
 *       = 4 pi h^3 / 30                                -> norm = 15/(2 pi h^3)
 *   With f(s) the bracket: f' = -(1-s)^2 (3s^2 + 2s + 1)/(2 s^2),
 *   f'' = -3s + 2 + 1/s^3, and f'' + (2/s) f' = 6 (1 - s), so
 *   del^2 W = norm * 6 (1 - s) / h^2 = 45/(pi h^6) (h - r).
 *
 *   2D derivation.  We want a radial W with del^2 W = W'' + W'/r = C (h - r)
 *   and W(h) = W'(h) = 0.  Since del^2 W = (1/r) (r W')', integrate once:
 *       r W' = C (h r^2/2 - r^3/3) + A,
 *   and W'(h) = 0 gives A = -C h^3/6, i.e.
 *       W' = C (h r/2 - r^2/3 - h^3/(6 r)).
 *   Integrating again and imposing W(h) = 0 (in s = r/h):
 *       W = C h^3 (s^2/4 - s^3/9 - ln(s)/6 - 5/36) =: C h^3 g(s).
 *   Normalisation: int_0^1 s ln s ds = -1/4, so
 *       int_0^1 s g(s) ds = 1/16 - 1/45 + 1/24 - 5/72 = 9/720 = 1/80,
 *   hence 2 pi h^2 * C h^3 / 80 = 1 gives C = 40/(pi h^5) and
 *       W = 40/(pi h^2) g(s),   dW/dr = 40/(pi h^5) (h r/2 - r^2/3 - h^3/(6 r)),
 *       del^2 W = 40/(pi h^5) (h - r).
 *   Stable forms: g'(s) = -(1-s)^2 (2s + 1)/(6s); near s = 1 the value g is
 *   O(t^3) and the closed form cancels, so with t = 1 - s we use the identity
 *       g = (1/6) (t^3 + sum_{n>=4} t^n / n) = (1/6) (-ln(1-t) - t - t^2/2 + 2t^3/3)
 *   (log1p form for 0.1 <= t <= 0.5, the series for t < 0.1).
 *
 *   The viscosity W and dW/dr diverge at r = 0 (like 1/r in 3D, ln r in 2D);
 *   r^(d-1) W is integrable.  For r < VISC_RMIN * h both are evaluated at
 *   r = VISC_RMIN * h (1e-12 h), so they stay finite (large) there.  The
 *   Laplacian is finite everywhere.
 *
 * cubic spline, Monaghan 1992 / Mao–Yang eq. 3, with q = 2r/h (support h):
 *   f(q) = 1 - 1.5 q^2 + 0.75 q^3 (q <= 1),  0.25 (2 - q)^3 (1 <= q <= 2).
 *   The paper prints the prefactor 1/(pi h^3); that is the normalisation for
 *   q = r/h_s with h_s = h/2.  With q = 2r/h (r = h q/2) the integrals are
 *     3D: 4 pi (h/2)^3 int_0^2 q^2 f dq = 4 pi h^3/8 * (19/120 + 11/120)
 *         = pi h^3 / 8                                 -> norm = 8/(pi h^3)
 *     2D: 2 pi (h/2)^2 int_0^2 q f dq = 2 pi h^2/4 * (11/40 + 3/40)
 *         = 7 pi h^2 / 40                              -> norm = 40/(7 pi h^2)
 *   f is C2 at q = 1 (f'' = 1.5 from both sides).
 *
 * Clavet 2005 eqs. 1 and 4 (density / near-density kernels), normalised here:
 *   (1 - r/h)^2:  2D 2 pi h^2 B(2, 3) = pi h^2/6        -> norm = 6/(pi h^2)
 *                 3D 4 pi h^3 B(3, 3) = 2 pi h^3/15     -> norm = 15/(2 pi h^3)
 *   (1 - r/h)^3:  2D 2 pi h^2 B(2, 4) = pi h^2/10       -> norm = 10/(pi h^2)
 *                 3D 4 pi h^3 B(3, 4) = pi h^3/15       -> norm = 15/(pi h^3)
 *
 * Laplacians are analytic: del^2 W = W'' + (dim-1)/r W'.  For spiky and the
 * Clavet kernels the (dim-1)/r W' term diverges at r = 0; there r is raised to
 * LAP_RMIN * h (1e-12 h) in that term only.  Poly6 and the cubic spline are
 * evaluated in forms that are finite at r = 0. */
#include "kernels.h"

#include <math.h>

static const double PFB_PI = 3.14159265358979323846;

/* Viscosity W, dW/dr: evaluate at r >= VISC_RMIN * h (see above). */
static const double VISC_RMIN = 1e-12;
/* Lower bound on r in the (dim-1)/r W' term of singular Laplacians. */
static const double LAP_RMIN = 1e-12;

/* Normalisation constant for a kernel; h is finite and > 0, dim is 2 or 3. */
static double kernel_norm(const pfb_kernel_type type, const int dim, const double h)
{
    const double pi = PFB_PI;
    const double h2 = h * h;
    const double h3 = h2 * h;
    if (dim == 2) {
        switch (type) {
        case PFB_KERNEL_POLY6:     return 4.0 / (pi * h2 * h3 * h3);    /* 4/(pi h^8) */
        case PFB_KERNEL_SPIKY:     return 10.0 / (pi * h2 * h3);        /* 10/(pi h^5) */
        case PFB_KERNEL_VISCOSITY: return 40.0 / (pi * h2);             /* 40/(pi h^2) */
        case PFB_KERNEL_CUBIC:     return 40.0 / (7.0 * pi * h2);       /* 40/(7 pi h^2) */
        case PFB_KERNEL_CLAVET2:   return 6.0 / (pi * h2);              /* 6/(pi h^2) */
        case PFB_KERNEL_CLAVET3:   return 10.0 / (pi * h2);             /* 10/(pi h^2) */
        default:                   return 0.0;
        }
    }
    switch (type) {
    case PFB_KERNEL_POLY6:     return 315.0 / (64.0 * pi * h3 * h3 * h3); /* 315/(64 pi h^9) */
    case PFB_KERNEL_SPIKY:     return 15.0 / (pi * h3 * h3);              /* 15/(pi h^6) */
    case PFB_KERNEL_VISCOSITY: return 15.0 / (2.0 * pi * h3);             /* 15/(2 pi h^3) */
    case PFB_KERNEL_CUBIC:     return 8.0 / (pi * h3);                    /* 8/(pi h^3) */
    case PFB_KERNEL_CLAVET2:   return 15.0 / (2.0 * pi * h3);             /* 15/(2 pi h^3) */
    case PFB_KERNEL_CLAVET3:   return 15.0 / (pi * h3);                   /* 15/(pi h^3) */
    default:                   return 0.0;
    }
}

int kernel_init(pfb_kernel *k, pfb_kernel_type type, int dim, double h, pfb_err *err)
{
    const int itype = (int)type;
    if (!k)
        return pfb_err_set(err, PFB_EINVAL, "kernel pointer is NULL; valid: a pfb_kernel to fill");
    if (itype < 0 || itype >= (int)PFB_KERNEL_COUNT)
        return pfb_err_set(err, PFB_EINVAL,
                           "kernel type %d is invalid; valid: 0..%d (poly6, spiky, viscosity, "
                           "cubic, clavet2, clavet3)",
                           itype, (int)PFB_KERNEL_COUNT - 1);
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "kernel dimension %d is invalid; valid: 2 or 3", dim);
    if (!isfinite(h) || !(h > 0.0))
        return pfb_err_set(err, PFB_EINVAL,
                           "kernel support radius h = %g is invalid; valid: a finite number > 0", h);
    const double norm = kernel_norm(type, dim, h);
    if (!isfinite(norm) || !(norm > 0.0))
        return pfb_err_set(err, PFB_EINVAL,
                           "kernel support radius h = %g is invalid for %s in %dD: the "
                           "normalisation constant is not representable; valid: h with finite norm",
                           h, kernel_name(type), dim);
    k->type = type;
    k->dim = dim;
    k->h = h;
    k->norm = norm;
    k->inv_h = 1.0 / h;
    k->h2 = h * h;
    return PFB_OK;
}

/* 2D viscosity shape g(s) = s^2/4 - s^3/9 - ln(s)/6 - 5/36, with t = 1 - s
 * passed separately (computed as (h - r)/h for accuracy near s = 1). */
static double visc2_g(const double s, const double t)
{
    if (s < 0.5)
        return s * s * (0.25 - s / 9.0) - log(s) / 6.0 - 5.0 / 36.0;
    if (t >= 0.1)
        return (-log1p(-t) - t * (1.0 + t * (0.5 - t * (2.0 / 3.0)))) / 6.0;
    /* (1/6) t^3 (1 + t/4 + t^2/5 + ... + t^16/19); the dropped tail is below
     * t^17/20/(1-t) < 1e-17 * t^3 for t < 0.1. */
    static const double inv_n[] = {
        1.0 / 4,  1.0 / 5,  1.0 / 6,  1.0 / 7,  1.0 / 8,  1.0 / 9,  1.0 / 10, 1.0 / 11,
        1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19,
    };
    double p = 0.0;
    for (int i = (int)(sizeof inv_n / sizeof inv_n[0]) - 1; i >= 0; i--)
        p = (p + inv_n[i]) * t;
    return t * t * t * (1.0 + p) / 6.0;
}

/* Clamp r for the singular viscosity kernel; returns s = r/h and sets *t = 1 - s. */
static double visc_s(const pfb_kernel *k, const double r, double *t)
{
    const double rmin = VISC_RMIN * k->h;
    if (r < rmin) {
        *t = 1.0 - VISC_RMIN;
        return VISC_RMIN;
    }
    *t = (k->h - r) * k->inv_h;
    return r * k->inv_h;
}

double kernel_w(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    switch (k->type) {
    case PFB_KERNEL_POLY6: {
        const double d = k->h2 - r * r;
        return k->norm * d * d * d;
    }
    case PFB_KERNEL_SPIKY: {
        const double d = k->h - r;
        return k->norm * d * d * d;
    }
    case PFB_KERNEL_VISCOSITY: {
        double t;
        const double s = visc_s(k, r, &t);
        if (k->dim == 3)
            return k->norm * t * t * t * (1.0 + s) / (2.0 * s);
        return k->norm * visc2_g(s, t);
    }
    case PFB_KERNEL_CUBIC:
        return kernel_cubic_w(k, r);
    case PFB_KERNEL_CLAVET2: {
        const double t = (k->h - r) * k->inv_h;
        return k->norm * t * t;
    }
    case PFB_KERNEL_CLAVET3: {
        const double t = (k->h - r) * k->inv_h;
        return k->norm * t * t * t;
    }
    default:
        return 0.0;
    }
}

double kernel_w_r2(const pfb_kernel *k, double r2)
{
    if (k->type == PFB_KERNEL_POLY6) {
        if (r2 >= k->h2)
            return 0.0;
        const double d = k->h2 - r2;
        return k->norm * d * d * d;
    }
    return kernel_w(k, sqrt(r2));
}

double kernel_dw(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    switch (k->type) {
    case PFB_KERNEL_POLY6: {
        const double d = k->h2 - r * r;
        return -6.0 * k->norm * r * d * d;
    }
    case PFB_KERNEL_SPIKY:
        return kernel_spiky_dw(k, r);
    case PFB_KERNEL_VISCOSITY: {
        double t;
        const double s = visc_s(k, r, &t);
        if (k->dim == 3)
            return -k->norm * k->inv_h * t * t * (s * (3.0 * s + 2.0) + 1.0) / (2.0 * s * s);
        return -k->norm * k->inv_h * t * t * (2.0 * s + 1.0) / (6.0 * s);
    }
    case PFB_KERNEL_CUBIC:
        return kernel_cubic_dw(k, r);
    case PFB_KERNEL_CLAVET2: {
        const double t = (k->h - r) * k->inv_h;
        return -2.0 * k->norm * k->inv_h * t;
    }
    case PFB_KERNEL_CLAVET3: {
        const double t = (k->h - r) * k->inv_h;
        return -3.0 * k->norm * k->inv_h * t * t;
    }
    default:
        return 0.0;
    }
}

double kernel_lap(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    const double dm1 = (double)(k->dim - 1);
    const double rmin = LAP_RMIN * k->h;
    const double rr = r > rmin ? r : rmin; /* for (dim-1)/r W' terms only */
    switch (k->type) {
    case PFB_KERNEL_POLY6: {
        /* W' = -6 c r d^2, W'' = -6 c d^2 + 24 c r^2 d  (d = h^2 - r^2) */
        const double d = k->h2 - r * r;
        return k->norm * d * (24.0 * r * r - 6.0 * (double)k->dim * d);
    }
    case PFB_KERNEL_SPIKY: {
        /* W' = -3 c d^2, W'' = 6 c d  (d = h - r) */
        const double d = k->h - r;
        return k->norm * d * (6.0 - 3.0 * dm1 * d / rr);
    }
    case PFB_KERNEL_VISCOSITY:
        return kernel_viscosity_lap(k, r);
    case PFB_KERNEL_CUBIC: {
        /* del^2 W = 4 c / h^2 (f''(q) + (dim-1) f'(q)/q), with f'/q finite at 0 */
        const double ih = k->inv_h;
        if (2.0 * r <= k->h) {
            const double q = 2.0 * r * ih;
            return 4.0 * k->norm * ih * ih * (4.5 * q - 3.0 + dm1 * (2.25 * q - 3.0));
        }
        const double q = 2.0 * r * ih;
        const double u = 2.0 * (k->h - r) * ih; /* 2 - q */
        return 4.0 * k->norm * ih * ih * (1.5 * u - dm1 * 0.75 * u * u / q);
    }
    case PFB_KERNEL_CLAVET2: {
        /* W' = -2 c t / h, W'' = 2 c / h^2 */
        const double t = (k->h - r) * k->inv_h;
        return 2.0 * k->norm * k->inv_h * (k->inv_h - dm1 * t / rr);
    }
    case PFB_KERNEL_CLAVET3: {
        /* W' = -3 c t^2 / h, W'' = 6 c t / h^2 */
        const double t = (k->h - r) * k->inv_h;
        return 3.0 * k->norm * k->inv_h * t * (2.0 * k->inv_h - dm1 * t / rr);
    }
    default:
        return 0.0;
    }
}

const char *kernel_name(pfb_kernel_type type)
{
    switch (type) {
    case PFB_KERNEL_POLY6:     return "poly6";
    case PFB_KERNEL_SPIKY:     return "spiky";
    case PFB_KERNEL_VISCOSITY: return "viscosity";
    case PFB_KERNEL_CUBIC:     return "cubic";
    case PFB_KERNEL_CLAVET2:   return "clavet2";
    case PFB_KERNEL_CLAVET3:   return "clavet3";
    default:                   return "unknown";
    }
}

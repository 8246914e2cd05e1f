/* kernels.h — SPH smoothing kernels, normalised in 2D and 3D.
 *
 * Every kernel has compact support radius h (W = 0 for r >= h) and integrates to
 * one over the plane (dim 2) or space (dim 3).  Evaluation returns W(r), the
 * radial derivative dW/dr (so grad W = dW/dr * r_vec / r) and the Laplacian
 * del^2 W = W'' + (dim-1)/r W'.  */
#ifndef PFB_KERNELS_H
#define PFB_KERNELS_H

#include "error.h"

typedef enum pfb_kernel_type {
    PFB_KERNEL_POLY6 = 0,   /* Müller 2003: (h^2 - r^2)^3 */
    PFB_KERNEL_SPIKY,       /* Müller 2003 (Desbrun): (h - r)^3 */
    PFB_KERNEL_VISCOSITY,   /* Müller 2003: Laplacian c (h - r) */
    PFB_KERNEL_CUBIC,       /* Monaghan 1992 cubic spline, q = 2r/h (Mao–Yang eq. 3) */
    PFB_KERNEL_CLAVET2,     /* Clavet 2005: (1 - r/h)^2 */
    PFB_KERNEL_CLAVET3,     /* Clavet 2005: (1 - r/h)^3 */
    PFB_KERNEL_COUNT
} pfb_kernel_type;

typedef struct pfb_kernel {
    pfb_kernel_type type;
    int dim;       /* 2 or 3 */
    double h;      /* support radius */
    double norm;   /* normalisation constant, precomputed */
    double inv_h;
    double h2;
} pfb_kernel;

/* Initialise a kernel of the given type, dimension (2 or 3) and support h > 0. */
int kernel_init(pfb_kernel *k, pfb_kernel_type type, int dim, double h, pfb_err *err);

/* Kernel value W(r) for distance r >= 0. */
double kernel_w(const pfb_kernel *k, double r);

/* Kernel value from the squared distance (cheap for poly6; others take a sqrt). */
double kernel_w_r2(const pfb_kernel *k, double r2);

/* Radial derivative dW/dr at r >= 0 (the gradient is dW/dr * r_vec / r). */
double kernel_dw(const pfb_kernel *k, double r);

/* Laplacian del^2 W at r > 0. */
double kernel_lap(const pfb_kernel *k, double r);

/* The cases of kernel_w, kernel_dw and kernel_lap that a solver's pair loops
 * call with a kernel of known type, inline (the same expressions: the general
 * functions call these), so that the loops pay no call per pair. */
static inline double kernel_cubic_w(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    if (2.0 * r <= k->h) {
        const double q = 2.0 * r * k->inv_h;
        return k->norm * (1.0 - q * q * (1.5 - 0.75 * q));
    }
    const double u = 2.0 * (k->h - r) * k->inv_h; /* 2 - q */
    return k->norm * 0.25 * u * u * u;
}

static inline double kernel_cubic_dw(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    if (2.0 * r <= k->h) {
        const double q = 2.0 * r * k->inv_h;
        return 2.0 * k->norm * k->inv_h * q * (2.25 * q - 3.0);
    }
    const double u = 2.0 * (k->h - r) * k->inv_h; /* 2 - q */
    return -1.5 * k->norm * k->inv_h * u * u;
}

static inline double kernel_spiky_dw(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    const double d = k->h - r;
    return -3.0 * k->norm * d * d;
}

static inline double kernel_viscosity_lap(const pfb_kernel *k, double r)
{
    if (r >= k->h)
        return 0.0;
    const double ih = k->inv_h;
    if (k->dim == 3)
        return 6.0 * k->norm * ih * ih * ih * (k->h - r); /* 45/(pi h^6) (h - r) */
    return k->norm * ih * ih * ih * (k->h - r);           /* 40/(pi h^5) (h - r) */
}

/* Name of a kernel type ("poly6", ...). */
const char *kernel_name(pfb_kernel_type type);

#endif

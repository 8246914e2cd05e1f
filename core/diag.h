/* diag.h — diagnostics computed the same way for every solver.
 *
 * Energies, momenta, centre of mass and extents are plain sums over particles.
 * Density error and volume use one common kernel (the normalised cubic spline of
 * support 2 * spacing), independent of the solver's own kernels:
 *  - density error: rho_i = sum_j m_j W(r_ij) (self included), compared with
 *    rho_lat, the same sum over the infinite initial lattice; the error of
 *    particle i is max(rho_i / rho_lat - 1, 0) (compression only, as in the
 *    incompressible-SPH literature, so the density deficit of free-surface
 *    particles does not count); mean and max over particles are reported;
 *  - volume: the colour field c(x) = sum_j (m_j / rho_lat) W(x - x_j), which is 1
 *    inside the initial lattice, is sampled on a grid of spacing/2; the volume is
 *    the measure of {c > 1/2};
 *    volume_rel is that volume divided by the same measure of the initial state
 *    (calibration: the initial state measures its nominal volume n * spacing^dim).
 * Periodic axes (core/periodic.h): extents are those of the positions wrapped
 * into the box; the centre of mass, potential energy and angular momentum use
 * the unwrapped positions x + image L (the particle field "image" counts each
 * particle's wraps), so they change continuously with the momentum as in an
 * open box (a circular mean is undefined for a fluid that fills the box); the
 * density sums use the minimum image; the volume's sample grid is not periodic
 * (a face reads as a surface), which the calibration of the initial state absorbs. */
#ifndef PFB_DIAG_H
#define PFB_DIAG_H

#include "error.h"
#include "grid.h"
#include "kernels.h"
#include "sim.h"

typedef struct pfb_diag {
    double t;
    size_t n;
    double mass, ke, pe;
    double p[3], l[3], com[3], lo[3], hi[3];
    double volume_rel;         /* measured volume / initial measured volume */
    double volume;             /* calibrated volume (m^dim) */
    double density_err_mean, density_err_max;
} pfb_diag;

typedef struct pfb_diag_ctx {
    int dim;
    double spacing;
    pfb_kernel w;              /* common kernel */
    double rho_lat;            /* lattice density of the common kernel */
    double vol_raw0;           /* raw measured volume of the initial state */
    double vol_nominal;        /* n0 * spacing^dim */
    double res;                /* sample spacing of the volume grid */
    pfb_grid grid;
    pfb_nlist nl;
    pfb_periodic_ws pws;        /* the periodic list's workspace (periodic axes) */
    double *field;              /* colour-field samples */
    size_t field_cap;
} pfb_diag_ctx;

/* Set up the common kernel and calibrate density and volume on the initial state. */
int diag_init(pfb_diag_ctx *c, const pfb_sim *sim, pfb_err *err);

/* Free the context (accepts a zeroed struct). */
void diag_free(pfb_diag_ctx *c);

/* Compute all diagnostics of the current state. */
int diag_compute(pfb_diag_ctx *c, const pfb_sim *sim, pfb_diag *d, pfb_err *err);

/* Density sum_j m W(r_j) over an infinite square/cubic lattice of the given
 * spacing, the particle itself included: the rest density of a full neighbourhood. */
double lattice_density(const pfb_kernel *w, double spacing, double mass);

/* Sum of f(r) over the points of the infinite square (2D) or cubic (3D) lattice of
 * unit spacing with every coordinate within reach of the origin (the origin, r = 0,
 * included); r is the point's distance from the origin.  f must vanish beyond
 * reach. */
double lattice_sum(int dim, double reach, double (*f)(double r, void *ctx), void *ctx);

/* Only the cheap O(n) quantities (energies, momenta, extents); no kernel sums. */
void diag_basic(const pfb_sim *sim, pfb_diag *d);

#endif

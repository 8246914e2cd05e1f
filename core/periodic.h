/* periodic.h — periodic boundaries per axis: the minimum image and the periodic
 * neighbour list (2D and 3D).
 *
 * A periodic axis d has period L[d] > 0 over [lo[d], lo[d] + L[d]); L[d] = 0
 * means the axis is not periodic.  The displacement of a pair on a periodic axis
 * is its minimum image, dx - L rint(dx / L) (period_delta): the one definition,
 * used by the neighbour search, by every solver's pair terms and by the
 * diagnostics, so a pair's distance is the same wherever it is computed.  The
 * minimum image is unique while L > 2 h (h the largest interaction radius), which
 * periodic_neighbours checks.
 *
 * Positions are wrapped into [lo, lo + L) at each sort of the particles
 * (sim_sort_particles), not after every step: between sorts a particle may be a
 * little outside the box, which the minimum image does not mind, and a solver
 * that keeps positions from the start of its step (clavet's x_prev, muller's
 * positions at its list's sort) never sees them jump by L.
 *
 * The list is built with image points (the grid's choice, see periodic.c): the
 * points within reach of a face are copied, shifted by +-L, into an extended set
 * that core/grid searches as usual; each image's hits are mapped back to their
 * originals, and every candidate pair is decided by period_dist2 < h^2, so the
 * list equals a brute-force search with the minimum image (nlist_brute_periodic)
 * exactly, across faces, edges and corners. */
#ifndef PFB_PERIODIC_H
#define PFB_PERIODIC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "grid.h"

typedef struct pfb_period {
    double L[3];   /* period per axis (m); 0: not periodic */
    double inv[3]; /* 1 / L[d], or 0 */
    double lo[3];  /* lower corner of the periodic box on the periodic axes */
} pfb_period;

/* 1 if some axis below dim is periodic. */
static inline int period_any(const pfb_period *pp, int dim)
{
    for (int d = 0; d < dim; d++)
        if (pp->L[d] > 0)
            return 1;
    return 0;
}

/* The minimum image of the difference dx on axis d (dx itself on an open axis). */
static inline double period_delta(const pfb_period *pp, int d, double dx)
{
    return pp->L[d] > 0 ? dx - pp->L[d] * rint(dx * pp->inv[d]) : dx;
}

/* x_a - x_b by the minimum image, into out[0..2] (out[2] = 0 in 2D). */
static inline void period_diff(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b,
                               double out[3])
{
    out[2] = 0.0;
    for (int d = 0; d < dim; d++)
        out[d] = period_delta(pp, d, x[d][a] - x[d][b]);
}

/* Squared minimum-image distance of points a and b: pfb_dist2's expression on
 * the wrapped differences (the same value as pfb_dist2 when no axis is periodic). */
static inline double period_dist2(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b)
{
    double dx = period_delta(pp, 0, x[0][a] - x[0][b]);
    double dy = period_delta(pp, 1, x[1][a] - x[1][b]);
    double d2 = dx * dx + dy * dy;
    if (dim == 3) {
        double dz = period_delta(pp, 2, x[2][a] - x[2][b]);
        d2 += dz * dz;
    }
    return d2;
}

/* Set axis d periodic over [lo, lo + L) (L > 0), or open (L = 0). */
void period_set(pfb_period *pp, int d, double lo, double L);

/* Wrap every position into [lo, lo + L) on the periodic axes (n points); when
 * image is not NULL, image[3 i + d] gains the periods taken off point i on axis
 * d, so that x + image L is the unwrapped position. */
void period_wrap(const pfb_period *pp, int dim, double *const x[3], size_t n, double *image);

/* Where periodic_neighbours keeps its extended point set and grid (zero it
 * before first use; free with periodic_ws_free). */
typedef struct pfb_periodic_ws {
    pfb_grid grid;      /* over the extended set */
    pfb_nlist ext;      /* the extended set's list */
    double *xe[3];      /* the extended set: the n points, then the images */
    uint32_t *orig;     /* orig[k], k >= n: the original of image k */
    size_t cap;         /* points the arrays hold */
    size_t nimg;        /* images of the last build */
} pfb_periodic_ws;

void periodic_ws_free(pfb_periodic_ws *w);

/* The full neighbour list (radius h, rows ascending, pairs by period_dist2 < h^2)
 * of n points with the minimum image on pp's periodic axes.  Fails, naming the
 * axis, when a period is not above 2 h(1 + 1e-6) or the points spread over more
 * than 1.5 periods on an axis (they are wrapped at every sort). */
int periodic_neighbours(pfb_periodic_ws *w, const pfb_period *pp, int dim, double h, int threads,
                        const double *const x[3], size_t n, pfb_nlist *out, pfb_err *err);

/* Brute-force O(n^2) periodic list with the same definition (reference for tests). */
int nlist_brute_periodic(const pfb_period *pp, int dim, double h, const double *const x[3], size_t n,
                         pfb_nlist *nl, pfb_err *err);

#endif

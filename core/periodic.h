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
 * exactly, across faces, edges and corners.
 *
 * Lees-Edwards boundaries (sliding periodic images; Lees & Edwards 1972, as
 * Allen & Tildesley's "Computer simulation of liquids" sec. 11.3 gives them):
 * with x (axis 0) and y (axis 1) both periodic, the images one period up in y
 * slide along x at the speed U = shear_rate L_y, so that a uniform shear flow
 * u_x = shear_rate y is continuous across the y faces.  At time t the image
 * of point b k periods up sits at (x_b + k s, y_b + k L_y), s = U t mod L_x,
 * and moves at v_b + k U e_x.  The minimum image of a pair then takes k =
 * rint(dy / L_y) first and x's image after (period_vec): dy - k L_y, then
 * dx - k s by the minimum image on x; the pair's velocity difference loses k U
 * on x (period_le_dv).  These are the only forms a solver may use on a sheared
 * box: period_delta, one axis alone, does not know k (every solver's pair
 * terms take period_vec's image there; clavet's jacobi rows refuse the box).  A point that leaves through
 * a y face is wrapped as the image it has become: y -/+ L_y, x -/+ s and v_x
 * -/+ U (period_wrap_le), and its image field gains s / L_x on x and 1 on y,
 * so that x + image_x L_x is its unwrapped x and v_x + image_y U its velocity
 * in the unsheared frame (core/diag.c's momentum).  The neighbour list's
 * images follow the same rule: a point near a y face gets its y images with x
 * shifted by +-s and wrapped into the box, and those get x images as a point
 * does; the argument above holds for them unchanged, because the x extents
 * taken include them, so the list equals nlist_brute_periodic's (which uses
 * period_dist2, the same minimum image) exactly. */
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
    int le;        /* Lees-Edwards: the y faces slide along x (period_set_le) */
    double le_U;   /* the velocity of the image one period up, along x (m/s) */
    double le_s;   /* its offset along x at le_t, U t mod L_x in [0, L_x) (m) */
    double le_t;   /* the time of le_s (s) */
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

/* The minimum image of the difference d = x_a - x_b in place (d[2] ignored in
 * 2D); returns k, the periods up in y of the image of b it takes (0 without
 * Lees-Edwards): b's image at (x_b + k s, y_b + k L_y). */
static inline double period_vec(const pfb_period *pp, int dim, double d[3])
{
    double k = 0.0;
    if (pp->le) {
        k = rint(d[1] * pp->inv[1]);
        d[1] -= k * pp->L[1];
        d[0] -= k * pp->le_s;
        d[0] -= pp->L[0] * rint(d[0] * pp->inv[0]);
    } else {
        d[0] = period_delta(pp, 0, d[0]);
        d[1] = period_delta(pp, 1, d[1]);
    }
    if (dim == 3)
        d[2] = period_delta(pp, 2, d[2]);
    return k;
}

/* What v_a - v_b loses on x for a pair whose minimum image took k (period_vec):
 * the image of b moves at v_b + k U. */
static inline double period_le_dv(const pfb_period *pp, double k)
{
    return k * pp->le_U;
}

/* x_a - x_b by the minimum image, into out[0..2] (out[2] = 0 in 2D); returns
 * period_vec's k. */
static inline double period_diff(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b,
                                 double out[3])
{
    out[2] = 0.0;
    for (int d = 0; d < dim; d++)
        out[d] = x[d][a] - x[d][b];
    return period_vec(pp, dim, out);
}

/* period_dist2 on a sheared box (out of line: the inline test stays small). */
double period_dist2_le(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b);

/* Squared minimum-image distance of points a and b: pfb_dist2's expression on
 * the wrapped differences (the same value as pfb_dist2 when no axis is periodic). */
static inline double period_dist2(const pfb_period *pp, int dim, const double *const x[3], size_t a, size_t b)
{
    double dx = x[0][a] - x[0][b];
    if (pp->L[0] > 0) { /* (the sheared box's test only where x is periodic: an open box pays nothing) */
        if (pp->le)
            return period_dist2_le(pp, dim, x, a, b);
        dx -= pp->L[0] * rint(dx * pp->inv[0]);
    }
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

/* Make the y faces of a box periodic on x and y slide along x at velocity U
 * (Lees-Edwards); the offset starts at 0.  Fails unless axes 0 and 1 are
 * periodic and U is finite. */
int period_set_le(pfb_period *pp, double U, pfb_err *err);

/* The sliding images' offset at time t: s = U t mod L_x, in [0, L_x). */
void period_le_at(pfb_period *pp, double t);

/* Wrap every position into [lo, lo + L) on the periodic axes (n points); when
 * image is not NULL, image[3 i + d] gains the periods taken off point i on axis
 * d, so that x + image L is the unwrapped position.  Not for a sheared box
 * (period_wrap_le). */
void period_wrap(const pfb_period *pp, int dim, double *const x[3], size_t n, double *image);

/* period_wrap for any box: on a sheared one, y first, each period taken off y
 * taking s off x and U off v_x (the image the point has become; image[3 i]
 * gains s / L_x and image[3 i + 1] the period), then x and z. */
void period_wrap_le(const pfb_period *pp, int dim, double *const x[3], double *const v[3], size_t n,
                    double *image);

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

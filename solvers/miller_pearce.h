/* miller_pearce.h — the pieces of the Miller–Pearce back end that tests check
 * against the paper's equations directly (the solver itself is reached through
 * pfb_solver_miller_pearce). */
#ifndef PFB_MILLER_PEARCE_H
#define PFB_MILLER_PEARCE_H

#include "../core/boundary.h"

/* The pair law of eqs. 2-3 for one pair. */
typedef struct mp_law {
    double m, n;         /* exponents of repulsion and attraction (5, 3) */
    double b1, b2;       /* b2 = b1 r0^(n - m) */
    double drag;         /* coefficient of the drag term (kg/s) */
} mp_law;

/* Force on globule p from globule i (eq. 2): xd = x_p - x_i, vd = v_p - v_i,
 * reach_r = c_r (r_i + r_p) and reach_d = c_d (r_i + r_p) the cut-offs of eq. 3.
 * Writes f (dim components; the force on i is -f) and returns the radial part of
 * the force-law term alone, s_r (b1/D^m - b2/D^n) D (positive: repulsive). */
double mp_pair_force(const mp_law *law, int dim, const double xd[3], const double vd[3], double reach_r,
                     double reach_d, double f[3]);

/* §2.2 constraint collision of one globule against one shape: the path from xa
 * (at time t - dt) to xb (at t) is taken into the shape's frame at t, intersected
 * with the (offset) surface phi = offset through its closest tangent plane (eqs.
 * 5-6) and the residual reflected with r_n and r_t (eqs. 7-8); the velocity's
 * normal and tangential parts relative to the shape are scaled the same way.
 * Updates xb and v; returns 1 if the globule collided. */
int mp_collide(const pfb_shape *sh, int dim, double t, double dt, double offset, double r_n, double r_t,
               const double xa[3], double xb[3], double v[3]);

#endif

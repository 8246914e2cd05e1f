/* mao_yang_resample.h — particle re-sampling of Mao & Yang §5 (merge, Delaunay up-sampling, eqs. 18-20).
 *
 * Down-sampling merges pairs closer than eps_d into one particle at their centre
 * of mass; up-sampling inserts a particle at the circumcentre of every Delaunay
 * simplex whose circumradius exceeds r_min, unless that point lies outside the
 * convex hull of the particles within h of it (§5.2) or its interpolated mass
 * (eq. 18) is below eps_m.  The paper runs down-sampling first, then up-sampling.
 *
 * Choice where the paper is silent: a candidate closer than eps_d to a particle
 * inserted earlier in the same up-sampling pass is rejected (rejected_close).
 * Delaunay simplices sharing one empty circle (a square hole, an octahedral hole)
 * all give the same circumcentre; without this rule the point would be inserted
 * several times.  Against the particles present before the pass no such test is
 * needed: a Delaunay circle is empty, so with eps_d < r_min every old particle
 * is at least R > r_min > eps_d from the inserted point.
 *
 * Both functions work in 2D and 3D, are deterministic and independent of the
 * storage order (up to round-off in circumcentres of cospherical cells), add to
 * the counts in *st, and call sim_positions_changed when they change anything. */
#ifndef PFB_MAO_YANG_RESAMPLE_H
#define PFB_MAO_YANG_RESAMPLE_H

#include <stddef.h>

#include "../core/sim.h"

typedef struct my_resample_params {
    double eps_d;   /* merge distance (m): pairs closer than this are merged (paper: 0.6 D) */
    double r_min;   /* circumradius threshold (m): larger empty circles/spheres get a particle (paper: 0.95 D) */
    double eps_m;   /* smallest mass of an inserted particle (kg) (paper: 0.01 m0) */
    double h;       /* support radius of the cubic-spline kernel of eq. 19 and the radius of the neighbourhood whose convex hull is tested (m) */
    int f_rho;      /* index of the 1-component "density" particle field (rho_j of eq. 19) */
    int whole;      /* 1: triangulate every particle (the solver's default); 0: only those that
                       can be a vertex of a candidate (see mao_yang_resample.c) */
} my_resample_params;

typedef struct my_resample_stats {
    size_t merged;          /* merges done (each removes one particle) */
    size_t triangulated;    /* particles handed to the Delaunay triangulation */
    size_t candidates;      /* Delaunay simplices with r_min < circumradius < h (a larger empty circle has no neighbour within h to insert from) */
    size_t inserted;        /* particles inserted */
    size_t rejected_hull;   /* candidates outside the convex hull of their neighbours (or with too few / degenerate neighbours) */
    size_t rejected_mass;   /* candidates whose eq.-18 mass is below eps_m */
    size_t rejected_close;  /* candidates closer than eps_d to a particle inserted earlier in the same pass */
    size_t rejected_solid;  /* candidates within eps_d / 2 of a rigid body */
    double seconds_delaunay; /* wall time in the Delaunay triangulation and its scan (observed only) */
} my_resample_stats;

/* Down-sampling (§5): merge every pair closer than eps_d. */
int my_downsample(pfb_sim *sim, const my_resample_params *rp, my_resample_stats *st, pfb_err *err);

/* Up-sampling (§5.1–5.3): Delaunay (libqhull_r) + convex-hull rejection + eqs. 18–20. */
int my_upsample(pfb_sim *sim, const my_resample_params *rp, my_resample_stats *st, pfb_err *err);

#endif

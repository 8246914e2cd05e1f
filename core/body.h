/* body.h — rigid bodies shared by all solvers: spheres and boxes in 2D and 3D,
 * integrated under gravity, in contact with the shared boundaries, and with a
 * signed distance for particle collisions.
 *
 * Units follow the particles: in 2D a body is a section of unit depth, so its
 * mass is density x area (kg/m) and its moment of inertia is per unit depth;
 * only the rotation about z exists.  Orientation is a unit quaternion (w, x, y, z)
 * taking body-frame vectors to world vectors (in 2D a rotation about z).  Angular
 * velocity is in the world frame.
 *
 * The signed distance follows the boundaries' convention for obstacles: phi > 0
 * outside the body (where fluid may be), grad phi points out of the body. */
#ifndef PFB_BODY_H
#define PFB_BODY_H

#include <stddef.h>

#include "boundary.h"
#include "error.h"

#define PFB_MAX_BODIES 8

typedef enum pfb_body_type {
    PFB_BODY_SPHERE = 0, /* sphere (disc in 2D), radius */
    PFB_BODY_BOX         /* box with half extents half in the body frame */
} pfb_body_type;

typedef struct pfb_body {
    pfb_body_type type;
    double radius;         /* sphere */
    double half[3];        /* box half extents (body frame); half[2] unused in 2D */
    double density;        /* kg/m^dim */
    double mass;           /* kg (kg/m in 2D) */
    double inertia[3];     /* principal moments in the body frame (2D: inertia[2] about z) */
    double x[3];           /* centre of mass, world */
    double q[4];           /* orientation quaternion (w, x, y, z), body to world */
    double v[3];           /* linear velocity */
    double w[3];           /* angular velocity, world frame (2D: w[2]) */
    double restitution;    /* body-wall contact: normal restitution in [0, 1] */
    double friction;       /* body-wall contact: Coulomb friction coefficient >= 0 */
    /* accumulators of a coupling stage: linear and angular impulse (N s) */
    double imp[3], aimp[3];
} pfb_body;

typedef struct pfb_bodies {
    size_t n;
    pfb_body b[PFB_MAX_BODIES];
} pfb_bodies;

/* A body of the given type, size (radius, or half extents) and density at rest at
 * centre x with the identity orientation: mass and inertia from the solid's
 * volume (area in 2D).  Names a bad size or density. */
int body_init(pfb_body *b, pfb_body_type type, int dim, double radius, const double half[3], double density,
              const double x[3], pfb_err *err);

/* Append a body. */
int bodies_add(pfb_bodies *bs, const pfb_body *b, pfb_err *err);

/* Signed distance of x from the body's surface (> 0 outside); grad gets the unit
 * outward normal. */
double body_sdf(const pfb_body *b, int dim, const double x[3], double grad[3]);

/* Velocity of the body's material point at x: v + w x (x - c). */
void body_velocity_at(const pfb_body *b, int dim, const double x[3], double v[3]);

/* Inverse world inertia tensor R I^-1 R^T (row-major; 2D: only [8] = 1/I_z). */
void body_inv_inertia(const pfb_body *b, int dim, double Iinv[9]);

/* Apply impulse J at world point at: v += J / m, w += I^-1 ((at - c) x J). */
void body_apply_impulse(pfb_body *b, int dim, const double at[3], const double J[3]);

/* Change of the body's velocity at point at, per unit impulse along n, along n:
 * 1/m + n . (I^-1 (r x n)) x r (the inverse effective mass of a contact). */
double body_inv_mass_along(const pfb_body *b, int dim, const double at[3], const double n[3]);

/* Impulse J of an inelastic (restitution e) contact at point at with normal n
 * between the body and another side of inverse mass inv_m (0: a wall), vr being
 * the velocity of the side that receives J relative to the other's, J along n
 * when that side approaches (vr . n < 0; else J = 0): the normal part removes
 * (1 + e) v_n through the effective mass 1 / (inv_m + body_inv_mass_along), plus
 * Coulomb friction against the tangential velocity up to mu times the normal part. */
void body_contact_impulse(const pfb_body *b, int dim, const double at[3], const double n[3], const double vr[3],
                          double inv_m, double e, double mu, double J[3]);

/* Advance the configuration by dt with the current v and w (orientation by the
 * exact rotation of angle |w| dt about w, renormalised). */
void body_advance(pfb_body *b, int dim, double dt);

/* Contacts among bodies and with the shared boundaries at time t, impulse-based
 * (after Guendelman, Bridson and Fedkiw 2003, with simultaneous impulses):
 *  - contact points: a box's corners; a sphere's point nearest a wall, or its
 *    centre tested at phi - radius against another body (two spheres: one
 *    contact on the centre line; box-box contacts are corner-face only, so an
 *    edge crossing an edge in 3D is not seen);
 *  - push-out sweeps (at most 16): a point inside a wall moves its body out
 *    along the wall normal; a point inside another body moves the two apart
 *    along that body's normal in inverse proportion to their masses;
 *  - every touching point (phi below 1e-4 of the body's size) takes part in a
 *    projected Gauss-Seidel solve on accumulated impulses (32 sweeps at most):
 *    the normal impulse, kept >= 0, brings the normal relative velocity to
 *    -e times the approach speed the point had (restitution: the body's against
 *    a wall, the smaller of two bodies'); the tangential one, kept within mu
 *    times it (friction: the body's, or the geometric mean of two), stops the
 *    sliding.  Impulses between bodies are equal and opposite.
 * Returns the touching points. */
int bodies_contact(pfb_bodies *bs, int dim, const pfb_boundaries *walls, double t);

/* bodies_contact for one body and the walls. */
int body_wall_contact(pfb_body *b, int dim, const pfb_boundaries *walls, double t);

/* Kinetic energy, linear plus rotational. */
double body_kinetic_energy(const pfb_body *b, int dim);

#endif

/* boundary.h — analytic signed-distance boundaries shared by all solvers.
 *
 * A shape's signed distance phi is positive in the region the fluid may occupy
 * and negative inside the solid; grad phi (unit where defined) points into the
 * fluid.  A container (`inside` = 1) keeps fluid inside the shape, an obstacle
 * (`inside` = 0) keeps it outside.  Shapes may move rigidly: the centre at time t
 * is c + vel*t + amp*sin(omega*t).  Spheres and cylinders may also spin about
 * their axis through the current centre (n; always z in 2D): spin leaves the SDF
 * of these axisymmetric shapes unchanged and only gives the surface a velocity
 * (shape_velocity_at).  Each solver applies its own paper's response;
 * boundaries_project is the position projection used by SPH back ends. */
#ifndef PFB_BOUNDARY_H
#define PFB_BOUNDARY_H

#include <math.h>
#include <stddef.h>
#include "error.h"

#define PFB_MAX_SHAPES 16

typedef enum pfb_shape_type {
    PFB_SHAPE_PLANE = 0,  /* half-space {(x - c).n >= 0} is fluid */
    PFB_SHAPE_BOX,        /* axis-aligned box, centre c, half extents half */
    PFB_SHAPE_SPHERE,     /* sphere (circle in 2D), centre c, radius */
    PFB_SHAPE_CYLINDER    /* axis n through c, radius, half length (0 = infinite); 2D: its section by z = 0 */
} pfb_shape_type;

typedef struct pfb_shape {
    pfb_shape_type type;
    int inside;           /* 1 container (fluid inside), 0 obstacle (fluid outside) */
    double c[3];          /* centre, or a point of the plane, at t = 0 */
    double n[3];          /* plane normal into the fluid, or cylinder axis (unit) */
    double half[3];       /* box half extents */
    double radius;        /* sphere, cylinder */
    double half_len;      /* cylinder half length, 0 = infinite */
    double vel[3];        /* constant translation velocity */
    double amp[3];        /* oscillation amplitude */
    double omega;         /* oscillation angular frequency (rad/s) */
    double spin;          /* angular velocity (rad/s, right-handed) about the axis n through the
                             current centre; spheres and cylinders only (n unit when spin != 0);
                             2D: about z, whatever n (a circle spinning in the plane; so in 2D
                             spin suits spheres and cylinders along z, whose sections are circles) */
    int heated;           /* 1: the wall holds the temperature below (thermal solvers) */
    double temperature;   /* wall temperature (solver's temperature units) when heated */
} pfb_shape;

typedef struct pfb_boundaries {
    size_t n;
    pfb_shape s[PFB_MAX_SHAPES];
} pfb_boundaries;

/* Centre (or plane point) of shape s at time t: c + vel t + amp sin(omega t). */
void shape_centre(const pfb_shape *s, double t, double c[3]);

/* Solid-geometry signed distance of p from the axis-aligned box [-half, half] centred
 * at the origin (negative inside; dim 2 ignores z); grad gets its unit gradient. */
double shape_box_sdf(const double p[3], const double half[3], int dim, double grad[3]);

/* Signed distance of x from shape s at time t (dim 2 ignores z); grad gets the unit normal into the fluid. */
double shape_sdf(const pfb_shape *s, int dim, double t, const double x[3], double grad[3]);

/* Velocity of the (rigidly moving) shape at time t: translation and oscillation, no spin. */
void shape_velocity(const pfb_shape *s, double t, double v[3]);

/* Velocity at time t of the shape's rigid motion at point x: shape_velocity plus
 * spin n x (x - c(t)) (2D: spin (-(y - cy), x - cx, 0)); equal to shape_velocity,
 * bit for bit, when spin is 0. */
void shape_velocity_at(const pfb_shape *s, int dim, double t, const double x[3], double v[3]);

/* 1 if x is surely at phi >= margin from shape s, whose centre at t is c, so
 * that boundaries_project would not touch it for this shape; 0 if it may be
 * closer (dim 2 ignores x2).  Planes and box containers only (the tanks);
 * other shapes answer 0.
 * phi is computed with exactly shape_sdf's operations (the same p, the same
 * sums, shape_centre's c), so the answer is exact, not a tolerance.
 * shape_clear4 below is its four-lane twin (AVX2). */
static inline int shape_clear(const pfb_shape *s, int dim, const double c[3], double x0, double x1, double x2,
                              double margin)
{
    /* (the coordinates as scalars: an array filled lane by lane and read as a
     * vector stalls on store forwarding) */
    const double p[3] = {x0 - c[0], x1 - c[1], dim == 3 ? x2 - c[2] : -c[2]};
    if (s->type == PFB_SHAPE_PLANE) {
        const double sdf = p[0] * s->n[0] + p[1] * s->n[1] + p[2] * s->n[2];
        return !((s->inside ? -sdf : sdf) < margin);
    }
    if (s->type == PFB_SHAPE_BOX && s->inside) {
        /* inside the box (every q <= 0) shape_box_sdf returns the largest q */
        double inmax = -INFINITY;
        for (int k = 0; k < dim; k++) {
            const double q = fabs(p[k]) - s->half[k];
            if (!(q <= 0))
                return 0;
            inmax = q > inmax ? q : inmax;
        }
        return !(-inmax < margin);
    }
    return 0;
}

/* Whether shape_clear4 decides s: the shapes shape_clear can clear. */
static inline int shape_clear4_decides(const pfb_shape *s)
{
    return s->type == PFB_SHAPE_PLANE || (s->type == PFB_SHAPE_BOX && s->inside);
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define PFB_HAVE_CLEAR4 1
/* shape_clear in 3D for the four points (x0, x1, x2) lane by lane (AVX2), for
 * a shape shape_clear4_decides: all ones in a lane where shape_clear answers
 * 1.  The same operations on each lane (no FMA) and the same comparisons,
 * negated the same way, so a NaN is never clear: the same answers, bit for
 * bit; a change to one of the two is a change to both. */
__attribute__((target("avx2"))) static inline __m256d shape_clear4(const pfb_shape *s, const double c[3], __m256d x0,
                                                                  __m256d x1, __m256d x2, double margin)
{
    const __m256d SIGN = _mm256_set1_pd(-0.0), MARGIN = _mm256_set1_pd(margin);
    const __m256d p0 = _mm256_sub_pd(x0, _mm256_set1_pd(c[0])), p1 = _mm256_sub_pd(x1, _mm256_set1_pd(c[1])),
                  p2 = _mm256_sub_pd(x2, _mm256_set1_pd(c[2]));
    if (s->type == PFB_SHAPE_PLANE) { /* !((inside ? -sdf : sdf) < margin) */
        __m256d sdf = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(p0, _mm256_set1_pd(s->n[0])),
                                                  _mm256_mul_pd(p1, _mm256_set1_pd(s->n[1]))),
                                    _mm256_mul_pd(p2, _mm256_set1_pd(s->n[2])));
        if (s->inside)
            sdf = _mm256_xor_pd(sdf, SIGN);
        return _mm256_cmp_pd(sdf, MARGIN, _CMP_NLT_UQ);
    }
    /* a containing box: every q <= 0 and !(-max q < margin) */
    const __m256d ZERO = _mm256_setzero_pd();
    const __m256d q0 = _mm256_sub_pd(_mm256_andnot_pd(SIGN, p0), _mm256_set1_pd(s->half[0])),
                  q1 = _mm256_sub_pd(_mm256_andnot_pd(SIGN, p1), _mm256_set1_pd(s->half[1])),
                  q2 = _mm256_sub_pd(_mm256_andnot_pd(SIGN, p2), _mm256_set1_pd(s->half[2]));
    const __m256d in = _mm256_and_pd(_mm256_and_pd(_mm256_cmp_pd(q0, ZERO, _CMP_LE_OQ), _mm256_cmp_pd(q1, ZERO, _CMP_LE_OQ)),
                                     _mm256_cmp_pd(q2, ZERO, _CMP_LE_OQ));
    const __m256d qmax = _mm256_max_pd(_mm256_max_pd(q0, q1), q2);
    return _mm256_and_pd(in, _mm256_cmp_pd(_mm256_xor_pd(qmax, SIGN), MARGIN, _CMP_NLT_UQ));
}
#endif

/* Check a shape's parameters (positive sizes, unit normal, spin only on spheres and
 * cylinders, a unit sphere axis when it spins); names the bad value. */
int shape_validate(const pfb_shape *s, pfb_err *err);

/* Append a shape to the set. */
int boundaries_add(pfb_boundaries *b, const pfb_shape *s, pfb_err *err);

/* Smallest signed distance over all shapes; grad and *which (may be NULL) of that shape. */
double boundaries_sdf(const pfb_boundaries *b, int dim, double t, const double x[3], double grad[3],
                      size_t *which);

/* SPH position projection: moves x out of every shape it penetrates by more than
 * -margin (phi < margin, less 1e-9 margin: a point within rounding of the
 * margin is on it, so a projected point is not moved again), onto phi =
 * margin, and removes the velocity component
 * into the wall relative to the wall's velocity (restitution e in [0,1] reflects
 * it, friction f in [0,1] scales the relative tangential velocity by 1 - f).  The
 * wall's velocity is shape_velocity_at the projected position (spin included).
 * Returns 1 if x was moved. */
int boundaries_project(const pfb_boundaries *b, int dim, double t, double margin, double e,
                       double f, double x[3], double v[3]);

/* boundaries_project with every shape's centre c[i] and velocity vel[i] at its
 * time given (shape_centre, shape_velocity): the same bits, for a caller that
 * projects many points at one time and computes them once. */
int boundaries_project_at(const pfb_boundaries *b, int dim, const double (*c)[3], const double (*vel)[3],
                          double margin, double e, double f, double x[3], double v[3]);

#endif

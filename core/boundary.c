/* boundary.c — analytic signed distances of planes, boxes, spheres and cylinders.
 *
 * Each shape is first measured with the solid-geometry convention (sdf < 0 inside
 * the shape), then oriented: a container returns -sdf, an obstacle +sdf, so that
 * phi > 0 is always where fluid may be.  2D evaluates the same formulas with z = 0,
 * i.e. on the section of the shape by the plane z = 0.  Spin (spheres and
 * cylinders) enters only the surface velocity, shape_velocity_at. */
#include "boundary.h"

#include <math.h>
#include <string.h>

void shape_centre(const pfb_shape *s, double t, double c[3])
{
    /* no sine for a still axis (amp 0): the step's wall projection calls this per
     * particle and shape */
    for (int k = 0; k < 3; k++)
        c[k] = s->c[k] + s->vel[k] * t + (s->amp[k] != 0.0 ? s->amp[k] * sin(s->omega * t) : 0.0);
}

void shape_velocity(const pfb_shape *s, double t, double v[3])
{
    for (int k = 0; k < 3; k++)
        v[k] = s->vel[k] + (s->amp[k] != 0.0 ? s->amp[k] * s->omega * cos(s->omega * t) : 0.0);
}

/* shape_velocity_at with the shape's centre c and velocity vel at its time given. */
static inline void velocity_at(const pfb_shape *s, int dim, const double c[3], const double vel[3], const double x[3],
                               double v[3])
{
    for (int k = 0; k < 3; k++)
        v[k] = vel[k];
    if (s->spin == 0.0) /* skipped, not added as zero: bit for bit shape_velocity (x may be inf) */
        return;
    double r[3];
    for (int k = 0; k < 3; k++)
        r[k] = x[k] - c[k];
    if (dim == 2) { /* about z: a circle spinning in the plane */
        v[0] += -s->spin * r[1];
        v[1] += s->spin * r[0];
        return;
    }
    const double *a = s->n; /* spin a x r; the part of r along a drops out */
    v[0] += s->spin * (a[1] * r[2] - a[2] * r[1]);
    v[1] += s->spin * (a[2] * r[0] - a[0] * r[2]);
    v[2] += s->spin * (a[0] * r[1] - a[1] * r[0]);
}

void shape_velocity_at(const pfb_shape *s, int dim, double t, const double x[3], double v[3])
{
    double c[3], vel[3];
    shape_velocity(s, t, vel);
    if (s->spin != 0.0)
        shape_centre(s, t, c);
    else
        c[0] = c[1] = c[2] = 0.0; /* (not read) */
    velocity_at(s, dim, c, vel, x, v);
}

double shape_box_sdf(const double p[3], const double half[3], int dim, double grad[3])
{
    double q[3] = {0, 0, 0}, out2 = 0.0, inmax = -INFINITY;
    int kmax = 0;
    for (int k = 0; k < dim; k++) {
        q[k] = fabs(p[k]) - half[k];
        if (q[k] > 0)
            out2 += q[k] * q[k];
        if (q[k] > inmax) {
            inmax = q[k];
            kmax = k;
        }
    }
    grad[0] = grad[1] = grad[2] = 0.0;
    if (out2 > 0) {
        double d = sqrt(out2);
        for (int k = 0; k < dim; k++)
            grad[k] = q[k] > 0 ? copysign(q[k] / d, p[k]) : 0.0;
        return d;
    }
    grad[kmax] = copysign(1.0, p[kmax]);
    return inmax;
}

/* shape_sdf with the shape's centre c at its time given. */
static inline double sdf_at(const pfb_shape *s, int dim, const double c[3], const double x[3], double grad[3])
{
    double p[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        p[k] = x[k] - c[k];
    if (dim == 2)
        p[2] = -c[2];
    double sdf;
    switch (s->type) {
    case PFB_SHAPE_PLANE:
        /* the half-space behind the plane is solid: sdf = p.n, negative behind */
        sdf = p[0] * s->n[0] + p[1] * s->n[1] + p[2] * s->n[2];
        for (int k = 0; k < 3; k++)
            grad[k] = s->n[k];
        break;
    case PFB_SHAPE_BOX:
        sdf = shape_box_sdf(p, s->half, dim, grad);
        break;
    case PFB_SHAPE_SPHERE: {
        double r = sqrt(p[0] * p[0] + p[1] * p[1] + (dim == 3 ? p[2] * p[2] : 0.0));
        grad[0] = grad[1] = grad[2] = 0.0;
        if (r > 0)
            for (int k = 0; k < dim; k++)
                grad[k] = p[k] / r;
        else
            grad[1] = 1.0;
        sdf = r - s->radius;
        break;
    }
    case PFB_SHAPE_CYLINDER: {
        const double *a = s->n;
        double along = p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
        double rv[3], rr = 0.0;
        for (int k = 0; k < 3; k++) {
            rv[k] = p[k] - along * a[k];
            rr += rv[k] * rv[k];
        }
        rr = sqrt(rr);
        double er[3] = {0, 0, 0};
        if (rr > 0)
            for (int k = 0; k < 3; k++)
                er[k] = rv[k] / rr;
        else
            er[(fabs(a[0]) < 0.9) ? 0 : 1] = 1.0;
        double drad = rr - s->radius;
        if (s->half_len <= 0) {
            sdf = drad;
            memcpy(grad, er, sizeof er);
        } else {
            /* capped: a 2D box in (radial, axial) coordinates */
            double q2[3] = {rr, along, 0}, h2[3] = {s->radius, s->half_len, 0}, g2[3];
            sdf = shape_box_sdf(q2, h2, 2, g2);
            for (int k = 0; k < 3; k++)
                grad[k] = g2[0] * er[k] + g2[1] * a[k];
        }
        break;
    }
    default:
        grad[0] = grad[1] = grad[2] = 0.0;
        return INFINITY;
    }
    if (dim == 2)
        grad[2] = 0.0;
    if (s->inside) {
        for (int k = 0; k < 3; k++)
            grad[k] = -grad[k];
        return -sdf;
    }
    return sdf;
}

double shape_sdf(const pfb_shape *s, int dim, double t, const double x[3], double grad[3])
{
    double c[3];
    shape_centre(s, t, c);
    return sdf_at(s, dim, c, x, grad);
}

int shape_validate(const pfb_shape *s, pfb_err *err)
{
    static const char *names[] = {"plane", "box", "sphere", "cylinder"};
    if ((int)s->type < 0 || s->type > PFB_SHAPE_CYLINDER)
        return pfb_err_set(err, PFB_EINVAL, "shape type %d is invalid; valid: plane, box, sphere, cylinder",
                           (int)s->type);
    const char *nm = names[s->type];
    if (s->type == PFB_SHAPE_PLANE || s->type == PFB_SHAPE_BOX) {
        if (s->spin != 0.0)
            return pfb_err_set(err, PFB_EINVAL, "%s spin is %g rad/s; valid: 0 (only spheres and cylinders spin)",
                               nm, s->spin);
    } else if (!isfinite(s->spin)) {
        return pfb_err_set(err, PFB_EINVAL, "%s spin is %g rad/s; valid: finite", nm, s->spin);
    }
    if (s->type == PFB_SHAPE_PLANE || s->type == PFB_SHAPE_CYLINDER ||
        (s->type == PFB_SHAPE_SPHERE && s->spin != 0.0)) {
        double nn = s->n[0] * s->n[0] + s->n[1] * s->n[1] + s->n[2] * s->n[2];
        if (!(fabs(nn - 1.0) < 1e-9))
            return pfb_err_set(err, PFB_EINVAL, "%s direction has length %g; valid: a unit vector%s", nm,
                               sqrt(nn), s->type == PFB_SHAPE_SPHERE ? " (the spin axis of a spinning sphere)" : "");
    }
    if (s->type == PFB_SHAPE_BOX)
        for (int k = 0; k < 3; k++)
            if (!(s->half[k] > 0) || !isfinite(s->half[k]))
                return pfb_err_set(err, PFB_EINVAL, "box half extent %d is %g; valid: positive and finite",
                                   k, s->half[k]);
    if ((s->type == PFB_SHAPE_SPHERE || s->type == PFB_SHAPE_CYLINDER) &&
        (!(s->radius > 0) || !isfinite(s->radius)))
        return pfb_err_set(err, PFB_EINVAL, "%s radius is %g; valid: positive and finite", nm, s->radius);
    if (s->type == PFB_SHAPE_CYLINDER && (!(s->half_len >= 0) || !isfinite(s->half_len)))
        return pfb_err_set(err, PFB_EINVAL, "cylinder half length is %g; valid: 0 (infinite) or positive",
                           s->half_len);
    return PFB_OK;
}

int boundaries_add(pfb_boundaries *b, const pfb_shape *s, pfb_err *err)
{
    int rc = shape_validate(s, err);
    if (rc)
        return rc;
    if (b->n >= PFB_MAX_SHAPES)
        return pfb_err_set(err, PFB_EINVAL, "too many boundary shapes; at most %d", PFB_MAX_SHAPES);
    b->s[b->n++] = *s;
    return PFB_OK;
}

double boundaries_sdf(const pfb_boundaries *b, int dim, double t, const double x[3], double grad[3],
                      size_t *which)
{
    double best = INFINITY, g[3];
    grad[0] = grad[1] = grad[2] = 0.0;
    for (size_t i = 0; i < b->n; i++) {
        double d = shape_sdf(&b->s[i], dim, t, x, g);
        if (d < best) {
            best = d;
            memcpy(grad, g, sizeof g);
            if (which)
                *which = i;
        }
    }
    return best;
}

int boundaries_project(const pfb_boundaries *b, int dim, double t, double margin, double e,
                       double f, double x[3], double v[3])
{
    double c[PFB_MAX_SHAPES][3], vel[PFB_MAX_SHAPES][3];
    for (size_t i = 0; i < b->n; i++) {
        shape_centre(&b->s[i], t, c[i]);
        shape_velocity(&b->s[i], t, vel[i]);
    }
    return boundaries_project_at(b, dim, (const double(*)[3])c, (const double(*)[3])vel, margin, e, f, x, v);
}

int boundaries_project_at(const pfb_boundaries *b, int dim, const double (*c)[3], const double (*vel)[3],
                          double margin, double e, double f, double x[3], double v[3])
{
    int moved = 0;
    /* a point within 1e-9 margin below the margin counts as on it: a projection
     * lands on phi = margin only to rounding, and a next sweep finding it an ulp
     * short moved it again by an ulp, so that nearly every projected point took
     * all dim + 1 sweeps (3D dam break: 96% of them) */
    const double lim = margin - 1e-9 * fabs(margin);
    /* sweep until nothing moves: leaving one wall near a corner can enter another,
     * and beyond a box corner the first step (along the corner normal) lands in the
     * margin band, which then takes one step per axis: dim + 1 sweeps */
    for (int sweep = 0; sweep < dim + 1; sweep++) {
        int moved_now = 0;
        for (size_t i = 0; i < b->n; i++) {
            double g[3], vw[3];
            double phi = sdf_at(&b->s[i], dim, c[i], x, g);
            if (!(phi < lim))
                continue;
            moved = moved_now = 1;
            for (int k = 0; k < dim; k++)
                x[k] += (margin - phi) * g[k];
            velocity_at(&b->s[i], dim, c[i], vel[i], x, vw); /* at the projected position */
            double vn = 0.0;
            for (int k = 0; k < dim; k++)
                vn += (v[k] - vw[k]) * g[k];
            if (vn < 0) {
                for (int k = 0; k < dim; k++) {
                    double vr = v[k] - vw[k];
                    double vt = vr - vn * g[k];
                    v[k] = vw[k] + (1.0 - f) * vt - e * vn * g[k];
                }
            }
        }
        if (!moved_now)
            break;
    }
    return moved;
}

/* body.c — rigid bodies: mass properties, signed distance, impulses, integration
 * and impulse-based contact with the shared boundaries (see body.h). */
#include "body.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Rotation matrix (row-major) of the unit quaternion q. */
static void quat_matrix(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y - w * z);
    R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);
    R[7] = 2 * (y * z + w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

static void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

int body_init(pfb_body *b, pfb_body_type type, int dim, double radius, const double half[3], double density,
              const double x[3], pfb_err *err)
{
    memset(b, 0, sizeof *b);
    if (dim != 2 && dim != 3)
        return pfb_err_set(err, PFB_EINVAL, "body dimension %d is invalid; valid: 2 or 3", dim);
    if (!(density > 0) || !isfinite(density))
        return pfb_err_set(err, PFB_EINVAL, "body density %g is invalid; valid: finite and > 0", density);
    b->type = type;
    b->density = density;
    b->q[0] = 1.0;
    for (int k = 0; k < 3; k++)
        b->x[k] = k < dim ? x[k] : 0.0;
    if (type == PFB_BODY_SPHERE) {
        if (!(radius > 0) || !isfinite(radius))
            return pfb_err_set(err, PFB_EINVAL, "body radius %g is invalid; valid: finite and > 0", radius);
        b->radius = radius;
        if (dim == 3) {
            b->mass = density * 4.0 / 3.0 * M_PI * radius * radius * radius;
            b->inertia[0] = b->inertia[1] = b->inertia[2] = 0.4 * b->mass * radius * radius;
        } else {
            b->mass = density * M_PI * radius * radius;
            b->inertia[2] = 0.5 * b->mass * radius * radius;
        }
    } else if (type == PFB_BODY_BOX) {
        for (int k = 0; k < dim; k++)
            if (!(half[k] > 0) || !isfinite(half[k]))
                return pfb_err_set(err, PFB_EINVAL, "body half extent %d = %g is invalid; valid: finite and > 0", k,
                                   half[k]);
        for (int k = 0; k < 3; k++)
            b->half[k] = k < dim ? half[k] : 0.0;
        double a = half[0], c = half[1];
        if (dim == 3) {
            double d = half[2];
            b->mass = density * 8.0 * a * c * d;
            b->inertia[0] = b->mass * (c * c + d * d) / 3.0;
            b->inertia[1] = b->mass * (a * a + d * d) / 3.0;
            b->inertia[2] = b->mass * (a * a + c * c) / 3.0;
        } else {
            b->mass = density * 4.0 * a * c;
            b->inertia[2] = b->mass * (a * a + c * c) / 3.0;
        }
    } else {
        return pfb_err_set(err, PFB_EINVAL, "body type %d is unknown; valid: 0 (sphere), 1 (box)", (int)type);
    }
    return PFB_OK;
}

int bodies_add(pfb_bodies *bs, const pfb_body *b, pfb_err *err)
{
    if (bs->n >= PFB_MAX_BODIES)
        return pfb_err_set(err, PFB_EINVAL, "too many bodies (%zu); valid: at most %d", bs->n + 1, PFB_MAX_BODIES);
    bs->b[bs->n++] = *b;
    return PFB_OK;
}

double body_sdf(const pfb_body *b, int dim, const double x[3], double grad[3])
{
    double r[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        r[k] = x[k] - b->x[k];
    if (b->type == PFB_BODY_SPHERE) {
        double d = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        grad[0] = grad[1] = grad[2] = 0.0;
        if (d > 0)
            for (int k = 0; k < dim; k++)
                grad[k] = r[k] / d;
        else
            grad[1] = 1.0;
        return d - b->radius;
    }
    /* box: into the body frame, the box SDF there, the gradient back */
    double R[9], p[3], gl[3];
    quat_matrix(b->q, R);
    for (int a = 0; a < 3; a++)
        p[a] = R[a] * r[0] + R[3 + a] * r[1] + R[6 + a] * r[2]; /* R^T r */
    if (dim == 2)
        p[2] = 0.0;
    double d = shape_box_sdf(p, b->half, dim, gl);
    for (int a = 0; a < 3; a++)
        grad[a] = R[3 * a] * gl[0] + R[3 * a + 1] * gl[1] + R[3 * a + 2] * gl[2];
    if (dim == 2)
        grad[2] = 0.0;
    return d;
}

void body_velocity_at(const pfb_body *b, int dim, const double x[3], double v[3])
{
    double r[3] = {0, 0, 0}, wr[3];
    for (int k = 0; k < dim; k++)
        r[k] = x[k] - b->x[k];
    cross(b->w, r, wr);
    for (int k = 0; k < 3; k++)
        v[k] = k < dim ? b->v[k] + wr[k] : 0.0;
}

void body_inv_inertia(const pfb_body *b, int dim, double Iinv[9])
{
    memset(Iinv, 0, 9 * sizeof *Iinv);
    if (dim == 2) {
        Iinv[8] = 1.0 / b->inertia[2];
        return;
    }
    double R[9];
    quat_matrix(b->q, R);
    for (int a = 0; a < 3; a++)
        for (int c = 0; c < 3; c++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++)
                s += R[3 * a + k] * R[3 * c + k] / b->inertia[k];
            Iinv[3 * a + c] = s;
        }
}

void body_apply_impulse(pfb_body *b, int dim, const double at[3], const double J[3])
{
    double r[3] = {0, 0, 0}, Jd[3] = {0, 0, 0}, L[3], Iinv[9];
    for (int k = 0; k < dim; k++) {
        r[k] = at[k] - b->x[k];
        Jd[k] = J[k];
        b->v[k] += J[k] / b->mass;
    }
    cross(r, Jd, L);
    body_inv_inertia(b, dim, Iinv);
    for (int a = 0; a < 3; a++)
        b->w[a] += Iinv[3 * a] * L[0] + Iinv[3 * a + 1] * L[1] + Iinv[3 * a + 2] * L[2];
    if (dim == 2)
        b->w[0] = b->w[1] = 0.0;
}

double body_inv_mass_along(const pfb_body *b, int dim, const double at[3], const double n[3])
{
    double r[3] = {0, 0, 0}, nd[3] = {0, 0, 0}, rn[3], Irn[3], c[3], Iinv[9];
    for (int k = 0; k < dim; k++) {
        r[k] = at[k] - b->x[k];
        nd[k] = n[k];
    }
    cross(r, nd, rn);
    body_inv_inertia(b, dim, Iinv);
    for (int a = 0; a < 3; a++)
        Irn[a] = Iinv[3 * a] * rn[0] + Iinv[3 * a + 1] * rn[1] + Iinv[3 * a + 2] * rn[2];
    cross(Irn, r, c);
    return 1.0 / b->mass + c[0] * nd[0] + c[1] * nd[1] + c[2] * nd[2];
}

void body_advance(pfb_body *b, int dim, double dt)
{
    for (int k = 0; k < dim; k++)
        b->x[k] += dt * b->v[k];
    double w[3] = {dim == 3 ? b->w[0] : 0.0, dim == 3 ? b->w[1] : 0.0, b->w[2]};
    double wn = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    if (!(wn > 0))
        return;
    double ang = wn * dt, s = sin(0.5 * ang) / wn;
    double dq[4] = {cos(0.5 * ang), s * w[0], s * w[1], s * w[2]};
    const double *q = b->q;
    double nq[4] = {dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
                    dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
                    dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
                    dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
    double qn = sqrt(nq[0] * nq[0] + nq[1] * nq[1] + nq[2] * nq[2] + nq[3] * nq[3]);
    for (int k = 0; k < 4; k++)
        b->q[k] = nq[k] / qn;
}

void body_contact_impulse(const pfb_body *b, int dim, const double at[3], const double n[3], const double vr[3],
                          double inv_m, double e, double mu, double J[3])
{
    double vn = 0.0, vt[3] = {0, 0, 0}, vtn = 0.0;
    J[0] = J[1] = J[2] = 0.0;
    for (int k = 0; k < dim; k++)
        vn += vr[k] * n[k];
    if (vn >= 0)
        return;
    double jn = -(1.0 + e) * vn / (inv_m + body_inv_mass_along(b, dim, at, n));
    for (int k = 0; k < dim; k++) {
        J[k] = jn * n[k];
        vt[k] = vr[k] - vn * n[k];
        vtn += vt[k] * vt[k];
    }
    vtn = sqrt(vtn);
    if (!(vtn > 0) || !(mu > 0))
        return;
    double tt[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++)
        tt[k] = vt[k] / vtn;
    double jt = fmin(mu * jn, vtn / (inv_m + body_inv_mass_along(b, dim, at, tt)));
    for (int k = 0; k < dim; k++)
        J[k] -= jt * tt[k];
}

/* A box's corners in the world frame (4 in 2D, 8 in 3D); returns their number. */
static int box_corners(const pfb_body *b, int dim, double pts[8][3])
{
    double R[9];
    quat_matrix(b->q, R);
    int nc = dim == 3 ? 8 : 4;
    for (int c = 0; c < nc; c++) {
        double l[3] = {(c & 1 ? 1 : -1) * b->half[0], (c & 2 ? 1 : -1) * b->half[1],
                       dim == 3 ? (c & 4 ? 1 : -1) * b->half[2] : 0.0};
        for (int a = 0; a < 3; a++)
            pts[c][a] = a < dim ? b->x[a] + R[3 * a] * l[0] + R[3 * a + 1] * l[1] + R[3 * a + 2] * l[2] : 0.0;
    }
    return nc;
}

/* Contact points of the body against one wall: the sphere's point nearest the
 * wall, or the box's corners.  Returns their number. */
static int contact_points(const pfb_body *b, int dim, const pfb_shape *wall, double t, double pts[8][3])
{
    if (b->type == PFB_BODY_SPHERE) {
        double n[3];
        shape_sdf(wall, dim, t, b->x, n);
        for (int k = 0; k < 3; k++)
            pts[0][k] = k < dim ? b->x[k] - b->radius * n[k] : 0.0;
        return 1;
    }
    return box_corners(b, dim, pts);
}

/* A contact point within slop of a surface is touching: it gets velocity
 * impulses (after a push-out it sits at phi = 0 up to round-off). */
static double body_slop(const pfb_body *b)
{
    return 1e-4 * (b->type == PFB_BODY_SPHERE ? b->radius : b->half[0] + b->half[1]);
}

/* Contact points of body a against body o: a sphere's centre (tested at
 * phi_o - radius), a box's corners.  Returns their number; r gets the amount
 * by which each point's distance is reduced (the radius, or 0). */
static int pair_points(const pfb_body *a, int dim, double pts[8][3], double *r)
{
    if (a->type == PFB_BODY_SPHERE) {
        memcpy(pts[0], a->x, sizeof pts[0]);
        *r = a->radius;
        return 1;
    }
    *r = 0.0;
    return box_corners(a, dim, pts);
}

/* Whether the ordered pair (i, j) is tested: both orders, except two spheres
 * (the centre line is one contact). */
static int pair_tested(const pfb_bodies *bs, size_t i, size_t j)
{
    if (i == j)
        return 0;
    return !(bs->b[i].type == PFB_BODY_SPHERE && bs->b[j].type == PFB_BODY_SPHERE && j < i);
}

/* Signed distance of contact point c of body a from wall w (o < 0) or from body
 * o, with the contact's normal n (out of the other side, towards a) and the
 * point on a's surface at. */
static double contact_phi(const pfb_bodies *bs, int dim, const pfb_boundaries *walls, double t, size_t a, long o,
                          int c, double n[3], double at[3])
{
    const pfb_body *A = &bs->b[a];
    double pts[8][3], rad, phi;
    if (o < 0) {
        contact_points(A, dim, &walls->s[-o - 1], t, pts);
        phi = shape_sdf(&walls->s[-o - 1], dim, t, pts[c], n);
        memcpy(at, pts[c], sizeof pts[c]);
        return phi;
    }
    pair_points(A, dim, pts, &rad);
    phi = body_sdf(&bs->b[o], dim, pts[c], n) - rad;
    for (int k = 0; k < 3; k++)
        at[k] = k < dim ? pts[c][k] - rad * n[k] : 0.0;
    return phi;
}

/* Push-out sweeps: every contact point inside the other side moves out along
 * the normal (a wall takes nothing; two bodies share the move in inverse
 * proportion to their masses, which keeps their centre of mass). */
static void push_out(pfb_bodies *bs, int dim, const pfb_boundaries *walls, double t)
{
    for (int pass = 0; pass < 16; pass++) {
        int moved = 0;
        for (size_t a = 0; a < bs->n; a++) {
            pfb_body *A = &bs->b[a];
            const int np = A->type == PFB_BODY_SPHERE ? 1 : dim == 3 ? 8 : 4;
            for (long o = -(long)walls->n; o < (long)bs->n; o++) {
                if (o >= 0 && !pair_tested(bs, a, (size_t)o))
                    continue;
                for (int c = 0; c < np; c++) {
                    double n[3], at[3];
                    double phi = contact_phi(bs, dim, walls, t, a, o, c, n, at);
                    if (phi >= 0)
                        continue;
                    moved = 1;
                    double wa = o < 0 ? 1.0 : bs->b[o].mass / (A->mass + bs->b[o].mass);
                    for (int k = 0; k < dim; k++) {
                        A->x[k] -= wa * phi * n[k];
                        if (o >= 0)
                            bs->b[o].x[k] += (1.0 - wa) * phi * n[k];
                    }
                }
            }
        }
        if (!moved)
            break;
    }
}

typedef struct body_contact {
    size_t a;
    long o;              /* other body, or -(wall + 1) */
    double at[3], n[3];
    double target;       /* normal relative velocity to reach: -e v_n at first touch */
    double lam, jt[3];   /* accumulated normal and tangential impulses */
    double e, mu;
} body_contact;

/* Velocity of side o (a wall, or a body) at x. */
static void other_velocity(const pfb_bodies *bs, int dim, const pfb_boundaries *walls, double t, long o,
                           const double x[3], double v[3])
{
    if (o < 0)
        shape_velocity_at(&walls->s[-o - 1], dim, t, x, v);
    else
        body_velocity_at(&bs->b[o], dim, x, v);
}

/* Apply impulse J to a and -J to o at x. */
static void contact_apply(pfb_bodies *bs, int dim, const body_contact *c, const double J[3])
{
    body_apply_impulse(&bs->b[c->a], dim, c->at, J);
    if (c->o >= 0) {
        double Jo[3] = {-J[0], -J[1], -J[2]};
        body_apply_impulse(&bs->b[c->o], dim, c->at, Jo);
    }
}

static double contact_inv_mass(const pfb_bodies *bs, int dim, const body_contact *c, const double d[3])
{
    double k = body_inv_mass_along(&bs->b[c->a], dim, c->at, d);
    return c->o >= 0 ? k + body_inv_mass_along(&bs->b[c->o], dim, c->at, d) : k;
}

#define CONTACT_MAX (PFB_MAX_BODIES * 8 * (PFB_MAX_SHAPES + PFB_MAX_BODIES))
#define CONTACT_ITERATIONS 32

int bodies_contact(pfb_bodies *bs, int dim, const pfb_boundaries *walls, double t)
{
    if (bs->n == 0)
        return 0;
    push_out(bs, dim, walls, t);
    /* the touching points, with the approach speed they had */
    static _Thread_local body_contact cs[CONTACT_MAX];
    int nc = 0;
    for (size_t a = 0; a < bs->n; a++) {
        const pfb_body *A = &bs->b[a];
        const int np = A->type == PFB_BODY_SPHERE ? 1 : dim == 3 ? 8 : 4;
        for (long o = -(long)walls->n; o < (long)bs->n; o++) {
            if (o >= 0 && !pair_tested(bs, a, (size_t)o))
                continue;
            const double slop = o < 0 ? body_slop(A) : fmax(body_slop(A), body_slop(&bs->b[o]));
            for (int c = 0; c < np && nc < CONTACT_MAX; c++) {
                body_contact *k = &cs[nc];
                memset(k, 0, sizeof *k);
                if (contact_phi(bs, dim, walls, t, a, o, c, k->n, k->at) >= slop)
                    continue;
                k->a = a;
                k->o = o;
                k->e = o < 0 ? A->restitution : fmin(A->restitution, bs->b[o].restitution);
                k->mu = o < 0 ? A->friction : sqrt(A->friction * bs->b[o].friction);
                double va[3], vo[3], vn = 0.0;
                body_velocity_at(A, dim, k->at, va);
                other_velocity(bs, dim, walls, t, o, k->at, vo);
                for (int d = 0; d < dim; d++)
                    vn += (va[d] - vo[d]) * k->n[d];
                k->target = vn < 0 ? -k->e * vn : 0.0;
                nc++;
            }
        }
    }
    /* projected Gauss-Seidel on the accumulated impulses: each normal impulse
     * stays >= 0, each tangential one within mu times it, so the contacts act
     * together (a resting stack) and not one after another */
    for (int it = 0; it < CONTACT_ITERATIONS; it++) {
        double change = 0.0;
        for (int q = 0; q < nc; q++) {
            body_contact *k = &cs[q];
            double va[3], vo[3], vr[3] = {0, 0, 0}, vn = 0.0;
            body_velocity_at(&bs->b[k->a], dim, k->at, va);
            other_velocity(bs, dim, walls, t, k->o, k->at, vo);
            for (int d = 0; d < dim; d++) {
                vr[d] = va[d] - vo[d];
                vn += vr[d] * k->n[d];
            }
            double lam = fmax(k->lam + (k->target - vn) / contact_inv_mass(bs, dim, k, k->n), 0.0);
            double J[3] = {0, 0, 0};
            for (int d = 0; d < dim; d++)
                J[d] = (lam - k->lam) * k->n[d];
            change = fmax(change, fabs(lam - k->lam));
            k->lam = lam;
            contact_apply(bs, dim, k, J);
            if (!(k->mu > 0))
                continue;
            /* friction against the tangential velocity after the normal impulse */
            body_velocity_at(&bs->b[k->a], dim, k->at, va);
            other_velocity(bs, dim, walls, t, k->o, k->at, vo);
            double vt[3] = {0, 0, 0}, vtn = 0.0;
            vn = 0.0;
            for (int d = 0; d < dim; d++)
                vn += (va[d] - vo[d]) * k->n[d];
            for (int d = 0; d < dim; d++) {
                vt[d] = va[d] - vo[d] - vn * k->n[d];
                vtn += vt[d] * vt[d];
            }
            vtn = sqrt(vtn);
            double jt[3] = {k->jt[0], k->jt[1], k->jt[2]};
            if (vtn > 0) {
                double tt[3] = {0, 0, 0};
                for (int d = 0; d < dim; d++)
                    tt[d] = vt[d] / vtn;
                double djt = vtn / contact_inv_mass(bs, dim, k, tt);
                for (int d = 0; d < dim; d++)
                    jt[d] -= djt * tt[d];
            }
            double jtn = sqrt(jt[0] * jt[0] + jt[1] * jt[1] + jt[2] * jt[2]), cap = k->mu * k->lam;
            if (jtn > cap)
                for (int d = 0; d < 3; d++)
                    jt[d] *= cap / jtn;
            for (int d = 0; d < 3; d++) {
                J[d] = jt[d] - k->jt[d];
                k->jt[d] = jt[d];
            }
            contact_apply(bs, dim, k, J);
        }
        if (change == 0.0)
            break;
    }
    return nc;
}

int body_wall_contact(pfb_body *b, int dim, const pfb_boundaries *walls, double t)
{
    pfb_bodies one;
    one.n = 1;
    one.b[0] = *b;
    int nc = bodies_contact(&one, dim, walls, t);
    *b = one.b[0];
    return nc;
}

double body_kinetic_energy(const pfb_body *b, int dim)
{
    double e = 0.0;
    for (int k = 0; k < dim; k++)
        e += 0.5 * b->mass * b->v[k] * b->v[k];
    if (dim == 2)
        return e + 0.5 * b->inertia[2] * b->w[2] * b->w[2];
    double R[9], wl[3];
    quat_matrix(b->q, R);
    for (int a = 0; a < 3; a++)
        wl[a] = R[a] * b->w[0] + R[3 + a] * b->w[1] + R[6 + a] * b->w[2];
    for (int a = 0; a < 3; a++)
        e += 0.5 * b->inertia[a] * wl[a] * wl[a];
    return e;
}

/* test_body.c — rigid bodies (core/body.c): mass properties against the solid
 * formulas, the signed distance of a rotated box, impulses against the momentum
 * laws, the rotation integrator against the exact rotation, and wall contact. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/body.h"
#include "testutil.h"

extern const pfb_solver_ops pfb_solver_clavet;
extern const pfb_solver_ops pfb_solver_muller;
extern const pfb_solver_ops pfb_solver_miller_pearce;
extern const pfb_solver_ops pfb_solver_mao_yang;

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Mass and principal moments: disc m = rho pi r^2, I = m r^2 / 2; sphere
 * 4/3 pi r^3 rho, 2/5 m r^2; box (half extents a, b, c) 8 abc rho (4 ab in 2D),
 * I_x = m (b^2 + c^2) / 3.  Closed forms evaluated in a different order: equal to
 * a few ulps (1e-14 relative). */
START_TEST(test_mass_inertia)
{
    pfb_body b;
    pfb_err err;
    double c[3] = {0, 0, 0}, h[3] = {0.1, 0.2, 0.3};
    ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, 2, 0.5, h, 800.0, c, &err), 0);
    ck_assert_double_eq_tol(b.mass, 800.0 * M_PI * 0.25, 1e-14 * b.mass);
    ck_assert_double_eq_tol(b.inertia[2], 0.5 * b.mass * 0.25, 1e-14 * b.inertia[2]);
    ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, 3, 0.5, h, 800.0, c, &err), 0);
    ck_assert_double_eq_tol(b.mass, 800.0 * 4.0 / 3.0 * M_PI * 0.125, 1e-14 * b.mass);
    ck_assert_double_eq_tol(b.inertia[0], 0.4 * b.mass * 0.25, 1e-14 * b.inertia[0]);
    ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, 3, 0.0, h, 500.0, c, &err), 0);
    ck_assert_double_eq_tol(b.mass, 500.0 * 0.2 * 0.4 * 0.6, 1e-14 * b.mass);
    ck_assert_double_eq_tol(b.inertia[0], b.mass * (0.4 * 0.4 + 0.6 * 0.6) / 12.0, 1e-14 * b.inertia[0]);
    ck_assert_double_eq_tol(b.inertia[2], b.mass * (0.2 * 0.2 + 0.4 * 0.4) / 12.0, 1e-14 * b.inertia[2]);
    ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, 2, 0.0, h, 500.0, c, &err), 0);
    ck_assert_double_eq_tol(b.mass, 500.0 * 0.2 * 0.4, 1e-14 * b.mass);
    /* bad input names the value */
    ck_assert_int_ne(body_init(&b, PFB_BODY_SPHERE, 2, -1.0, h, 500.0, c, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "-1"));
    ck_assert_int_ne(body_init(&b, PFB_BODY_BOX, 2, 0.0, h, 0.0, c, &err), 0);
    ck_assert_ptr_nonnull(strstr(err.msg, "density 0"));
}
END_TEST

/* A box turned by 90 degrees about z (by the integrator: w = pi/2 for 1 s in 1000
 * steps) has its half extents swapped: the SDF of points on the world axes are
 * those of the swapped box (the rotation is exact per step up to round-off,
 * 1e-12 m), and the gradient is the world axis. */
START_TEST(test_rotated_box_sdf)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_body b;
        pfb_err err;
        double c[3] = {1, 2, dim == 3 ? 3 : 0}, h[3] = {0.1, 0.3, 0.2};
        ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, dim, 0.0, h, 1000.0, c, &err), 0);
        b.w[2] = 0.5 * M_PI;
        for (int s = 0; s < 1000; s++)
            body_advance(&b, dim, 1e-3);
        double g[3];
        double x1[3] = {1.5, 2, c[2]}; /* 0.5 along world x: the body's y extent 0.3 now lies along x */
        ck_assert_double_eq_tol(body_sdf(&b, dim, x1, g), 0.5 - 0.3, 1e-12);
        ck_assert_double_eq_tol(g[0], 1.0, 1e-12);
        double x2[3] = {1, 2.5, c[2]}; /* along world y: the body's x extent 0.1 */
        ck_assert_double_eq_tol(body_sdf(&b, dim, x2, g), 0.5 - 0.1, 1e-12);
        ck_assert_double_eq_tol(g[1], 1.0, 1e-12);
        double x3[3] = {1, 2, c[2]}; /* the centre: depth of the nearest face, 0.1 */
        ck_assert_double_eq_tol(body_sdf(&b, dim, x3, g), -0.1, 1e-12);
    }
}
END_TEST

/* An impulse J at point a changes the linear momentum by J and the angular
 * momentum about the origin by a x J (exactly, up to round-off 1e-12), in 2D and
 * 3D (a rotated box, so the world inertia is not diagonal). */
START_TEST(test_impulse_momentum)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_body b;
        pfb_err err;
        double c[3] = {0.2, -0.1, dim == 3 ? 0.3 : 0}, h[3] = {0.1, 0.3, 0.2};
        ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, dim, 0.0, h, 700.0, c, &err), 0);
        b.w[2] = 0.7;
        if (dim == 3)
            b.w[0] = 0.4;
        body_advance(&b, dim, 1.0); /* some orientation */
        b.w[0] = b.w[1] = b.w[2] = 0.0;
        double a[3] = {0.35, 0.1, dim == 3 ? -0.2 : 0}, J[3] = {1.5, -0.5, dim == 3 ? 0.8 : 0};
        body_apply_impulse(&b, dim, a, J);
        for (int k = 0; k < dim; k++)
            ck_assert_double_eq_tol(b.mass * b.v[k], J[k], 1e-12);
        /* angular momentum about the centre: I_world w = (a - c) x J */
        double r[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
        double L[3] = {r[1] * J[2] - r[2] * J[1], r[2] * J[0] - r[0] * J[2], r[0] * J[1] - r[1] * J[0]};
        if (dim == 2) {
            ck_assert_double_eq_tol(b.inertia[2] * b.w[2], L[2], 1e-12);
        } else {
            double Iinv[9];
            body_inv_inertia(&b, dim, Iinv);
            for (int k = 0; k < 3; k++) /* w = I^-1 L */
                ck_assert_double_eq_tol(b.w[k], Iinv[3 * k] * L[0] + Iinv[3 * k + 1] * L[1] + Iinv[3 * k + 2] * L[2],
                                        1e-12);
        }
        /* the inverse effective mass along n equals the velocity change per unit impulse */
        double n[3] = {0, 1, 0}, v0[3], v1[3], Jn[3] = {0, 1e-3, 0};
        body_velocity_at(&b, dim, a, v0);
        double k = body_inv_mass_along(&b, dim, a, n);
        body_apply_impulse(&b, dim, a, Jn);
        body_velocity_at(&b, dim, a, v1);
        ck_assert_double_eq_tol((v1[1] - v0[1]) / 1e-3, k, 1e-9 * k);
    }
}
END_TEST

/* The walls of a closed unit tank [0, 1]^3 (the square [0, 1]^2 in 2D). */
static void unit_tank(pfb_boundaries *walls)
{
    pfb_shape tank = {0};
    pfb_err err;
    memset(walls, 0, sizeof *walls);
    tank.type = PFB_SHAPE_BOX;
    tank.inside = 1;
    tank.c[0] = tank.c[1] = tank.c[2] = 0.5;
    tank.half[0] = tank.half[1] = tank.half[2] = 0.5;
    ck_assert_int_eq(boundaries_add(walls, &tank, &err), 0);
}

/* A box dropped from 0.2 m on the floor of a tank, integrated as the solvers do
 * (gravity, advance, wall contact) with restitution 0: it comes to rest on the
 * floor, its bottom at the floor within g dt^2 (one step's fall, what the next
 * contact removes), its speed below g dt (one step of gravity), not turning. */
START_TEST(test_box_rests_on_floor)
{
    pfb_boundaries walls;
    pfb_err err;
    unit_tank(&walls);
    pfb_body b;
    double c[3] = {0.5, 0.3, 0}, h[3] = {0.1, 0.05, 0};
    ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, 2, 0.0, h, 500.0, c, &err), 0);
    const double dt = 1e-3, g = 9.81;
    for (int s = 0; s < 2000; s++) {
        b.v[1] -= g * dt;
        body_advance(&b, 2, dt);
        body_wall_contact(&b, 2, &walls, 0.0);
    }
    ck_assert_double_eq_tol(b.x[1], 0.05, g * dt * dt);
    ck_assert_double_lt(fabs(b.v[1]), g * dt);
    ck_assert_double_lt(fabs(b.w[2]), 1e-9);
}
END_TEST

/* ---- body-body contacts ------------------------------------------------------- */

/* Two equal discs (and spheres) head-on in free space: with restitution 1 they
 * exchange velocities, with 0 they leave together at the mean; the contact
 * impulse is equal and opposite, so the momentum is the initial one to
 * round-off (1e-12 relative). */
START_TEST(test_bodies_head_on)
{
    pfb_boundaries none = {0};
    pfb_err err;
    for (int dim = 2; dim <= 3; dim++)
        for (int e = 0; e <= 1; e++) {
            pfb_bodies bs = {0};
            pfb_body b;
            double c0[3] = {0, 0, 0}, c1[3] = {0.25, 0, 0}, h[3] = {0};
            ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, dim, 0.1, h, 700.0, c0, &err), 0);
            b.restitution = e;
            b.v[0] = 1.0;
            ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
            ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, dim, 0.1, h, 700.0, c1, &err), 0);
            b.restitution = e;
            ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
            const double p0 = bs.b[0].mass * 1.0;
            int touched = 0;
            for (int s = 0; s < 200; s++) {
                for (int k = 0; k < 2; k++)
                    body_advance(&bs.b[k], dim, 1e-3);
                touched += bodies_contact(&bs, dim, &none, 0.0) > 0;
                double gap = bs.b[1].x[0] - bs.b[0].x[0] - 0.2;
                ck_assert_msg(gap > -1e-9, "%dD e=%d: discs overlap by %g", dim, e, -gap);
            }
            ck_assert_int_gt(touched, 0);
            double want0 = e ? 0.0 : 0.5, want1 = e ? 1.0 : 0.5;
            ck_assert_double_eq_tol(bs.b[0].v[0], want0, 1e-12);
            ck_assert_double_eq_tol(bs.b[1].v[0], want1, 1e-12);
            ck_assert_double_eq_tol(bs.b[0].mass * bs.b[0].v[0] + bs.b[1].mass * bs.b[1].v[0], p0, 1e-12 * p0);
            ck_assert_double_eq_tol(bs.b[0].v[1], 0.0, 1e-15);
        }
}
END_TEST

/* A box dropped on a box resting on the floor of a tank, and a disc dropped on
 * it, with restitution 0 (the solvers' integration: gravity, advance, contacts):
 * each comes to rest on the one below, to within g dt^2 (one step's fall) per
 * level stacked, speed below g dt per level; nothing overlaps by more than that. */
START_TEST(test_bodies_stack)
{
    pfb_boundaries walls;
    pfb_err err;
    unit_tank(&walls);
    for (int dim = 2; dim <= 3; dim++) {
        pfb_bodies bs = {0};
        pfb_body b;
        double c0[3] = {0.5, 0.05, 0.5}, c1[3] = {0.5, 0.3, 0.5}, c2[3] = {0.52, 0.6, 0.5};
        double h0[3] = {0.2, 0.05, 0.2}, h1[3] = {0.1, 0.05, 0.1};
        ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, dim, 0.0, h0, 500.0, c0, &err), 0);
        ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
        ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, dim, 0.0, h1, 800.0, c1, &err), 0);
        ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
        ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, dim, 0.05, h1, 300.0, c2, &err), 0);
        ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
        for (size_t k = 0; k < bs.n; k++)
            bs.b[k].friction = 0.5;
        const double dt = 1e-3, g = 9.81;
        for (int s = 0; s < 2000; s++) {
            for (size_t k = 0; k < bs.n; k++) {
                bs.b[k].v[1] -= g * dt;
                body_advance(&bs.b[k], dim, dt);
            }
            bodies_contact(&bs, dim, &walls, 0.0);
        }
        const double want[3] = {0.05, 0.15, 0.25};
        for (size_t k = 0; k < bs.n; k++) {
            ck_assert_msg(fabs(bs.b[k].x[1] - want[k]) <= (double)(k + 1) * g * dt * dt, "%dD body %zu at y %.9g, want %g",
                          dim, k, bs.b[k].x[1], want[k]);
            ck_assert_msg(fabs(bs.b[k].v[1]) < (double)(k + 1) * g * dt, "%dD body %zu v_y %g", dim, k, bs.b[k].v[1]);
        }
        ck_assert_double_lt(fabs(bs.b[1].w[2]), 1e-6);
    }
}
END_TEST

/* A spinning box thrown at a disc off-centre, in free space with friction: the
 * linear momentum is conserved to round-off (equal and opposite impulses, and
 * push-outs that keep the centre of mass), and the kinetic energy does not grow
 * (restitution 1 and friction dissipate nothing, or a part). */
START_TEST(test_bodies_momentum)
{
    pfb_boundaries none = {0};
    pfb_err err;
    for (int dim = 2; dim <= 3; dim++) {
        pfb_bodies bs = {0};
        pfb_body b;
        double c0[3] = {0, 0.03, 0.01}, c1[3] = {0.3, 0, 0}, h[3] = {0.08, 0.05, 0.06};
        ck_assert_int_eq(body_init(&b, PFB_BODY_BOX, dim, 0.0, h, 900.0, c0, &err), 0);
        b.v[0] = 2.0;
        b.w[2] = 5.0;
        if (dim == 3)
            b.w[0] = 3.0;
        b.restitution = 0.7;
        b.friction = 0.4;
        ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
        ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, dim, 0.1, h, 400.0, c1, &err), 0);
        b.restitution = 0.7;
        b.friction = 0.4;
        ck_assert_int_eq(bodies_add(&bs, &b, &err), 0);
        double P0[3] = {0, 0, 0}, E0 = 0.0;
        for (size_t k = 0; k < 2; k++) {
            E0 += body_kinetic_energy(&bs.b[k], dim);
            for (int a = 0; a < dim; a++)
                P0[a] += bs.b[k].mass * bs.b[k].v[a];
        }
        int touched = 0;
        for (int s = 0; s < 300; s++) {
            for (size_t k = 0; k < 2; k++)
                body_advance(&bs.b[k], dim, 1e-3);
            touched += bodies_contact(&bs, dim, &none, 0.0) > 0;
        }
        ck_assert_int_gt(touched, 0);
        double P[3] = {0, 0, 0}, E = 0.0;
        for (size_t k = 0; k < 2; k++) {
            E += body_kinetic_energy(&bs.b[k], dim);
            for (int a = 0; a < dim; a++)
                P[a] += bs.b[k].mass * bs.b[k].v[a];
        }
        for (int a = 0; a < dim; a++)
            ck_assert_msg(fabs(P[a] - P0[a]) <= 1e-12 * fabs(P0[0]), "%dD P[%d] %.17g, was %.17g", dim, a, P[a], P0[a]);
        ck_assert_msg(E <= E0 * (1.0 + 1e-12), "%dD energy grew: %.17g > %.17g", dim, E, E0);
        ck_assert_msg(E < 0.99 * E0, "%dD restitution 0.7 lost no energy", dim);
        ck_assert_double_gt(bs.b[1].v[0], 0.1); /* the disc was hit */
    }
}
END_TEST

/* ---- clavet, Algorithm 6 ------------------------------------------------------- */

/* A 2D block of 16 x 16 unit-mass particles at spacing 0.01, at rest, and a disc
 * of radius 0.03 and mass 20 at 1 m/s heading into it; no gravity, no walls. */
static size_t block_and_disc(pfb_sim *sim)
{
    size_t n = 256;
    double x[3 * 256], v[3 * 256] = {0};
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = 0.01 * (double)(i % 16);
        x[3 * i + 1] = 0.01 * (double)(i / 16);
        x[3 * i + 2] = 0.0;
    }
    tu_bare_sim(sim, 2, 0.01, n, x, v);
    pfb_body b;
    pfb_err err;
    double c[3] = {0.22, 0.075, 0}, h[3] = {0};
    ck_assert_int_eq(body_init(&b, PFB_BODY_SPHERE, 2, 0.03, h, 20.0 / (M_PI * 0.03 * 0.03), c, &err), 0);
    b.v[0] = -1.0;
    ck_assert_int_eq(bodies_add(&sim->bodies, &b, &err), 0);
    return n;
}

/* A 2D block of 16 x 16 particles (spacing 0.01, unit masses) at rest and a disc
 * (radius 0.03, mass 20, 5% of the fluid's) at 1 m/s running into it, no gravity,
 * no walls.  The momentum the body loses is what the particles gain: with the
 * closure the total is conserved to round-off (each exchange is added to one
 * side and subtracted from the other; velocities are position differences over
 * dt: n 8 eps max|x| / dt per step, summed over the steps); the paper's Algorithm
 * 6, whose last stage treats the body as infinitely heavy, leaves a measured
 * imbalance (the control, > 1e-3 of the exchanged momentum). */
static double exchange_imbalance(const char *closure, double *exchanged)
{
    pfb_sim sim;
    size_t n = block_and_disc(&sim);
    char cl[64];
    snprintf(cl, sizeof cl, "body_momentum_closure=%s", closure);
    const char *const sets[] = {"sound_speed=10", cl, NULL};
    void *st = tu_create(&pfb_solver_clavet, &sim, sets);
    const double dt = 1e-3;
    double p0 = sim.bodies.b[0].mass * sim.bodies.b[0].v[0];
    for (int s = 0; s < 150; s++)
        tu_step(&pfb_solver_clavet, st, &sim, dt);
    double pf = 0.0;
    for (size_t i = 0; i < n; i++)
        pf += sim.p.m[i] * sim.p.v[0][i];
    double pb = sim.bodies.b[0].mass * sim.bodies.b[0].v[0];
    *exchanged = fabs(pb - p0);
    pfb_solver_clavet.destroy(st);
    sim_free(&sim);
    return fabs(pf + pb - p0);
}

START_TEST(test_clavet_momentum_exchange)
{
    double ex = 0.0, ex0 = 0.0;
    double imb = exchange_imbalance("true", &ex);
    ck_assert_msg(ex > 1.0, "the body exchanged only %g kg m/s: no collision", ex);
    double bound = 150.0 * 256 * 8 * DBL_EPSILON * 0.3 / 1e-3;
    ck_assert_msg(imb <= bound, "momentum imbalance %g with the closure (bound %g, exchanged %g)", imb, bound, ex);
    double imb0 = exchange_imbalance("false", &ex0);
    ck_assert_msg(imb0 > 1e-3 * ex0, "the paper's Algorithm 6 balanced to %g of %g: the control shows nothing", imb0, ex0);
}
END_TEST

/* The float scene with clavet: no particle ends a frame inside the body (every
 * particle's distance to it at least the collision radius R = 0.5 D, less
 * round-off 1e-12 m: line 15 extracts to exactly R). */
typedef struct float_watch {
    double min_d;
    double y_first, y_last;
} float_watch;

static int float_frame(void *ctx, const pfb_sim *sim, const void *state, long frame, const pfb_diag *d, pfb_err *err)
{
    (void)state;
    (void)d;
    (void)err;
    float_watch *w = ctx;
    const pfb_body *b = &sim->bodies.b[0];
    for (size_t i = 0; i < sim->p.n; i++) {
        double x[3] = {sim->p.x[0][i], sim->p.x[1][i], sim->p.x[2][i]}, g[3];
        w->min_d = fmin(w->min_d, body_sdf(b, sim->dim, x, g));
    }
    if (frame == 0)
        w->y_first = b->x[1];
    w->y_last = b->x[1];
    return PFB_OK;
}

static float_watch run_float(const char *density, const char *t_end)
{
    char dens[64], te[64];
    snprintf(dens, sizeof dens, "scene.body_density=%s", density);
    snprintf(te, sizeof te, "run.t_end=%s", t_end);
    const char *const sets[] = {"run.dim=2", "run.snapshots=none", te, dens, "solver.sound_speed=10", NULL};
    tu_run t;
    tu_run_init(&t, "clavet", "float", sets);
    float_watch w = {INFINITY, 0, 0};
    t.cfg.on_frame = float_frame;
    t.cfg.frame_ctx = &w;
    pfb_run_result res;
    pfb_err err;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
    ck_assert_msg(!res.unstable, "%s", res.reason);
    tu_run_free(&t);
    return w;
}

START_TEST(test_clavet_no_particle_inside)
{
    float_watch w = run_float("0.5", "0.5");
    ck_assert_msg(w.min_d >= 0.5 * 0.02 - 1e-12, "a particle ended a frame %g m from the body (R = 0.01 m)", w.min_d);
}
END_TEST

/* A body ten times denser than the fluid, started with its top at the surface,
 * sinks to the floor: its centre ends within 3 spacings of the floor-resting
 * height 0.1 m (a layer of particles may stay under it).  (At three times the
 * fluid density it does not sink: see the float scene's notes.) */
START_TEST(test_clavet_heavy_body_sinks)
{
    float_watch w = run_float("10", "1");
    ck_assert_msg(w.y_last < w.y_first - 0.1, "the body went from %g to %g m", w.y_first, w.y_last);
    ck_assert_msg(w.y_last < 0.1 + 3 * 0.02, "the body ended at %g m, resting height 0.1 m", w.y_last);
}
END_TEST

/* ---- the shared projection coupling (core/sim.c) ------------------------------- */

/* The clavet test's block and disc, no gravity, no walls, with muller (surface
 * tension off: its colour-field force is not pairwise), miller_pearce and
 * mao_yang (re-sampling off, eq. 5's symmetric pressure sum).  Each particle-body impulse is added
 * to one and subtracted from the other, and the solvers' internal forces are
 * pairwise, so total momentum is conserved to round-off: 1e-12 of the
 * exchanged momentum. */
static void coupled_exchange(const pfb_solver_ops *so, const char *const *sets)
{
    pfb_sim sim;
    size_t n = block_and_disc(&sim);
    void *st = tu_create(so, &sim, sets);
    double p0 = sim.bodies.b[0].mass * sim.bodies.b[0].v[0];
    double dt = 2e-4;
    for (int s = 0; s < 500; s++)
        tu_step(so, st, &sim, dt);
    double pf = 0.0;
    for (size_t i = 0; i < n; i++)
        pf += sim.p.m[i] * sim.p.v[0][i];
    double pb = sim.bodies.b[0].mass * sim.bodies.b[0].v[0];
    double ex = fabs(pb - p0);
    ck_assert_msg(ex > 1.0, "%s: the body exchanged only %g kg m/s", so->name, ex);
    ck_assert_msg(fabs(pf + pb - p0) <= 1e-12 * ex, "%s: momentum %g -> %g (exchanged %g)", so->name, p0, pf + pb, ex);
    so->destroy(st);
    sim_free(&sim);
}

START_TEST(test_coupling_momentum_exchange)
{
    const char *const mu[] = {"surface_tension=0", NULL};
    coupled_exchange(&pfb_solver_muller, mu);
    coupled_exchange(&pfb_solver_miller_pearce, NULL);
    /* mao_yang's default split pressure gradient uses the difference form for
     * negative pressures, which is not pairwise: eq. 5's symmetric sum here */
    const char *const my[] = {"resample_every=0", "pressure_form=sum", NULL};
    coupled_exchange(&pfb_solver_mao_yang, my);
}
END_TEST

/* ---- floating ---------------------------------------------------------------------- */

typedef struct float_frac {
    double sum;       /* submerged fractions */
    long frames;
    double width;     /* the tank's */
    double t_settled; /* frames from this time on are averaged */
    double top_lo, top_hi; /* the lowest and highest column top of the last frame */
    double body_x;         /* the body's x at the last frame */
} float_frac;

/* The submerged fraction of the disc (radius 0.1) at a frame: the fluid level is
 * the mean over lattice-wide columns (away from the walls and farther than two
 * radii from the body) of the highest particle centre, plus half a spacing (a
 * lattice's top row lies half a spacing below its surface); the disc's area
 * below that level, by midpoint sampling on a 200 x 200 grid (error ~1e-4). */
static int frac_frame(void *ctx, const pfb_sim *sim, const void *state, long frame, const pfb_diag *d, pfb_err *err)
{
    (void)state;
    (void)d;
    (void)err;
    float_frac *f = ctx;
    if (sim->t < f->t_settled)
        return PFB_OK;
    (void)frame;
    const pfb_body *b = &sim->bodies.b[0];
    const double D = sim->spacing, R = b->radius;
    double top[128];
    for (int c = 0; c < 128; c++)
        top[c] = -INFINITY;
    for (size_t i = 0; i < sim->p.n; i++) {
        double x = sim->p.x[0][i];
        if (fabs(x - b->x[0]) <= 2.0 * R || x < 0.05 || x > f->width - 0.05)
            continue;
        int c = (int)(x / D);
        if (c >= 0 && c < 128)
            top[c] = fmax(top[c], sim->p.x[1][i]);
    }
    double lev = 0.0;
    int nc = 0;
    for (int c = 0; c < 128; c++)
        if (isfinite(top[c])) {
            lev += top[c];
            nc++;
        }
    ck_assert_int_gt(nc, 5);
    lev = lev / nc + 0.5 * D;
    f->body_x = b->x[0];
    f->top_lo = INFINITY;
    f->top_hi = -INFINITY;
    for (int c = 0; c < 128; c++)
        if (isfinite(top[c])) {
            f->top_lo = fmin(f->top_lo, top[c]);
            f->top_hi = fmax(f->top_hi, top[c]);
        }
    long in = 0, sub = 0;
    for (int i = 0; i < 200; i++)
        for (int j = 0; j < 200; j++) {
            double x = -R + (i + 0.5) * R / 100.0, y = -R + (j + 0.5) * R / 100.0;
            if (x * x + y * y < R * R) {
                in++;
                sub += b->x[1] + y < lev;
            }
        }
    f->sum += (double)sub / (double)in;
    f->frames++;
    return PFB_OK;
}

/* The mean submerged fraction of the float scene's disc (radius 0.1 m, half the
 * fluid's density) in a tank of the given width, frames from t_settled to t_end
 * averaged, for a solver with extra settings (NULL-terminated). */
static double disc_fraction(const char *solver, double width, double t_settled, double t_end,
                            const char *const *extra)
{
    char wset[64], tset[64];
    snprintf(wset, sizeof wset, "scene.width=%g", width);
    snprintf(tset, sizeof tset, "run.t_end=%g", t_end);
    const char *sets[16] = {"run.dim=2", "run.snapshots=none", "scene.body=sphere", wset, tset};
    size_t n = 5;
    for (size_t i = 0; extra && extra[i] && n < 15; i++)
        sets[n++] = extra[i];
    sets[n] = NULL;
    tu_run t;
    tu_run_init(&t, solver, "float", sets);
    float_frac f = {0, 0, width, t_settled, 0, 0, 0};
    t.cfg.on_frame = frac_frame;
    t.cfg.frame_ctx = &f;
    pfb_run_result res;
    pfb_err err;
    ck_assert_msg(run_execute(&t.cfg, &res, &err) == 0, "%s", err.msg);
    ck_assert_msg(!res.unstable, "%s: %s", solver, res.reason);
    tu_run_free(&t);
    ck_assert_int_gt(f.frames, 10);
    double frac = f.sum / (double)f.frames;
    if (getenv("PFB_TEST_VERBOSE"))
        fprintf(stderr, "%s: submerged fraction %.4f, column tops %.3f-%.3f, body x %.3f (last frame)\n", solver, frac,
                f.top_lo, f.top_hi, f.body_x);
    return frac;
}

/* A disc of half the fluid's density floats in muller's 2D pool (1 m wide, 0.02 m
 * spacing, settled from 1.5 s to 3 s): its mean submerged fraction is within 10%
 * of 1/2, the tolerance (measured 0.496). */
START_TEST(test_muller_disc_floats)
{
    double frac = disc_fraction("muller", 1.0, 1.5, 3.0, NULL);
    ck_assert_msg(fabs(frac - 0.5) <= 0.1 * 0.5, "submerged fraction %g, expected 0.5 within 10%%", frac);
}
END_TEST

/* mao_yang's disc (bodies are walls with mirrors; see the solver's header) in a
 * 0.8 m tank, 0.25 m deep, 0.02 m spacing, settled from 1 s to 2 s: the issue's
 * 10% (measured 0.517; its fluid is incompressible to its PCG tolerance, so the
 * nominal density is the fluid's). */
START_TEST(test_mao_yang_disc_floats)
{
    const char *const sets[] = {"scene.depth=0.25", "scene.height=0.5", NULL};
    double frac = disc_fraction("mao_yang", 0.8, 1.0, 2.0, sets);
    ck_assert_msg(fabs(frac - 0.5) <= 0.1 * 0.5, "submerged fraction %g, expected 0.5 within 10%%", frac);
}
END_TEST

static Suite *body_suite(void)
{
    Suite *s = suite_create("body");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_mass_inertia);
    tcase_add_test(tc, test_rotated_box_sdf);
    tcase_add_test(tc, test_impulse_momentum);
    tcase_add_test(tc, test_box_rests_on_floor);
    tcase_add_test(tc, test_bodies_head_on);
    tcase_add_test(tc, test_bodies_stack);
    tcase_add_test(tc, test_bodies_momentum);
    suite_add_tcase(s, tc);
    TCase *tcl = tcase_create("clavet");
    tcase_set_timeout(tcl, 300);
    tcase_add_test(tcl, test_clavet_momentum_exchange);
    tcase_add_test(tcl, test_clavet_no_particle_inside);
    tcase_add_test(tcl, test_clavet_heavy_body_sinks);
    tcase_add_test(tcl, test_coupling_momentum_exchange);
    tcase_add_test(tcl, test_muller_disc_floats);
    tcase_add_test(tcl, test_mao_yang_disc_floats);
    suite_add_tcase(s, tcl);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(body_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

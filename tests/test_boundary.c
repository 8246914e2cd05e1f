/* test_boundary.c — Check suite for core/boundary.c (analytic signed distances).
 *
 * Sign convention under test (boundary.h): phi > 0 where fluid may be, phi < 0
 * inside the solid, grad phi a unit vector pointing into the fluid.  Distances
 * are checked at hand-chosen points whose exact distance is known (Pythagorean
 * triples and quadruples keep the expected values short), gradients against
 * central differences, and the SPH position projection against its contract. */
#include "../core/boundary.h"
#include "../core/rng.h"
#include "../core/sim.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Round-off of one distance evaluation: forming x = c + p in the test and p = x - c,
 * |p| - half, a dot product or a Euclidean norm in the code is at most ~10 roundings
 * of quantities no larger than `scale` (the largest coordinate, centre or size
 * involved); 16 eps * scale bounds their sum. */
static double roundoff(double scale)
{
    return 16.0 * DBL_EPSILON * scale;
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static pfb_shape make_shape(pfb_shape_type type, int inside, const double c[3])
{
    pfb_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.inside = inside;
    memcpy(s.c, c, sizeof s.c);
    return s;
}

/* phi and grad at c + p equal want_phi and want_grad (the dim used components and
 * zero z in 2D) to round-off. */
static void expect_sdf(const pfb_shape *s, int dim, const double p[3], double want_phi,
                       const double want_grad[3], double scale, const char *what)
{
    double x[3], g[3];
    for (int k = 0; k < 3; k++)
        x[k] = s->c[k] + p[k];
    double phi = shape_sdf(s, dim, 0.0, x, g);
    double tol = roundoff(scale);
    ck_assert_msg(fabs(phi - want_phi) <= tol, "%s (%dD, inside=%d): phi = %.17g, want %.17g (tol %g)",
                  what, dim, s->inside, phi, want_phi, tol);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(fabs(g[k] - want_grad[k]) <= tol,
                      "%s (%dD, inside=%d): grad[%d] = %.17g, want %.17g (tol %g)", what, dim, s->inside, k,
                      g[k], want_grad[k], tol);
}

/* Expect an obstacle value (phi, grad) and, for the same shape as a container, the
 * negation of both. */
static void expect_both(pfb_shape s, int dim, const double p[3], double phi_obst,
                        const double grad_obst[3], double scale, const char *what)
{
    double neg[3] = {-grad_obst[0], -grad_obst[1], -grad_obst[2]};
    s.inside = 0;
    expect_sdf(&s, dim, p, phi_obst, grad_obst, scale, what);
    s.inside = 1;
    expect_sdf(&s, dim, p, -phi_obst, neg, scale, what);
}

/* ------------------------------------------------------------------------- */
/* Signed distances at hand-chosen points                                     */

START_TEST(test_plane_sdf)
{
    /* 3D: n = (2, 3, 6)/7 through c; the point c + a n + b t (t a unit tangent)
     * is at signed distance a on the fluid side, whatever b. */
    const double c[3] = {0.5, -1.0, 2.0};
    pfb_shape s = make_shape(PFB_SHAPE_PLANE, 0, c);
    const double n3[3] = {2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0};
    const double t3[3] = {3.0 / 7.0, -2.0 / 7.0, 0.0}; /* t.n = 0, |t| = sqrt(13)/7 */
    memcpy(s.n, n3, sizeof s.n);
    const double a[] = {-0.75, -0.01, 0.0, 0.3, 1.25};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = a[i] * n3[k] + 0.8 * t3[k];
        expect_sdf(&s, 3, p, a[i], n3, 4.0, "plane 3D");
    }
    /* 2D: n = (0.6, 0.8, 0), fluid where (x - c).n >= 0 */
    const double c2[3] = {1.0, 0.25, 0.0};
    s = make_shape(PFB_SHAPE_PLANE, 0, c2);
    const double n2[3] = {0.6, 0.8, 0.0};
    memcpy(s.n, n2, sizeof s.n);
    const double p_in[3] = {-0.6 * 0.5 + 0.8 * 2.0, -0.8 * 0.5 - 0.6 * 2.0, 0.0}; /* 0.5 into the wall */
    const double p_out[3] = {0.6 * 0.2 - 0.8, 0.8 * 0.2 + 0.6, 0.0};            /* 0.2 into the fluid */
    expect_sdf(&s, 2, p_in, -0.5, n2, 4.0, "plane 2D in wall");
    expect_sdf(&s, 2, p_out, 0.2, n2, 4.0, "plane 2D in fluid");
    /* the z of the point is ignored in 2D */
    double x[3] = {c2[0] + p_out[0], c2[1] + p_out[1], 7.0}, g[3];
    double phi = shape_sdf(&s, 2, 0.0, x, g);
    ck_assert_msg(fabs(phi - 0.2) <= roundoff(4.0), "plane 2D: z changed phi to %.17g", phi);
}
END_TEST

START_TEST(test_box_sdf_3d)
{
    /* box centre c, half extents (1, 0.5, 0.75); p is relative to c */
    const double c[3] = {0.5, 1.0, -0.25};
    pfb_shape s = make_shape(PFB_SHAPE_BOX, 0, c);
    s.half[0] = 1.0;
    s.half[1] = 0.5;
    s.half[2] = 0.75;
    const double sc = 3.0;
    struct {
        double p[3], phi, g[3];
        const char *what;
    } cases[] = {
        /* inside: gaps to the faces 0.8, 0.4, 0.75 -> nearest is +y at 0.4 */
        {{0.2, 0.1, 0.0}, -0.4, {0, 1, 0}, "inside, nearest face +y"},
        /* inside, just under the -z face */
        {{-0.3, 0.05, -0.7}, -0.05, {0, 0, -1}, "inside near face -z"},
        /* inside, near the -x face but closer to it than to anything else */
        {{-0.9, -0.2, 0.1}, -0.1, {-1, 0, 0}, "inside near face -x"},
        /* outside, beyond the +x face only: distance is to the face */
        {{1.3, 0.1, 0.2}, 0.3, {1, 0, 0}, "outside face +x"},
        /* outside beyond +x and +y: distance to the edge, (0.3, 0.4) -> 0.5 */
        {{1.3, 0.9, 0.2}, 0.5, {0.6, 0.8, 0}, "outside edge +x+y"},
        /* outside beyond -y and +z: (0.5, 1.2) -> 1.3 */
        {{0.4, -1.0, 1.95}, 1.3, {0, -5.0 / 13.0, 12.0 / 13.0}, "outside edge -y+z"},
        /* outside a corner: overshoots (0.2, 0.3, 0.6) -> Euclidean 0.7 to the corner */
        {{-1.2, -0.8, 1.35}, 0.7, {-2.0 / 7.0, -3.0 / 7.0, 6.0 / 7.0}, "outside corner"},
        /* on a face */
        {{1.0, 0.2, 0.3}, 0.0, {1, 0, 0}, "on face +x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_both(s, 3, cases[i].p, cases[i].phi, cases[i].g, sc, cases[i].what);
}
END_TEST

START_TEST(test_box_sdf_2d)
{
    /* 2D ignores z entirely: the point's z and the box's z extent play no part */
    const double c[3] = {-0.5, 2.0, 0.0};
    pfb_shape s = make_shape(PFB_SHAPE_BOX, 0, c);
    s.half[0] = 1.0;
    s.half[1] = 0.5;
    s.half[2] = 0.01;
    const double sc = 3.0;
    struct {
        double p[3], phi, g[2];
        const char *what;
    } cases[] = {
        {{0.2, 0.1, 0.0}, -0.4, {0, 1}, "inside, nearest +y"},
        {{-0.85, 0.0, 0.0}, -0.15, {-1, 0}, "inside, nearest -x"},
        {{0.3, -0.7, 0.0}, 0.2, {0, -1}, "outside face -y"},
        /* corner: overshoots (0.3, 0.4) -> 0.5 */
        {{1.3, -0.9, 0.0}, 0.5, {0.6, -0.8}, "outside corner +x-y"},
        /* corner: overshoots (0.5, 1.2) -> 1.3 */
        {{-1.5, 1.7, 0.0}, 1.3, {-5.0 / 13.0, 12.0 / 13.0}, "outside corner -x+y"},
        /* z far outside the z extent still counts as inside in 2D */
        {{0.2, 0.1, 5.0}, -0.4, {0, 1}, "inside with z ignored"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double g[3] = {cases[i].g[0], cases[i].g[1], 0.0};
        expect_both(s, 2, cases[i].p, cases[i].phi, g, sc, cases[i].what);
    }
}
END_TEST

START_TEST(test_sphere_sdf)
{
    const double c[3] = {0.25, -0.5, 1.0};
    pfb_shape s = make_shape(PFB_SHAPE_SPHERE, 0, c);
    s.radius = 0.5;
    const double sc = 2.0;
    /* 3D: |p| from Pythagorean quadruples (2,3,6)/7 and (1,2,2)/3 */
    {
        double p[3] = {0.2, 0.3, 0.6}, g[3] = {2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0};
        expect_both(s, 3, p, 0.2, g, sc, "sphere outside");
    }
    {
        double p[3] = {-0.1, 0.2, -0.2}, g[3] = {-1.0 / 3.0, 2.0 / 3.0, -2.0 / 3.0};
        expect_both(s, 3, p, -0.2, g, sc, "sphere inside");
    }
    {
        double p[3] = {0.0, 0.0, 0.5}, g[3] = {0, 0, 1};
        expect_both(s, 3, p, 0.0, g, sc, "sphere on surface");
    }
    /* 2D circle: z of the point ignored */
    {
        double p[3] = {0.6, -0.8, 0.0}, g[3] = {0.6, -0.8, 0.0};
        expect_both(s, 2, p, 0.5, g, sc, "circle outside");
    }
    {
        double p[3] = {-0.12, 0.16, 3.0}, g[3] = {-0.6, 0.8, 0.0};
        expect_both(s, 2, p, -0.3, g, sc, "circle inside, z ignored");
    }
    /* the centre: distance -radius, some unit gradient */
    double x[3] = {c[0], c[1], c[2]}, g[3];
    double phi = shape_sdf(&s, 3, 0.0, x, g);
    ck_assert(phi == -0.5);
    ck_assert_msg(fabs(norm3(g) - 1.0) <= roundoff(1.0), "sphere centre: |grad| = %.17g", norm3(g));
}
END_TEST

START_TEST(test_cylinder_sdf)
{
    const double sc = 4.0;
    /* infinite, 3D, tilted axis a = (0.6, 0, 0.8): point c + s a + r e with e
     * perpendicular to a, distance r - R regardless of s */
    const double c[3] = {1.0, 0.5, -0.5};
    pfb_shape s = make_shape(PFB_SHAPE_CYLINDER, 0, c);
    s.n[0] = 0.6;
    s.n[2] = 0.8;
    s.radius = 0.5;
    const double e1[3] = {0.0, 1.0, 0.0}, e2[3] = {0.8, 0.0, -0.6};
    const double along[] = {-3.0, 0.0, 2.5};
    for (size_t i = 0; i < 3; i++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = along[i] * s.n[k] + 0.75 * e1[k];
        expect_both(s, 3, p, 0.25, e1, sc, "infinite cylinder outside");
        double g[3];
        for (int k = 0; k < 3; k++) {
            g[k] = -e2[k];
            p[k] = along[i] * s.n[k] - 0.125 * e2[k];
        }
        expect_both(s, 3, p, -0.375, g, sc, "infinite cylinder inside");
    }

    /* capped, 3D: axis z, R = 0.5, half length 1 */
    const double c0[3] = {0.0, 0.0, 0.0};
    s = make_shape(PFB_SHAPE_CYLINDER, 0, c0);
    s.n[2] = 1.0;
    s.radius = 0.5;
    s.half_len = 1.0;
    struct {
        double p[3], phi, g[3];
        const char *what;
    } cases[] = {
        /* inside near the top cap: radial gap 0.4, axial gap 0.1 */
        {{0.1, 0.0, 0.9}, -0.1, {0, 0, 1}, "capped inside near cap"},
        /* inside near the side: radial gap 0.1 (rr = 0.4 along (0.6, 0.8)) */
        {{0.24, 0.32, 0.2}, -0.1, {0.6, 0.8, 0}, "capped inside near side"},
        /* outside the side */
        {{0.0, -0.8, 0.5}, 0.3, {0, -1, 0}, "capped outside side"},
        /* outside the bottom cap */
        {{0.12, 0.16, -1.25}, 0.25, {0, 0, -1}, "capped outside cap"},
        /* outside the rim: radial overshoot 0.3, axial 0.4 -> 0.5 to the rim circle */
        {{0.48, 0.64, 1.4}, 0.5, {0.36, 0.48, 0.8}, "capped outside rim"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_both(s, 3, cases[i].p, cases[i].phi, cases[i].g, sc, cases[i].what);

    /* 2D, axis z: the section is the circle of radius R */
    {
        double p[3] = {0.6, 0.8, 0.0}, g[3] = {0.6, 0.8, 0.0};
        expect_both(s, 2, p, 0.5, g, sc, "2D section of z cylinder");
    }
    /* 2D, axis x, infinite: the section is the slab |y| < R */
    s.n[0] = 1.0;
    s.n[2] = 0.0;
    s.half_len = 0.0;
    {
        double p[3] = {12.0, -0.7, 0.0}, g[3] = {0, -1, 0};
        expect_both(s, 2, p, 0.2, g, sc, "2D section of x cylinder (slab)");
    }
    /* 2D, axis x, capped: the rectangle |x| < 1, |y| < R; corner distance Euclidean */
    s.half_len = 1.0;
    {
        double p[3] = {-1.3, 0.9, 0.0}, g[3] = {-0.6, 0.8, 0};
        expect_both(s, 2, p, 0.5, g, sc, "2D section of capped x cylinder, corner");
    }
    {
        double p[3] = {0.5, 0.2, 0.0}, g[3] = {0, 1, 0};
        expect_both(s, 2, p, -0.3, g, sc, "2D section of capped x cylinder, inside");
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Gradients: unit and equal to central differences of phi                    */

typedef struct fd_case {
    pfb_shape s;
    int dim;
    double p[3];   /* relative to the centre */
    double rho;    /* distance to the feature that curves phi (INFINITY where phi is linear) */
} fd_case;

static fd_case fd_make(pfb_shape_type type, int inside, int dim, double px, double py, double pz, double rho)
{
    const double c[3] = {0.3, -0.2, 0.1};
    fd_case f;
    memset(&f, 0, sizeof f);
    f.s = make_shape(type, inside, c);
    f.dim = dim;
    f.p[0] = px;
    f.p[1] = py;
    f.p[2] = pz;
    f.rho = rho;
    switch (type) {
    case PFB_SHAPE_PLANE:
        f.s.n[0] = 2.0 / 7.0;
        f.s.n[1] = 3.0 / 7.0;
        f.s.n[2] = dim == 3 ? 6.0 / 7.0 : 0.0;
        if (dim == 2) {
            f.s.n[0] = 0.6;
            f.s.n[1] = 0.8;
        }
        break;
    case PFB_SHAPE_BOX:
        f.s.half[0] = 1.0;
        f.s.half[1] = 0.5;
        f.s.half[2] = 0.75;
        break;
    case PFB_SHAPE_SPHERE:
        f.s.radius = 0.5;
        break;
    case PFB_SHAPE_CYLINDER:
        f.s.n[0] = 0.6;
        f.s.n[2] = 0.8;
        f.s.radius = 0.5;
        if (dim == 2) { /* axis z: the section is a circle */
            f.s.n[0] = 0.0;
            f.s.n[2] = 1.0;
        }
        break;
    }
    return f;
}

START_TEST(test_gradient_fd)
{
    /* Points at least 0.2 from every kink of phi (medial axis inside a box, the
     * edges/corners/rim where the outside distance switches formula) so the
     * stencil x +- h e stays in one smooth piece. */
    fd_case cases[] = {
        fd_make(PFB_SHAPE_PLANE, 0, 3, 0.4, -0.3, 0.2, INFINITY),
        fd_make(PFB_SHAPE_PLANE, 1, 2, -0.4, 0.7, 0.0, INFINITY),
        fd_make(PFB_SHAPE_BOX, 0, 3, 0.2, 0.1, 0.0, INFINITY),      /* inside, face +y */
        fd_make(PFB_SHAPE_BOX, 1, 3, 1.4, 0.1, 0.2, INFINITY),      /* outside face +x */
        fd_make(PFB_SHAPE_BOX, 0, 3, 1.3, 0.9, 0.2, 0.5),           /* outside edge, distance 0.5 */
        fd_make(PFB_SHAPE_BOX, 1, 3, -1.2, -0.8, 1.35, 0.7),        /* outside corner, distance 0.7 */
        fd_make(PFB_SHAPE_BOX, 0, 2, 1.3, -0.9, 0.0, 0.5),          /* 2D corner */
        fd_make(PFB_SHAPE_BOX, 1, 2, -0.7, 0.05, 0.0, INFINITY),    /* 2D inside, face -x */
        fd_make(PFB_SHAPE_SPHERE, 0, 3, 0.2, 0.3, 0.6, 0.7),
        fd_make(PFB_SHAPE_SPHERE, 1, 3, -0.1, 0.2, -0.2, 0.3),
        fd_make(PFB_SHAPE_SPHERE, 0, 2, 0.6, -0.8, 0.0, 1.0),
        fd_make(PFB_SHAPE_SPHERE, 1, 2, -0.24, 0.32, 0.0, 0.4),
        fd_make(PFB_SHAPE_CYLINDER, 0, 3, 0.3, 0.75, 0.4, 0.75),    /* rr = 0.75 from the axis */
        fd_make(PFB_SHAPE_CYLINDER, 1, 3, 0.84, 0.0, 0.62, 0.3),    /* a + 0.3 (0.8, 0, -0.6): rr = 0.3 */
        fd_make(PFB_SHAPE_CYLINDER, 0, 2, 0.6, 0.8, 0.0, 1.0),
        fd_make(PFB_SHAPE_CYLINDER, 1, 2, 0.18, -0.24, 0.0, 0.3),
    };
    /* capped cylinder: point outside the rim (distance 0.5 to the rim circle) and
     * inside near the cap (flat) */
    fd_case rim = fd_make(PFB_SHAPE_CYLINDER, 0, 3, 0.48, 0.64, 1.4, 0.5);
    rim.s.n[0] = 0.0;
    rim.s.n[2] = 1.0;
    rim.s.half_len = 1.0;
    fd_case cap = rim;
    cap.p[0] = 0.1;
    cap.p[1] = 0.0;
    cap.p[2] = 0.9;
    cap.rho = INFINITY;
    cap.s.inside = 1;

    const double h = 1e-4;
    const size_t ncases = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < ncases + 2; i++) {
        const fd_case *f = i < ncases ? &cases[i] : i == ncases ? &rim : &cap;
        double x[3], g[3];
        for (int k = 0; k < 3; k++)
            x[k] = f->s.c[k] + f->p[k];
        double phi = shape_sdf(&f->s, f->dim, 0.0, x, g);
        /* unit: the norm of a computed unit vector is 1 to a few roundings */
        ck_assert_msg(fabs(norm3(g) - 1.0) <= 8.0 * DBL_EPSILON, "case %zu: |grad| = %.17g", i, norm3(g));
        if (f->dim == 2)
            ck_assert(g[2] == 0.0);
        /* Truncation of the central difference: h^2/6 |phi'''|.  phi is linear near
         * faces and planes; near a point or line feature at distance rho it is
         * rho-like, and the third directional derivative of |x| is
         * -3 u (1 - u^2) / rho^2 with u = e.x/|x|, at most (2/sqrt(3))/rho^2.
         * Round-off: each phi carries roundoff(3) absolute error, divided by 2h. */
        double trunc = isinf(f->rho) ? 0.0 : h * h / 6.0 * (2.0 / sqrt(3.0)) / (f->rho * f->rho);
        double tol = trunc + 2.0 * roundoff(3.0) / (2.0 * h);
        for (int k = 0; k < f->dim; k++) {
            double xp[3], xm[3], gd[3];
            memcpy(xp, x, sizeof xp);
            memcpy(xm, x, sizeof xm);
            xp[k] += h;
            xm[k] -= h;
            double fd = (shape_sdf(&f->s, f->dim, 0.0, xp, gd) - shape_sdf(&f->s, f->dim, 0.0, xm, gd)) / (2.0 * h);
            ck_assert_msg(fabs(fd - g[k]) <= tol, "case %zu (type %d, %dD, inside %d) phi %.6g: grad[%d] = %.17g, "
                          "central difference %.17g (tol %g)",
                          i, (int)f->s.type, f->dim, f->s.inside, phi, k, g[k], fd, tol);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Moving shapes                                                              */

static pfb_shape moving_sphere(void)
{
    const double c[3] = {0.1, 0.2, -0.3};
    pfb_shape s = make_shape(PFB_SHAPE_SPHERE, 0, c);
    s.radius = 0.4;
    s.vel[0] = 0.5;
    s.vel[1] = -0.25;
    s.vel[2] = 0.125;
    s.amp[0] = 0.05;
    s.amp[1] = 0.02;
    s.amp[2] = -0.03;
    s.omega = 7.0;
    return s;
}

START_TEST(test_moving_centre)
{
    /* At time t the shape is the static shape centred at c + vel t + amp sin(omega t):
     * the test forms that centre with the same floating-point expression, so the
     * static shape sees the same p = x - c and the results agree exactly. */
    const pfb_shape s = moving_sphere();
    const double ts[] = {0.0, 0.13, 0.5, 1.7};
    const double x[3] = {0.45, -0.1, 0.2};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        double t = ts[i];
        pfb_shape st = s;
        for (int k = 0; k < 3; k++) {
            st.c[k] = s.c[k] + s.vel[k] * t + s.amp[k] * sin(s.omega * t);
            st.vel[k] = st.amp[k] = 0.0;
        }
        st.omega = 0.0;
        for (int dim = 2; dim <= 3; dim++) {
            double g1[3], g2[3];
            double a = shape_sdf(&s, dim, t, x, g1);
            double b = shape_sdf(&st, dim, 0.0, x, g2);
            ck_assert_msg(a == b, "t=%g %dD: moving %.17g vs static %.17g", t, dim, a, b);
            for (int k = 0; k < 3; k++)
                ck_assert(g1[k] == g2[k]);
        }
    }
}
END_TEST

START_TEST(test_moving_velocity)
{
    /* shape_velocity = d/dt (c + vel t + amp sin(omega t)).  Probe the centre's
     * k-th coordinate with an obstacle box moving like the shape, thin along k and
     * wide across: from a point x far beyond its +k face, phi = x_k - c_k(t) - half_k,
     * so -dphi/dt = v_k.  Central difference in t with step dt: truncation
     * dt^2/6 |c_k'''| <= dt^2/6 |amp_k| omega^3 (discretisation), plus the
     * round-off of each phi (roundoff(8): coordinates up to ~6) divided by 2 dt. */
    const pfb_shape s = moving_sphere();
    const double ts[] = {0.0, 0.13, 0.5, 1.7};
    const double dt = 1e-4;
    for (int k = 0; k < 3; k++) {
        pfb_shape bx = s;
        bx.type = PFB_SHAPE_BOX;
        for (int j = 0; j < 3; j++)
            bx.half[j] = j == k ? 0.1 : 10.0;
        double x[3] = {0.7, 0.7, 0.7};
        x[k] = 5.0;
        for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
            double v[3], g[3], t = ts[i];
            shape_velocity(&s, t, v);
            double fd = -(shape_sdf(&bx, 3, t + dt, x, g) - shape_sdf(&bx, 3, t - dt, x, g)) / (2.0 * dt);
            double w = s.omega;
            double tol = dt * dt / 6.0 * fabs(s.amp[k]) * w * w * w + 2.0 * roundoff(8.0) / (2.0 * dt);
            ck_assert_msg(fabs(fd - v[k]) <= tol, "t=%g axis %d: velocity %.17g, finite difference %.17g (tol %g)",
                          t, k, v[k], fd, tol);
        }
    }
    /* a static shape has zero velocity */
    pfb_shape st = s;
    memset(st.vel, 0, sizeof st.vel);
    memset(st.amp, 0, sizeof st.amp);
    double v[3];
    shape_velocity(&st, 3.0, v);
    ck_assert(v[0] == 0.0 && v[1] == 0.0 && v[2] == 0.0);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Spinning shapes                                                            */

static double dot3(const double a[3], const double b[3]);

static void cross3(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

START_TEST(test_spin_velocity)
{
    /* A cylinder of radius R = 0.5 spinning at w about a tilted axis a, its centre
     * translating with vel: at a surface point c(t) + s a + R e (e a unit vector
     * normal to a) the velocity is vel + w R (a x e), a tangent of speed |w| R,
     * whatever s.  Round-off: r = x - c and the cross product are a few roundings of
     * coordinates <= 4 (scale 4) times |w|, plus |vel|: roundoff(|w| 4 + 1). */
    const double c[3] = {1.0, 0.5, -0.5};
    pfb_shape s = make_shape(PFB_SHAPE_CYLINDER, 0, c);
    s.n[0] = 0.6;
    s.n[2] = 0.8;
    s.radius = 0.5;
    s.spin = 20.0;
    s.vel[0] = 0.25;
    s.vel[1] = -0.5;
    pfb_err err = {{0}};
    ck_assert_int_eq(shape_validate(&s, &err), PFB_OK);
    const double e1[3] = {0.0, 1.0, 0.0}, e2[3] = {0.8, 0.0, -0.6};
    const double tol = roundoff(fabs(s.spin) * 4.0 + 1.0);
    const double ts[] = {0.0, 0.3}, along[] = {-2.0, 0.0, 1.5};
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 3; j++)
            for (int q = 0; q < 2; q++) {
                const double *e = q ? e2 : e1;
                double t = ts[i], x[3], v[3], v0[3], ae[3], g[3];
                for (int k = 0; k < 3; k++)
                    x[k] = c[k] + s.vel[k] * t + along[j] * s.n[k] + s.radius * e[k];
                ck_assert(fabs(shape_sdf(&s, 3, t, x, g)) <= roundoff(4.0)); /* on the surface */
                shape_velocity_at(&s, 3, t, x, v);
                shape_velocity(&s, t, v0);
                cross3(s.n, e, ae);
                double speed = 0.0;
                for (int k = 0; k < 3; k++) {
                    double want = v0[k] + s.spin * s.radius * ae[k];
                    ck_assert_msg(fabs(v[k] - want) <= tol, "3D t=%g s=%g e%d: v[%d] = %.17g, want %.17g", t,
                                  along[j], q + 1, k, v[k], want);
                    speed += (v[k] - v0[k]) * (v[k] - v0[k]);
                }
                /* |w x r| = |w| R and tangent: normal to the axis and to the radius */
                double rel[3] = {v[0] - v0[0], v[1] - v0[1], v[2] - v0[2]};
                ck_assert(fabs(sqrt(speed) - fabs(s.spin) * s.radius) <= tol);
                ck_assert(fabs(dot3(rel, s.n)) <= tol && fabs(dot3(rel, e)) <= tol);
            }

    /* 2D: the section by z = 0 of a cylinder along z is a circle, spinning in the
     * plane about z: v = vel + w (-(y - cy), x - cx).  A point at (R cos a, R sin a)
     * from the centre, a Pythagorean direction (0.6, 0.8), moves at w R (-0.8, 0.6). */
    pfb_shape d = make_shape(PFB_SHAPE_CYLINDER, 0, c);
    d.c[2] = 0.0;
    d.n[2] = 1.0;
    d.radius = 0.5;
    d.spin = -7.0;
    d.vel[0] = 0.5;
    ck_assert_int_eq(shape_validate(&d, &err), PFB_OK);
    for (size_t i = 0; i < 2; i++) {
        double t = ts[i], x[3], v[3], g[3];
        double cx = c[0] + d.vel[0] * t, cy = c[1];
        x[0] = cx + 0.5 * 0.6;
        x[1] = cy + 0.5 * 0.8;
        x[2] = 0.0;
        ck_assert(fabs(shape_sdf(&d, 2, t, x, g)) <= roundoff(4.0));
        shape_velocity_at(&d, 2, t, x, v);
        double want[3] = {0.5 - 7.0 * 0.5 * -0.8, -7.0 * 0.5 * 0.6, 0.0};
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(v[k] - want[k]) <= roundoff(7.0 * 4.0 + 1.0), "2D t=%g: v[%d] = %.17g, want %.17g",
                          t, k, v[k], want[k]);
        /* the 3D formula for the axis z gives the same velocity in the plane z = 0 */
        double v3[3];
        shape_velocity_at(&d, 3, t, x, v3);
        for (int k = 0; k < 3; k++)
            ck_assert(fabs(v3[k] - v[k]) <= roundoff(7.0 * 4.0 + 1.0));
    }

    /* A spinning sphere: v = w a x (x - c); in 2D about z whatever its axis. */
    pfb_shape b = make_shape(PFB_SHAPE_SPHERE, 0, c);
    b.radius = 0.5;
    b.n[1] = 1.0;
    b.spin = 4.0;
    ck_assert_int_eq(shape_validate(&b, &err), PFB_OK);
    {
        double x[3] = {c[0] + 0.3, c[1] + 0.1, c[2] + 0.4}, v[3];
        shape_velocity_at(&b, 3, 0.0, x, v); /* (0, 4, 0) x (0.3, 0.1, 0.4) = 4 (0.4, 0, -0.3) */
        ck_assert(fabs(v[0] - 1.6) <= roundoff(16.0) && v[1] == 0.0 && fabs(v[2] + 1.2) <= roundoff(16.0));
        shape_velocity_at(&b, 2, 0.0, x, v); /* 4 (-0.1, 0.3) */
        ck_assert(fabs(v[0] + 0.4) <= roundoff(16.0) && fabs(v[1] - 1.2) <= roundoff(16.0) && v[2] == 0.0);
    }

    /* Spin leaves the distance unchanged, and spin 0 is shape_velocity bit for bit,
     * even at a point at infinity. */
    const pfb_shape m = moving_sphere();
    pfb_shape ms = m;
    ms.n[2] = 1.0;
    ms.spin = 3.0;
    double xs[][3] = {{0.45, -0.1, 0.2}, {INFINITY, 0.0, -INFINITY}, {-3.0, 2.0, 1.0}};
    for (size_t i = 0; i < 3; i++)
        for (int dim = 2; dim <= 3; dim++) {
            double g1[3], g2[3], v[3], v0[3];
            if (isfinite(xs[i][0]))
                ck_assert(shape_sdf(&m, dim, 0.7, xs[i], g1) == shape_sdf(&ms, dim, 0.7, xs[i], g2));
            shape_velocity_at(&m, dim, 0.7, xs[i], v);
            shape_velocity(&m, 0.7, v0);
            ck_assert(memcmp(v, v0, sizeof v) == 0);
        }
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Validation                                                                 */

static void expect_invalid(const pfb_shape *s, const char *needle)
{
    pfb_err err = {{0}};
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(shape_validate(s, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "message '%s' lacks '%s'", err.msg, needle);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message spans lines: %s", err.msg);
    pfb_err_clear(&err);
    ck_assert_int_eq(boundaries_add(&b, s, &err), PFB_EINVAL);
    ck_assert_uint_eq(b.n, 0);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "boundaries_add message '%s' lacks '%s'", err.msg, needle);
}

START_TEST(test_validate)
{
    const double c[3] = {0, 0, 0};
    pfb_err err = {{0}};

    pfb_shape pl = make_shape(PFB_SHAPE_PLANE, 0, c);
    pl.n[1] = 2.0;
    expect_invalid(&pl, "length 2");
    pl.n[1] = 0.0;
    expect_invalid(&pl, "length 0");
    pl.n[1] = 1.0;
    ck_assert_int_eq(shape_validate(&pl, &err), PFB_OK);

    pfb_shape box = make_shape(PFB_SHAPE_BOX, 1, c);
    box.half[0] = 1.0;
    box.half[1] = 0.0;
    box.half[2] = 1.0;
    expect_invalid(&box, "half extent 1 is 0");
    box.half[1] = -0.5;
    expect_invalid(&box, "half extent 1 is -0.5");
    box.half[1] = 0.5;
    ck_assert_int_eq(shape_validate(&box, &err), PFB_OK);

    pfb_shape sp = make_shape(PFB_SHAPE_SPHERE, 0, c);
    sp.radius = -0.25;
    expect_invalid(&sp, "radius is -0.25");
    sp.radius = 0.25;
    ck_assert_int_eq(shape_validate(&sp, &err), PFB_OK);

    pfb_shape cy = make_shape(PFB_SHAPE_CYLINDER, 0, c);
    cy.n[2] = 1.0;
    cy.radius = -1.5;
    expect_invalid(&cy, "radius is -1.5");
    cy.radius = 1.5;
    cy.n[0] = 1.0; /* |(1, 0, 1)| = sqrt 2 */
    expect_invalid(&cy, "length 1.41421");
    cy.n[0] = 0.0;
    cy.half_len = -2.0;
    expect_invalid(&cy, "half length is -2");
    cy.half_len = 0.0;
    ck_assert_int_eq(shape_validate(&cy, &err), PFB_OK);

    /* spin: only spheres and cylinders; a spinning sphere needs a unit axis */
    pl.spin = 2.5;
    expect_invalid(&pl, "plane spin is 2.5 rad/s; valid: 0");
    box.spin = -1.0;
    expect_invalid(&box, "box spin is -1 rad/s; valid: 0");
    sp.spin = 3.0;
    expect_invalid(&sp, "sphere direction has length 0");
    sp.n[2] = 1.0;
    ck_assert_int_eq(shape_validate(&sp, &err), PFB_OK);
    sp.spin = 0.0;
    sp.n[2] = 0.0; /* a still sphere needs no axis */
    ck_assert_int_eq(shape_validate(&sp, &err), PFB_OK);
    cy.spin = INFINITY;
    expect_invalid(&cy, "cylinder spin is inf rad/s; valid: finite");
    cy.spin = NAN;
    expect_invalid(&cy, "valid: finite");
    cy.spin = -40.0;
    ck_assert_int_eq(shape_validate(&cy, &err), PFB_OK);

    pfb_shape bad = make_shape((pfb_shape_type)7, 0, c);
    expect_invalid(&bad, "type 7");
}
END_TEST

START_TEST(test_too_many_shapes)
{
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    pfb_err err = {{0}};
    const double c[3] = {0, 0, 0};
    pfb_shape s = make_shape(PFB_SHAPE_SPHERE, 0, c);
    s.radius = 1.0;
    for (int i = 0; i < PFB_MAX_SHAPES; i++) {
        s.c[0] = (double)i;
        ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
    }
    ck_assert_uint_eq(b.n, PFB_MAX_SHAPES);
    ck_assert(b.s[PFB_MAX_SHAPES - 1].c[0] == (double)(PFB_MAX_SHAPES - 1));
    ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_EINVAL);
    ck_assert_uint_eq(b.n, PFB_MAX_SHAPES);
    char want[64];
    snprintf(want, sizeof want, "at most %d", PFB_MAX_SHAPES);
    ck_assert_msg(strstr(err.msg, want) != NULL, "message '%s' lacks '%s'", err.msg, want);
}
END_TEST

START_TEST(test_boundaries_sdf_min)
{
    /* the smallest distance over the set, with that shape's gradient and index */
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    pfb_err err = {{0}};
    const double c0[3] = {0, 0, 0}, c1[3] = {0, 1, 0};
    pfb_shape floor_ = make_shape(PFB_SHAPE_PLANE, 0, c0);
    floor_.n[1] = 1.0;
    pfb_shape ceil_ = make_shape(PFB_SHAPE_PLANE, 0, c1);
    ceil_.n[1] = -1.0;
    ck_assert_int_eq(boundaries_add(&b, &floor_, &err), PFB_OK);
    ck_assert_int_eq(boundaries_add(&b, &ceil_, &err), PFB_OK);
    double g[3];
    size_t which = 99;
    double x_low[3] = {0.3, 0.25, 0.0}, x_high[3] = {0.3, 0.875, 0.0};
    double phi = boundaries_sdf(&b, 2, 0.0, x_low, g, &which);
    ck_assert(phi == 0.25 && which == 0 && g[1] == 1.0);
    phi = boundaries_sdf(&b, 2, 0.0, x_high, g, &which);
    ck_assert(phi == 0.125 && which == 1 && g[1] == -1.0);
    /* an empty set is infinitely far */
    pfb_boundaries none;
    memset(&none, 0, sizeof none);
    ck_assert(isinf(boundaries_sdf(&none, 2, 0.0, x_low, g, NULL)));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Position projection                                                        */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

START_TEST(test_project_plane)
{
    /* Static plane n = (0.6, 0.8) through c; margin 0.01.  A point 0.2 into the
     * wall moving with normal velocity -2 and tangential velocity 1.5. */
    const double c[3] = {0.5, 0.25, 0.0}, n[3] = {0.6, 0.8, 0.0}, tg[3] = {0.8, -0.6, 0.0};
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    pfb_err err = {{0}};
    pfb_shape s = make_shape(PFB_SHAPE_PLANE, 0, c);
    memcpy(s.n, n, sizeof s.n);
    ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
    const double margin = 0.01, tol = roundoff(4.0);
    const struct {
        double e, f, vn_after, vt_after;
    } resp[] = {
        {0.0, 0.0, 0.0, 1.5},   /* inelastic, slip: normal velocity removed */
        {1.0, 0.0, 2.0, 1.5},   /* elastic: normal velocity reflected */
        {0.5, 0.0, 1.0, 1.5},
        {0.0, 1.0, 0.0, 0.0},   /* no-slip: tangential velocity removed */
        {1.0, 0.5, 2.0, 0.75},
    };
    for (size_t i = 0; i < sizeof resp / sizeof resp[0]; i++) {
        double x[3], v[3], g[3];
        for (int k = 0; k < 3; k++) {
            x[k] = c[k] - 0.2 * n[k] + 0.3 * tg[k];
            v[k] = -2.0 * n[k] + 1.5 * tg[k];
        }
        ck_assert_int_eq(boundaries_project(&b, 2, 0.0, margin, resp[i].e, resp[i].f, x, v), 1);
        double phi = shape_sdf(&s, 2, 0.0, x, g);
        ck_assert_msg(fabs(phi - margin) <= tol, "case %zu: phi after = %.17g, margin %g", i, phi, margin);
        /* moved along the normal only */
        double xt = (x[0] - c[0]) * tg[0] + (x[1] - c[1]) * tg[1];
        ck_assert_msg(fabs(xt - 0.3) <= tol, "case %zu: tangential position moved to %.17g", i, xt);
        double vn = dot3(v, n), vt = dot3(v, tg);
        ck_assert_msg(fabs(vn - resp[i].vn_after) <= tol && fabs(vt - resp[i].vt_after) <= tol,
                      "case %zu (e=%g f=%g): v_n %.17g v_t %.17g, want %g %g", i, resp[i].e, resp[i].f, vn, vt,
                      resp[i].vn_after, resp[i].vt_after);
        ck_assert(x[2] == 0.0 && v[2] == 0.0);
    }
    /* inside the margin band but moving away: moved onto the margin, velocity kept */
    {
        double x[3], v[3] = {0.6, 0.8, 0.0}, g[3];
        for (int k = 0; k < 3; k++)
            x[k] = c[k] + 0.004 * n[k];
        ck_assert_int_eq(boundaries_project(&b, 2, 0.0, margin, 0.0, 1.0, x, v), 1);
        ck_assert(fabs(shape_sdf(&s, 2, 0.0, x, g) - margin) <= tol);
        ck_assert(v[0] == 0.6 && v[1] == 0.8);
    }
    /* beyond the margin: untouched, bit for bit */
    {
        double x[3], v[3] = {-1.0, -1.0, 0.0};
        for (int k = 0; k < 3; k++)
            x[k] = c[k] + 0.05 * n[k];
        double x0[3], v0[3];
        memcpy(x0, x, sizeof x0);
        memcpy(v0, v, sizeof v0);
        ck_assert_int_eq(boundaries_project(&b, 2, 0.0, margin, 0.0, 1.0, x, v), 0);
        ck_assert(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    }
}
END_TEST

/* A closed box tank [0, L]^dim as a container, like the scenes' add_tank. */
static void add_tank(pfb_boundaries *b, int dim, const double L[3])
{
    pfb_err err = {{0}};
    pfb_shape box;
    memset(&box, 0, sizeof box);
    box.type = PFB_SHAPE_BOX;
    box.inside = 1;
    for (int k = 0; k < 3; k++) {
        box.c[k] = 0.5 * L[k];
        box.half[k] = 0.5 * L[k];
    }
    if (dim == 2)
        box.c[2] = 0.0;
    ck_assert_int_eq(boundaries_add(b, &box, &err), PFB_OK);
}

/* A projected point is on the margin for the projection itself: projecting it
 * again moves nothing (returns 0, the same bits).  Points within 1e-9 margin
 * below the margin count as on it: a projection lands on phi = margin only to
 * rounding, and re-projecting by ulps made nearly every point take all dim + 1
 * sweeps.  Points spread over a tank, its margin band and beyond its faces,
 * edges and corners, 2D and 3D, and the same box under a tilted plane instead
 * (not both: in the acute wedge between a plane and a face the sweeps zig-zag
 * and dim + 1 of them do not converge, a limit of the method, not of rounding);
 * and a point 1e-10 margin short of the margin is left alone, one 1e-8 short
 * moved onto it. */
START_TEST(test_project_idempotent)
{
    const double L[3] = {1.0, 0.5, 0.75}, m = 0.02;
    uint64_t st = 3;
    for (int dim = 2; dim <= 3; dim++)
        for (int plane = 0; plane < 2; plane++) {
            pfb_boundaries b;
            memset(&b, 0, sizeof b);
            if (!plane) {
                add_tank(&b, dim, L);
            } else {
                const double c[3] = {0.5, 0.25, 0.3};
                pfb_shape s = make_shape(PFB_SHAPE_PLANE, 1, c);
                s.n[0] = 0.6;
                s.n[1] = 0.8;
                pfb_err err = {{0}};
                ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
            }
            size_t moved = 0;
            for (int i = 0; i < 4000; i++) {
                double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
                for (int k = 0; k < dim; k++) {
                    st = st * 6364136223846793005ULL + 1442695040888963407ULL;
                    x[k] = -0.1 + (L[k] + 0.2) * (double)(st >> 11) * 0x1p-53;
                    v[k] = (double)(st >> 40 & 255) / 128.0 - 1.0;
                }
                moved += (size_t)boundaries_project(&b, dim, 0.0, m, 0.5, 0.2, x, v);
                double x1[3], v1[3];
                memcpy(x1, x, sizeof x);
                memcpy(v1, v, sizeof v);
                ck_assert_msg(boundaries_project(&b, dim, 0.0, m, 0.5, 0.2, x1, v1) == 0 &&
                                  memcmp(x1, x, sizeof x) == 0 && memcmp(v1, v, sizeof v) == 0,
                              "dim %d plane %d: (%.17g, %.17g, %.17g) moved again", dim, plane, x[0], x[1], x[2]);
            }
            ck_assert(moved > 1000); /* most points started in the band or beyond */
        }
    /* the floor of a 2D tank: 1e-10 m short of the margin stays, 1e-8 m short moves */
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    add_tank(&b, 2, L);
    double x[3] = {0.5, m * (1.0 - 1e-10), 0.0}, v[3] = {0.0, -1.0, 0.0};
    ck_assert_int_eq(boundaries_project(&b, 2, 0.0, m, 0.0, 0.0, x, v), 0);
    ck_assert(x[1] == m * (1.0 - 1e-10) && v[1] == -1.0);
    x[1] = m * (1.0 - 1e-8);
    ck_assert_int_eq(boundaries_project(&b, 2, 0.0, m, 0.0, 0.0, x, v), 1);
    ck_assert(fabs(x[1] - m) <= roundoff(1.0) && v[1] == 0.0);
}
END_TEST

START_TEST(test_project_box)
{
    /* Container tank [0,1] x [0,0.5] (x [0,0.75]); margin m = 0.02.  The set
     * {phi >= m} is the tank shrunk by m, a box, so the projection of any point is
     * the clamp of its coordinates to [m, L - m]: the expected position. */
    const double L[3] = {1.0, 0.5, 0.75}, m = 0.02, tol = roundoff(2.0);
    struct {
        int dim;
        double x[3];
        const char *what;
    } cases[] = {
        {2, {-0.1, 0.3, 0.0}, "2D beyond face x=0"},
        {2, {0.4, 0.51, 0.0}, "2D beyond face y=L"},
        {2, {0.5, 0.495, 0.0}, "2D inside the margin band of y=L"},
        {2, {0.006, 0.01, 0.0}, "2D margin band of corner (0,0)"},
        {2, {-0.1, -0.05, 0.0}, "2D beyond corner (0,0), Euclidean region"},
        {2, {1.03, 0.6, 0.0}, "2D beyond corner (L,L), Euclidean region"},
        {3, {0.5, 0.2, -0.3}, "3D beyond face z=0"},
        {3, {0.99, 0.49, 0.3}, "3D margin band of edge"},
        {3, {0.005, 0.01, 0.015}, "3D margin band of corner"},
        {3, {-0.1, -0.05, 0.4}, "3D beyond edge, Euclidean region"},
        {3, {-0.1, -0.05, 0.8}, "3D beyond corner (0,0,L), Euclidean region"},
        {3, {-0.02, 0.53, -0.06}, "3D beyond corner, Euclidean region"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int dim = cases[i].dim;
        pfb_boundaries b;
        memset(&b, 0, sizeof b);
        add_tank(&b, dim, L);
        double x[3], v[3] = {0, 0, 0}, g[3], want[3] = {0, 0, 0};
        memcpy(x, cases[i].x, sizeof x);
        for (int k = 0; k < dim; k++)
            want[k] = fmin(fmax(x[k], m), L[k] - m);
        ck_assert_int_eq(boundaries_project(&b, dim, 0.0, m, 0.0, 0.0, x, v), 1);
        double phi = shape_sdf(&b.s[0], dim, 0.0, x, g);
        ck_assert_msg(fabs(phi - m) <= tol, "%s: phi after = %.17g, want margin %g (x = %g %g %g)", cases[i].what,
                      phi, m, x[0], x[1], x[2]);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(x[k] - want[k]) <= tol, "%s: x[%d] = %.17g, want %.17g", cases[i].what, k, x[k],
                          want[k]);
    }
}
END_TEST

START_TEST(test_project_box_velocity)
{
    /* Beyond the floor of the tank, moving down and sideways: e = 0 removes the
     * normal velocity, e = 1 reflects it, friction 1 removes the tangential part. */
    const double L[3] = {1.0, 0.5, 0.75}, m = 0.02, tol = roundoff(4.0);
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    add_tank(&b, 3, L);
    const double e[] = {0.0, 1.0, 0.0}, f[] = {0.0, 0.0, 1.0};
    const double want_vy[] = {0.0, 3.0, 0.0}, want_vxz = 1.0;
    for (int i = 0; i < 3; i++) {
        double x[3] = {0.5, -0.01, 0.4}, v[3] = {0.5, -3.0, -0.75};
        ck_assert_int_eq(boundaries_project(&b, 3, 0.0, m, e[i], f[i], x, v), 1);
        double scale = f[i] == 1.0 ? 0.0 : want_vxz;
        ck_assert_msg(fabs(v[1] - want_vy[i]) <= tol, "e=%g f=%g: vy = %.17g", e[i], f[i], v[1]);
        ck_assert_msg(fabs(v[0] - 0.5 * scale) <= tol && fabs(v[2] + 0.75 * scale) <= tol,
                      "e=%g f=%g: tangential (%.17g, %.17g)", e[i], f[i], v[0], v[2]);
    }
}
END_TEST

START_TEST(test_project_moving_plane)
{
    /* A floor moving up with velocity and oscillation: after projection the point
     * is at the margin of the plane at time t, and the velocity relative to the
     * wall has no component into it (>= 0; for e = 0 it is 0 to round-off, for
     * e = 1 it is minus the incoming one); friction 1 makes the relative
     * tangential velocity zero. */
    const double c[3] = {0.0, 0.1, 0.0};
    pfb_shape s = make_shape(PFB_SHAPE_PLANE, 0, c);
    s.n[1] = 1.0;
    s.vel[0] = 0.3;
    s.vel[1] = 0.4;
    s.amp[1] = 0.05;
    s.omega = 6.0;
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    pfb_err err = {{0}};
    ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
    const double ts[] = {0.0, 0.2, 0.9};
    const double es[] = {0.0, 0.5, 1.0};
    const double m = 0.01, tol = roundoff(4.0);
    for (int dim = 2; dim <= 3; dim++)
        for (size_t i = 0; i < 3; i++)
            for (size_t j = 0; j < 3; j++) {
                double t = ts[i], vw[3], g[3];
                shape_velocity(&s, t, vw);
                double wall_y = c[1] + s.vel[1] * t + s.amp[1] * sin(s.omega * t);
                /* below the wall, moving slower than the wall upwards: penetrating */
                double x[3] = {0.2, wall_y - 0.05, dim == 3 ? 0.1 : 0.0};
                double v[3] = {-0.7, vw[1] - 1.25, dim == 3 ? 0.2 : 0.0};
                double vn_in = v[1] - vw[1];
                ck_assert_int_eq(boundaries_project(&b, dim, t, m, es[j], 1.0, x, v), 1);
                double phi = shape_sdf(&s, dim, t, x, g);
                ck_assert_msg(fabs(phi - m) <= tol, "%dD t=%g: phi = %.17g", dim, t, phi);
                double vn = v[1] - vw[1];
                ck_assert_msg(vn >= -tol, "%dD t=%g e=%g: relative normal velocity %.17g < 0", dim, t, es[j], vn);
                ck_assert_msg(fabs(vn + es[j] * vn_in) <= tol, "%dD t=%g e=%g: relative normal velocity %.17g, "
                              "want %.17g", dim, t, es[j], vn, -es[j] * vn_in);
                ck_assert_msg(fabs(v[0] - vw[0]) <= tol, "%dD t=%g: relative tangential x velocity %.17g", dim, t,
                              v[0] - vw[0]);
                if (dim == 3)
                    ck_assert(fabs(v[2] - vw[2]) <= tol);
            }
}
END_TEST

START_TEST(test_project_spinning)
{
    /* A spinning cylinder obstacle (2D: a disc spinning in the plane; 3D: an axis
     * along y) and a particle inside it, moving inwards with an arbitrary
     * tangential velocity.  With friction 1 and e = 0 the projection puts the
     * particle on the margin and gives it the wall's velocity there, spin x r,
     * tangentially (|v| = |w| (R + margin)), with no normal velocity relative to
     * the wall (the wall's own normal velocity is zero: it spins in place).  With
     * friction 0 the tangential velocity is kept.  Round-off: positions <= 2 and
     * spin 12: roundoff(12 * 2 + 4) covers the velocity sums. */
    const double c[3] = {0.5, 0.25, 0.0}, R = 0.2, w = 12.0, m = 0.01;
    const double tol = roundoff(w * 2.0 + 4.0);
    for (int dim = 2; dim <= 3; dim++)
        for (int fr = 0; fr <= 1; fr++) {
            pfb_shape s = make_shape(PFB_SHAPE_CYLINDER, 0, c);
            s.radius = R;
            s.spin = w;
            s.n[dim == 2 ? 2 : 1] = 1.0;
            pfb_boundaries b;
            memset(&b, 0, sizeof b);
            pfb_err err = {{0}};
            ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
            /* radial direction er = (0.6, 0, 0.8) in 3D (normal to y), (0.6, 0.8) in 2D */
            double er[3] = {0.6, dim == 2 ? 0.8 : 0.0, dim == 3 ? 0.8 : 0.0}, et[3];
            cross3(s.n, er, et); /* the tangent the wall moves along */
            double x[3], v[3], vw[3], g[3];
            for (int k = 0; k < 3; k++) {
                x[k] = c[k] + 0.15 * er[k] + (dim == 3 && k == 1 ? 0.3 : 0.0);
                v[k] = -1.5 * er[k] + 0.7 * et[k];
            }
            if (dim == 2)
                x[2] = 0.0;
            ck_assert_int_eq(boundaries_project(&b, dim, 0.4, m, 0.0, (double)fr, x, v), 1);
            double phi = shape_sdf(&s, dim, 0.4, x, g);
            ck_assert_msg(fabs(phi - m) <= tol, "%dD: phi after = %.17g", dim, phi);
            shape_velocity_at(&s, dim, 0.4, x, vw);
            double vt = dot3(v, et), vn = dot3(v, er);
            ck_assert_msg(fabs(dot3(vw, et) - w * (R + m)) <= tol, "%dD: wall speed %.17g, want %.17g", dim,
                          dot3(vw, et), w * (R + m));
            ck_assert_msg(fabs(vn) <= tol, "%dD f=%d: normal velocity %.17g after projection", dim, fr, vn);
            double want_vt = fr ? w * (R + m) : 0.7;
            ck_assert_msg(fabs(vt - want_vt) <= tol, "%dD f=%d: tangential velocity %.17g, want %.17g", dim, fr, vt,
                          want_vt);
            if (fr)
                for (int k = 0; k < 3; k++)
                    ck_assert_msg(fabs(v[k] - vw[k]) <= tol, "%dD: v[%d] = %.17g, wall %.17g", dim, k, v[k], vw[k]);
        }
}
END_TEST

START_TEST(test_project_spin_zero_unchanged)
{
    /* A still cylinder (spin 0) projects exactly as with the translation-only wall
     * velocity: the same code path as before spin existed, bit for bit.  The
     * expected velocity is formed here from shape_velocity with the same
     * floating-point expressions as boundaries_project. */
    const double c[3] = {0.0, 0.0, 0.0};
    pfb_shape s = make_shape(PFB_SHAPE_CYLINDER, 0, c);
    s.n[2] = 1.0;
    s.radius = 0.3;
    s.vel[0] = 0.2;
    pfb_boundaries b;
    memset(&b, 0, sizeof b);
    pfb_err err = {{0}};
    ck_assert_int_eq(boundaries_add(&b, &s, &err), PFB_OK);
    double x[3] = {0.31, 0.1, 0.0}, v[3] = {-1.0, 0.25, 0.0}, g[3], vw[3], want[3];
    const double t = 0.5, m = 0.02, e = 0.3, f = 0.6;
    double phi = shape_sdf(&s, 2, t, x, g), xw[3];
    for (int k = 0; k < 3; k++)
        xw[k] = x[k];
    for (int k = 0; k < 2; k++)
        xw[k] += (m - phi) * g[k];
    shape_velocity(&s, t, vw);
    double vn = (v[0] - vw[0]) * g[0] + (v[1] - vw[1]) * g[1];
    ck_assert(vn < 0 && phi < m);
    for (int k = 0; k < 2; k++) {
        double vr = v[k] - vw[k];
        double vt = vr - vn * g[k];
        want[k] = vw[k] + (1.0 - f) * vt - e * vn * g[k];
    }
    want[2] = 0.0;
    ck_assert_int_eq(boundaries_project(&b, 2, t, m, e, f, x, v), 1);
    ck_assert(memcmp(x, xw, sizeof x) == 0);
    ck_assert(memcmp(v, want, sizeof v) == 0);
}
END_TEST


/* sim_project_walls skips the particles its exact pre-test (shape_clear in
 * core/boundary.h) finds clear of every plane and box container; the result must
 * be what boundaries_project gives applied to every particle, bit for bit.  A
 * moving box tank and a tilted plane (inside and outside), then the same with a
 * sphere obstacle (never pre-tested), with 4,000 random particles spread over
 * the tank, the margin band and the solids, in 2D and 3D.  Exact equality is the claim; the
 * counts make sure both branches ran. */
START_TEST(test_project_walls_skip_exact)
{
    for (int run = 0; run < 4; run++) {
        const int dim = 2 + run % 2, sphere = run / 2;
        pfb_sim sim;
        pfb_err err = {{0}};
        ck_assert_int_eq(sim_init(&sim, dim, 1, &err), PFB_OK);
        const double c0[3] = {0.5, 0.5, 0.5};
        pfb_shape box = make_shape(PFB_SHAPE_BOX, 1, c0);
        for (int k = 0; k < 3; k++)
            box.half[k] = 0.4;
        box.amp[0] = 0.05;
        box.omega = 3.0;
        pfb_shape pl = make_shape(PFB_SHAPE_PLANE, 0, c0);
        pl.n[0] = 0.6;
        pl.n[1] = 0.8;
        pl.c[1] = 0.1;
        pfb_shape pl2 = pl;
        pl2.inside = 1;
        pl2.c[1] = 1.2;
        const double cs[3] = {0.7, 0.4, 0.5};
        pfb_shape sp = make_shape(PFB_SHAPE_SPHERE, 0, cs);
        sp.radius = 0.1;
        ck_assert_int_eq(boundaries_add(&sim.walls, &box, &err), PFB_OK);
        ck_assert_int_eq(boundaries_add(&sim.walls, &pl, &err), PFB_OK);
        ck_assert_int_eq(boundaries_add(&sim.walls, &pl2, &err), PFB_OK);
        if (sphere)
            ck_assert_int_eq(boundaries_add(&sim.walls, &sp, &err), PFB_OK);
        pfb_rng r;
        rng_seed(&r, 3);
        const size_t n = 4000;
        for (size_t i = 0; i < n; i++) {
            double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) {
                x[k] = -0.1 + 1.2 * rng_uniform(&r);
                v[k] = rng_uniform(&r) - 0.5;
            }
            ck_assert_int_eq(particles_add(&sim.p, x, v, 1.0, &err), PFB_OK);
        }
        double *want = malloc(6 * n * sizeof *want);
        const double t = 0.37, m = 0.03, e = 0.2, f = 0.4;
        size_t moved = 0;
        for (size_t i = 0; i < n; i++) {
            double x[3] = {sim.p.x[0][i], sim.p.x[1][i], sim.p.x[2][i]};
            double v[3] = {sim.p.v[0][i], sim.p.v[1][i], sim.p.v[2][i]};
            moved += (size_t)boundaries_project(&sim.walls, dim, t, m, e, f, x, v);
            for (int k = 0; k < 3; k++) {
                want[6 * i + (size_t)k] = x[k];
                want[6 * i + 3 + (size_t)k] = v[k];
            }
        }
        ck_assert_msg(moved > n / 10 && moved < n - n / 10, "%dD: %zu of %zu moved", dim, moved, n);
        sim_project_walls(&sim, t, m, e, f);
        for (size_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                ck_assert(memcmp(&sim.p.x[k][i], &want[6 * i + (size_t)k], sizeof(double)) == 0);
                ck_assert(memcmp(&sim.p.v[k][i], &want[6 * i + 3 + (size_t)k], sizeof(double)) == 0);
            }
        free(want);
        sim_free(&sim);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */

static Suite *boundary_suite(void)
{
    Suite *s = suite_create("boundary");

    TCase *sdf = tcase_create("sdf");
    tcase_add_test(sdf, test_plane_sdf);
    tcase_add_test(sdf, test_box_sdf_3d);
    tcase_add_test(sdf, test_box_sdf_2d);
    tcase_add_test(sdf, test_sphere_sdf);
    tcase_add_test(sdf, test_cylinder_sdf);
    tcase_add_test(sdf, test_gradient_fd);
    tcase_add_test(sdf, test_moving_centre);
    tcase_add_test(sdf, test_moving_velocity);
    tcase_add_test(sdf, test_spin_velocity);
    tcase_add_test(sdf, test_boundaries_sdf_min);
    suite_add_tcase(s, sdf);

    TCase *val = tcase_create("validate");
    tcase_add_test(val, test_validate);
    tcase_add_test(val, test_too_many_shapes);
    suite_add_tcase(s, val);

    TCase *proj = tcase_create("project");
    tcase_add_test(proj, test_project_plane);
    tcase_add_test(proj, test_project_walls_skip_exact);
    tcase_add_test(proj, test_project_box);
    tcase_add_test(proj, test_project_box_velocity);
    tcase_add_test(proj, test_project_moving_plane);
    tcase_add_test(proj, test_project_spinning);
    tcase_add_test(proj, test_project_spin_zero_unchanged);
    tcase_add_test(proj, test_project_idempotent);
    suite_add_tcase(s, proj);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(boundary_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

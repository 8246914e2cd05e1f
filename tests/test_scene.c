/* test_scene.c — Check suite for core/scene.c: the Mao and Yang scenes balls,
 * stretch and rod, built through the registry as run_setup builds them.
 *
 * Each scene is checked in 2D and 3D at its default spacing: the particle count
 * against the volume it fills (exact for lattice-aligned boxes; for curved
 * surfaces to within the band of cells the surface cuts, see lattice_band), every
 * particle inside the escape domain and on the fluid side of every wall, masses
 * density * spacing^dim; then what is particular to each: the balls' material
 * fields, the stretch velocity field, the rod's spinning surface.  Bad parameters
 * fail with one line naming the value and what is valid. */
#include "../core/scene.h"
#include "../core/solver.h"
#include "testutil.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double TEST_PI = 3.14159265358979323846;

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */

/* Build scene `name` in dim dimensions at spacing (0: the scene's default) with
 * "key=value" overrides (NULL-terminated); returns the build status, err filled. */
static int try_build(const char *name, int dim, double spacing, const char *const *sets, pfb_sim *sim,
                     pfb_err *err)
{
    const pfb_scene_def *def = NULL;
    pfb_params sp;
    ck_assert_msg(scene_lookup(name, &def, err) == PFB_OK, "%s", err->msg);
    ck_assert_int_eq(params_init(&sp, def->params, name, err), PFB_OK);
    for (size_t i = 0; sets && sets[i]; i++) {
        const char *eq = strchr(sets[i], '=');
        char key[64];
        ck_assert(eq != NULL && (size_t)(eq - sets[i]) < sizeof key);
        memcpy(key, sets[i], (size_t)(eq - sets[i]));
        key[eq - sets[i]] = '\0';
        ck_assert_msg(params_set(&sp, key, eq + 1, err) == PFB_OK, "%s", err->msg);
    }
    ck_assert_int_eq(sim_init(sim, dim, 1, err), PFB_OK);
    sim->spacing = spacing > 0 ? spacing : def->default_spacing[dim - 2];
    int rc = def->build(&sp, sim, err);
    params_free(&sp);
    return rc;
}

static void build(const char *name, int dim, const char *const *sets, pfb_sim *sim)
{
    pfb_err err = {{0}};
    int rc = try_build(name, dim, 0.0, sets, sim, &err);
    ck_assert_msg(rc == PFB_OK, "%s %dD: %s", name, dim, err.msg);
    ck_assert_uint_gt(sim->p.n, 0);
}

/* The build fails with one line containing every needle (NULL-terminated). */
static void expect_reject(const char *name, int dim, const char *const *sets, const char *const *needles)
{
    pfb_sim sim;
    pfb_err err = {{0}};
    ck_assert_int_eq(try_build(name, dim, 0.0, sets, &sim, &err), PFB_EINVAL);
    for (size_t i = 0; needles[i]; i++)
        ck_assert_msg(strstr(err.msg, needles[i]) != NULL, "%s %dD: message '%s' lacks '%s'", name, dim, err.msg,
                      needles[i]);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message spans lines: %s", err.msg);
    sim_free(&sim);
}

/* A parameter outside its table range is refused when set, naming the range. */
static void expect_param_refused(const char *name, const char *key, const char *text, const char *needle)
{
    const pfb_scene_def *def = NULL;
    pfb_params sp;
    pfb_err err = {{0}};
    ck_assert_int_eq(scene_lookup(name, &def, &err), PFB_OK);
    ck_assert_int_eq(params_init(&sp, def->params, name, &err), PFB_OK);
    ck_assert_int_eq(params_set(&sp, key, text, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, needle) != NULL, "%s.%s=%s: message '%s' lacks '%s'", name, key, text, err.msg,
                  needle);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message spans lines: %s", err.msg);
    params_free(&sp);
}

/* Every particle lies in the escape domain and strictly on the fluid side of
 * every wall (phi > 0: lattice sites are cell centres, at least half a spacing
 * from the walls they fill up to, and the curved-surface fills keep only sites
 * strictly outside the solid); masses are density * spacing^dim, exactly the
 * product the scenes form. */
static void expect_placed(const pfb_sim *sim, double density, const char *what)
{
    const pfb_particles *p = &sim->p;
    const double m = density * pow(sim->spacing, sim->dim);
    for (size_t i = 0; i < p->n; i++) {
        double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, g[3];
        for (int k = 0; k < sim->dim; k++)
            ck_assert_msg(x[k] >= sim->domain_lo[k] && x[k] <= sim->domain_hi[k],
                          "%s %dD: particle %zu at %c = %g outside the domain [%g, %g]", what, sim->dim, i, "xyz"[k],
                          x[k], sim->domain_lo[k], sim->domain_hi[k]);
        if (sim->dim == 2)
            ck_assert(x[2] == 0.0 && p->v[2][i] == 0.0);
        for (size_t w = 0; w < sim->walls.n; w++) {
            double phi = shape_sdf(&sim->walls.s[w], sim->dim, 0.0, x, g);
            ck_assert_msg(phi > 0.0, "%s %dD: particle %zu at (%g, %g, %g) has phi = %g at wall %zu", what, sim->dim,
                          i, x[0], x[1], x[2], phi, w);
        }
        ck_assert_msg(p->m[i] == m, "%s: mass %.17g, want %.17g", what, p->m[i], m);
    }
}

/* Volume of a ball of radius r in dim dimensions (a disc in 2D). */
static double ball_volume(int dim, double r)
{
    return dim == 2 ? TEST_PI * r * r : 4.0 / 3.0 * TEST_PI * r * r * r;
}

/* Particles on a cell-centre lattice of spacing s, kept where their site lies in a
 * region V: the kept cells' volume n s^dim differs from |V| by at most the volume
 * of the band of points within a = sqrt(dim) s / 2 (the half diagonal of a cell)
 * of the boundary, since a kept cell sticking out of V, or a part of V in a
 * dropped cell, is within a of its site on the other side of the boundary.  For
 * a ball of radius R the band is the shell between radii R - a and R + a. */
static double lattice_band_ball(int dim, double R, double s)
{
    double a = sqrt((double)dim) * s / 2.0;
    return ball_volume(dim, R + a) - ball_volume(dim, fmax(R - a, 0.0));
}

/* Lattice cells along a length L at spacing s, as fill_box counts them. */
static long cells(double L, double s)
{
    return lround(floor(L / s + 1e-9));
}

/* ------------------------------------------------------------------------- */
/* Registry                                                                   */

START_TEST(test_registry)
{
    /* The three scenes are registered; their default spacings give the sizes the
     * paper's examples have (Table 1: 1200 to 4500 particles): about 1e3 to 3e3
     * particles in 2D and 1e4 to 3e4 in 3D. */
    const char *names[] = {"balls", "stretch", "rod"};
    for (size_t i = 0; i < 3; i++) {
        const pfb_scene_def *def = NULL;
        pfb_err err = {{0}};
        ck_assert_msg(scene_lookup(names[i], &def, &err) == PFB_OK, "%s", err.msg);
        ck_assert_str_eq(def->name, names[i]);
        ck_assert(def->default_t_end > 0);
        for (int dim = 2; dim <= 3; dim++) {
            pfb_sim sim;
            build(names[i], dim, NULL, &sim);
            double lo = dim == 2 ? 1e3 : 1e4, hi = dim == 2 ? 3e3 : 3e4;
            ck_assert_msg(sim.p.n >= lo && sim.p.n <= hi, "%s %dD: %zu particles at the default spacing %g", names[i],
                          dim, sim.p.n, sim.spacing);
            ck_assert(sim.length_ref > 0 && sim.v_ref > 0 && sim.rho_ref == 1000.0);
            sim_free(&sim);
        }
    }
    /* a misspelt name suggests the nearest */
    const pfb_scene_def *def = NULL;
    pfb_err err = {{0}};
    ck_assert_int_eq(scene_lookup("stretsh", &def, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "did you mean 'stretch'") != NULL, "%s", err.msg);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* balls                                                                      */

/* Check a balls scene: count balls of radius R at centre height h, gap g; the
 * fields mu_e, lambda, ball and the count of each ball. */
static void check_balls(const pfb_sim *sim, int count, double R, double h, double gap, const double *mu_e,
                        double lam_lo, double lam_hi)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double s = sim->spacing;
    int f_mu = particles_find_field(p, "mu_e"), f_lam = particles_find_field(p, "lambda");
    int f_ball = particles_find_field(p, "ball");
    ck_assert_msg(f_mu >= 0 && f_lam >= 0 && f_ball >= 0, "balls: fields mu_e %d, lambda %d, ball %d", f_mu, f_lam,
                  f_ball);
    ck_assert(p->field[f_mu].ncomp == 1 && p->field[f_lam].ncomp == 1 && p->field[f_ball].ncomp == 1);
    size_t per[16] = {0};
    for (size_t i = 0; i < p->n; i++) {
        double bd = p->field[f_ball].data[i];
        int b = (int)bd;
        ck_assert_msg(bd == (double)b && b >= 0 && b < count, "particle %zu: ball %g", i, bd);
        per[b]++;
        /* the particle lies in ball b: within R of its centre */
        double c[3] = {gap + R + b * (2.0 * R + gap), h, dim == 3 ? gap + R : 0.0}, r2 = 0.0;
        for (int k = 0; k < dim; k++)
            r2 += (p->x[k][i] - c[k]) * (p->x[k][i] - c[k]);
        ck_assert_msg(r2 < R * R, "particle %zu of ball %d is %g from its centre (R = %g)", i, b, sqrt(r2), R);
        /* material: lambda exactly the parameter; mu_e log-even, to the rounding of
         * lo * pow(hi / lo, j / (m - 1)): a division, pow (< 1 ulp) and a product, a
         * few ulps: 8 eps relative */
        double lam = p->field[f_lam].data[i], mu = p->field[f_mu].data[i];
        ck_assert_msg(lam == (b < count / 2 ? lam_lo : lam_hi), "ball %d: lambda %g", b, lam);
        double want = mu_e[b % (count / 2)];
        ck_assert_msg(fabs(mu - want) <= 8.0 * DBL_EPSILON * want, "ball %d: mu_e %.17g, want %.17g", b, mu, want);
        ck_assert(p->v[0][i] == 0.0 && p->v[1][i] == 0.0 && p->v[2][i] == 0.0);
    }
    /* each ball: its lattice count to within the boundary band (lattice_band_ball) */
    size_t total = 0;
    for (int b = 0; b < count; b++) {
        double V = ball_volume(dim, R), band = lattice_band_ball(dim, R, s);
        double got = (double)per[b] * pow(s, dim);
        ck_assert_msg(fabs(got - V) <= band, "ball %d (%dD): %zu particles, volume %g vs %g (band %g)", b, dim, per[b],
                      got, V, band);
        /* every ball is the same lattice ball, translated */
        ck_assert_uint_eq(per[b], per[0]);
        total += per[b];
    }
    ck_assert_uint_eq(total, p->n);
}

START_TEST(test_balls)
{
    /* defaults: 6 balls, R = 0.05, centres at 0.15, gap 0.05; lambda 0.05 s for
     * balls 0-2 and 1 s for 3-5; mu_e 1e3, 1e4, 1e5 Pa in each half */
    const double mu6[3] = {1e3, 1e4, 1e5};
    for (int dim = 2; dim <= 3; dim++) {
        pfb_sim sim;
        build("balls", dim, NULL, &sim);
        expect_placed(&sim, 1000.0, "balls");
        check_balls(&sim, 6, 0.05, 0.15, 0.05, mu6, 0.05, 1.0);
        /* a closed tank 6 * 0.1 + 7 * 0.05 = 0.95 long, 2 (0.15 + 0.05) = 0.4 high */
        ck_assert_uint_eq(sim.walls.n, 1);
        const pfb_shape *t = &sim.walls.s[0];
        ck_assert(t->type == PFB_SHAPE_BOX && t->inside == 1);
        ck_assert(fabs(2.0 * t->half[0] - 0.95) <= 4.0 * DBL_EPSILON && fabs(2.0 * t->half[1] - 0.4) <= 4.0 * DBL_EPSILON);
        ck_assert(sim.g[0] == 0.0 && sim.g[1] == -9.81 && sim.g[2] == 0.0);
        sim_free(&sim);
    }
    /* four balls, resting on the floor (height = radius), mu_e 10 -> 1000: the
     * halves are {10, 1000} */
    const char *sets[] = {"count=4", "height=0.05", "mu_e_lo=10", "mu_e_hi=1000", "lambda_lo=0.2", "lambda_hi=3",
                          NULL};
    const double mu4[2] = {10.0, 1000.0};
    for (int dim = 2; dim <= 3; dim++) {
        pfb_sim sim;
        build("balls", dim, sets, &sim);
        expect_placed(&sim, 1000.0, "balls count=4");
        check_balls(&sim, 4, 0.05, 0.05, 0.05, mu4, 0.2, 3.0);
        sim_free(&sim);
    }
    /* two balls: one per half, mu_e_lo each */
    const char *sets2[] = {"count=2", NULL};
    const double mu2[1] = {1e3};
    pfb_sim sim;
    build("balls", 2, sets2, &sim);
    check_balls(&sim, 2, 0.05, 0.15, 0.05, mu2, 0.05, 1.0);
    sim_free(&sim);
}
END_TEST

START_TEST(test_balls_reject)
{
    const char *odd[] = {"count=5", NULL}, *low[] = {"height=0.03", NULL};
    const char *n_odd[] = {"count 5", "even", NULL}, *n_low[] = {"height 0.03", "height >= radius", NULL};
    expect_reject("balls", 2, odd, n_odd);
    expect_reject("balls", 3, low, n_low);
    expect_param_refused("balls", "count", "1", "1");
    expect_param_refused("balls", "count", "18", "18");
    expect_param_refused("balls", "mu_e_lo", "0", "mu_e_lo");
    /* too coarse for the ball */
    pfb_sim sim;
    pfb_err err = {{0}};
    ck_assert_int_eq(try_build("balls", 2, 0.04, NULL, &sim, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "spacing 0.04") && strstr(err.msg, "ball radius"), "%s", err.msg);
    sim_free(&sim);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* stretch                                                                    */

/* Least-squares slope of v against x over all particles (with intercept). */
static double slope(const pfb_particles *p, const double *v, const double *x)
{
    double mx = 0.0, mv = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        mx += x[i];
        mv += v[i];
    }
    mx /= (double)p->n;
    mv /= (double)p->n;
    double sxv = 0.0, sxx = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        sxv += (x[i] - mx) * (v[i] - mv);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    return sxx > 0 ? sxv / sxx : 0.0;
}

START_TEST(test_stretch)
{
    const double w = 0.04, H = 0.08, rate = 10.0;
    for (int grav = 0; grav <= 1; grav++)
        for (int dim = 2; dim <= 3; dim++) {
            const char *sets[] = {grav ? "gravity=1" : "gravity=0", NULL};
            pfb_sim sim;
            build("stretch", dim, sets, &sim);
            const pfb_particles *p = &sim.p;
            const double s = sim.spacing;
            expect_placed(&sim, 1000.0, "stretch");
            /* a box on the lattice: exactly (w/s)(H/s)(w/s) sites, here 25 x 50 (2D,
             * s = 1.6 mm) and 20 x 40 x 20 (3D, s = 2 mm) */
            long want = cells(w, s) * cells(H, s) * (dim == 3 ? cells(w, s) : 1);
            ck_assert_uint_eq(p->n, (size_t)want);
            ck_assert_uint_eq(p->n, dim == 2 ? 1250 : 16000);
            /* centred at the origin: the sites are symmetric, so their sum is 0 to
             * round-off (n sites of |x| <= H, n eps H) */
            for (int k = 0; k < dim; k++) {
                double sum = 0.0;
                for (size_t i = 0; i < p->n; i++)
                    sum += p->x[k][i];
                ck_assert_msg(fabs(sum) <= (double)p->n * DBL_EPSILON * H, "%dD: sum of x%d = %g", dim, k, sum);
            }
            /* The velocity is the linear field v_k = a_k (x_k - x0_k) with the
             * diagonal gradient a = (-rate/(dim-1), rate, -rate/(dim-1)), x0 the
             * origin (gravity off) or the base centre (0, -H/2, 0) (gravity on):
             * bit for bit, since the scene forms it with these expressions. */
            const double a_side = -rate / (double)(dim - 1), y0 = grav ? -0.5 * H : 0.0;
            const double a[3] = {a_side, rate, dim == 3 ? a_side : 0.0};
            /* divergence-free exactly: the trace is 0 in floating point (division
             * by 1 or 2 is exact, so a_side (dim - 1) = -rate exactly) */
            double trace = 0.0;
            for (int k = 0; k < dim; k++)
                trace += a[k];
            ck_assert_msg(trace == 0.0, "%dD: trace of grad v = %.17g", dim, trace);
            for (size_t i = 0; i < p->n; i++) {
                ck_assert(p->v[0][i] == a_side * p->x[0][i]);
                ck_assert(p->v[1][i] == rate * (p->x[1][i] - y0));
                ck_assert(p->v[2][i] == (dim == 3 ? a_side * p->x[2][i] : 0.0));
            }
            /* The gradient measured from the particles: least-squares slopes of v_k
             * against x_j are a_k on the diagonal and 0 off it.  Round-off: each
             * v = a x carries eps |a x| and the sums over n terms n eps each, so the
             * slope is a to about n eps |a| (times a few): 8 n eps rate. */
            double tol = 8.0 * (double)p->n * DBL_EPSILON * rate, div = 0.0;
            for (int k = 0; k < dim; k++)
                for (int j = 0; j < dim; j++) {
                    double g = slope(p, p->v[k], p->x[j]);
                    double wantg = j == k ? a[k] : 0.0;
                    ck_assert_msg(fabs(g - wantg) <= tol, "%dD gravity=%d: dv%d/dx%d = %.17g, want %g (tol %g)", dim,
                                  grav, k, j, g, wantg, tol);
                    if (j == k)
                        div += g;
                }
            ck_assert_msg(fabs(div) <= dim * tol, "%dD: measured divergence %.17g", dim, div);
            /* walls, gravity, scales */
            if (grav) {
                ck_assert_uint_eq(sim.walls.n, 1);
                const pfb_shape *f = &sim.walls.s[0];
                ck_assert(f->type == PFB_SHAPE_PLANE && f->n[1] == 1.0 && f->c[1] == -0.5 * H);
                ck_assert(sim.g[1] == -9.81);
                /* base on the floor, pulled up: top speed rate H = 0.8 m/s against
                 * free fall sqrt(2 g H) = 1.25 m/s */
                ck_assert(sim.v_ref == fmax(rate * H, sqrt(2.0 * 9.81 * H)));
            } else {
                ck_assert_uint_eq(sim.walls.n, 0);
                ck_assert(sim.g[0] == 0.0 && sim.g[1] == 0.0 && sim.g[2] == 0.0);
                ck_assert(sim.v_ref == 0.5 * rate * H);
            }
            ck_assert(sim.length_ref == H);
            /* a generous domain: the column may grow to several times its length */
            for (int k = 0; k < dim; k++)
                ck_assert(sim.domain_lo[k] <= -5.0 * H && sim.domain_hi[k] >= 5.0 * H);
            sim_free(&sim);
        }
}
END_TEST

START_TEST(test_stretch_reject)
{
    expect_param_refused("stretch", "rate", "0", "rate");
    expect_param_refused("stretch", "width", "-1", "width");
    expect_param_refused("stretch", "gravity", "maybe", "gravity");
    pfb_sim sim;
    pfb_err err = {{0}};
    ck_assert_int_eq(try_build("stretch", 3, 0.03, NULL, &sim, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "spacing 0.03") && strstr(err.msg, "column width 0.04"), "%s", err.msg);
    sim_free(&sim);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* shear_wave (the periodic box)                                              */

/* Every axis periodic over [0, L), a whole lattice, u_x = U sin(2 pi y / L)
 * exactly at the sites, no walls or gravity, and the image field registered. */
START_TEST(test_shear_wave)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_sim sim;
        pfb_err err = {{0}};
        const char *sets[] = {"length=0.2", "amplitude=0.1", NULL};
        ck_assert_int_eq(try_build("shear_wave", dim, 0.01, sets, &sim, &err), PFB_OK);
        ck_assert_uint_eq(sim.p.n, dim == 2 ? 400u : 8000u);
        for (int d = 0; d < dim; d++) {
            ck_assert(fabs(sim.period.L[d] - 0.2) < 1e-12);
            ck_assert(sim.domain_lo[d] == 0.0);
        }
        ck_assert(sim_periodic(&sim) && sim.walls.n == 0);
        ck_assert(sim.g[0] == 0 && sim.g[1] == 0 && sim.g[2] == 0);
        ck_assert(sim.f_image >= 0);
        double worst = 0.0;
        for (size_t i = 0; i < sim.p.n; i++)
            worst = fmax(worst, fabs(sim.p.v[0][i] - 0.1 * sin(2.0 * M_PI * sim.p.x[1][i] / 0.2)));
        ck_assert(worst < 1e-14); /* the scene divides by L = 20 spacings, rounded */
        sim_free(&sim);
    }
}
END_TEST

/* The drop's shells (scene.fill = shells): each shell's particles share its
 * annulus's (spherical shell's) mass, so the total is rho pi R^2 (rho 4/3 pi
 * R^3) to rounding; every particle lies on its shell's mid-radius, inside R;
 * and the outer shell is a circle (sphere) of radius R - s/2. */
START_TEST(test_drop_shells)
{
    for (int dim = 2; dim <= 3; dim++) {
        pfb_sim sim;
        pfb_err err = {{0}};
        const char *sets[] = {"fill=shells", "amplitude=0", "radius=0.1", NULL};
        const double dx = dim == 2 ? 0.005 : 0.01, R = 0.1;
        ck_assert_int_eq(try_build("drop", dim, dx, sets, &sim, &err), PFB_OK);
        double M = 0.0, rmax = 0.0, off = 0.0;
        for (size_t i = 0; i < sim.p.n; i++) {
            M += sim.p.m[i];
            const double r = sqrt(sim.p.x[0][i] * sim.p.x[0][i] + sim.p.x[1][i] * sim.p.x[1][i] +
                                  sim.p.x[2][i] * sim.p.x[2][i]);
            rmax = fmax(rmax, r);
            off = fmax(off, fabs(r / dx - floor(r / dx) - 0.5)); /* on a mid-radius (k + 1/2) dx */
        }
        const double M_ball = 1000.0 * (dim == 2 ? M_PI * R * R : 4.0 / 3.0 * M_PI * R * R * R);
        ck_assert_msg(fabs(M / M_ball - 1.0) < 1e-12, "%dD: mass %.15g against %.15g", dim, M, M_ball);
        ck_assert_msg(fabs(rmax - (R - 0.5 * dx)) < 1e-12, "%dD: outer shell at %.15g", dim, rmax);
        ck_assert_msg(off < 1e-9, "%dD: a particle %.3g spacings off its shell", dim, off);
        sim_free(&sim);
    }
}
END_TEST

/* A spacing that does not divide the box, named with what is valid. */
START_TEST(test_shear_wave_reject)
{
    pfb_sim sim;
    pfb_err err = {{0}};
    const char *sets[] = {"length=0.1", NULL};
    ck_assert_int_eq(try_build("shear_wave", 2, 0.003, sets, &sim, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "spacing 0.003") && strstr(err.msg, "whole number"), "%s", err.msg);
    sim_free(&sim);
    ck_assert_int_eq(try_build("shear_wave", 2, 0.02, sets, &sim, &err), PFB_EINVAL); /* 5 cells < 8 */
    ck_assert_msg(strstr(err.msg, "N >= 8"), "%s", err.msg);
    sim_free(&sim);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* rod                                                                        */

START_TEST(test_rod)
{
    const double W = 0.16, D = 0.06, Rr = 0.01, spin = 20.0;
    for (int dim = 2; dim <= 3; dim++) {
        pfb_sim sim;
        build("rod", dim, NULL, &sim);
        const pfb_particles *p = &sim.p;
        const double s = sim.spacing;
        expect_placed(&sim, 1000.0, "rod");
        /* walls: the tank (W x 2D x W) and the spinning rod */
        ck_assert_uint_eq(sim.walls.n, 2);
        const pfb_shape *tank = &sim.walls.s[0], *rod = &sim.walls.s[1];
        ck_assert(tank->type == PFB_SHAPE_BOX && tank->inside == 1);
        ck_assert(fabs(2.0 * tank->half[1] - 2.0 * D) <= 4.0 * DBL_EPSILON);
        ck_assert(rod->type == PFB_SHAPE_CYLINDER && rod->inside == 0 && rod->radius == Rr && rod->spin == spin);
        ck_assert(rod->half_len == 0.0); /* infinite: through floor and lid */
        /* Count: the pool's lattice (nx ny (nz)) less the sites inside the rod.  The
         * rod's section is a disc of radius Rr in the plane across its axis, and
         * each lattice layer along the axis (ny layers in 3D, one in 2D) loses the
         * sites inside it: by lattice_band_ball in that plane (2D), within the
         * shell of half-diagonal s/sqrt(2) either side of the circle. */
        long nx = cells(W, s), ny = cells(D, s), layers = dim == 3 ? ny : 1;
        double full = (double)nx * (double)ny * (dim == 3 ? (double)nx : 1.0);
        double removed = full - (double)p->n;
        double disc = TEST_PI * Rr * Rr / (s * s), band = lattice_band_ball(2, Rr, s) / (s * s);
        ck_assert_msg(fabs(removed - layers * disc) <= layers * band,
                      "rod %dD: %zu particles, %g removed by the rod, expected %g +- %g", dim, p->n, removed,
                      layers * disc, layers * band);
        /* the fluid fills the pool to its depth: top layer at D - s/2 */
        double ymax = -INFINITY;
        for (size_t i = 0; i < p->n; i++)
            ymax = fmax(ymax, p->x[1][i]);
        ck_assert(fabs(ymax - (D - 0.5 * s)) <= 4.0 * DBL_EPSILON * D);
        /* Surface velocity: at the rod's surface point c + Rr e (e normal to the
         * axis) the wall moves at spin Rr along axis x e: 3D axis +y, 2D axis +z.
         * Round-off: a few roundings of coordinates <= W times spin:
         * 16 eps (spin W + 1). */
        const double ax[3] = {0.0, dim == 3 ? 1.0 : 0.0, dim == 2 ? 1.0 : 0.0};
        ck_assert(rod->n[0] == ax[0] && rod->n[1] == ax[1] && rod->n[2] == ax[2]);
        const double tol = 16.0 * DBL_EPSILON * (spin * W + 1.0);
        const double es[2][3] = {{0.6, dim == 2 ? 0.8 : 0.0, dim == 3 ? 0.8 : 0.0}, {-1.0, 0.0, 0.0}};
        for (int q = 0; q < 2; q++) {
            const double *e = es[q];
            double x[3], v[3], g[3];
            for (int k = 0; k < 3; k++)
                x[k] = rod->c[k] + Rr * e[k] + (dim == 3 && k == 1 ? 0.037 : 0.0);
            ck_assert(fabs(shape_sdf(rod, dim, 1.3, x, g)) <= tol);
            shape_velocity_at(rod, dim, 1.3, x, v);
            double want[3] = {spin * Rr * (ax[1] * e[2] - ax[2] * e[1]), spin * Rr * (ax[2] * e[0] - ax[0] * e[2]),
                              spin * Rr * (ax[0] * e[1] - ax[1] * e[0])};
            for (int k = 0; k < 3; k++)
                ck_assert_msg(fabs(v[k] - want[k]) <= tol, "rod %dD: surface v[%d] = %.17g, want %.17g", dim, k, v[k],
                              want[k]);
            ck_assert(fabs(sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) - spin * Rr) <= tol);
        }
        /* scales: v_ref = max(spin Rr, sqrt(g D)) = max(0.2, 0.767) */
        ck_assert(sim.g[1] == -9.81 && sim.length_ref == D);
        ck_assert(sim.v_ref == fmax(spin * Rr, sqrt(9.81 * D)));
        sim_free(&sim);
    }
    /* a fast rod sets v_ref */
    const char *fast[] = {"spin=-200", NULL};
    pfb_sim sim;
    build("rod", 2, fast, &sim);
    ck_assert(sim.v_ref == 200.0 * Rr && sim.walls.s[1].spin == -200.0);
    sim_free(&sim);
}
END_TEST

START_TEST(test_rod_reject)
{
    const char *fat2[] = {"rod_radius=0.03", NULL}, *fat3[] = {"rod_radius=0.08", NULL};
    const char *n2[] = {"rod_radius 0.03", "depth 0.06", "valid: rod_radius < 0.03", NULL};
    const char *n3[] = {"rod_radius 0.08", "width 0.16", "valid: rod_radius < 0.08", NULL};
    expect_reject("rod", 2, fat2, n2);
    expect_reject("rod", 3, fat3, n3);
    /* in 3D a rod thicker than half the depth is fine: it spans the tank */
    pfb_sim sim;
    build("rod", 3, fat2, &sim);
    sim_free(&sim);
    expect_param_refused("rod", "tank_height", "1.5", "tank_height");
    expect_param_refused("rod", "spin", "1e5", "spin");
    /* the rod must be resolved: rod_radius >= 2 spacings */
    const char *thin[] = {"rod_radius=0.003", NULL};
    const char *nt[] = {"spacing 0.002", "rod radius 0.003", NULL};
    expect_reject("rod", 2, thin, nt);
}
END_TEST

/* ---- the emitter (fill scene's pouring stream) ------------------------------ */

/* Layer counts are exact: a layer per spacing of travel, u t_stop / s layers in
 * all (here 0.75 / 0.01 = 75); every particle leaves at the stream's speed. */
START_TEST(test_emitter_counts)
{
    pfb_err err;
    pfb_sim sim;
    tu_bare_sim(&sim, 2, 0.01, 0, NULL, NULL);
    const double c[3] = {0.3, 1.0, 0.0};
    ck_assert(sim_emitter_init(&sim, c, 0.08, 1.5, 1000.0, 0.5, &err) == 0);
    ck_assert_uint_eq(sim.emit.layer_n, 8);
    ck_assert(sim_emit_start(&sim, 4, &err) == 0);
    ck_assert_uint_eq(sim.p.n, 32);
    /* the first layers: x on the half-offset lattice across the exit, y one
     * spacing apart down from the exit, mass density x spacing^2 */
    for (size_t i = 0; i < sim.p.n; i++) {
        double fx = (sim.p.x[0][i] - c[0]) / 0.01 - 0.5, fy = (c[1] - sim.p.x[1][i]) / 0.01;
        ck_assert_msg(fabs(fx - round(fx)) < 1e-9 && fabs(fx) < 4.0, "x %g off the exit's lattice", sim.p.x[0][i]);
        ck_assert_msg(fabs(fy - round(fy)) < 1e-9 && fy > -0.5 && fy < 3.5, "y %g off the first layers", sim.p.x[1][i]);
        ck_assert(fabs(sim.p.m[i] - 0.1) < 1e-15 && sim.p.v[1][i] == -1.5 && sim.p.v[0][i] == 0.0);
    }
    const double dt = 1e-3;
    for (int k = 1; k <= 600; k++) {
        size_t before = sim.p.n;
        for (size_t i = 0; i < before; i++) /* the step moves the stream on (a bare sim has no solver) */
            sim.p.x[1][i] -= 1.5 * dt;
        ck_assert(sim_emit(&sim, dt, k * dt, &err) == 0); /* then the run loop emits */
        for (size_t i = before; i < sim.p.n; i++) /* each new layer is within a spacing of the exit */
            ck_assert(sim.p.x[1][i] <= c[1] && sim.p.x[1][i] > c[1] - 0.01);
    }
    ck_assert_uint_eq(sim.p.n, 32 + 75 * 8);
    ck_assert_uint_eq(sim.emit.held, 0);
    ck_assert(fabs(sim_emitter_mass(&sim) - 75 * 8 * 0.1) < 1e-9);
    sim_free(&sim);

    /* 3D: a disc of diameter 0.08 on the 0.01 lattice; its area to within the
     * lattice's resolution of the rim (perimeter x spacing) */
    tu_bare_sim(&sim, 3, 0.01, 0, NULL, NULL);
    ck_assert(sim_emitter_init(&sim, c, 0.08, 1.5, 1000.0, 0.5, &err) == 0);
    double area = (double)sim.emit.layer_n * 1e-4, want = M_PI * 0.04 * 0.04;
    ck_assert_msg(fabs(area - want) <= 2.0 * M_PI * 0.04 * 0.01, "layer area %g, disc %g", area, want);
    sim_free(&sim);

    /* bad input names the value */
    tu_bare_sim(&sim, 2, 0.01, 0, NULL, NULL);
    ck_assert(sim_emitter_init(&sim, c, 0.08, -1.0, 1000.0, 0.5, &err) == PFB_EINVAL);
    ck_assert(strstr(err.msg, "speed -1") != NULL);
    ck_assert(sim_emitter_init(&sim, c, 0.005, 1.0, 1000.0, 0.5, &err) == PFB_EINVAL);
    ck_assert(strstr(err.msg, "width 0.005") != NULL);
    sim_free(&sim);
}
END_TEST

/* A nozzle cannot pour into fluid standing at its exit: with the stream's last
 * layer stopped just below the exit (a viscous pile reaching the nozzle, as
 * miller_pearce's stream in the fill scene), a due layer waits (no particle is
 * placed within 0.9 spacing of another over the exit) and comes out at the exit
 * once the place is free; the stream then pours less than speed x t_stop. */
START_TEST(test_emitter_waits_when_blocked)
{
    pfb_err err;
    pfb_sim sim;
    tu_bare_sim(&sim, 2, 0.01, 0, NULL, NULL);
    const double c[3] = {0.3, 1.0, 0.0}, dt = 1e-3;
    ck_assert(sim_emitter_init(&sim, c, 0.08, 1.5, 1000.0, 1.0, &err) == 0);
    ck_assert(sim_emit_start(&sim, 1, &err) == 0);
    ck_assert_uint_eq(sim.p.n, 8);
    /* the layer has moved 0.3 spacing and stopped: each step's layer is held */
    for (size_t i = 0; i < sim.p.n; i++)
        sim.p.x[1][i] -= 0.003;
    for (int k = 1; k <= 20; k++)
        ck_assert(sim_emit(&sim, dt, k * dt, &err) == 0);
    ck_assert_uint_eq(sim.p.n, 8);
    ck_assert_uint_gt(sim.emit.held, 0);
    /* the pile drops away: the waiting layer comes out within a step's travel of the exit */
    for (size_t i = 0; i < sim.p.n; i++)
        sim.p.x[1][i] -= 0.5;
    ck_assert(sim_emit(&sim, dt, 21 * dt, &err) == 0);
    ck_assert_uint_eq(sim.p.n, 16);
    for (size_t i = 8; i < 16; i++)
        ck_assert_msg(sim.p.x[1][i] <= c[1] && sim.p.x[1][i] >= c[1] - 1.5 * dt * (1 + 1e-9), "y %.15g",
                      sim.p.x[1][i]);
    sim_free(&sim);
}
END_TEST

/* Globules an emitter adds get miller_pearce's radius and temperature (not the
 * zeroed fields particles_add leaves); mao_yang's enter its density sum (eq. 4:
 * at least their own m W(0) > 0), the fields its rest density needs being none
 * (eq. 7's rho_0 is every particle's). */
START_TEST(test_emitter_new_particles_initialised)
{
    pfb_err err;
    const char *names[] = {"miller_pearce", "mao_yang"};
    for (int s = 0; s < 2; s++) {
        const pfb_solver_ops *so = solver_find(names[s]);
        pfb_sim sim;
        tu_bare_sim(&sim, 2, 0.01, 0, NULL, NULL);
        const double c[3] = {0.0, 0.0, 0.0};
        ck_assert(sim_emitter_init(&sim, c, 0.04, 1.0, 1000.0, 1.0, &err) == 0);
        ck_assert(sim_emit_start(&sim, 4, &err) == 0);
        void *st = tu_create(so, &sim, NULL);
        double dt = 2e-4;
        for (int k = 0; k < 200; k++) {
            tu_step(so, st, &sim, dt);
            ck_assert(sim_emit(&sim, dt, sim.t, &err) == 0);
        }
        tu_step(so, st, &sim, dt);
        ck_assert_uint_eq(sim.p.n, 4 * (4 + 4)); /* 0.04 m of stream: 4 more layers */
        const char *f = s == 0 ? "radius" : "density";
        const int fi = particles_find_field(&sim.p, f);
        ck_assert_msg(fi >= 0, "%s has no field %s", names[s], f);
        const double *v = sim.p.field[fi].data;
        for (size_t i = 0; i < sim.p.n; i++)
            ck_assert_msg(v[i] > 0.0 && isfinite(v[i]), "%s: particle id %llu has %s %g", names[s], (unsigned long long)sim.p.id[i], f,
                          v[i]);
        so->destroy(st);
        sim_free(&sim);
    }
}
END_TEST

/* ------------------------------------------------------------------------- */

static Suite *scene_suite(void)
{
    Suite *s = suite_create("scene");
    TCase *reg = tcase_create("registry");
    tcase_add_test(reg, test_registry);
    tcase_add_test(reg, test_shear_wave);
    tcase_add_test(reg, test_shear_wave_reject);
    tcase_add_test(reg, test_drop_shells);
    tcase_set_timeout(reg, 60);
    suite_add_tcase(s, reg);

    TCase *my = tcase_create("mao_yang");
    tcase_add_test(my, test_balls);
    tcase_add_test(my, test_balls_reject);
    tcase_add_test(my, test_stretch);
    tcase_add_test(my, test_stretch_reject);
    tcase_add_test(my, test_rod);
    tcase_add_test(my, test_rod_reject);
    tcase_set_timeout(my, 60);
    suite_add_tcase(s, my);

    TCase *em = tcase_create("emitter");
    tcase_add_test(em, test_emitter_counts);
    tcase_add_test(em, test_emitter_waits_when_blocked);
    tcase_add_test(em, test_emitter_new_particles_initialised);
    tcase_set_timeout(em, 60);
    suite_add_tcase(s, em);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(scene_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* test_diag.c — Check suite for core/diag.c (the common diagnostics).
 *
 * diag_basic is checked on hand-made particles against hand-computed sums;
 * lattice_density against the integral of the kernel and a direct sum; diag_init
 * and diag_compute on scenes built through the registry, as run_setup builds
 * them, in their initial state (which is the calibration) and after a rigid
 * translation and a uniform compression of the 2D drop. */
#include "../core/diag.h"
#include "../core/scene.h"

#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double TEST_PI = 3.14159265358979323846;

/* ------------------------------------------------------------------------- */
/* diag_basic on hand-made particles                                          */

static void add_particle(pfb_sim *sim, double m, double x0, double x1, double x2, double v0, double v1, double v2)
{
    pfb_err err = {{0}};
    const double x[3] = {x0, x1, x2}, v[3] = {v0, v1, v2};
    ck_assert_int_eq(particles_add(&sim->p, x, v, m, &err), PFB_OK);
}

/* |got - want| <= tol, with a message naming the quantity */
static void expect_near(double got, double want, double tol, const char *what)
{
    ck_assert_msg(fabs(got - want) <= tol, "%s = %.17g, want %.17g (tol %g)", what, got, want, tol);
}

START_TEST(test_basic_3d)
{
    pfb_sim sim;
    pfb_err err = {{0}};
    ck_assert_int_eq(sim_init(&sim, 3, 1, &err), PFB_OK);
    sim.g[1] = -9.81;
    sim.t = 0.625;
    add_particle(&sim, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0);
    add_particle(&sim, 1.0, 0.0, 2.0, -1.0, 3.0, 0.0, 1.0);
    add_particle(&sim, 0.5, -2.0, 1.0, 4.0, 0.0, -2.0, 2.0);
    pfb_diag d;
    diag_basic(&sim, &d);
    /* Hand sums (see the particle list above):
     *  mass 3.5; ke = (2*1 + 1*10 + 0.5*8)/2 = 8;
     *  pe = -sum m g.x = 9.81 (2*0 + 1*2 + 0.5*1) = 24.525;
     *  p = (0,2,0) + (3,0,1) + (0,-1,1) = (3, 1, 2);
     *  L = 2 (0,0,1) + (2,-3,-6) + 0.5 (10,4,4) = (7, -1, -2);
     *  com = (2 - 1, 2 + 0.5, -1 + 2) / 3.5 = (2, 5, 2)/7;
     *  extents x [-2, 1], y [0, 2], z [-1, 4].
     * Round-off: masses, positions and velocities are small dyadic numbers, so
     * every sum except pe (9.81 is inexact) and com (a division) is exact;
     * those two carry a few roundings of their size: 8 eps * magnitude. */
    ck_assert(d.t == 0.625);
    ck_assert_uint_eq(d.n, 3);
    expect_near(d.mass, 3.5, 0.0, "mass");
    expect_near(d.ke, 8.0, 0.0, "ke");
    expect_near(d.pe, 24.525, 8.0 * DBL_EPSILON * 24.525, "pe");
    const double p[3] = {3, 1, 2}, l[3] = {7, -1, -2}, com[3] = {2.0 / 7.0, 5.0 / 7.0, 2.0 / 7.0};
    const double lo[3] = {-2, 0, -1}, hi[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        expect_near(d.p[k], p[k], 0.0, "momentum");
        expect_near(d.l[k], l[k], 0.0, "angular momentum");
        expect_near(d.com[k], com[k], 8.0 * DBL_EPSILON, "centre of mass");
        ck_assert(d.lo[k] == lo[k] && d.hi[k] == hi[k]);
    }
    /* gravity along an inexact direction: pe = -sum m g.x, in any direction */
    sim.g[0] = 0.3;
    sim.g[1] = -0.4;
    sim.g[2] = 1.2;
    diag_basic(&sim, &d);
    /* sum m x = (1, 2.5, 1): pe = -(0.3 - 1.0 + 1.2) = -0.5; round-off: 3 particles
     * x 3 products of size <= 5, 8 eps each */
    expect_near(d.pe, -0.5, 3.0 * 3.0 * 8.0 * DBL_EPSILON * 5.0, "pe (tilted gravity)");
    sim_free(&sim);
}
END_TEST

START_TEST(test_basic_2d)
{
    pfb_sim sim;
    pfb_err err = {{0}};
    ck_assert_int_eq(sim_init(&sim, 2, 1, &err), PFB_OK);
    sim.g[1] = -2.0;
    /* z passed non-zero is stored as 0 in 2D, so it must not enter any sum */
    add_particle(&sim, 2.0, 1.0, 0.0, 5.0, 0.0, 1.0, 7.0);
    add_particle(&sim, 1.0, 0.0, 2.0, -3.0, 3.0, 0.0, 1.0);
    pfb_diag d;
    diag_basic(&sim, &d);
    /* ke = (2*1 + 1*9)/2 = 5.5; pe = 2 (2*0 + 1*2) = 4; p = (3, 2, 0);
     * L = (0, 0, 2*(1*1) + 1*(0*0 - 2*3)) = (0, 0, -4); com = (2, 2, 0)/3;
     * all exact except com (a division: 8 eps) */
    expect_near(d.mass, 3.0, 0.0, "mass");
    expect_near(d.ke, 5.5, 0.0, "ke");
    expect_near(d.pe, 4.0, 0.0, "pe");
    const double p[3] = {3, 2, 0}, l[3] = {0, 0, -4}, com[3] = {2.0 / 3.0, 2.0 / 3.0, 0.0};
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 2, 0};
    for (int k = 0; k < 3; k++) {
        expect_near(d.p[k], p[k], 0.0, "momentum");
        expect_near(d.l[k], l[k], 0.0, "angular momentum");
        expect_near(d.com[k], com[k], 8.0 * DBL_EPSILON, "centre of mass");
        ck_assert(d.lo[k] == lo[k] && d.hi[k] == hi[k]);
    }
    sim_free(&sim);

    /* no particles: all zero */
    ck_assert_int_eq(sim_init(&sim, 2, 1, &err), PFB_OK);
    diag_basic(&sim, &d);
    ck_assert(d.n == 0 && d.mass == 0.0 && d.ke == 0.0 && d.lo[0] == 0.0 && d.hi[0] == 0.0 && d.com[1] == 0.0);
    sim_free(&sim);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* lattice_density                                                            */

/* Discretisation: the lattice sum s^dim sum_j W(x_j) is the Riemann sum of
 * integral W dV = 1 on the lattice; its error is a fixed number for a given h/s
 * (the sum is scale-free) that a priori bounds give only as O(1) for h = 2s.
 * Measured for the cubic spline with h = 2 spacing: +8.62e-4 (2D) and -2.75e-5
 * (3D); with h = 2.5 spacing: -5.52e-4 (2D), -1.48e-3 (3D).  A lattice whose
 * sites sit at the spline's knots (q = 2r/h = 0, 1, 2 on the axes) samples the
 * piecewise cubic well, which is why the error is below 1e-3 at h = 2s. */
static const double LATTICE_TOL_H2 = 1e-3;

START_TEST(test_lattice_density_close_to_rho)
{
    pfb_err err = {{0}};
    const double spacings[] = {0.01, 0.37};
    for (int dim = 2; dim <= 3; dim++) {
        double rel[2];
        for (int i = 0; i < 2; i++) {
            const double s = spacings[i], rho = 1000.0;
            pfb_kernel w;
            ck_assert_int_eq(kernel_init(&w, PFB_KERNEL_CUBIC, dim, 2.0 * s, &err), PFB_OK);
            double m = rho * pow(s, dim);
            rel[i] = lattice_density(&w, s, m) / rho - 1.0;
            ck_assert_msg(fabs(rel[i]) <= LATTICE_TOL_H2, "%dD s=%g: lattice density / rho - 1 = %.6e (tol %g)", dim,
                          s, rel[i], LATTICE_TOL_H2);
        }
        /* Scale-free: the same relative error at every spacing.  Round-off: the
         * two sums of at most 5^dim terms, eps each relative, plus the kernel's
         * normalisation and m = rho s^dim (a few eps): (5^dim + 8) eps. */
        double tol = (pow(5.0, dim) + 8.0) * DBL_EPSILON;
        ck_assert_msg(fabs(rel[0] - rel[1]) <= tol, "%dD: relative error %.17g at s=%g but %.17g at s=%g", dim,
                      rel[0], spacings[0], rel[1], spacings[1]);
    }
}
END_TEST

/* Direct sum over a generous block of lattice sites (reach + 2 on each side),
 * distances from squared coordinates: checks that lattice_density neither drops
 * a site inside the support nor adds one outside. */
static double direct_lattice_sum(const pfb_kernel *w, double s, double mass, double *abs_sum, int *nterms)
{
    int reach = (int)ceil(w->h / s) + 2;
    int kz = w->dim == 3 ? reach : 0;
    double sum = 0.0;
    *nterms = 0;
    for (int k = -kz; k <= kz; k++)
        for (int j = -reach; j <= reach; j++)
            for (int i = -reach; i <= reach; i++) {
                double dx = i * s, dy = j * s, dz = k * s;
                double wv = kernel_w_r2(w, dx * dx + dy * dy + dz * dz);
                if (wv != 0.0)
                    (*nterms)++;
                sum += wv;
            }
    *abs_sum = mass * sum; /* every term is >= 0 */
    return mass * sum;
}

START_TEST(test_lattice_density_direct_sum)
{
    pfb_err err = {{0}};
    const double ratios[] = {2.0, 2.5, 3.0};
    for (int dim = 2; dim <= 3; dim++)
        for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
            const double s = 0.02, m = 0.7;
            pfb_kernel w;
            ck_assert_int_eq(kernel_init(&w, PFB_KERNEL_CUBIC, dim, ratios[r] * s, &err), PFB_OK);
            double abs_sum;
            int nterms;
            double direct = direct_lattice_sum(&w, s, m, &abs_sum, &nterms);
            double got = lattice_density(&w, s, m);
            /* Round-off: the two sums add the same non-zero terms in the same
             * order, but each term's distance is formed differently (s sqrt(i^2+j^2+k^2)
             * against sqrt of (is)^2 + (js)^2 + (ks)^2): a few eps relative on each
             * term and on each partial sum, (nterms + 4) * 4 eps * sum |terms|. */
            double tol = (nterms + 4) * 4.0 * DBL_EPSILON * abs_sum;
            ck_assert_msg(fabs(got - direct) <= tol, "%dD h/s=%g: lattice_density %.17g, direct sum %.17g (tol %g)",
                          dim, ratios[r], got, direct, tol);
            /* and the support really was cut: more than the 1 + 2 dim nearest sites */
            ck_assert_int_gt(nterms, 1 + 2 * dim);
        }
    /* the mass is a factor */
    pfb_kernel w;
    ck_assert_int_eq(kernel_init(&w, PFB_KERNEL_CUBIC, 2, 0.04, &err), PFB_OK);
    ck_assert(lattice_density(&w, 0.02, 0.0) == 0.0);
    ck_assert(lattice_density(&w, 0.02, 2.0) == 2.0 * lattice_density(&w, 0.02, 1.0));
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Scenes through the registry                                                */

typedef struct scene_case {
    const char *name;
    int dim;
    double spacing;
} scene_case;

/* Build a scene as run_setup does: sim_init, spacing, the registry's build.
 * The drop's default shape perturbation stretches the lattice (its kernel sums
 * then differ from the square lattice's); amplitude 0 keeps it square. */
static void build_scene(const scene_case *sc, pfb_sim *sim)
{
    pfb_err err = {{0}};
    const pfb_scene_def *def = NULL;
    pfb_params sp;
    ck_assert_msg(scene_lookup(sc->name, &def, &err) == PFB_OK, "%s", err.msg);
    ck_assert_int_eq(params_init(&sp, def->params, "scene", &err), PFB_OK);
    if (strcmp(sc->name, "drop") == 0)
        ck_assert_int_eq(params_set_double(&sp, "amplitude", 0.0, &err), PFB_OK);
    ck_assert_int_eq(sim_init(sim, sc->dim, 1, &err), PFB_OK);
    sim->spacing = sc->spacing;
    ck_assert_msg(def->build(&sp, sim, &err) == PFB_OK, "%s: %s", sc->name, err.msg);
    ck_assert_uint_gt(sim->p.n, 0);
    params_free(&sp);
}

static double max_abs_coord(const pfb_sim *sim)
{
    double mx = 0.0;
    for (int k = 0; k < sim->dim; k++)
        for (size_t i = 0; i < sim->p.n; i++)
            mx = fmax(mx, fabs(sim->p.x[k][i]));
    return mx;
}

/* Round-off of one particle's relative density error rho_i / rho_lat - 1:
 *  - rho_lat uses the mean mass, a sum of n equal masses over n: n eps/2;
 *  - the neighbour sum and the lattice sum add at most 5^dim terms: 5^dim eps each;
 *  - lattice sites are rounded to eps/2 |x| each, so pair distances are off by
 *    about eps |x|max, relative eps |x|max / s; the kernel's relative slope times
 *    the number of neighbours is below 8 for the cubic spline at h = 2s, so
 *    16 |x|max / s eps covers it. */
static double density_roundoff(const pfb_sim *sim)
{
    return DBL_EPSILON * ((double)sim->p.n + 2.0 * pow(5.0, sim->dim) + 16.0 * max_abs_coord(sim) / sim->spacing);
}

/* pool: 50 x 25 (2D, 1250 particles), 20 x 10 x 10 (3D, 2000); drop R = 0.1:
 * R/s = 20 (2D, 1249), R/s = 8 (3D, 2103). */
static const scene_case SCENES[] = {
    {"pool", 2, 0.02},
    {"pool", 3, 0.05},
    {"drop", 2, 0.005},
    {"drop", 3, 0.0125},
};

START_TEST(test_scene_initial_state)
{
    const scene_case *sc = &SCENES[_i];
    pfb_sim sim;
    pfb_diag_ctx c;
    pfb_diag d;
    pfb_err err = {{0}};
    build_scene(sc, &sim);
    ck_assert_msg(diag_init(&c, &sim, &err) == PFB_OK, "diag_init: %s", err.msg);
    ck_assert_msg(diag_compute(&c, &sim, &d, &err) == PFB_OK, "diag_compute: %s", err.msg);
    const size_t n = sim.p.n;
    /* exact: the same raw measurement divided by itself */
    ck_assert_msg(d.volume_rel == 1.0, "%s %dD: volume_rel %.17g", sc->name, sc->dim, d.volume_rel);
    /* exact: 1 * n spacing^dim, the same floating-point expression as the calibration */
    double nominal = (double)n * pow(sc->spacing, sc->dim);
    ck_assert_msg(d.volume == nominal, "%s %dD: volume %.17g, nominal %.17g", sc->name, sc->dim, d.volume, nominal);
    /* Every particle's density is at most rho_lat (interior ones equal it, those
     * near a free surface or a wall miss neighbours), and errors count
     * compression only: zero up to round-off. */
    double tol = density_roundoff(&sim);
    ck_assert_msg(d.density_err_max >= 0.0 && d.density_err_max <= tol, "%s %dD: density_err_max %.3e (tol %.3e)",
                  sc->name, sc->dim, d.density_err_max, tol);
    ck_assert_msg(d.density_err_mean >= 0.0 && d.density_err_mean <= d.density_err_max,
                  "%s %dD: density_err_mean %.3e, max %.3e", sc->name, sc->dim, d.density_err_mean,
                  d.density_err_max);
    /* the cheap part agrees with diag_basic */
    pfb_diag b;
    diag_basic(&sim, &b);
    ck_assert(b.n == n && d.n == n && b.mass == d.mass && b.ke == d.ke && b.pe == d.pe);
    /* calibration: rho_lat is the lattice density of the mean mass */
    double m = particles_total_mass(&sim.p) / (double)n;
    ck_assert(c.rho_lat == lattice_density(&c.w, sc->spacing, m));
    ck_assert(c.w.h == 2.0 * sc->spacing && c.res == 0.5 * sc->spacing);
    /* a second compute of the same state gives the same numbers, bit for bit */
    pfb_diag d2;
    ck_assert_int_eq(diag_compute(&c, &sim, &d2, &err), PFB_OK);
    ck_assert(d2.volume_rel == d.volume_rel && d2.density_err_mean == d.density_err_mean &&
              d2.density_err_max == d.density_err_max);
    diag_free(&c);
    diag_free(&c); /* a zeroed context is fine */
    sim_free(&sim);
}
END_TEST

/* The 2D drop at R/s = 40 (5019 particles): fine enough that the sampling bound
 * below (s/R = 0.025) is smaller than the 4% effect of the compression. */
static const scene_case DROP_FINE = {"drop", 2, 0.0025};

/* Sampling bound on volume_rel for the 2D drop.  Each raw volume counts sample
 * cells (edge res) whose centre has c > 1/2; for a convex region of area A and
 * perimeter P the count N of lattice points satisfies A - P/2 < N < A + P/2 + 1
 * in units of res (Nosarzewska's inequality), i.e. the measure is off by less than
 * half a layer of cells, P res/2 + res^2.  The ratio of two such measurements of
 * regions no larger than the initial one (the drop's contour, a circle up to
 * lattice-scale ripple) is off by at most one layer: P res / A + 2 res^2 / A,
 * with A = n s^2 the drop's area and P = 2 sqrt(pi A) its perimeter. */
static double drop_sampling_bound(const pfb_sim *sim, double res)
{
    double A = (double)sim->p.n * sim->spacing * sim->spacing;
    double P = 2.0 * sqrt(TEST_PI * A);
    return P * res / A + 2.0 * res * res / A;
}

START_TEST(test_drop_translate)
{
    pfb_sim sim;
    pfb_diag_ctx c;
    pfb_diag d0, d1;
    pfb_err err = {{0}};
    build_scene(&DROP_FINE, &sim);
    ck_assert_int_eq(diag_init(&c, &sim, &err), PFB_OK);
    ck_assert_int_eq(diag_compute(&c, &sim, &d0, &err), PFB_OK);
    const double s = sim.spacing, off[2] = {0.37 * s, 0.21 * s};
    for (size_t i = 0; i < sim.p.n; i++)
        for (int k = 0; k < 2; k++)
            sim.p.x[k][i] += off[k];
    ck_assert_int_eq(diag_compute(&c, &sim, &d1, &err), PFB_OK);
    /* Sampling: within one layer of sample cells around the perimeter (measured:
     * exactly 1, because the sample grid is anchored at the particles' bounding box
     * and moves with them). */
    double bound = drop_sampling_bound(&sim, c.res);
    ck_assert_msg(fabs(d1.volume_rel - 1.0) <= bound, "translated drop: volume_rel %.17g (bound %g)", d1.volume_rel,
                  bound);
    /* Density errors: pair distances change only by the rounding of the shifted
     * positions, so the errors stay zero/unchanged up to round-off. */
    double tol = density_roundoff(&sim);
    ck_assert_msg(fabs(d1.density_err_mean - d0.density_err_mean) <= tol &&
                      fabs(d1.density_err_max - d0.density_err_max) <= tol,
                  "translated drop: density errors %.3e / %.3e, were %.3e / %.3e (tol %.3e)", d1.density_err_mean,
                  d1.density_err_max, d0.density_err_mean, d0.density_err_max, tol);
    /* the centre of mass moved by the offset (round-off: each of the two mass
     * weighted sums of n positions carries n roundings of size <= eps |x|max, and
     * every shifted position one more) */
    double com_tol = 2.0 * ((double)sim.p.n + 1.0) * DBL_EPSILON * max_abs_coord(&sim);
    for (int k = 0; k < 2; k++)
        expect_near(d1.com[k] - d0.com[k], off[k], com_tol, "com shift");
    diag_free(&c);
    sim_free(&sim);
}
END_TEST

START_TEST(test_drop_compress)
{
    pfb_sim sim;
    pfb_diag_ctx c;
    pfb_diag d;
    pfb_err err = {{0}};
    build_scene(&DROP_FINE, &sim);
    ck_assert_int_eq(diag_init(&c, &sim, &err), PFB_OK);
    const double s = sim.spacing, R = 0.1, a = 0.98;
    const int dim = 2;
    const size_t n = sim.p.n;
    /* Particles whose every lattice neighbour within 3 spacings (the reach of the
     * compressed kernel sum) exists: |x| <= R - 3 s, since the drop keeps every
     * site with |x| < R. */
    size_t nfull = 0;
    for (size_t i = 0; i < n; i++)
        nfull += hypot(sim.p.x[0][i], sim.p.x[1][i]) <= R - 3.0 * s;
    /* compress about the drop's centre, the origin (the lattice is centred there) */
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < dim; k++)
            sim.p.x[k][i] *= a;
    ck_assert_int_eq(diag_compute(&c, &sim, &d, &err), PFB_OK);

    /* A full-neighbourhood particle now sits on a lattice of spacing a s: its
     * density is exactly lattice_density at spacing a s (same kernel, same mass),
     * so its error is e_int below, to round-off.  Every other particle sums a
     * subset of the same positive terms, so e_int is the maximum. */
    double m = particles_total_mass(&sim.p) / (double)n;
    double e_int = lattice_density(&c.w, a * s, m) / c.rho_lat - 1.0;
    double tol = density_roundoff(&sim);
    expect_near(d.density_err_max, e_int, tol, "density_err_max after compression");
    /* e_int itself is 1/a^dim - 1 up to the difference of the lattice
     * discretisation errors at h/s = 2 and h/s = 2/a = 2.04 (each of the size
     * LATTICE_TOL_H2 bounds at h/s = 2; measured difference 4.7e-4) */
    double e_nom = 1.0 / pow(a, dim) - 1.0;
    expect_near(e_int, e_nom, 2.0 * LATTICE_TOL_H2 / pow(a, dim), "interior density error");
    /* The mean: interior particles carry e_int, particles within a kernel radius
     * of the surface miss neighbours and carry less (often 0, clamped), so the
     * surface dilutes the mean: nfull/n e_int <= mean <= e_int exactly, and the
     * mean is within 30% of 1/a^dim - 1 (the surface band is ~2-3 spacings of a
     * radius of 40: about 10-15% of the particles). */
    ck_assert_msg(d.density_err_mean > 0.0, "mean density error %.3e not positive", d.density_err_mean);
    ck_assert_msg(d.density_err_mean >= (double)nfull / (double)n * e_int - tol &&
                      d.density_err_mean <= e_int + tol,
                  "mean density error %.6f outside [%.6f, %.6f] (nfull %zu of %zu)", d.density_err_mean,
                  (double)nfull / (double)n * e_int, e_int, nfull, n);
    expect_near(d.density_err_mean, e_nom, 0.3 * e_nom, "mean density error after compression");

    /* Volume: the region shrinks by a^dim; the sampling bound (one layer of cells
     * around the initial perimeter, see drop_sampling_bound) plus the shift of the
     * c = 1/2 contour (the compressed colour field is c(x/a)/a^dim, whose half
     * level sits at the original field's level a^dim/2, a distance of about
     * (1 - a^dim)/2 times the ~h thick transition outwards: relative area
     * 2 * 0.02 * h / R = 0.002), well inside the bound. */
    double bound = drop_sampling_bound(&sim, c.res) + 2.0 * (1.0 - pow(a, dim)) / 2.0 * c.w.h / R;
    expect_near(d.volume_rel, pow(a, dim), bound, "volume_rel after compression");
    ck_assert_msg(d.volume_rel < 1.0 - bound, "compression did not lower volume_rel (%.6f, bound %g)", d.volume_rel,
                  bound);
    diag_free(&c);
    sim_free(&sim);
}
END_TEST

/* ------------------------------------------------------------------------- */

static Suite *diag_suite(void)
{
    Suite *s = suite_create("diag");

    TCase *basic = tcase_create("basic");
    tcase_add_test(basic, test_basic_3d);
    tcase_add_test(basic, test_basic_2d);
    suite_add_tcase(s, basic);

    TCase *lattice = tcase_create("lattice");
    tcase_add_test(lattice, test_lattice_density_close_to_rho);
    tcase_add_test(lattice, test_lattice_density_direct_sum);
    suite_add_tcase(s, lattice);

    TCase *scenes = tcase_create("scenes");
    tcase_add_loop_test(scenes, test_scene_initial_state, 0, (int)(sizeof SCENES / sizeof SCENES[0]));
    tcase_add_test(scenes, test_drop_translate);
    tcase_add_test(scenes, test_drop_compress);
    suite_add_tcase(s, scenes);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(diag_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

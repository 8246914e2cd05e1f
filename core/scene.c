/* scene.c — the shared scenes: pool, dam_break, drop, blob, sphere_drip, pour,
 * melt, and Mao and Yang's balls, stretch and rod, the rigid-body scenes, and
 * shear_wave, a periodic box (2D and 3D).
 *
 * Lattice sites sit at cell centres, (i + 1/2) * spacing from the walls, so that
 * each particle represents a cell of volume spacing^dim and the fluid's nominal
 * volume is n * spacing^dim.  The tank is a closed box container. */
#include "scene.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- helpers ---------------------------------------------------------------- */

/* Add particles at cell centres of the box [lo, hi] (only where keep(x) holds). */
typedef int (*keep_fn)(const double x[3], const void *ctx);

static int fill_box(pfb_sim *sim, const double lo[3], const double hi[3], double density,
                    keep_fn keep, const void *ctx, pfb_err *err)
{
    const int dim = sim->dim;
    const double s = sim->spacing;
    long nc[3] = {1, 1, 1};
    for (int k = 0; k < dim; k++) {
        nc[k] = lround(floor((hi[k] - lo[k]) / s + 1e-9));
        if (nc[k] < 1)
            nc[k] = 1;
    }
    double total = (double)nc[0] * (double)nc[1] * (double)nc[2];
    if (total > 5e7)
        return pfb_err_set(err, PFB_EINVAL,
                           "spacing %g gives %.3g lattice sites; valid: at most 5e7 (use a larger spacing)",
                           s, total);
    const double n_all = (double)sim->p.n + total, need = n_all * sim->mem_per_particle;
    if (sim->mem_limit > 0.0 && need > sim->mem_limit)
        return pfb_err_set(err, PFB_ENOMEM,
                           "spacing %g gives up to %.3g particles, about %.3g GB at %.0f bytes each; valid: at most "
                           "%.3g particles in the %.3g GB available (use a larger spacing)", s, n_all, need * 1e-9,
                           sim->mem_per_particle, sim->mem_limit / sim->mem_per_particle, sim->mem_limit * 1e-9);
    const double m = density * pow(s, dim);
    for (long k = 0; k < nc[2]; k++)
        for (long j = 0; j < nc[1]; j++)
            for (long i = 0; i < nc[0]; i++) {
                double x[3] = {lo[0] + (i + 0.5) * s, lo[1] + (j + 0.5) * s,
                               dim == 3 ? lo[2] + (k + 0.5) * s : 0.0};
                double v[3] = {0, 0, 0};
                if (keep && !keep(x, ctx))
                    continue;
                int rc = particles_add(&sim->p, x, v, m, err);
                if (rc)
                    return rc;
            }
    return PFB_OK;
}

/* A closed tank [0, L] x [0, H] (x [0, W]) as a container box; domain = tank + 10%. */
static int add_tank(pfb_sim *sim, double L, double H, double W, pfb_err *err)
{
    pfb_shape box;
    memset(&box, 0, sizeof box);
    box.type = PFB_SHAPE_BOX;
    box.inside = 1;
    double size[3] = {L, H, sim->dim == 3 ? W : 1.0};
    for (int k = 0; k < 3; k++) {
        box.c[k] = 0.5 * size[k];
        box.half[k] = 0.5 * size[k];
        sim->domain_lo[k] = -0.1 * size[k];
        sim->domain_hi[k] = 1.1 * size[k];
    }
    if (sim->dim == 2) {
        box.c[2] = 0.0;
        sim->domain_lo[2] = sim->domain_hi[2] = 0.0;
    }
    return boundaries_add(&sim->walls, &box, err);
}

static int check_resolution(const pfb_sim *sim, double size, const char *what, pfb_err *err)
{
    if (size < 2.0 * sim->spacing)
        return pfb_err_set(err, PFB_EINVAL,
                           "spacing %g is too coarse for %s %g; valid: spacing at most %g", sim->spacing,
                           what, size, 0.5 * size);
    return PFB_OK;
}

/* ---- pool: fluid at rest in a tank ------------------------------------------ */

static const pfb_param_spec pool_params[] = {
    {"width", PFB_PARAM_DOUBLE, 1.0, 1e-3, 1e3, "m", "tank length along x", NULL},
    {"depth", PFB_PARAM_DOUBLE, 0.5, 1e-3, 1e3, "m", "fluid depth", NULL},
    {"height", PFB_PARAM_DOUBLE, 1.0, 1e-3, 1e3, "m", "tank height (closed lid)", NULL},
    {"width_z", PFB_PARAM_DOUBLE, 0.5, 1e-3, 1e3, "m", "tank width along z (3D)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

static int pool_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    double L = params_get(sp, "width"), D = params_get(sp, "depth"), H = params_get(sp, "height");
    double W = params_get(sp, "width_z"), rho = params_get(sp, "density");
    if (D > H)
        return pfb_err_set(err, PFB_EINVAL, "pool depth %g exceeds tank height %g; valid: depth <= height",
                           D, H);
    int rc = check_resolution(sim, D, "pool depth", err);
    if (!rc)
        rc = add_tank(sim, L, H, W, err);
    double lo[3] = {0, 0, 0}, hi[3] = {L, D, W};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    sim->rho_ref = rho;
    sim->g[1] = -params_get(sp, "gravity");
    sim->length_ref = D;
    sim->v_ref = sqrt(fmax(params_get(sp, "gravity"), 1e-12) * D);
    return rc;
}

static const pfb_scene_def scene_pool = {
    "pool", "fluid settling in a closed tank", pool_params, {0.01, 0.02}, 2.0, pool_build};

/* ---- dam_break: column a x 2a at the left wall ------------------------------ */

static const pfb_param_spec dam_params[] = {
    {"a", PFB_PARAM_DOUBLE, 0.25, 1e-3, 1e3, "m", "column width; the column is a wide and 2a high", NULL},
    {"tank_length", PFB_PARAM_DOUBLE, 4.0, 1.0, 100.0, "1", "tank length in units of a", NULL},
    {"tank_height", PFB_PARAM_DOUBLE, 3.0, 2.0, 100.0, "1", "tank height in units of a (closed lid)", NULL},
    {"tank_width", PFB_PARAM_DOUBLE, 1.0, 0.01, 100.0, "1", "tank and column width along z in units of a (3D)",
     NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

static int dam_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    double a = params_get(sp, "a"), rho = params_get(sp, "density"), g = params_get(sp, "gravity");
    double L = a * params_get(sp, "tank_length"), H = a * params_get(sp, "tank_height");
    double W = a * params_get(sp, "tank_width");
    int rc = check_resolution(sim, a, "column width a", err);
    if (!rc)
        rc = add_tank(sim, L, H, W, err);
    double lo[3] = {0, 0, 0}, hi[3] = {a, 2.0 * a, W};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = 2.0 * a;                      /* the column height */
    sim->v_ref = sqrt(2.0 * fmax(g, 1e-12) * 2.0 * a); /* free-fall speed from the column top */
    return rc;
}

static const pfb_scene_def scene_dam = {
    "dam_break", "water column of width a and height 2a released at the left wall of a tank", dam_params,
    {0.005, 0.01}, 1.0, dam_build};

/* ---- shear_wave: a decaying shear wave in a periodic box -------------------- */

static const pfb_param_spec shear_params[] = {
    {"length", PFB_PARAM_DOUBLE, 0.1, 1e-3, 1e3, "m", "edge L of the periodic box (the wavelength); a whole number of spacings", NULL},
    {"amplitude", PFB_PARAM_DOUBLE, 0.05, 0.0, 1e3, "m/s", "U of the initial u_x = U sin(2 pi y / L)", NULL},
    {"speed_ref", PFB_PARAM_DOUBLE, 2.2147, 1e-6, 1e4, "m/s",
     "the scene's characteristic speed v_ref, to which solvers scale their sound speed; default sqrt(9.81 x 0.5), the pool's", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"shear_rate", PFB_PARAM_DOUBLE, 0.0, -1e4, 1e4, "1/s",
     "gamma: Lees-Edwards faces at y = 0 and L sliding at -+gamma L / 2, with u_x = gamma (y - L/2) added to the wave; 0: plain periodic", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A box [0, L)^dim filled with the lattice, periodic on every axis, no walls and
 * no gravity, set moving as u_x = U sin(k y), k = 2 pi / L: an exact solution of
 * the Navier-Stokes equations (u . grad u = 0, no pressure gradient) that decays
 * as exp(-nu k^2 t), the properties experiment's measure of the viscosity.
 * v_ref is a parameter, not U: the solvers' relative defaults (muller's k =
 * (10 v_ref)^2, the sound speeds of clavet and miller_pearce) must give the same
 * material as in the pool, whatever the wave's amplitude.  With shear_rate
 * gamma != 0 the y faces are Lees-Edwards faces (core/periodic.h) and the
 * uniform shear u_x = gamma (y - L/2), a steady solution for any fluid that
 * has reached its steady stress, is added: the rheometer's start-up and
 * steady shear. */
static int shear_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    const double L = params_get(sp, "length"), U = params_get(sp, "amplitude"), rho = params_get(sp, "density");
    const double s = sim->spacing, cells = L / s;
    if (!(fabs(cells - nearbyint(cells)) <= 1e-6 * cells) || nearbyint(cells) < 8)
        return pfb_err_set(err, PFB_EINVAL,
                           "spacing %g does not divide the periodic box length %g into a whole number of cells; "
                           "valid: L / N for an integer N >= 8 (e.g. %g)",
                           s, L, L / fmax(8.0, nearbyint(cells)));
    const double Lc = nearbyint(cells) * s; /* the lattice's own period */
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = 0.0;
        sim->domain_hi[k] = k < dim ? Lc : 0.0;
    }
    int rc = PFB_OK;
    for (int k = 0; k < dim && !rc; k++)
        rc = sim_set_periodic(sim, k, err);
    double lo[3] = {0, 0, 0}, hi[3] = {Lc, Lc, dim == 3 ? Lc : 0.0};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    if (rc)
        return rc;
    const double kw = 2.0 * M_PI / Lc, gamma = params_get(sp, "shear_rate");
    if (gamma != 0.0 && (rc = sim_set_shear(sim, gamma, err)))
        return rc;
    for (size_t i = 0; i < sim->p.n; i++) {
        sim->p.v[0][i] = U * sin(kw * sim->p.x[1][i]);
        if (gamma != 0.0)
            sim->p.v[0][i] += gamma * (sim->p.x[1][i] - 0.5 * Lc);
    }
    sim->rho_ref = rho;
    sim->length_ref = Lc;
    sim->v_ref = params_get(sp, "speed_ref");
    return PFB_OK;
}

static const pfb_scene_def scene_shear = {
    "shear_wave", "a shear wave u_x = U sin(2 pi y / L) decaying in a periodic box (no walls, no gravity)",
    shear_params, {0.0025, 0.005}, 0.5, shear_build};

/* ---- drop: free drop, no gravity, mode-2 perturbation ------------------------ */

static const pfb_param_spec drop_params[] = {
    {"radius", PFB_PARAM_DOUBLE, 0.1, 1e-4, 1e2, "m", "drop radius R", NULL},
    {"perturb", PFB_PARAM_CHOICE, 0, 0, 0, "", "mode-2 perturbation: shape (volume-preserving stretch) or velocity (potential flow)",
     "shape|velocity"},
    {"amplitude", PFB_PARAM_DOUBLE, 0.05, 0.0, 0.5, "1",
     "shape: relative stretch eps of the axes; velocity: surface speed / (R * 1/s)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"speed_ref", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e4, "m/s",
     "the scene's v_ref, to which solvers scale their sound speed; 0 = max(amplitude R / 1 s, 1 m/s)", NULL},
    {"fill", PFB_PARAM_CHOICE, 0, 0, 0, "", "the particles: lattice (the sites of a square lattice inside R) or shells (rings in 2D, spheres in 3D, one spacing apart, their surface a circle)", "lattice|shells"},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

typedef struct {
    double r2;
    int dim;
} ball_ctx;

static int keep_ball(const double x[3], const void *ctx)
{
    const ball_ctx *b = ctx;
    double r2 = x[0] * x[0] + x[1] * x[1] + (b->dim == 3 ? x[2] * x[2] : 0.0);
    return r2 < b->r2;
}

/* A lattice ball (disc in 2D) of radius R centred on a lattice site at the origin,
 * with the free-drop domain of 10 R around it. */
static int fill_ball(pfb_sim *sim, double R, double rho, pfb_err *err)
{
    const int dim = sim->dim;
    double s = sim->spacing;
    long nhalf = lround(ceil(R / s));
    double lo[3] = {-(nhalf + 0.5) * s, -(nhalf + 0.5) * s, dim == 3 ? -(nhalf + 0.5) * s : 0.0};
    double hi[3] = {(nhalf + 0.5) * s, (nhalf + 0.5) * s, dim == 3 ? (nhalf + 0.5) * s : 0.0};
    ball_ctx b = {R * R, dim};
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = k < dim ? -10.0 * R : 0.0;
        sim->domain_hi[k] = k < dim ? 10.0 * R : 0.0;
    }
    sim->rho_ref = rho;
    sim->length_ref = R;
    return fill_box(sim, lo, hi, rho, keep_ball, &b, err);
}

/* A ball of radius R in shells one spacing s thick: shell k (k = 0 .. K-1,
 * K = round(R / s)) fills the annulus k s' < r < (k + 1) s', s' = R / K, with
 * n_k particles at its mid-radius, n_k = round(shell area / s^dim), each of
 * the mass of its share of the annulus (rho times area / n_k: the density is
 * uniform).  2D: equally spaced on the circle, each ring turned by the golden
 * angle from the last; 3D: a Fibonacci spiral on the sphere.  The drop's
 * surface is then a circle (sphere) of particles, not a lattice's cut. */
static int fill_shells(pfb_sim *sim, double R, double rho, pfb_err *err)
{
    const int dim = sim->dim;
    const long K = lround(R / sim->spacing);
    const double s = R / (double)K, golden = M_PI * (3.0 - sqrt(5.0));
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = k < dim ? -10.0 * R : 0.0;
        sim->domain_hi[k] = k < dim ? 10.0 * R : 0.0;
    }
    sim->rho_ref = rho;
    sim->length_ref = R;
    for (long k = 0; k < K; k++) {
        const double r0 = (double)k * s, r1 = r0 + s, r = 0.5 * (r0 + r1);
        const double vol = dim == 2 ? M_PI * (r1 * r1 - r0 * r0) : 4.0 / 3.0 * M_PI * (r1 * r1 * r1 - r0 * r0 * r0);
        long n = lround(vol / pow(s, dim));
        if (n < 1)
            n = 1;
        const double m = rho * vol / (double)n;
        for (long i = 0; i < n; i++) {
            double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
            if (dim == 2) {
                const double a = 2.0 * M_PI * ((double)i + 0.5) / (double)n + golden * (double)k;
                x[0] = r * cos(a);
                x[1] = r * sin(a);
            } else {
                const double zc = 1.0 - (2.0 * (double)i + 1.0) / (double)n, rc = sqrt(fmax(0.0, 1.0 - zc * zc));
                const double a = golden * (double)i + golden * (double)k;
                x[0] = r * rc * cos(a);
                x[1] = r * zc;
                x[2] = r * rc * sin(a);
            }
            int rc = particles_add(&sim->p, x, v, m, err);
            if (rc)
                return rc;
        }
    }
    return PFB_OK;
}

/* The mode-2 potential flow, divergence-free, with surface speed U on a ball of
 * radius R: 2D v = U (x, -y)/R; 3D v = U (-x, 2y, -z)/(2R). */
static void set_mode2_velocity(pfb_sim *sim, double U, double R)
{
    pfb_particles *p = &sim->p;
    for (size_t i = 0; i < p->n; i++) {
        if (sim->dim == 2) {
            p->v[0][i] = U * p->x[0][i] / R;
            p->v[1][i] = -U * p->x[1][i] / R;
        } else {
            p->v[0][i] = -0.5 * U * p->x[0][i] / R;
            p->v[1][i] = U * p->x[1][i] / R;
            p->v[2][i] = -0.5 * U * p->x[2][i] / R;
        }
    }
}

static int drop_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double R = params_get(sp, "radius"), rho = params_get(sp, "density");
    double eps = params_get(sp, "amplitude");
    int rc = check_resolution(sim, R, "drop radius", err);
    if (rc)
        return rc;
    rc = params_get_int(sp, "fill") ? fill_shells(sim, R, rho, err) : fill_ball(sim, R, rho, err);
    if (rc)
        return rc;
    pfb_particles *p = &sim->p;
    if (params_get_int(sp, "perturb") == 0) {
        /* Volume-preserving stretch along the mode-2 axis (keeps density uniform):
         * 2D (x, y) -> (x (1+eps), y / (1+eps)); 3D axisymmetric about y:
         * y -> y (1+eps), x, z -> x / sqrt(1+eps). */
        double a = 1.0 + eps;
        for (size_t i = 0; i < p->n; i++) {
            if (dim == 2) {
                p->x[0][i] *= a;
                p->x[1][i] /= a;
            } else {
                p->x[1][i] *= a;
                p->x[0][i] /= sqrt(a);
                p->x[2][i] /= sqrt(a);
            }
        }
    } else {
        set_mode2_velocity(sim, eps * R, R); /* U = amplitude * R * (1/s) */
    }
    /* speed scale for blow-up detection: 1 m/s, faster than any intact drop of these
     * sizes moves (the capillary speed sqrt(sigma / (rho R)) of a 1 cm water drop is
     * 0.09 m/s), and the perturbation's own speed if larger */
    sim->v_ref = params_get(sp, "speed_ref") > 0 ? params_get(sp, "speed_ref") : fmax(eps * R, 1.0);
    return PFB_OK;
}

static const pfb_scene_def scene_drop = {
    "drop", "free drop with a mode-2 perturbation, no gravity, no walls", drop_params, {0.005, 0.01}, 2.0,
    drop_build};

/* ---- blob: a ball set in mode-2 motion, for elastic and plastic materials ---- */

static const pfb_param_spec blob_params[] = {
    {"radius", PFB_PARAM_DOUBLE, 0.1, 1e-4, 1e2, "m", "blob radius R", NULL},
    {"speed", PFB_PARAM_DOUBLE, 0.5, 0.0, 100.0, "m/s", "surface speed U of the initial mode-2 stretching flow", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A lattice ball at rest shape, given the divergence-free mode-2 velocity field of
 * the drop scene (2D U (x, -y)/R; 3D U (-x, 2y, -z)/(2R)): it stretches, and an
 * elastic material returns to the ball (Clavet 2005 Figs. 5 and 12). */
static int blob_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    double R = params_get(sp, "radius"), U = params_get(sp, "speed"), rho = params_get(sp, "density");
    int rc = check_resolution(sim, R, "blob radius", err);
    if (rc)
        return rc;
    rc = fill_ball(sim, R, rho, err);
    if (rc)
        return rc;
    set_mode2_velocity(sim, U, R);
    sim->g[1] = -params_get(sp, "gravity");
    sim->v_ref = fmax(U, 1.0);
    return PFB_OK;
}

static const pfb_scene_def scene_blob = {
    "blob", "a ball set stretching by a mode-2 flow (elastic and plastic materials)", blob_params, {0.01, 0.02},
    2.0, blob_build};

/* ---- sphere_drip: fluid poured on a sphere slides under it and drips -------- */

static const pfb_param_spec drip_params[] = {
    {"radius", PFB_PARAM_DOUBLE, 0.1, 1e-3, 1e2, "m", "sphere (circle in 2D) radius Rs", NULL},
    {"layer", PFB_PARAM_DOUBLE, 0.3, 0.05, 2.0, "1", "fluid layer height over the sphere, in units of Rs", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A sphere obstacle of radius Rs at the origin with a fluid block (width 1.6 Rs)
 * resting on its top, inside a closed tank [-3Rs, 3Rs]^dim: the fluid slides down
 * the sides and, with stickiness, along the underside where it gathers into a drop
 * (Clavet 2005 Fig. 7). */
static int drip_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double Rs = params_get(sp, "radius"), H = params_get(sp, "layer") * Rs, rho = params_get(sp, "density");
    int rc = check_resolution(sim, H, "fluid layer", err);
    if (rc)
        return rc;
    pfb_shape ball, tank;
    memset(&ball, 0, sizeof ball);
    memset(&tank, 0, sizeof tank);
    ball.type = PFB_SHAPE_SPHERE;
    ball.radius = Rs;
    tank.type = PFB_SHAPE_BOX;
    tank.inside = 1;
    for (int k = 0; k < 3; k++) {
        tank.half[k] = 3.0 * Rs;
        sim->domain_lo[k] = k < dim ? -3.3 * Rs : 0.0;
        sim->domain_hi[k] = k < dim ? 3.3 * Rs : 0.0;
    }
    rc = boundaries_add(&sim->walls, &ball, err);
    if (!rc)
        rc = boundaries_add(&sim->walls, &tank, err);
    double lo[3] = {-0.8 * Rs, Rs, dim == 3 ? -0.8 * Rs : 0.0}, hi[3] = {0.8 * Rs, Rs + H, dim == 3 ? 0.8 * Rs : 0.0};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    sim->rho_ref = rho;
    sim->g[1] = -params_get(sp, "gravity");
    sim->length_ref = Rs;
    sim->v_ref = sqrt(2.0 * fmax(params_get(sp, "gravity"), 1e-12) * 4.0 * Rs);
    return rc;
}

static const pfb_scene_def scene_drip = {
    "sphere_drip", "fluid on a sphere slides under it and forms a drop (with stickiness)", drip_params,
    {0.004, 0.005}, 2.0, drip_build}; /* the layer 7-8 particles thick in 2D, 6 in 3D; at 3 in 3D
                                        * (0.01 m) it spreads into a film one particle thick whose
                                        * measured volume halves by t = 0.2 s (muller: a collapse) */

/* ---- pour: a block of globules falling into a container (Miller-Pearce Images 1-3) */

static const pfb_param_spec pour_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.5, 1e-3, 1e3, "m", "container width (and depth in 3D)", NULL},
    {"height", PFB_PARAM_DOUBLE, 0.5, 1e-3, 1e3, "m", "container height (closed lid)", NULL},
    {"block", PFB_PARAM_DOUBLE, 0.15, 1e-3, 1e3, "m", "edge of the square (cubic) block poured in", NULL},
    {"drop_height", PFB_PARAM_DOUBLE, 0.2, 0.0, 1e3, "m", "gap between the block's base and the floor", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A block of edge b, centred over the floor of a W x H (x W) container, its base
 * drop_height above the floor, falls in from rest and settles: a powder piles, a
 * fluid spreads, a solid lands as a lump (Miller and Pearce 1989, Images 1-3). */
static int pour_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    double W = params_get(sp, "width"), H = params_get(sp, "height"), b = params_get(sp, "block");
    double d = params_get(sp, "drop_height"), rho = params_get(sp, "density"), g = params_get(sp, "gravity");
    if (b > W || d + b > H)
        return pfb_err_set(err, PFB_EINVAL,
                           "pour block %g at drop_height %g does not fit the %g x %g container; valid: block <= "
                           "width and drop_height + block <= height",
                           b, d, W, H);
    int rc = check_resolution(sim, b, "block", err);
    if (!rc)
        rc = add_tank(sim, W, H, W, err);
    double lo[3] = {0.5 * (W - b), d, 0.5 * (W - b)}, hi[3] = {0.5 * (W + b), d + b, 0.5 * (W + b)};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = d + b;
    sim->v_ref = sqrt(2.0 * fmax(g, 1e-12) * (d + b));
    return rc;
}

static const pfb_scene_def scene_pour = {
    "pour", "a block falling into a container and settling (powder, fluid, solid)", pour_params, {0.01, 0.02}, 2.0,
    pour_build};

/* ---- melt: a block on a heated floor ---------------------------------------- */

static const pfb_param_spec melt_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.6, 1e-3, 1e3, "m", "container width (and depth in 3D)", NULL},
    {"block", PFB_PARAM_DOUBLE, 0.15, 1e-3, 1e3, "m", "edge of the square (cubic) block on the floor", NULL},
    {"floor_temperature", PFB_PARAM_DOUBLE, 1.0, -1e6, 1e6, "1", "temperature the floor holds (solver units)", NULL},
    {"heated", PFB_PARAM_BOOL, 1, 0, 1, "", "the floor is heated (false: no heat source)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A block of edge b resting on the floor, centred, in a container W wide and 2b
 * high; the floor is a heated plane at y = 0 (heated = 1 with the floor
 * temperature) coinciding with the container's floor: a thermal material melts
 * from below and spreads (Miller and Pearce 1989 §2.1, temperature). */
static int melt_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    double W = params_get(sp, "width"), b = params_get(sp, "block"), rho = params_get(sp, "density");
    if (b > W)
        return pfb_err_set(err, PFB_EINVAL, "melt block %g is wider than the container %g; valid: block <= width",
                           b, W);
    int rc = check_resolution(sim, b, "block", err);
    if (!rc)
        rc = add_tank(sim, W, 2.0 * b, W, err);
    pfb_shape floor;
    memset(&floor, 0, sizeof floor);
    floor.type = PFB_SHAPE_PLANE;
    floor.n[1] = 1.0;
    floor.heated = params_get_int(sp, "heated");
    floor.temperature = params_get(sp, "floor_temperature");
    if (!rc)
        rc = boundaries_add(&sim->walls, &floor, err);
    double lo[3] = {0.5 * (W - b), 0.0, 0.5 * (W - b)}, hi[3] = {0.5 * (W + b), b, 0.5 * (W + b)};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    sim->rho_ref = rho;
    sim->g[1] = -params_get(sp, "gravity");
    sim->length_ref = b;
    sim->v_ref = sqrt(2.0 * fmax(params_get(sp, "gravity"), 1e-12) * b);
    return rc;
}

static const pfb_scene_def scene_melt = {
    "melt", "a block on a heated floor (melting of a thermal material)", melt_params, {0.01, 0.02}, 4.0, melt_build};

/* ---- Mao and Yang (2006): balls, stretch, rod --------------------------------
 *
 * Mao and Yang's material is per particle: an elasticity mu_e (Pa) and a
 * relaxation time lambda (s), eq. 9.  A scene that varies them registers the
 * 1-component particle fields "mu_e" and "lambda" before any solver exists and
 * fills them; a solver that understands them (mao_yang) reads them, the others
 * ignore them. */

/* Register a 1-component field and return its index. */
static int add_scalar_field(pfb_sim *sim, const char *name, int *idx, pfb_err *err)
{
    return particles_add_field(&sim->p, name, 1, idx, err);
}

/* Set the 1-component field idx to value on particles [from, to). */
static void set_scalar_field(pfb_sim *sim, int idx, size_t from, size_t to, double value)
{
    double *d = sim->p.field[idx].data;
    for (size_t i = from; i < to; i++)
        d[i] = value;
}

/* A lattice ball (disc in 2D) of radius R centred on a lattice site at c: the
 * drop's lattice ball, filled around the origin and translated by c, so that
 * every ball is the same set of sites.  Sites on the sphere (r = R exactly, as
 * (6, 8) s is when R = 10 s) are left out whatever the round-off: the test is
 * r^2 < R^2 - 1e-6 s^2, far above the rounding of r^2 (eps R^2) for any R/s
 * below 1e4 and far below the gap to the next site inside; so a ball resting on
 * the floor (centre height R) has no site on the floor. */
static int fill_ball_at(pfb_sim *sim, const double c[3], double R, double rho, pfb_err *err)
{
    const int dim = sim->dim;
    double s = sim->spacing;
    long nhalf = lround(ceil(R / s));
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int k = 0; k < dim; k++) {
        lo[k] = -(nhalf + 0.5) * s;
        hi[k] = (nhalf + 0.5) * s;
    }
    ball_ctx b = {R * R - 1e-6 * s * s, dim};
    size_t n0 = sim->p.n;
    int rc = fill_box(sim, lo, hi, rho, keep_ball, &b, err);
    for (size_t i = n0; i < sim->p.n; i++)
        for (int k = 0; k < dim; k++)
            sim->p.x[k][i] += c[k];
    return rc;
}

/* ---- balls: fluid balls of different mu_e and lambda fall on a floor --------- */

static const pfb_param_spec balls_params[] = {
    {"count", PFB_PARAM_INT, 6, 2, 16, "1", "number of balls, even: 2 relaxation times x count/2 elasticities", NULL},
    {"radius", PFB_PARAM_DOUBLE, 0.05, 1e-4, 1e2, "m", "ball (disc in 2D) radius R", NULL},
    {"height", PFB_PARAM_DOUBLE, 0.15, 1e-4, 1e3, "m", "height of the ball centres above the floor (>= radius)", NULL},
    {"gap", PFB_PARAM_DOUBLE, 0.05, 0.0, 1e3, "m", "gap between neighbouring balls and between the outer balls and the walls", NULL},
    {"mu_e_lo", PFB_PARAM_DOUBLE, 1e3, 1e-6, 1e12, "Pa", "elasticity mu_e of the first ball of each half (log-even to mu_e_hi)", NULL},
    {"mu_e_hi", PFB_PARAM_DOUBLE, 1e5, 1e-6, 1e12, "Pa", "elasticity mu_e of the last ball of each half (the paper's bouncing 1e5)", NULL},
    {"lambda_lo", PFB_PARAM_DOUBLE, 0.05, 1e-9, 1e9, "s", "relaxation time lambda of balls 0 .. count/2-1 (short memory: fluid-like)", NULL},
    {"lambda_hi", PFB_PARAM_DOUBLE, 1.0, 1e-9, 1e9, "s", "relaxation time lambda of balls count/2 .. count-1 (long memory: solid-like)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* Elasticity of ball j of a half of m balls: log-even from lo to hi (lo when m = 1). */
static double balls_mu_e(double lo, double hi, int j, int m)
{
    if (m < 2)
        return lo;
    if (j == m - 1)
        return hi; /* exactly the end value, not exp(log(hi)) */
    return lo * pow(hi / lo, (double)j / (double)(m - 1));
}

/* count balls of radius R side by side along x, centres at height h over the
 * floor of a closed tank, gap g between them and from the side walls; the tank is
 * count 2R + (count + 1) g long, 2 (h + R) high (room for a bounce back to the
 * release height) and 2R + 2g wide in 3D (balls at its mid-plane).  Ball b has
 * lambda_lo for b < count/2, lambda_hi after; within each half mu_e runs
 * log-evenly from mu_e_lo to mu_e_hi (Mao and Yang 2006 Fig. 2: six balls, the two
 * with mu_e = 1e5 bounce).  Fields: "mu_e" (Pa), "lambda" (s), "ball" (index). */
static int balls_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    int count = params_get_int(sp, "count");
    double R = params_get(sp, "radius"), h = params_get(sp, "height"), gap = params_get(sp, "gap");
    double rho = params_get(sp, "density"), g = params_get(sp, "gravity");
    double mu_lo = params_get(sp, "mu_e_lo"), mu_hi = params_get(sp, "mu_e_hi");
    double lam_lo = params_get(sp, "lambda_lo"), lam_hi = params_get(sp, "lambda_hi");
    if (count % 2 != 0)
        return pfb_err_set(err, PFB_EINVAL, "balls count %d is odd; valid: an even number from 2 to 16", count);
    if (h < R)
        return pfb_err_set(err, PFB_EINVAL,
                           "balls height %g puts the balls of radius %g through the floor; valid: height >= radius",
                           h, R);
    int rc = check_resolution(sim, R, "ball radius", err);
    if (rc)
        return rc;
    double L = count * 2.0 * R + (count + 1) * gap, H = 2.0 * (h + R), W = 2.0 * R + 2.0 * gap;
    rc = add_tank(sim, L, H, W, err);
    int f_mu, f_lam, f_ball;
    if (!rc)
        rc = add_scalar_field(sim, "mu_e", &f_mu, err);
    if (!rc)
        rc = add_scalar_field(sim, "lambda", &f_lam, err);
    if (!rc)
        rc = add_scalar_field(sim, "ball", &f_ball, err);
    const int half = count / 2;
    for (int b = 0; b < count && !rc; b++) {
        double c[3] = {gap + R + b * (2.0 * R + gap), h, dim == 3 ? gap + R : 0.0};
        size_t n0 = sim->p.n;
        rc = fill_ball_at(sim, c, R, rho, err);
        if (rc)
            break;
        set_scalar_field(sim, f_mu, n0, sim->p.n, balls_mu_e(mu_lo, mu_hi, b % half, half));
        set_scalar_field(sim, f_lam, n0, sim->p.n, b < half ? lam_lo : lam_hi);
        set_scalar_field(sim, f_ball, n0, sim->p.n, (double)b);
    }
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = h;
    sim->v_ref = sqrt(2.0 * fmax(g, 1e-12) * h); /* free-fall speed from the centre height */
    return rc;
}

static const pfb_scene_def scene_balls = {
    "balls", "fluid balls of different mu_e and lambda fall on a floor (Mao and Yang 2006 Fig. 2)", balls_params,
    {0.005, 0.00625}, 2.0, balls_build}; /* R/s = 10 (2D, 314 per ball), 8 (3D, 2109 per ball) */

/* ---- stretch: a column stretched vertically ----------------------------------- */

static const pfb_param_spec stretch_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.04, 1e-4, 1e2, "m", "column width (square section in 3D)", NULL},
    {"height", PFB_PARAM_DOUBLE, 0.08, 1e-4, 1e2, "m", "column height", NULL},
    {"rate", PFB_PARAM_DOUBLE, 10.0, 1e-3, 1e4, "1/s", "initial extension rate: v_y = rate y, v_x = -rate x/(dim-1) (v_z likewise)", NULL},
    {"gravity", PFB_PARAM_BOOL, 0, 0, 1, "", "false: free column, no gravity (Fig. 4a-d); true: 9.81 m/s^2 down, the column standing on a floor and pulled up from its base (Fig. 4e-h, 8)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

#define STRETCH_G 9.81 /* m/s^2, when gravity is on */

/* A width x height column (width x height x width in 3D) centred at the origin
 * with the volume-preserving extensional velocity v_y = rate (y - y0), v_x =
 * -rate x / (dim - 1), v_z = -rate z / (dim - 1) (trace of grad v exactly 0).
 * gravity = 0: no walls, y0 = 0, the column stretches symmetrically about its
 * centre (Mao and Yang 2006 Fig. 4a-d).  gravity = 1: g = 9.81 m/s^2 down and a
 * floor plane at the column's base y = -height/2 = y0, so the base rests on the
 * floor and the top is pulled up at rate height (Fig. 4e-h; Fig. 8, fluids
 * pulled up off the ground); uniform gravity alone would only add a free fall.
 * The domain is 10 heights around the origin: the column may stretch to several
 * times its length.  v_ref is the largest initial speed (rate height/2, or rate
 * height from the floor, at least the free-fall speed sqrt(2 g height)). */
static int stretch_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double w = params_get(sp, "width"), H = params_get(sp, "height"), rate = params_get(sp, "rate");
    double rho = params_get(sp, "density");
    int grav = params_get_int(sp, "gravity");
    int rc = check_resolution(sim, w, "column width", err);
    if (!rc)
        rc = check_resolution(sim, H, "column height", err);
    if (rc)
        return rc;
    double y0 = grav ? -0.5 * H : 0.0;
    if (grav) {
        pfb_shape floor;
        memset(&floor, 0, sizeof floor);
        floor.type = PFB_SHAPE_PLANE;
        floor.c[1] = y0;
        floor.n[1] = 1.0;
        rc = boundaries_add(&sim->walls, &floor, err);
        if (rc)
            return rc;
    }
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = k < dim ? -10.0 * H : 0.0;
        sim->domain_hi[k] = k < dim ? 10.0 * H : 0.0;
    }
    double lo[3] = {-0.5 * w, -0.5 * H, dim == 3 ? -0.5 * w : 0.0}, hi[3] = {0.5 * w, 0.5 * H, dim == 3 ? 0.5 * w : 0.0};
    size_t n0 = sim->p.n;
    rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    if (rc)
        return rc;
    /* diagonal velocity gradient a: a_y = rate, a_x = a_z = -rate/(dim-1); the
     * division by 1 or 2 is exact, so sum_k a_k = 0 exactly */
    const double a_side = -rate / (double)(dim - 1);
    pfb_particles *p = &sim->p;
    for (size_t i = n0; i < p->n; i++) {
        p->v[0][i] = a_side * p->x[0][i];
        p->v[1][i] = rate * (p->x[1][i] - y0);
        if (dim == 3)
            p->v[2][i] = a_side * p->x[2][i];
    }
    sim->rho_ref = rho;
    sim->g[1] = grav ? -STRETCH_G : 0.0;
    sim->length_ref = H;
    sim->v_ref = grav ? fmax(rate * H, sqrt(2.0 * STRETCH_G * H)) : 0.5 * rate * H;
    return PFB_OK;
}

static const pfb_scene_def scene_stretch = {
    "stretch", "a column stretched vertically, with or without gravity (Mao and Yang 2006 Figs. 4, 8)", stretch_params,
    {0.0016, 0.002}, 0.15, stretch_build}; /* 25 x 50 (2D, 1250, the paper's 1200), 20 x 40 x 20 (3D, 16000);
                                            * 0.15 s at 10/s stretches the column e^1.5 = 4.5 times */

/* ---- rod: rod climbing, a spinning rod in a pool ------------------------------ */

static const pfb_param_spec rod_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.16, 1e-3, 1e2, "m", "tank width along x (and z in 3D)", NULL},
    {"depth", PFB_PARAM_DOUBLE, 0.06, 1e-3, 1e2, "m", "fluid depth", NULL},
    {"tank_height", PFB_PARAM_DOUBLE, 2.0, 2.0, 100.0, "1", "tank height in units of depth (closed lid; air above the fluid)", NULL},
    {"rod_radius", PFB_PARAM_DOUBLE, 0.01, 1e-4, 1e2, "m", "rod radius (3D: vertical rod through the tank; 2D: a disc at half depth)", NULL},
    {"spin", PFB_PARAM_DOUBLE, 20.0, -1e4, 1e4, "rad/s", "rod angular velocity, right-handed about +y (3D) or +z (2D: counter-clockwise)", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "material density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

typedef struct {
    int dim;
    double c[2], r2; /* rod axis (x, z) in 3D, disc centre (x, y) in 2D; radius^2 */
} rod_ctx;

static int keep_outside_rod(const double x[3], const void *ctx)
{
    const rod_ctx *r = ctx;
    double a = x[0] - r->c[0], b = (r->dim == 3 ? x[2] : x[1]) - r->c[1];
    return a * a + b * b > r->r2;
}

/* A pool of depth D in a closed tank W wide (W x W in 3D), tank_height D high,
 * with a rod of radius Rr spinning at spin rad/s in its middle (Mao and Yang 2006
 * Fig. 3, rod climbing).  3D: an infinite cylinder along y through the tank's
 * centre, spinning about +y; the free surface rises at the rod for a fluid with
 * normal-stress differences.  2D: the rod's section is a disc (a cylinder along z)
 * at the pool's centre, half depth, spinning in the plane.  Particles whose
 * lattice site is inside the rod are left out.  A rod drags fluid only through
 * no-slip walls, and every method's walls slip by default: set them (mao_yang
 * wall_no_slip = true, muller wall_friction = 1, clavet friction = 1). */
static int rod_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double W = params_get(sp, "width"), D = params_get(sp, "depth"), H = D * params_get(sp, "tank_height");
    double Rr = params_get(sp, "rod_radius"), spin = params_get(sp, "spin");
    double rho = params_get(sp, "density"), g = params_get(sp, "gravity");
    if (Rr >= 0.5 * W)
        return pfb_err_set(err, PFB_EINVAL, "rod_radius %g does not fit the tank of width %g; valid: rod_radius < %g",
                           Rr, W, 0.5 * W);
    if (dim == 2 && Rr >= 0.5 * D)
        return pfb_err_set(err, PFB_EINVAL,
                           "rod_radius %g: the 2D rod (a disc at half depth) sticks out of the pool of depth %g; "
                           "valid: rod_radius < %g",
                           Rr, D, 0.5 * D);
    int rc = check_resolution(sim, D, "pool depth", err);
    if (!rc)
        rc = check_resolution(sim, Rr, "rod radius", err);
    if (!rc)
        rc = add_tank(sim, W, H, W, err);
    if (rc)
        return rc;
    pfb_shape rod;
    memset(&rod, 0, sizeof rod);
    rod.type = PFB_SHAPE_CYLINDER;
    rod.radius = Rr;
    rod.half_len = 0.0; /* infinite: through the tank's floor and lid */
    rod.spin = spin;
    rod_ctx ctx = {dim, {0.5 * W, 0.5 * W}, Rr * Rr};
    if (dim == 3) {
        rod.c[0] = rod.c[2] = 0.5 * W;
        rod.c[1] = 0.5 * H;
        rod.n[1] = 1.0;
    } else {
        rod.c[0] = 0.5 * W;
        rod.c[1] = 0.5 * D;
        rod.n[2] = 1.0;
        ctx.c[1] = 0.5 * D;
    }
    rc = boundaries_add(&sim->walls, &rod, err);
    double lo[3] = {0, 0, 0}, hi[3] = {W, D, W};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, keep_outside_rod, &ctx, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = D;
    sim->v_ref = fmax(fabs(spin) * Rr, sqrt(fmax(g, 1e-12) * D)); /* rod surface or gravity wave speed */
    return rc;
}

static const pfb_scene_def scene_rod = {
    "rod", "rod climbing: a rod spinning in a pool (Mao and Yang 2006 Fig. 3)", rod_params, {0.002, 0.004}, 5.0,
    rod_build}; /* 80 x 30 - disc (2D, 2322), 40 x 15 x 40 - rod (3D, 23700) */

/* ---- registry ---------------------------------------------------------------- */

/* ---- float: a rigid body floating in a pool (Clavet et al. 2005 Fig. 10) ------ */

static const pfb_param_spec float_params[] = {
    {"width", PFB_PARAM_DOUBLE, 1.0, 1e-3, 1e3, "m", "tank length along x (and width along z in 3D)", NULL},
    {"depth", PFB_PARAM_DOUBLE, 0.4, 1e-3, 1e3, "m", "fluid depth before the body is placed", NULL},
    {"height", PFB_PARAM_DOUBLE, 0.8, 1e-3, 1e3, "m", "tank height (closed lid)", NULL},
    {"body", PFB_PARAM_CHOICE, 0, 0, 0, "", "body shape", "box|sphere"},
    {"size", PFB_PARAM_DOUBLE, 0.1, 1e-4, 1e2, "m", "box half extent (a square box) or sphere radius", NULL},
    {"body_density", PFB_PARAM_DOUBLE, 0.5, 1e-3, 100.0, "1", "body density over the fluid density (< 1 floats)", NULL},
    {"count", PFB_PARAM_INT, 1, 1, PFB_MAX_BODIES, "", "bodies in a row along x, centres 2.5 size apart", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "fluid density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

typedef struct float_ctx {
    const pfb_bodies *bs;
    int dim;
    double clear;
} float_ctx;

static int float_keep(const double x[3], const void *ctx)
{
    const float_ctx *c = ctx;
    double n[3];
    for (size_t b = 0; b < c->bs->n; b++)
        if (body_sdf(&c->bs->b[b], c->dim, x, n) <= c->clear)
            return 0;
    return 1;
}

/* A pool of the given depth in a closed tank with one body at its centre (or
 * count of them in a row along x, centred), placed where it would float at
 * rest if the level did not rise: a box's bottom (a
 * sphere's centre for a body_density of 1/2) at the draft body_density x 2 size
 * below the surface; lattice sites closer than half a spacing to the body are
 * left empty.  A body_density >= 1 body starts with its top at the surface. */
static int float_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double L = params_get(sp, "width"), D = params_get(sp, "depth"), H = params_get(sp, "height");
    double a = params_get(sp, "size"), rr = params_get(sp, "body_density"), rho = params_get(sp, "density");
    double g = params_get(sp, "gravity");
    int sphere = params_get_int(sp, "body") == 1;
    if (D + 2.0 * a > H)
        return pfb_err_set(err, PFB_EINVAL, "float depth %g plus the body (%g) exceeds tank height %g; valid: depth + 2 size <= height",
                           D, 2.0 * a, H);
    const int count = params_get_int(sp, "count");
    const double row = 2.5 * a * (double)(count - 1) + 2.0 * a;
    if (row >= L)
        return pfb_err_set(err, PFB_EINVAL, "float row of %d bodies of size %g (%g m) does not fit the tank width %g; valid: 2.5 size (count - 1) + 2 size < width",
                           count, a, row, L);
    int rc = check_resolution(sim, a, "body size", err);
    if (!rc)
        rc = add_tank(sim, L, H, dim == 3 ? L : 0.0, err);
    if (rc)
        return rc;
    double draft = fmin(rr, 1.0) * 2.0 * a;
    double half[3] = {a, a, a};
    for (int k = 0; k < count && !rc; k++) {
        double c[3] = {0.5 * L + 2.5 * a * ((double)k - 0.5 * (double)(count - 1)), D - draft + a, dim == 3 ? 0.5 * L : 0.0};
        pfb_body b;
        rc = body_init(&b, sphere ? PFB_BODY_SPHERE : PFB_BODY_BOX, dim, a, half, rr * rho, c, err);
        if (!rc)
            rc = bodies_add(&sim->bodies, &b, err);
    }
    float_ctx ctx = {&sim->bodies, dim, 0.5 * sim->spacing};
    double lo[3] = {0, 0, 0}, hi[3] = {L, D, L};
    if (!rc)
        rc = fill_box(sim, lo, hi, rho, float_keep, &ctx, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = D;
    sim->v_ref = sqrt(fmax(g, 1e-12) * D);
    return rc;
}

static const pfb_scene_def scene_float = {
    "float", "a rigid box or sphere floating in a pool (Clavet et al. 2005 Fig. 10)", float_params, {0.02, 0.04},
    2.0, float_build};

/* ---- tower: a rigid ball shot at a fluid tower (Mao and Yang Fig. 12) --------- */

static const pfb_param_spec tower_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.2, 1e-3, 1e2, "m", "tower width (square section in 3D)", NULL},
    {"height", PFB_PARAM_DOUBLE, 0.6, 1e-3, 1e2, "m", "tower height", NULL},
    {"radius", PFB_PARAM_DOUBLE, 0.06, 1e-4, 1e2, "m", "ball radius", NULL},
    {"ball_density", PFB_PARAM_DOUBLE, 2.0, 1e-3, 100.0, "1", "ball density over the fluid density", NULL},
    {"speed", PFB_PARAM_DOUBLE, 4.0, 0.0, 1e3, "m/s", "ball speed towards the tower (along +x)", NULL},
    {"aim", PFB_PARAM_DOUBLE, 0.5, 0.0, 1.0, "1", "height of the ball's centre as a fraction of the tower height", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "fluid density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A tank 5 tower widths long and 1.5 tower heights high; the tower stands at its
 * centre; the ball starts one radius plus two spacings left of the tower at
 * aim x height, moving at speed along +x (gravity acts on it from the start). */
static int tower_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double w = params_get(sp, "width"), H = params_get(sp, "height"), R = params_get(sp, "radius");
    double rho = params_get(sp, "density"), g = params_get(sp, "gravity"), U = params_get(sp, "speed");
    double L = 5.0 * w, T = 1.5 * H;
    if (2.0 * R + 2.0 * sim->spacing > 2.0 * w)
        return pfb_err_set(err, PFB_EINVAL, "tower ball radius %g does not fit beside the tower (width %g); valid: radius < width - spacing",
                           R, w);
    int rc = check_resolution(sim, w, "tower width", err);
    if (!rc)
        rc = check_resolution(sim, R, "ball radius", err);
    if (!rc)
        rc = add_tank(sim, L, T, dim == 3 ? L : 0.0, err);
    if (rc)
        return rc;
    double x0 = 0.5 * (L - w), z0 = dim == 3 ? 0.5 * (L - w) : 0.0;
    double lo[3] = {x0, 0, z0}, hi[3] = {x0 + w, H, z0 + w};
    rc = fill_box(sim, lo, hi, rho, NULL, NULL, err);
    if (rc)
        return rc;
    double c[3] = {x0 - R - 2.0 * sim->spacing, params_get(sp, "aim") * H, dim == 3 ? 0.5 * L : 0.0};
    if (c[1] < R)
        c[1] = R;
    double half[3] = {R, R, R};
    pfb_body b;
    rc = body_init(&b, PFB_BODY_SPHERE, dim, R, half, params_get(sp, "ball_density") * rho, c, err);
    if (rc)
        return rc;
    b.v[0] = U;
    rc = bodies_add(&sim->bodies, &b, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = H;
    sim->v_ref = fmax(U, sqrt(2.0 * fmax(g, 1e-12) * H));
    return rc;
}

static const pfb_scene_def scene_tower = {
    "tower", "a rigid ball shot at a fluid tower (Mao and Yang Fig. 12)", tower_params, {0.01, 0.02}, 1.0,
    tower_build};

/* ---- fill: a heavy object in a tank filled by a falling stream (Clavet Fig. 9) -- */

static const pfb_param_spec fill_params[] = {
    {"width", PFB_PARAM_DOUBLE, 0.8, 1e-3, 1e2, "m", "tank length along x (and z in 3D)", NULL},
    {"height", PFB_PARAM_DOUBLE, 1.0, 1e-3, 1e2, "m", "tank height", NULL},
    {"nozzle_width", PFB_PARAM_DOUBLE, 0.08, 1e-3, 1e2, "m", "width (2D) or diameter (3D) of the pouring nozzle", NULL},
    {"nozzle_height", PFB_PARAM_DOUBLE, 0.8, 1e-3, 1e2, "m", "height of the nozzle's exit above the tank floor", NULL},
    {"speed", PFB_PARAM_DOUBLE, 1.5, 1e-3, 1e2, "m/s", "speed of the stream at the exit", NULL},
    {"pour_time", PFB_PARAM_DOUBLE, 1.5, 0.0, 1e4, "s", "the stream pours during [0, pour_time)", NULL},
    {"size", PFB_PARAM_DOUBLE, 0.08, 1e-4, 1e2, "m", "half extent of the box on the floor", NULL},
    {"body_density", PFB_PARAM_DOUBLE, 3.0, 1e-3, 100.0, "1", "box density over the fluid density (the paper's heavy object; < 1 floats once the level allows)", NULL},
    {"body_friction", PFB_PARAM_DOUBLE, 0.5, 0.0, 10.0, "1", "Coulomb friction between the box and the tank", NULL},
    {"density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e6, "kg/m^3", "fluid density for particle masses", NULL},
    {"gravity", PFB_PARAM_DOUBLE, 9.81, 0.0, 1e4, "m/s^2", "gravitational acceleration (along -y)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* An empty tank with a box on its floor at the centre, filled by a stream from
 * a nozzle over its left quarter (a core emitter, sim_emit).  At t = 0 the
 * stream's first four layers are out of the nozzle. */
static int fill_build(const pfb_params *sp, pfb_sim *sim, pfb_err *err)
{
    const int dim = sim->dim;
    double L = params_get(sp, "width"), H = params_get(sp, "height"), nw = params_get(sp, "nozzle_width");
    double nh = params_get(sp, "nozzle_height"), a = params_get(sp, "size"), rho = params_get(sp, "density");
    double g = params_get(sp, "gravity"), u = params_get(sp, "speed");
    if (!(nh < H && nh > 2.0 * a + 4.0 * sim->spacing))
        return pfb_err_set(err, PFB_EINVAL, "fill nozzle_height %g is invalid; valid: above the box (%g) and below the tank height %g",
                           nh, 2.0 * a + 4.0 * sim->spacing, H);
    if (nw + 2.0 * a >= 0.5 * L)
        return pfb_err_set(err, PFB_EINVAL, "fill nozzle_width %g and box size %g do not fit the tank width %g; valid: nozzle_width + 2 size < width / 2", nw, a, L);
    int rc = check_resolution(sim, nw, "nozzle width", err);
    if (!rc)
        rc = check_resolution(sim, a, "box size", err);
    if (!rc)
        rc = add_tank(sim, L, H, dim == 3 ? L : 0.0, err);
    if (rc)
        return rc;
    double nozzle[3] = {0.25 * L - 0.5 * a, nh, dim == 3 ? 0.5 * L : 0.0};
    rc = sim_emitter_init(sim, nozzle, nw, u, rho, params_get(sp, "pour_time"), err);
    if (!rc)
        rc = sim_emit_start(sim, 4, err);
    if (rc)
        return rc;
    double c[3] = {0.5 * L, a, dim == 3 ? 0.5 * L : 0.0}, half[3] = {a, a, a};
    pfb_body b;
    rc = body_init(&b, PFB_BODY_BOX, dim, a, half, params_get(sp, "body_density") * rho, c, err);
    b.friction = params_get(sp, "body_friction");
    if (!rc)
        rc = bodies_add(&sim->bodies, &b, err);
    sim->rho_ref = rho;
    sim->g[1] = -g;
    sim->length_ref = H;
    sim->v_ref = sqrt(u * u + 2.0 * fmax(g, 1e-12) * nh);
    return rc;
}

static const pfb_scene_def scene_fill = {
    "fill", "a heavy box on a tank floor, the tank filled by a pouring stream (Clavet et al. 2005 Fig. 9)", fill_params,
    {0.01, 0.02}, 2.0, fill_build};

const pfb_scene_def *const pfb_scenes[] = {&scene_pool,  &scene_dam,   &scene_drop,    &scene_blob,
                                           &scene_drip,  &scene_pour,  &scene_melt,    &scene_balls,
                                           &scene_stretch, &scene_rod, &scene_float, &scene_tower, &scene_fill,
                                           &scene_shear, NULL};

int scene_lookup(const char *name, const pfb_scene_def **out, pfb_err *err)
{
    const char *names[32];
    size_t n = 0;
    for (size_t i = 0; pfb_scenes[i]; i++) {
        if (strcmp(pfb_scenes[i]->name, name) == 0) {
            *out = pfb_scenes[i];
            return PFB_OK;
        }
        if (n < sizeof names / sizeof names[0])
            names[n++] = pfb_scenes[i]->name;
    }
    char list[512] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < n)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    const char *near = pfb_nearest(name, names, n);
    if (near)
        return pfb_err_set(err, PFB_EINVAL, "unknown scene '%s'; did you mean '%s'? valid: %s", name, near,
                           list);
    return pfb_err_set(err, PFB_EINVAL, "unknown scene '%s'; valid: %s", name, list);
}

void scene_jitter(pfb_sim *sim, double jitter)
{
    if (!(jitter > 0))
        return;
    pfb_particles *p = &sim->p;
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < sim->dim; k++)
            p->x[k][i] += jitter * sim->spacing * (2.0 * rng_uniform(&sim->rng) - 1.0);
}

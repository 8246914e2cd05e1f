/* muller.c — Müller, Charypar, Gross 2003, "Particle-Based Fluid Simulation for
 * Interactive Applications" (SCA 2003); text in ../shared/papers/muller2003-sph-slides.txt.
 *
 * The paper's equations as numbered in the SCA paper (the slides carry them unnumbered):
 *   eq. 3   density          rho_i = sum_j m_j W_poly6(r_ij, h)                (self included)
 *   eq. 10  pressure force   f_i^p = -sum_j m_j (p_i + p_j) / (2 rho_j) grad W_spiky(r_ij, h)
 *   eq. 12  state equation   p_i = k (rho_i - rho_0)
 *   eq. 14  viscosity force  f_i^v = mu sum_j m_j (v_j - v_i) / rho_j lap W_viscosity(r_ij, h)
 *   eq. 15  colour field     c_S(r) = sum_j m_j / rho_j W_poly6(r - r_j, h)
 *   eq. 17  normal           n = grad c_S
 *   eq. 19  surface force    f^s = -sigma lap c_S n / |n|, applied where |n| > l (eq. 20)
 *   eq. 8   acceleration     a_i = f_i / rho_i  (+ g: gravity is an acceleration, rho g / rho)
 *   kernels eqs. 20-22       poly6, spiky, viscosity (core/kernels.c)
 * Where each lives: compute_density (eqs. 3, 12), compute_forces and force_hits (eqs.
 * 10, 14, 15-20, 8), step (leap-frog; walls by sim_project_walls).
 * Performance (issue 8): no neighbour list.  Each force evaluation bins the
 * particles in the solver's own grid (cell h) and traverses, per particle, its
 * candidate cells in cell order (the 3^dim around it minus the rows and row
 * ends its position puts h or more away: 20.6 h^3 instead of 27 h^3 in 3D),
 * reading cell-ordered copies of mass, volume, pressure and velocity: the
 * density pass as one masked loop over all candidates (vectorised), the force
 * pass by collecting the hits (within h) first (grid_hits: four candidates at
 * a time with AVX2) and evaluating the force terms on those only.  Each particle's sums are formed by one thread in
 * that order, so results do not depend on the thread count.  Measured (3D dam
 * break, 59,582 particles, bench step, 2 cores): about 2.0 million particle-steps/s
 * on 2 threads (0.63 million with the neighbour list, 1.4 million with the first
 * traversal), 249 bytes per particle (633 with the list).
 * Rigid bodies (issue 7; the paper has none): after the drift and the wall
 * projection, sim_bodies_couple (core/sim.h): each body advances under gravity,
 * and every particle within the wall margin of it exchanges the impulse of an
 * inelastic two-body contact (wall_friction as its Coulomb coefficient), equal
 * and opposite, and is moved onto the margin.  Buoyancy comes from the pressure
 * forces that push particles against the body; a disc of half the fluid density
 * floats 0.498 submerged (test_body).
 *
 * Choices where the paper is silent, and why:
 *  - Leap-frog in its kick-drift-kick form: v_{n+1/2} = v_n + dt/2 a_n, x_{n+1} = x_n +
 *    dt v_{n+1/2}, a_{n+1} from (x_{n+1}, v_{n+1/2}), v_{n+1} = v_{n+1/2} + dt/2 a_{n+1}.
 *    Identical to the staggered leap-frog for velocity-independent forces, one force
 *    evaluation per step, and it keeps velocities at whole steps so diagnostics are
 *    synchronous.  The viscosity force uses the half-step velocity (explicit).
 *  - Pressure clamping (clamp_pressure, default on): p = max(k (rho - rho0), 0).  The
 *    framework's walls are analytic (no boundary particles), so particles at walls and
 *    at the free surface miss up to half their neighbours; the paper's unclamped eq. 12
 *    then gives them pressures of order -k rho0 / 4 that pull them inward at thousands
 *    of m/s^2 and blow up a 2D dam break within 0.03 s (measured).  Off = the paper.
 *  - Self contributions: density and lap c_S include j = i (the SPH sum runs over all
 *    particles); grad W(0) = 0 so the gradients do not.
 *  - rho0 is by default calibrated to the initial lattice: the poly6 density of an
 *    interior lattice particle, so the initial state is at rest (calibrate_rest_density;
 *    off: rest_density is used).  k = 0 selects k = (10 v_ref)^2, a speed of sound ten
 *    times the scene's characteristic speed (density variation ~1%).
 *  - Walls: position projection (core boundaries_project) onto a margin of half a
 *    spacing, with restitution and friction parameters (paper: "collision forces").
 *  - Time step suggestion: the minimum of the CFL limit cfl*h/(c + v_ref), the viscous
 *    limit 0.125 h^2 rho0/mu, the force limit 0.25 sqrt(h/|g|) and the capillary limit
 *    0.25 sqrt(rho0 h^3 / (2 pi sigma)) (Brackbill et al. 1992).
 *  - The colour-field surface force is not pairwise antisymmetric (the paper's form), so
 *    it conserves momentum only where the configuration is symmetric; pressure and
 *    viscosity forces, as m_i a_i, are antisymmetric pair by pair.
 *  - Viscosity (viscosity = -1, the default): mu = viscosity_alpha * rho0 * c * h with
 *    alpha = 0.02.  Water's molecular mu = 1.0e-3 Pa s (set viscosity=1e-3) cannot keep
 *    the method stable at any practical resolution: density uses poly6 but the pressure
 *    force the spiky gradient, so the pressure force is not the gradient of an energy
 *    and the lattice is subject to a flutter that grows at a rate ~c/h independent of
 *    dt (measured: the 2D pool at spacing 0.02 with mu = 1e-3 gains kinetic energy 3x
 *    its available potential energy in 0.5 s, the same at cfl 0.15, 0.05 and 0.01; with
 *    alpha = 0.02, i.e. mu = 18 Pa s there, KE/(M g D) = 2.5e-5 after 3 s).  The paper
 *    itself treats mu as a tuning value (its demos used 3.5 Pa s).
 *  - The symmetrised pressure force of eq. 10 is (1/2) grad p in the continuum limit
 *    (the p_i half sums to zero), so the state-equation pressure k (rho - rho0) of a
 *    fluid at rest is about 2/gamma times the mechanical pressure, gamma = 0.886 the
 *    spiky gradient's lattice moment at h = 2 spacings in 2D (tested in test_muller).
 *
 * Units: SI.  Defaults describe water where the method allows: rho0 = 1000 kg/m^3 (as
 * calibrated on the lattice), sigma = 0.0728 N/m; l = 7.065 1/m (the paper gives no
 * value; a common choice); h = 2 spacings (about 33 neighbours in 3D, 12 in 2D);
 * suggested time step with cfl = 0.15 of h (0.3 of the smoothing length h/2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include "../core/diag.h"
#include "../core/kernels.h"
#include "solver.h"

static const pfb_param_spec muller_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 2.0, 1.01, 6.0, "1", "support radius h in particle spacings", NULL},
    {"rest_density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e7, "kg/m^3", "rest density rho0 (when not calibrated)", NULL},
    {"calibrate_rest_density", PFB_PARAM_BOOL, 1, 0, 1, "", "rho0 := poly6 density of the initial lattice", NULL},
    {"k", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e12, "m^2/s^2", "gas constant of p = k (rho - rho0); 0 = (10 v_ref)^2", NULL},
    {"clamp_pressure", PFB_PARAM_BOOL, 1, 0, 1, "", "p = max(k (rho - rho0), 0); false: the paper's unclamped eq. 12", NULL},
    {"viscosity", PFB_PARAM_DOUBLE, -1.0, -1.0, 1e6, "Pa s", "dynamic viscosity mu; -1 = viscosity_alpha rho0 c h (water: 1.0e-3)", NULL},
    {"viscosity_alpha", PFB_PARAM_DOUBLE, 0.02, 0.0, 10.0, "1", "mu = alpha rho0 c h when viscosity = -1", NULL},
    {"surface_tension", PFB_PARAM_DOUBLE, 0.0728, 0.0, 1e6, "N/m", "surface tension coefficient sigma", NULL},
    {"surface_threshold", PFB_PARAM_DOUBLE, 7.065, 0.0, 1e9, "1/m", "l: surface force where |grad c| > l", NULL},
    {"wall_restitution", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "normal restitution at walls", NULL},
    {"wall_friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "tangential velocity removed at walls (0 slip, 1 no-slip)", NULL},
    {"cfl", PFB_PARAM_DOUBLE, 0.15, 0.01, 2.0, "1", "CFL number of the suggested time step", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

typedef struct muller_state {
    int clamp;
    double h, rho0, k, mu, sigma, l, e, fric, margin, cfl;
    pfb_kernel poly6, spiky, visc;
    int f_rho, f_p, f_a;   /* particle field indices: density, pressure, acceleration */
    int have_accel;
    size_t n_surface;
    /* the cell traversal: the solver's own grid (cell h) and cell-ordered copies
     * of mass, density, pressure and velocity (xs is the grid's) */
    pfb_grid grid;
    double *cm, *cvol, *cp, *cv[3];   /* mass, volume m / rho, pressure, velocity */
    size_t cap;
    /* kernel constants: poly6 c, spiky dW/dr = ds (h - r)^2, viscosity lap = lv (h - r) */
    double c6, ds, lv;
} muller_state;

static void muller_destroy(void *state)
{
    muller_state *s = state;
    if (!s)
        return;
    grid_free(&s->grid);
    free(s->cm);
    free(s->cvol);
    free(s->cp);
    for (int d = 0; d < 3; d++)
        free(s->cv[d]);
    free(s);
}

static int muller_create(const pfb_params *p, pfb_sim *sim, void **out, pfb_err *err)
{
    *out = NULL;
    muller_state *s = calloc(1, sizeof *s);
    if (!s)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory creating the muller solver");
    s->h = params_get(p, "h_factor") * sim->spacing;
    s->clamp = params_get_int(p, "clamp_pressure");
    s->sigma = params_get(p, "surface_tension");
    s->l = params_get(p, "surface_threshold");
    s->e = params_get(p, "wall_restitution");
    s->fric = params_get(p, "wall_friction");
    s->cfl = params_get(p, "cfl");
    s->margin = 0.5 * sim->spacing;
    int rc = kernel_init(&s->poly6, PFB_KERNEL_POLY6, sim->dim, s->h, err);
    if (!rc)
        rc = kernel_init(&s->spiky, PFB_KERNEL_SPIKY, sim->dim, s->h, err);
    if (!rc)
        rc = kernel_init(&s->visc, PFB_KERNEL_VISCOSITY, sim->dim, s->h, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "density", 1, &s->f_rho, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "pressure", 1, &s->f_p, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "accel", 3, &s->f_a, err);
    if (!rc)
        rc = grid_init(&s->grid, sim->dim, s->h, err);
    if (rc) {
        muller_destroy(s);
        return rc;
    }
    /* the kernels of core/kernels.c written out for the traversal (equal to them:
     * test_traversal_equals_kernel_sums): poly6 W = c (h^2 - r^2)^3, dW/dr = -6 c r (h^2 - r^2)^2,
     * lap W = c d (24 r^2 - 6 dim d); spiky dW/dr = -3 c (h - r)^2; viscosity
     * lap W = 6 c / h^3 (h - r) in 3D, c / h^3 (h - r) in 2D */
    s->c6 = s->poly6.norm;
    s->ds = -3.0 * s->spiky.norm;
    s->lv = (sim->dim == 3 ? 6.0 : 1.0) * s->visc.norm / (s->h * s->h * s->h);
    if (params_get_int(p, "calibrate_rest_density")) {
        double m = sim->p.n ? particles_total_mass(&sim->p) / (double)sim->p.n : 0.0;
        s->rho0 = lattice_density(&s->poly6, sim->spacing, m);
    } else {
        s->rho0 = params_get(p, "rest_density");
    }
    s->k = params_get(p, "k");
    if (s->k == 0.0)
        s->k = 100.0 * sim->v_ref * sim->v_ref;
    s->mu = params_get(p, "viscosity");
    if (s->mu < 0)
        s->mu = params_get(p, "viscosity_alpha") * s->rho0 * sqrt(s->k) * s->h;
    if (!(s->rho0 > 0) || !(s->k > 0)) {
        rc = pfb_err_set(err, PFB_EINVAL,
                         "muller: rest density %g and gas constant %g must be positive; set rest_density and k",
                         s->rho0, s->k);
        muller_destroy(s);
        return rc;
    }
    *out = s;
    return PFB_OK;
}

/* The traversal: the grid of the current positions, and per sorted position k
 * (particle order[k]) its candidates in the cell ranges, read from cell-ordered
 * copies.  Every particle's sums run over its candidates in cell order on one
 * thread (the hits are masked, not branched on, so the loops vectorise): the
 * results do not depend on the thread count.  The candidate at distance 0 that
 * is the particle itself gives the self terms of eqs. 3 and 15. */
/* hit buffer of the force pass (on the stack), flushed when half full */
#define MULLER_HITS 256

static int ensure_copies(muller_state *s, size_t n, pfb_err *err)
{
    if (n <= s->cap)
        return PFB_OK;
    size_t cap = n + n / 4 + 64;
    double **arr[6] = {&s->cm, &s->cvol, &s->cp, &s->cv[0], &s->cv[1], &s->cv[2]};
    for (int a = 0; a < 6; a++) {
        double *v = realloc(*arr[a], cap * sizeof *v);
        if (!v)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for %zu particles", n);
        *arr[a] = v;
    }
    s->cap = cap;
    return PFB_OK;
}

/* sum over [lo, hi) of m_j (h^2 - r^2)^3 for r^2 < h^2 (eq. 3 without c) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static double density_range(int dim, const double *const xs[3], const double *restrict cm, size_t k, size_t lo,
                            size_t hi, double hh)
{
    const double *restrict x0 = xs[0], *restrict x1 = xs[1], *restrict x2 = xs[2];
    const double a0 = x0[k], a1 = x1[k], a2 = dim == 3 ? x2[k] : 0.0;
    double sum = 0.0;
    if (dim == 3) {
#pragma omp simd reduction(+ : sum)
        for (size_t c = lo; c < hi; c++) {
            const double dx = a0 - x0[c], dy = a1 - x1[c], dz = a2 - x2[c];
            const double e = hh - (dx * dx + dy * dy + dz * dz), d = e > 0.0 ? e : 0.0;
            sum += cm[c] * d * d * d;
        }
    } else {
#pragma omp simd reduction(+ : sum)
        for (size_t c = lo; c < hi; c++) {
            const double dx = a0 - x0[c], dy = a1 - x1[c];
            const double e = hh - (dx * dx + dy * dy), d = e > 0.0 ? e : 0.0;
            sum += cm[c] * d * d * d;
        }
    }
    return sum;
}

/* eqs. 3 and 12: density with poly6 (self included) and the state equation; also
 * the cell-ordered copies the force pass reads. */
static int compute_density(muller_state *s, pfb_sim *sim, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const int dim = sim->dim;
    s->grid.threads = sim->threads;
    int rc = grid_build(&s->grid, (const double *const *)p->x, n, err);
    if (!rc)
        rc = ensure_copies(s, n, err);
    if (rc)
        return rc;
    const pfb_grid *g = &s->grid;
    const size_t *restrict order = g->order;
    const double *const xs[3] = {g->xs, g->xs + g->cap_points, dim == 3 ? g->xs + 2 * g->cap_points : g->xs};
    double *restrict rho = p->field[s->f_rho].data;
    double *restrict pr = p->field[s->f_p].data;
    const double hh = s->h * s->h;
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t k = 0; k < n; k++) {
        const size_t i = order[k];
        s->cm[k] = p->m[i];
        for (int d = 0; d < 3; d++)
            s->cv[d][k] = d < dim ? p->v[d][i] : 0.0;
    }
    pfb_cell_ranges r; /* per thread; caches the rows of the current cell */
    r.cached = 0;
#pragma omp parallel for schedule(static) firstprivate(r) num_threads(sim_threads(sim)) if (sim_parallel_pairs(sim, n))
    for (size_t k = 0; k < n; k++) {
        grid_candidates(g, k, &r);
        double sum = 0.0;
        for (int q = 0; q < r.n; q++)
            sum += density_range(dim, xs, s->cm, k, r.lo[q], r.hi[q], hh);
        const size_t i = order[k];
        sum *= s->c6;
        double pi = s->k * (sum - s->rho0); /* eq. 12 */
        pi = (s->clamp && pi < 0.0) ? 0.0 : pi;
        rho[i] = sum;
        pr[i] = pi;
        s->cvol[k] = s->cm[k] / sum;
        s->cp[k] = pi;
    }
    return PFB_OK;
}

/* The force terms of the neighbours hit[0 .. m-1] (sorted positions, in cell
 * order) of the particle at sorted position k, into t: pressure (3), viscosity
 * (3), colour-field gradient (3) and Laplacian (1).  The particle itself (r = 0)
 * adds only its Laplacian self term (pos = 0 removes the gradient terms).  The
 * sums are in-order reductions (no reassociation), so the AVX2 clone gives the
 * same bits as the baseline one. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx2", "default")))
#endif
static void force_hits(const muller_state *s, int dim, const double *const xs[3], size_t k, const size_t *hit,
                       size_t m, double t[10])
{
    const double *restrict x0 = xs[0], *restrict x1 = xs[1], *restrict x2 = dim == 3 ? xs[2] : xs[0];
    const double *restrict cvol = s->cvol, *restrict cp = s->cp;
    const double *restrict u0 = s->cv[0], *restrict u1 = s->cv[1], *restrict u2 = s->cv[2];
    const double zf = dim == 3 ? 1.0 : 0.0; /* in 2D the z terms read x and are multiplied by 0 */
    const double a0 = x0[k], a1 = x1[k], a2 = x2[k];
    const double v0 = u0[k], v1 = u1[k], v2 = u2[k], pi = cp[k];
    const double h = s->h, hh = h * h, c6 = s->c6, ds = s->ds, lv = s->lv, mu = s->mu, dd = (double)dim;
    double p0 = 0, p1 = 0, p2 = 0, f0 = 0, f1 = 0, f2 = 0, n0 = 0, n1 = 0, n2 = 0, lc = 0;
    for (size_t q = 0; q < m; q++) {
        const size_t c = hit[q];
        const double dx = a0 - x0[c], dy = a1 - x1[c], dz = zf * (a2 - x2[c]);
        const double r2 = dx * dx + dy * dy + dz * dz;
        const double pos = (double)(r2 > 0.0);
        const double r = sqrt(r2), inv = pos / (r + (1.0 - pos));
        const double vj = cvol[c];
        const double e = h - r, d = hh - r2;
        /* eq. 10: -V_j (p_i + p_j) / 2 dW_spiky/dr / r; eq. 17: V_j dW_poly6/dr / r */
        const double cpr = -vj * 0.5 * (pi + cp[c]) * ds * e * e * inv;
        const double cn = pos * vj * -6.0 * c6 * d * d;
        const double cvv = mu * vj * lv * e; /* eq. 14 */
        p0 += cpr * dx;
        p1 += cpr * dy;
        p2 += cpr * dz;
        f0 += cvv * (u0[c] - v0);
        f1 += cvv * (u1[c] - v1);
        f2 += cvv * (u2[c] - v2);
        n0 += cn * dx;
        n1 += cn * dy;
        n2 += cn * dz;
        lc += vj * c6 * d * (24.0 * r2 - 6.0 * dd * d); /* lap c_S */
    }
    t[0] += p0;
    t[1] += p1;
    t[2] += p2;
    t[3] += f0;
    t[4] += f1;
    t[5] += f2;
    t[6] += n0;
    t[7] += n1;
    t[8] += n2;
    t[9] += lc;
}


/* eqs. 10, 14, 15-20 and 8: force densities and the acceleration a_i = f_i / rho_i + g. */
static void compute_forces(muller_state *s, pfb_sim *sim)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const pfb_grid *g = &s->grid;
    const size_t *restrict order = g->order;
    const double *const xs[3] = {g->xs, g->xs + g->cap_points, dim == 3 ? g->xs + 2 * g->cap_points : g->xs};
    const double *restrict rho = p->field[s->f_rho].data;
    double *restrict acc = p->field[s->f_a].data;
    size_t nsurf = 0;
    const size_t np = p->n;
    const double hh = s->h * s->h;
    pfb_cell_ranges r; /* per thread; caches the rows of the current cell */
    r.cached = 0;
#pragma omp parallel for schedule(static) firstprivate(r) reduction(+ : nsurf) num_threads(sim_threads(sim)) \
    if (sim_parallel_pairs(sim, np))
    for (size_t k = 0; k < np; k++) {
        grid_candidates(g, k, &r);
        double t[10] = {0};
        /* the hits first (cheap distance tests), then the force terms of the
         * hits only, in blocks of at most MULLER_HITS */
        size_t hit[MULLER_HITS + GRID_HITS_SPARE], m = 0;
        for (int q = 0; q < r.n; q++)
            for (size_t lo = r.lo[q]; lo < r.hi[q]; lo += MULLER_HITS / 2) {
                size_t hi = lo + MULLER_HITS / 2 < r.hi[q] ? lo + MULLER_HITS / 2 : r.hi[q];
                if (m > MULLER_HITS / 2) {
                    force_hits(s, dim, xs, k, hit, m, t);
                    m = 0;
                }
                m = grid_hits(dim, xs, k, lo, hi, hh, hit, m);
            }
        hit[m++] = k; /* the particle itself, last: its self terms */
        force_hits(s, dim, xs, k, hit, m, t);
        const size_t i = order[k];
        const double *fp = t, *fv = t + 3, *n = t + 6;
        const double lapc = t[9];
        double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double cs = 0.0;
        if (nn > s->l && nn > 0) { /* eq. 20: only near the surface */
            cs = -s->sigma * lapc / nn; /* eq. 19 */
            nsurf++;
        }
        for (int d = 0; d < 3; d++) {
            double f = d < dim ? fp[d] + fv[d] + cs * n[d] : 0.0;
            acc[3 * i + (size_t)d] = f / rho[i] + (d < dim ? sim->g[d] : 0.0); /* eq. 8 */
        }
    }
    s->n_surface = nsurf;
}

static int compute_accel(muller_state *s, pfb_sim *sim, pfb_err *err)
{
    int rc = compute_density(s, sim, err);
    if (rc)
        return rc;
    compute_forces(s, sim);
    return PFB_OK;
}

/* Half a kick: v += dt/2 a. */
static void kick(const muller_state *s, pfb_sim *sim, double half_dt)
{
    pfb_particles *p = &sim->p;
    const double *restrict acc = p->field[s->f_a].data;
    const size_t n = p->n;
    for (int k = 0; k < sim->dim; k++) {
        double *restrict v = p->v[k];
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
        for (size_t i = 0; i < n; i++)
            v[i] += half_dt * acc[3 * i + (size_t)k];
    }
}

static int muller_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    muller_state *s = state;
    pfb_particles *p = &sim->p;
    int rc;
    if (!s->have_accel) {
        rc = compute_accel(s, sim, err);
        if (rc)
            return rc;
        s->have_accel = 1;
    }
    kick(s, sim, 0.5 * dt);
    const size_t n = p->n;
    for (int k = 0; k < sim->dim; k++) {
        double *restrict x = p->x[k];
        const double *restrict v = p->v[k];
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
        for (size_t i = 0; i < n; i++)
            x[i] += dt * v[i];
    }
    sim_project_walls(sim, sim->t + dt, s->margin, s->e, s->fric);
    sim_bodies_couple(sim, dt, sim->t + dt, s->margin, s->fric); /* rigid bodies: see core/sim.h */
    sim_positions_changed(sim);
    rc = compute_accel(s, sim, err);
    if (rc)
        return rc;
    kick(s, sim, 0.5 * dt);
    return PFB_OK;
}

static double muller_suggest_dt(const void *state, const pfb_sim *sim)
{
    const muller_state *s = state;
    double c = sqrt(s->k);
    double dt = s->cfl * s->h / (c + sim->v_ref);
    if (s->mu > 0)
        dt = fmin(dt, 0.125 * s->h * s->h * s->rho0 / s->mu);
    double g = sqrt(sim->g[0] * sim->g[0] + sim->g[1] * sim->g[1] + sim->g[2] * sim->g[2]);
    if (g > 0)
        dt = fmin(dt, 0.25 * sqrt(s->h / g));
    if (s->sigma > 0)
        dt = fmin(dt, 0.25 * sqrt(s->rho0 * s->h * s->h * s->h / (2.0 * M_PI * s->sigma)));
    return dt;
}

static const char *const muller_diag_names[] = {"rho0", "rho_max_rel", "n_surface", NULL};

static void muller_diag(const void *state, const pfb_sim *sim, double *values)
{
    const muller_state *s = state;
    const double *rho = sim->p.field[s->f_rho].data;
    double mx = 0.0;
    for (size_t i = 0; i < sim->p.n; i++)
        mx = fmax(mx, rho[i]);
    values[0] = s->rho0;
    values[1] = s->have_accel ? mx / s->rho0 : NAN;
    values[2] = (double)s->n_surface;
}

static double muller_surface_tension(const void *state)
{
    const muller_state *s = state;
    return s->sigma;
}

const pfb_solver_ops pfb_solver_muller = {
    "muller",
    "M. Mueller, D. Charypar, M. Gross. Particle-based fluid simulation for interactive applications. SCA 2003",
    muller_params,
    muller_create,
    muller_step,
    muller_destroy,
    muller_suggest_dt,
    muller_diag_names,
    muller_diag,
    muller_surface_tension,
    NULL,
    NULL,
    NULL};

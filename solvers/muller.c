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
 * Where each lives: block_rows with density_row and density_done (eqs. 3, 12),
 * block_rows with force_row and forces_done (eqs. 10, 14, 15-20, 8), all ordered
 * by pair_passes; step (leap-frog; walls by sim_project_particle).
 * Performance (issue 8): a half neighbour list with a skin, reused over steps,
 * with each pair evaluated once for both particles (see "The pair loops"): the
 * list costs 4 bytes per pair and is rebuilt only when the particles' moves
 * since spread over a box of half-diagonal 0.45 skin h, in all and in some
 * block's neighbourhood (local_valid); the pair terms
 * (square root, divisions) are formed once per pair; results do not depend on
 * the thread count.  The pair data come from packed
 * 64-byte records, the passes run as dependent tasks per block, and the drift,
 * walls and move check share one loop (see "The pair loops").  Measured (3D
 * dam break, 59,582 particles, 2 cores, bench step, 8 runs alternating with
 * the version before; the machine's speed moves by a third between phases):
 * 96-115 ns per particle-step at rest, half the runs at 100 ns or less (the
 * version before: 135-228); in the flow after 0.2 s (a rebuild every ~4 steps)
 * 148 ns median and 204 ns mean (before: 170-178 and 225-235); 260 bytes per
 * particle at rest, 283 in the flow.  Later (the drift, list and blow-up loops
 * in pieces taken as the threads come, two multiplications fewer per four
 * pairs): 93-98 ns at rest while both cores run at full speed (bench/run.sh's
 * core_ref near 105 ns), 113-150 while the shared machine slows them.  Then
 * the list's rows from grid_half_row (a rebuild 275 -> 127-160 ns per
 * particle; the same list): in the flow (warmup 2500, 100 steps, 10 runs
 * alternating with the version before, cores slowed) 184-258 ns mean
 * (before 211-267; paired ratio median 0.88), the median step unchanged.
 * Then the force pass on the pairs within h only, the list in one scan and
 * the rows' ends by transposed sums: in the flow, one thread each, the two
 * versions at once on the two cores, swapped each round, 3 of 4 rounds alike:
 * 248 against 266 ns median, 281 against 316-323 mean (0.93, 0.88); at rest
 * the same (306-319 against 309-314).  The
 * version with no stored list, which traversed candidate cells twice per step,
 * took 380-500 ns and 249 bytes.  At the end of issue 8 (the rows for
 * AVX-512VL's registers, see "The pair loops"): in the flow 78-96 ns median and
 * 83-103 mean over the machine's phases, at rest 67-85; 292-296 bytes per
 * particle in the flow.
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
 *  - Periodic axes (core/periodic.h; the paper has none): the rows take the
 *    minimum image of each pair's displacement (muller_rows.inc, compiled apart
 *    from the open rows, which stay as they were), the half list comes from the
 *    framework's minimum-image list (build_list_periodic), and the local rebuild
 *    test is off (its blocks do not wrap).
 *  - Walls: position projection (core boundaries_project) onto a margin of half a
 *    spacing, with restitution and friction parameters (paper: "collision forces").
 *  - Time step suggestion: the minimum of the CFL limit cfl*h/(c + v_ref), the viscous
 *    limit 0.125 h^2 rho0/mu, the force limit 0.25 sqrt(h/|g|) and the capillary limit
 *    0.25 sqrt(rho0 h^3 / (2 pi sigma)) (Brackbill et al. 1992).
 *  - The colour-field surface force is not pairwise antisymmetric (the paper's form), so
 *    it conserves momentum only where the configuration is symmetric; pressure and
 *    viscosity forces, as m_i a_i, are antisymmetric pair by pair.
 *  - The paper's curvature (curvature = laplacian, the default) makes a free drop
 *    shed particles; curvature = divergence is the correction (surface_divergence).
 *    Eq. 18 takes kappa = -lap c_S / |n|, which equals -div(n / |n|) only where |n|
 *    does not vary along n.  Across the smeared surface it does: lap c_S changes
 *    sign at the steepest point of c_S, so the outer and inner layers of the
 *    surface are pushed apart with forces of order sigma / h^2, and their sum is
 *    not zero.  Measured on the 2D drop (R = 0.1 m, R/dx = 20, sigma = 26.3 N/m,
 *    scenes/drop.ini): from rest the drop gains 3.1 J of kinetic energy and a
 *    momentum of 3.6 kg m/s (M = 31 kg) in 1/30 s, the same with half the time
 *    step (a force, not the integrator); 425 of its 1249 particles pass eq. 20's
 *    l; the whole drop drifts and leaves the domain at t = 1.29 s.  A larger l
 *    (20, 40, 80 1/m) delays it but does not remove it.  The correction takes
 *    kappa = -div n^ over the particles whose normal is reliable (|n| h >
 *    normal_min; Morris 2000), normalised by the sum's own first moment (Adami,
 *    Hu, Adams 2010) because a free surface truncates it, and removes the mean
 *    of the resulting forces, since the surface force of a closed surface sums
 *    to zero and any remainder moves the drop as a whole.  With it the same drop
 *    keeps its momentum to rounding (|P| < 3e-15 kg m/s over 2 s) and its kinetic
 *    energy below 0.09 J, and rings at about 1.2 omega_R (R/dx = 10 and 20; the
 *    validation experiment measures omega against Rayleigh's).  At R/dx = 40 it
 *    still gains energy: the deformation grows from 0.1 to 0.31 within 0.9 s and
 *    the kinetic energy reaches 0.2 J, so the correction is not yet resolution-
 *    independent (the momentum still stays at rounding, 5e-14).  normal_min = 0.5:
 *    |n| h is about 1 at the outer layer of a flat lattice surface and 0 one layer
 *    in (h = 2 spacings), and the layers between exist only where the lattice is
 *    disordered; at 0.3 the second layer's noisy normals pumped up to 3.9 J into
 *    the drop, at 0.7 it tore apart within 1 s (same drop, 2 s).
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#include <sched.h>
#include <stdatomic.h>
#ifdef _OPENMP
#include <omp.h>
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
    {"curvature", PFB_PARAM_CHOICE, 0, 0, 0, "", "the surface force's curvature: laplacian (the paper's eq. 18, kappa = -lap c / |n|) or divergence (kappa = -div n/|n| over the particles with |n| h > normal_min, Morris 2000; the forces' mean removed)", "laplacian|divergence"},
    {"normal_min", PFB_PARAM_DOUBLE, 0.5, 0.0, 10.0, "1", "curvature = divergence: the particles with |n| h > normal_min (and |n| > l) have a normal and a surface force", NULL},
    {"wall_restitution", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "normal restitution at walls", NULL},
    {"wall_friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "tangential velocity removed at walls (0 slip, 1 no-slip)", NULL},
    {"list_skin", PFB_PARAM_DOUBLE, 0.1, 0.01, 1.0, "1", "neighbour list radius h (1 + skin), rebuilt when the moves since spread over a box of half-diagonal 0.45 skin h in some block's neighbourhood", NULL},
    {"simd", PFB_PARAM_INT, 2, 0, 2, "1", "vector pair loops up to this level, where the CPU has it: 0 portable C, 1 AVX2, 2 AVX2 compiled for AVX-512VL (32 registers); the same bits at every level", NULL},
    {"cfl", PFB_PARAM_DOUBLE, 0.15, 0.01, 2.0, "1", "CFL number of the suggested time step", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

struct muller_state;
/* the most threads the pair loops use */
#define MULLER_MAX_THREADS 256
typedef void (*muller_row_fn)(struct muller_state *s, size_t i, const double *pk, size_t wmask, uint32_t *buf);

typedef struct muller_state {
    int clamp, simd, dim;
    int periodic;          /* the scene has periodic axes: minimum-image rows, list from pl */
    double per_L[3], per_I[3]; /* the periods and their inverses (0 on open axes) */
    pfb_nlist pl;          /* periodic: the full minimum-image list the half list is taken from */
    double h, rho0, k, mu, sigma, l, e, fric, margin, cfl;
    int curv;              /* curvature: 0 the paper's laplacian, 1 divergence (surface_divergence) */
    double nmin;           /* divergence: the normals' threshold, |n| > nmin (normal_min / h, at least l) */
    double sig_rows;       /* the sigma of forces_done: sigma for the paper's curvature, else 0 */
    double *nh;            /* divergence: 6 per particle (surface_divergence) */
    size_t cap_nh;
    double hl;             /* radius of the half list, h (1 + list_skin) */
    pfb_kernel poly6, spiky, visc;
    int f_rho, f_p, f_a;   /* particle field indices: density, pressure, acceleration */
    int have_accel;
    size_t n_surface;
    /* the half list (pairs i < j within hl at its build; rows ls[i] .. ls[i+1]-1 of lj),
     * its blocks blk[0 .. nblk], and per particle m / rho and the colour-field sums
     * (grad c_S, lap c_S: 4 doubles) */
    uint32_t *ls, *lj;
    size_t last_pairs;     /* pairs of the last list */
    size_t cap_n, cap_pairs, *blk, nblk, *bord; /* bord: the even blocks, then the odd, each
                                                             largest first (the order the threads take them) */
    unsigned long list_gen; /* sim->grid_gen of the grid it was built on */
    long builds;           /* lists built so far */
    double *cs;
    void *sbox[2];         /* the local rebuild test's boxes of 2 x 2 x 2-cell blocks (local_valid: */
    size_t cap_sbox;       /* move_box), room for cap_sbox blocks */
    uint32_t *inh;         /* per particle, bit q: pair q of its row was within h in this
                              step's density pass (pairs 0-31; see "The pair loops") */
    uint32_t *cj[MULLER_MAX_THREADS]; /* per thread, the force pass's compacted row */
    size_t cap_cj;         /* entries each cj[t] holds: the longest row + 16 */
    /* per thread, a window of packed records (see "The pair loops"): 8 doubles
     * (64 bytes, one cache line) per particle, particle k in record k & wmask */
    double *pk[MULLER_MAX_THREADS];
    pfb_half_scan *scan[MULLER_MAX_THREADS]; /* per thread, for the list's rows (kept) */
    uint32_t *lbuf[2];     /* the one-pass list's chunk of rows, per side (kept) */
    size_t lbuf_cap[2];
    size_t cap_pk, wmask;  /* records each pk[t] holds (a power of 2), and cap_pk - 1 */
    int npk;               /* threads with a pk: the pair loops' threads */
    atomic_uchar *done;    /* task completion flags (pair_passes): 3 (nblk + 2) */
    size_t *task;          /* the tasks in the order the threads take them: 4 nblk */
    size_t *nsurf_blk;     /* surface particles per block */
    double *rho, *acc;     /* the fields density and accel, for the rows */
    /* the rows of the two passes, for the instruction set of this CPU (muller_rows.inc) */
    muller_row_fn density_row, force_row;
    int vec_done;          /* density_done_avx2 and forces_done_avx2 (3D) for the done stages */
    /* kernel constants: poly6 c, spiky dW/dr = ds (h - r)^2, viscosity lap = lv (h - r) */
    double c6, ds, lv;
} muller_state;

static void muller_destroy(void *state)
{
    muller_state *s = state;
    if (!s)
        return;
    free(s->ls);
    free(s->lj);
    free(s->blk);
    free(s->bord);
    free(s->done);
    free(s->task);
    free(s->nsurf_blk);
    free(s->cs);
    free(s->nh);
    free(s->sbox[0]);
    free(s->sbox[1]);
    free(s->inh);
    for (int t = 0; t < MULLER_MAX_THREADS; t++) {
        free(s->pk[t]);
        free(s->cj[t]);
        grid_half_scan_free(s->scan[t]);
    }
    free(s->lbuf[0]);
    free(s->lbuf[1]);
    nlist_free(&s->pl);
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
    s->dim = sim->dim;
    s->simd = params_get_int(p, "simd");
    s->sigma = params_get(p, "surface_tension");
    s->l = params_get(p, "surface_threshold");
    s->curv = params_get_int(p, "curvature");
    s->sig_rows = s->curv ? 0.0 : s->sigma;
    s->nmin = fmax(s->l, params_get(p, "normal_min") / s->h);
    s->e = params_get(p, "wall_restitution");
    s->fric = params_get(p, "wall_friction");
    s->cfl = params_get(p, "cfl");
    s->margin = 0.5 * sim->spacing;
    s->hl = s->h * (1.0 + params_get(p, "list_skin"));
    s->periodic = sim_periodic(sim);
    for (int k = 0; k < 3; k++) {
        s->per_L[k] = sim->period.L[k];
        s->per_I[k] = sim->period.inv[k];
    }
    sim->sort_h = s->hl; /* the run's sorts on the list's grid (see the pair loops) */
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

/* The pair loops: a half list with a skin (Verlet), evaluated symmetrically.
 *
 * The list holds every pair i < j (storage indices) closer than hl = h (1 + skin)
 * at the positions of its build.  It stays valid, and is reused step after step,
 * while the moves d_i of all particles since those positions lie in a box
 * (componentwise min to max) of half-diagonal R < 0.45 skin h: with D the box's
 * centre, |d_i - d_j| <= |d_i - D| + |d_j - D| <= 2 R, so a pair closer than h
 * now was closer than h + 0.9 skin h < hl then (the 10% spare covers the
 * rounding of the two distance tests).  The box, rather than the largest move
 * alone, lets the fluid's common motion go unpunished: in the 3D dam break's
 * flow (60k particles, steps 2,500-2,600) 16 rebuilds instead of 20, and 237
 * instead of 305 over the whole 2,600 steps (test_list_common_motion checks
 * that a translation keeps the list).  When that box is too wide, the same
 * test is made locally (local_valid: the boxes of 2 x 2 x 2-cell blocks, each
 * united with its neighbours, which hold every particle a listed-out pair can
 * have met): there the front and the falling column no longer share one box,
 * and the flow's rebuilds fall to 8-9 per 100 steps (test_list_local_motion).
 * A rebuild re-sorts storage
 * into cell order (sim_sort_particles with cell hl) and lists each point's hits
 * of larger index from the grid of that sort; the run's own per-frame sorts use
 * the same cell (sim->sort_h = hl), so a list is built on them without a second
 * sort.  The rows come from grid_half_row: a cell's candidates are converted
 * once into a float block that its points share, and each point scans only
 * the entries after its own (the pairs of larger index), with the exact test
 * where the float one cannot decide.  The list is the same as the exact
 * per-point range scan made it (same bits), at about half the cost: 3D dam
 * break, 60k particles, in the flow (a rebuild every ~4 steps), 275 -> 127 ns
 * per particle per build.  On one or two threads the rows are scanned once,
 * into the last list's storage from both ends (list_one_pass; the second
 * side's part then moved down), instead of counted first and written in a
 * second scan: 103-120 -> 72-81 ns per particle per build (2 runs each,
 * alternating); when the storage is too small (the list grew by more than
 * 1/32) or on more threads, the two scans.
 *
 * Each pair is evaluated once and its terms added to both particles (the paper's
 * sums are symmetric up to the factors m_j / rho_j, applied per side).  Race-free
 * and independent of the thread count: the rows are cut into blocks [B_b, B_b+1)
 * such that every pair of block b has its j below B_b+2, i.e. in block b or b+1;
 * block b writes only blocks b and b+1, so the even blocks may run at once,
 * and then the odd ones.  The blocks depend on the list only, and each block
 * runs its rows in order on one thread, so every particle's sum is added in one
 * fixed order whatever the number of threads.  Terms of list pairs at r >= h
 * are multiplied by 0 (masked, not branched on).
 *
 * Pairs beyond h, skipped in the force pass: the skin's pairs are a quarter
 * of the list (1 - 1/1.1^3), and in a disordered fluid (33 neighbours within
 * h in 3D, against 26 on the initial lattice) a row has ~20 listed pairs of
 * which ~15 are within h.  The density pass records, per row, which of its
 * first 32 pairs had h^2 - r^2 > 0 (inh, 4 bytes per particle), and the force
 * pass, when that saves at least one four, runs only those (and every pair
 * past the 32nd), compacted into a per-thread buffer (one byte shuffle per
 * four).  Both passes read the same coordinates in the same step, so a pair
 * left out has r^2 >= h^2 in the force pass too, where every term of it is
 * exactly 0 and adding it changed no sum; the lanes the others fall in do
 * change, so the bits are not those of the uncompacted rows (3D dam break,
 * 60k particles, in the flow: 3-6% less time per step, 4 runs alternating;
 * at rest, where the lattice rows lose no four, no change).
 *
 * Tasks, not barriers (pair_passes): the density rows, the densities' end,
 * the force rows and the accelerations' end of each block are tasks whose
 * dependences give exactly the order above (even before odd, per pass),
 * so a thread never idles at a barrier while a block whose inputs are done is
 * waiting; with 15 blocks at 60k particles, the two barriers per pass left
 * a tenth of the step idle.
 *
 * Packed records: a block's thread copies what its rows read of particles
 * [B_b, B_b+2) into one 64-byte record each (x, y, z, m or V, then v, p), so
 * that a pair's data are one or two aligned 32-byte loads from one cache line
 * instead of eight scattered ones from eight arrays (3D dam break, 60k
 * particles: 200 -> 155 ns per particle-step).  The records live in a window
 * per thread, particle k at record k & wmask, filled as the rows advance: its
 * size is the power of 2 above the farthest any row reaches ahead (its last
 * j - i, about 6,000 places at 60k, 38,000 at 10^6), 8-17 bytes per particle
 * in all, where a global copy would cost 64 against the 300-byte budget
 * (measured 330).
 *
 * Where the flow's time goes (3D dam break, 60k particles, after 2,500
 * steps, 2 threads; cycle counters around the phases, not kept): the two
 * pair passes about 88%, the list's upkeep 11% (the sort 4, the rows' scan
 * 6, the serial loops of build_list 1; a rebuild every 5 steps, 120 ns per
 * particle each), threads waiting for a task's inputs 0.4%.  One thread to
 * two, the two runs in lockstep (bench/lockstep.sh): 2.05 times faster at
 * rest, 1.94 in the flow's median step and 1.7 in its mean (an earlier 1.72
 * from separate runs was the machine's phases); in the flow, per rebuilt
 * particle, the sort 52 -> 58 ns and the list 165 -> 131 ns (one thread ->
 * two; passive threads), the pair passes 274 -> 151 ns per particle-step, so
 * the rebuilds are what scales worst.  Measured and not kept: the list's
 * entries as 16-bit offsets decoded per row (30-40 bytes per particle less,
 * but 15% more time per step on two threads together with the next); the
 * force pass's sums as one 64-byte line per particle (3% fewer instructions,
 * no faster, 32 bytes more); rebuilding on the largest relative displacement
 * of neighbouring cell blocks instead of the largest displacement (the front
 * moves as a whole, but only 5 -> 7 steps between rebuilds: 0.7 of the limit
 * when the absolute test fires).
 *
 * Where the pair passes' time goes, measured so that the machine's phases
 * cancel (60k at rest, one thread, 150 steps; a throw-away build timing the
 * pair passes of two variants on alternate steps, which variant takes the odd
 * steps swapped every 16, two identical copies agreeing within 0.5%): the
 * j-side additions of the force pass 25% (accel 15.5%: two read-modify-writes
 * per pair, 16 and 8 bytes; the colour sums 9%: one of 32 bytes), those of the
 * density pass 6.5%, the square root and the division 4%, the second record
 * of a pair (velocity, pressure) 1%, the spilled accumulators under 1%.  The
 * time follows the instruction count more than any one resource.  Measured
 * and not kept: the colour sums 64-byte aligned (no change: the arrays are 16
 * bytes past a page start), the accel sums as an aligned 4-double array
 * (1-5% faster, 32 bytes more), both sums in one 64-byte line (no change),
 * two fours of a row interleaved (3.5% slower), the records packed four at
 * a time with AVX2 (1.5% slower); with bench/lockstep.sh, 2 threads: the cells'
 * slowest axis along the fluid's longest extent (the rows' reach 5,938 ->
 * 3,055 at rest: 1-1.5% faster at rest, 1-2% slower in the flow), list_skin
 * 0.075 and 0.15 against 0.1 in the flow (mean +3% and +0.3-1.9%).
 * Registers: a force row keeps about 40 vectors live (17 constants, 7 sums,
 * a pair's terms), and with AVX2's 16 registers GCC spilled them: 75 stack
 * accesses in its code.  The same rows compiled for AVX-512VL (still 256-bit
 * operations, the same bits; solver.simd=2) have 32: 29 stack accesses, and
 * bench/lockstep.sh, 2 threads, 2 rounds: 0.888 at rest, 0.913 in the flow.
 * A row's full fours and its padded last four as two inlined copies of one
 * body (density_quad, force_quad), so that only the last carries the pad
 * mask: 0.960 at rest, 0.965 in the flow.  Replacing the square root and the
 * division by a Newton iteration for 1 / sqrt (13 multiply-adds; different
 * bits) made the step 7% slower, and with the division dropped altogether
 * (wrong results, timing only) it was 1-2% faster: the rows are bound by the
 * count of vector operations, not by the divider.  Nor by the count of
 * instructions: the force row with two fours at a time in 512-bit vectors
 * (half the arithmetic instructions, the same bits, the j-side additions per
 * four) was 9% slower at rest (lockstep 1.088), Zen 4 splitting each into two
 * 256-bit halves; list_skin 0.13 against 0.1 in the flow, 2.8% slower; and
 * compacting every row with a pair beyond h, so that no four needs the masks
 * of r < h, no faster (0.998, and other bits: see force_row).
 * The drift, walls and move check (drift_avx2, four particles at a time in 3D,
 * the same bits): in the flow it took 24-28 ns per particle-step on 2 threads
 * (170 instructions per particle, a tenth of the particles projected onto a
 * wall each step); four at a time, 1.5-3% less time per step at rest and
 * 2-2.5% in the flow (bench/lockstep.sh, 2-3 rounds).
 *
 * Where the threads' data live.  With the tasks and the drift's pieces taken
 * as the threads came, a block's particles went to either thread from stage
 * to stage and from step to step, and the loops that stream them (densities
 * done, accelerations, the drift) paid for cache lines last written by the
 * other core: in the flow on 2 threads they took 2.5 (block loops) and 5
 * (drift) times the share of the time they take on one thread (perf
 * cpu-clock samples, against the force rows).  Taken from both ends (claim),
 * each thread keeps to its end of the storage in every loop and step:
 * bench/lockstep.sh, 2 rounds, flow 0.81 median and 0.84 mean, at rest 0.78.
 * With the done stages four particles at a time (0.96), the walls' sweeps
 * (0.98, core/boundary.c), the moves' box (16 rebuilds per 100 steps instead
 * of 20; 0.97-0.99 mean) and the sort's parallel counting and one-region
 * permutation (0.99): against 27e6efa, flow 0.79 median and mean.  Then the
 * local rebuild test (local_valid; 17 -> 8-9 rebuilds per 100 steps, mean
 * 0.96, median 1.016 for its pass on half the steps): against 27e6efa, flow
 * 0.82 median and 0.75 mean.  A step without a rebuild takes 96-100 ns per
 * particle, one with it 180 (the list's rows 2.9 ms, the sort 1.1 ms);
 * four runs alternating with 27e6efa, cores at full speed: means 93.6-111.0
 * ns (27e6efa 110.5-160.4).  The local test's blocks are 2 x 2 x 2 cells,
 * united with their neighbours by three sliding passes; a first design with
 * rows of 4 cells as groups needed a 3 x 5 x 5-group stencil per group and
 * cost about what it saved.  Measured and not kept: core/boundary.c at -O3
 * with the distance functions inlined into the sweeps (1-2% slower, same
 * bits). */
/* minimum rows per block (the blocks are otherwise as short as the pairs allow) */
#define MULLER_BLOCK_MIN 256
/* records packed at a time, at least (block_rows) */
#define MULLER_PACK 64

static int ensure_arrays(muller_state *s, size_t n, pfb_err *err)
{
    if (n + 1 > s->cap_n) {
        size_t cap = n + n / 4 + 64;
        uint32_t *ls = realloc(s->ls, (cap + 1) * sizeof *ls);
        if (ls)
            s->ls = ls;
        double *cs = ls ? realloc(s->cs, 4 * cap * sizeof *cs) : NULL;
        if (cs)
            s->cs = cs;
        uint32_t *inh = cs ? realloc(s->inh, cap * sizeof *inh) : NULL;
        if (inh)
            s->inh = inh;
        const size_t mb = cap / MULLER_BLOCK_MIN + 3; /* room for the blocks, nblk + 1 <= mb */
        size_t *blk = inh ? realloc(s->blk, mb * sizeof *blk) : NULL;
        if (blk)
            s->blk = blk;
        size_t *bord = blk ? realloc(s->bord, mb * sizeof *bord) : NULL;
        if (bord)
            s->bord = bord;
        atomic_uchar *done = bord ? realloc(s->done, 3 * (mb + 2) * sizeof *done) : NULL;
        if (done)
            s->done = done;
        size_t *task = done ? realloc(s->task, 4 * mb * sizeof *task) : NULL;
        if (task)
            s->task = task;
        size_t *ns = task ? realloc(s->nsurf_blk, mb * sizeof *ns) : NULL;
        if (!ns)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for %zu particles", n);
        s->nsurf_blk = ns;
        s->cap_n = cap;
    }
    return PFB_OK;
}

/* Per thread, a window of packed records for rows that reach at most `reach`
 * places ahead: the smallest power of 2 above reach + MULLER_PACK (so that
 * the records of rows r to r + reach, and the next MULLER_PACK packed ahead,
 * are all in place at once); and the force pass's buffer for a row's pairs
 * within h, for rows of up to maxrow pairs (cj). */
static int ensure_records(muller_state *s, size_t reach, size_t maxrow, int threads, pfb_err *err)
{
    if (threads > MULLER_MAX_THREADS)
        threads = MULLER_MAX_THREADS;
    if (maxrow + 16 > s->cap_cj) {
        for (int t = 0; t < MULLER_MAX_THREADS; t++) {
            free(s->cj[t]);
            s->cj[t] = NULL;
        }
        s->cap_cj = maxrow + maxrow / 4 + 16;
        s->npk = 0;
    }
    size_t cap = 64;
    while (cap < reach + 1 + MULLER_PACK)
        cap *= 2;
    if (cap > s->cap_pk) {
        for (int t = 0; t < MULLER_MAX_THREADS; t++) {
            free(s->pk[t]);
            s->pk[t] = NULL;
        }
        s->cap_pk = cap;
        s->wmask = cap - 1;
        s->npk = 0;
    }
    for (; s->npk < threads; s->npk++) {
        if (!s->pk[s->npk])
            s->pk[s->npk] = aligned_alloc(64, 8 * s->cap_pk * sizeof(double));
        if (!s->cj[s->npk])
            s->cj[s->npk] = malloc(s->cap_cj * sizeof(uint32_t));
        if (!s->pk[s->npk] || !s->cj[s->npk])
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for %zu packed records and a row of %zu",
                               s->cap_pk, s->cap_cj);
    }
    return PFB_OK;
}

static int thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int team_size(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* The next of len items for thread t of a team of m, or len when all are
 * taken; *taken counts the claims (shared, from 0), *mine this thread's.  Two
 * threads take them from the two ends (thread 0 from the first up, thread 1
 * from the last down), so that each keeps to one part of the particles in
 * every loop of a step and from step to step, its data staying in its own
 * core's caches; other teams take them in order as they come. */
static inline size_t claim(atomic_size_t *taken, size_t len, int t, int m, size_t *mine)
{
    const size_t k = atomic_fetch_add_explicit(taken, 1, memory_order_relaxed);
    if (k >= len)
        return len;
    if (m != 2)
        return k;
    const size_t q = (*mine)++;
    return t == 0 ? q : len - 1 - q;
}

/* The running thread's scan for the list's rows (made on first use, kept),
 * reset for a new grid; NULL when out of memory. */
static pfb_half_scan *half_scan(muller_state *s)
{
    const int t = thread_num();
    if (t >= MULLER_MAX_THREADS)
        return NULL;
    if (!s->scan[t])
        s->scan[t] = grid_half_scan_new();
    if (s->scan[t])
        grid_half_scan_reset(s->scan[t]);
    return s->scan[t];
}

/* One pass over the list's rows on nt threads: each row's length to
 * ls[k + 1] when lj is NULL, else the row written at lj + ls[k].  Returns 1
 * when a thread had no scan (out of memory). */
static int list_pass(muller_state *s, const pfb_grid *g, size_t n, int nt, uint32_t *lj)
{
    uint32_t *restrict ls = s->ls;
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : failed)
    {
        pfb_half_scan *w = half_scan(s);
        failed = w == NULL;
#pragma omp for schedule(dynamic, 512)
        for (size_t k = 0; k < n; k++)
            if (w) {
                const size_t len = grid_half_row(g, w, k, lj ? lj + ls[k] : NULL, lj ? ls[k + 1] - ls[k] : 0);
                if (!lj)
                    ls[k + 1] = (uint32_t)len;
            }
    }
    return failed;
}

/* rows per chunk of the one-pass list, at most (n / 16, at least 64) */
#define MULLER_LIST_CHUNK 512

/* The list in one pass on nt <= 2 threads, into the storage the last list
 * left (cap_pairs): the rows are cut into chunks of MULLER_LIST_CHUNK; one
 * side takes them from the first on and places them from the storage's start,
 * the other from the last down and places them from its end, each chunk
 * written into the side's buffer first and copied once its size is known, so
 * that the two never overlap (the room is claimed by one atomic count).  Then
 * the end part is moved down to close the gap, and ls[k + 1] holds row k's
 * length.  The rows are those of list_pass, whichever side made them.
 * Returns 0, 1 when the storage was too small (nothing usable written), or -1
 * when out of memory. */
static int list_one_pass(muller_state *s, const pfb_grid *g, size_t n, int nt)
{
    uint32_t *restrict ls = s->ls, *lj = s->lj;
    /* the end side starts at most 1/32 above the last list's size: the
     * storage's spare beyond (a quarter) stays untouched, out of the resident set */
    const size_t pairs = s->last_pairs, room = pairs + pairs / 32 + 1024,
                 cap = room < s->cap_pairs ? room : s->cap_pairs,
                 ch = n / 16 > MULLER_LIST_CHUNK ? MULLER_LIST_CHUNK : n / 16 < 64 ? 64 : n / 16,
                 nc = (n + ch - 1) / ch;
    size_t used_side[2] = {0, 0};
    atomic_size_t taken, used;
    atomic_int stop;
    atomic_init(&taken, 0);
    atomic_init(&used, 0);
    atomic_init(&stop, 0);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int side = thread_num();
        pfb_half_scan *w = half_scan(s);
        if (!s->lbuf[side]) {
            s->lbuf[side] = malloc(4096 * sizeof *s->lbuf[side]);
            s->lbuf_cap[side] = s->lbuf[side] ? 4096 : 0;
        }
        if (!w || !s->lbuf[side])
            atomic_store(&stop, -1);
        size_t mine = 0, pos = 0; /* chunks taken, pairs placed */
        while (!atomic_load_explicit(&stop, memory_order_relaxed) &&
               atomic_fetch_add_explicit(&taken, 1, memory_order_relaxed) < nc) {
            const size_t c = side == 0 ? mine : nc - 1 - mine;
            mine++;
            const size_t lo = c * ch, hi = lo + ch < n ? lo + ch : n;
            size_t m = 0;
            for (size_t k = lo; k < hi; k++) {
                size_t len;
                while ((len = grid_half_row(g, w, k, s->lbuf[side] + m, s->lbuf_cap[side] - m)) >
                       s->lbuf_cap[side] - m) {
                    const size_t want = m + len + (m + len) / 4 + 1024;
                    uint32_t *b = realloc(s->lbuf[side], want * sizeof *b);
                    if (!b)
                        break;
                    s->lbuf[side] = b;
                    s->lbuf_cap[side] = want;
                }
                if (len > s->lbuf_cap[side] - m) {
                    atomic_store(&stop, -1);
                    break;
                }
                ls[k + 1] = (uint32_t)len;
                m += len;
            }
            if (atomic_load(&stop))
                break;
            if (atomic_fetch_add(&used, m) + m > cap) {
                atomic_store(&stop, 1);
                break;
            }
            pos += m;
            memcpy(side == 0 ? lj + pos - m : lj + cap - pos, s->lbuf[side], m * sizeof *lj);
        }
        used_side[side] = pos;
    }
    const int rc = atomic_load(&stop);
    if (rc)
        return rc;
    memmove(lj + used_side[0], lj + cap - used_side[1], used_side[1] * sizeof *lj);
    return 0;
}

/* Build the half list and its blocks from sim->grid, which must be the grid of
 * the sort of the current storage (cell hl). */
static int finish_list(muller_state *s, pfb_sim *sim, size_t total, pfb_err *err);

/* Room for total list entries and the 4 spare the rows' last four read. */
static int reserve_list_pairs(muller_state *s, size_t total, pfb_err *err)
{
    if (total + 4 > s->cap_pairs) {
        size_t cap = total + total / 4 + 64;
        uint32_t *lj = realloc(s->lj, cap * sizeof *lj);
        if (!lj)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for %zu listed pairs", total);
        s->lj = lj;
        s->cap_pairs = cap;
    }
    return PFB_OK;
}

/* The half list with periodic axes: the pairs j > i of the framework's
 * minimum-image list of radius hl (core/periodic.h) at the positions of the
 * sort just made, which wrapped them into the box.  A pair across a face joins
 * particles far apart in storage, so the blocks (B_b+2 above every j of block
 * b) may be few and long, and the records' window as long as the storage: the
 * periodic box is for the properties experiment's small runs, where that is
 * cheap, and the rows are the same code as in an open box. */
static int build_list_periodic(muller_state *s, pfb_sim *sim, pfb_err *err)
{
    const size_t n = sim->p.n;
    int rc = sim_periodic_list(sim, s->hl, (const double *const *)sim->p.x, n, &s->pl, err);
    if (rc)
        return rc;
    size_t total = 0;
    s->ls[0] = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t q = s->pl.start[i]; q < s->pl.start[i + 1]; q++)
            total += s->pl.idx[q] > i;
        if (total > UINT32_MAX)
            return pfb_err_set(err, PFB_EINVAL, "muller: more than %lu pairs within the list radius; "
                               "valid: fewer particles or a smaller list_skin", (unsigned long)UINT32_MAX);
        s->ls[i + 1] = (uint32_t)total;
    }
    rc = reserve_list_pairs(s, total, err);
    if (rc)
        return rc;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t q = s->pl.start[i]; q < s->pl.start[i + 1]; q++)
            if (s->pl.idx[q] > i)
                s->lj[m++] = s->pl.idx[q];
    return finish_list(s, sim, total, err);
}

static int build_list(muller_state *s, pfb_sim *sim, pfb_err *err)
{
    const pfb_grid *g = &sim->grid;
    const size_t n = sim->p.n;
    int rc = ensure_arrays(s, n, err); /* (g->h = hl: grid_is_sort) */
    if (rc)
        return rc;
    uint32_t *restrict ls = s->ls;
    ls[0] = 0;
    const int nt = sim_parallel_pairs(sim, n) ? sim_threads(sim) : 1;
    if (s->periodic)
        return build_list_periodic(s, sim, err);
    /* one pass into the last list's storage when it is large enough (and the
     * threads are at most two), else counted first and then written */
    const int one = nt <= 2 && s->cap_pairs > 0 ? list_one_pass(s, g, n, nt) : 1;
    if (one < 0)
        return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the list's rows of %zu particles", n);
    if (one && list_pass(s, g, n, nt, NULL))
        return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the list's scan of %zu particles", n);
    size_t total = 0;
    for (size_t k = 0; k < n; k++) {
        total += ls[k + 1];
        if (total > UINT32_MAX)
            return pfb_err_set(err, PFB_EINVAL, "muller: more than %lu pairs within the list radius; "
                               "valid: fewer particles or a smaller list_skin", (unsigned long)UINT32_MAX);
        ls[k + 1] = (uint32_t)total;
    }
    rc = reserve_list_pairs(s, total, err); /* 4 spare: the rows' last four are read as one vector */
    if (rc)
        return rc;
    uint32_t *restrict lj = s->lj;
    if (one && list_pass(s, g, n, nt, lj))
        return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the list's scan of %zu particles", n);
    return finish_list(s, sim, total, err);
}

/* The blocks, the task order and the records' window of a list of total pairs
 * just written into ls and lj. */
static int finish_list(muller_state *s, pfb_sim *sim, size_t total, pfb_err *err)
{
    const size_t n = sim->p.n;
    const uint32_t *restrict ls = s->ls, *restrict lj = s->lj;
    int rc;
    memset(s->lj + total, 0, 4 * sizeof *lj);
    s->last_pairs = total;
    /* the blocks: B_0 = 0, B_1 = min(n, MIN), B_b+2 = max(B_b+1 + MIN, 1 + largest j of block b) */
    size_t *blk = s->blk, nb = 0;
    blk[0] = 0;
    blk[1] = n < MULLER_BLOCK_MIN ? n : MULLER_BLOCK_MIN;
    nb = 1;
    while (blk[nb] < n) {
        size_t top = blk[nb] + MULLER_BLOCK_MIN;
        for (size_t k = blk[nb - 1]; k < blk[nb]; k++) /* a row's largest j is its last (rows ascend) */
            if (ls[k + 1] > ls[k] && lj[ls[k + 1] - 1] + (size_t)1 > top)
                top = lj[ls[k + 1] - 1] + (size_t)1;
        blk[nb + 1] = top < n ? top : n;
        nb++;
    }
    s->nblk = nb;
    /* largest blocks first within each parity, so that the last block a thread
     * takes is a small one (the order does not change any result) */
    size_t *bord = s->bord, m = 0;
    for (size_t par = 0; par < 2; par++)
        for (size_t b = par, m0 = m; b < nb; b += 2) {
            size_t a = m++, w = ls[blk[b + 1]] - ls[blk[b]];
            while (a > m0 && ls[blk[bord[a - 1] + 1]] - ls[blk[bord[a - 1]]] < w) {
                bord[a] = bord[a - 1];
                a--;
            }
            bord[a] = b;
        }
    /* the task list of pair_passes: D and K in bord's order, E and A by block */
    for (size_t t = 0; t < nb; t++) {
        s->task[t] = bord[t];
        s->task[nb + t] = nb + t;
        s->task[2 * nb + t] = 2 * nb + bord[t];
        s->task[3 * nb + t] = 3 * nb + t;
    }
    size_t reach = 0, maxrow = 0; /* the farthest any row reaches ahead (its last j: rows ascend), the longest row */
    for (size_t k = 0; k < n; k++) {
        if (ls[k + 1] > ls[k] && lj[ls[k + 1] - 1] - k > reach)
            reach = lj[ls[k + 1] - 1] - k;
        maxrow = ls[k + 1] - ls[k] > maxrow ? ls[k + 1] - ls[k] : maxrow;
    }
    rc = ensure_records(s, reach, maxrow, sim_threads(sim), err);
    if (rc)
        return rc;
    s->list_gen = sim->grid_gen;
    s->builds++;
    return PFB_OK;
}

/* Whether sim->grid is the grid of the last sort of the current storage, at
 * the list radius (then its xs are the positions at that sort). */
static int grid_is_sort(const muller_state *s, const pfb_sim *sim)
{
    const pfb_grid *g = &sim->grid;
    return sim->sort_gen == sim->grid_gen && g->ready && g->h == s->hl && g->n == sim->p.n;
}

/* The box of the particles' moves since the list's sort: componentwise lo
 * (min) to hi (max) of x_i - xs_i, axes beyond dim 0.  Empty: lo > hi.  A NaN
 * move leaves it as it was (the run's blow-up check reports the NaN). */
typedef struct {
    double lo[3], hi[3];
} move_box;

static const move_box move_box_empty = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};

/* Box b grown by the moves x - xs of particles [lo, hi) (axes below dim). */
static void move_box_add(move_box *b, int dim, const double *const x[3], const double *const xs[3], size_t lo,
                         size_t hi)
{
    for (int k = 0; k < dim; k++) {
        const double *xk = x[k], *sk = xs[k];
        double l = b->lo[k], u = b->hi[k];
        for (size_t i = lo; i < hi; i++) {
            const double d = xk[i] - sk[i];
            l = d < l ? d : l;
            u = d > u ? d : u;
        }
        b->lo[k] = l;
        b->hi[k] = u;
    }
}

/* Box b grown to hold box o too. */
static void move_box_merge(move_box *b, const move_box *o)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = o->lo[k] < b->lo[k] ? o->lo[k] : b->lo[k];
        b->hi[k] = o->hi[k] > b->hi[k] ? o->hi[k] : b->hi[k];
    }
}

/* The squared half-diagonal of box b (0 for an empty box; see "The pair loops"). */
static double move_box_r2(const move_box *b)
{
    double r2 = 0.0;
    for (int k = 0; k < 3; k++)
        if (b->hi[k] >= b->lo[k])
            r2 += 0.25 * (b->hi[k] - b->lo[k]) * (b->hi[k] - b->lo[k]);
    return r2;
}

/* The union along one axis of the boxes of blocks b - st and b + st with b's
 * own (a sliding 3-block window; from into to, nb blocks each; len blocks
 * along the axis, st apart). */
static void sbox_pass(const move_box *restrict from, move_box *restrict to, size_t nb, size_t st, size_t len)
{
    for (size_t b = 0; b < nb; b++) {
        const size_t a = b / st % len; /* b's place along the axis */
        to[b] = from[b];
        if (a > 0)
            move_box_merge(&to[b], &from[b - st]);
        if (a + 1 < len)
            move_box_merge(&to[b], &from[b + st]);
    }
}

/* The local rebuild test, for when the moves' box (squared half-diagonal
 * box2) is too wide: the list is still valid if every 2 x 2 x 2-cell block
 * of the sort's grid (cells of edge >= hl) has, over the moves of the
 * particles in the 3 x 3 x 3 blocks around it, a box of half-diagonal below
 * 0.45 skin h, and 2 sqrt(box2) < 2 hl - h.  Why it is exact: a pair closer
 * than h now that the list lacks was at hl or more at the sort and, by the
 * second condition, closer than 2 hl, so its cells were at most 2 apart on
 * each axis and its blocks neighbours (or one block); both moves then lie in
 * one such box, which bounds their difference by 0.9 skin h, and the pair
 * would still be farther than h.  In the dam break's flow the blocks' boxes
 * are about half as wide as the global one.  Only on a bounded grid, and only
 * while the blocks number at most n / 16 (their boxes, 2 x 48 bytes each,
 * then cost at most 6 bytes per particle); otherwise 0 (rebuild). */
static int local_valid(muller_state *s, const pfb_sim *sim, double box2)
{
    const pfb_grid *g = &sim->grid;
    const double lim = 0.45 * (s->hl - s->h), far = 2.0 * s->hl - s->h;
    if (s->periodic || g->hashed || g->sub_used != 1 || !(4.0 * box2 < far * far))
        return 0;
    const int dim = sim->dim;
    const size_t nx = (size_t)g->ncell[0], ny = (size_t)g->ncell[1], nz = dim == 3 ? (size_t)g->ncell[2] : 1;
    const size_t bx = (nx + 1) / 2, by = (ny + 1) / 2, bz = (nz + 1) / 2, nb = bx * by * bz, n = sim->p.n;
    if (nb > n / 16 + 64)
        return 0;
    if (nb > s->cap_sbox) {
        for (int q = 0; q < 2; q++) {
            move_box *t = realloc(s->sbox[q], nb * sizeof *t);
            if (!t)
                return 0; /* (a rebuild instead) */
            s->sbox[q] = t;
        }
        s->cap_sbox = nb;
    }
    move_box *A = s->sbox[0], *B = s->sbox[1];
    const double *const *x = (const double *const *)sim->p.x;
    const double *xs[3];
    grid_xs(g, xs);
    const size_t *cs = g->cell_start;
    /* each block's moves' box, a layer of blocks (two layers of cells, one
     * range of storage) per iteration */
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t lz = 0; lz < bz; lz++) {
        move_box *layer = A + lz * bx * by;
        for (size_t q = 0; q < bx * by; q++)
            layer[q] = move_box_empty;
        const size_t z1 = 2 * lz + 2 < nz ? 2 * lz + 2 : nz;
        for (size_t cz = 2 * lz; cz < z1; cz++)
            for (size_t cy = 0; cy < ny; cy++)
                for (size_t cx = 0; cx < nx; cx++) {
                    const size_t c = (cz * ny + cy) * nx + cx;
                    if (cs[c] < cs[c + 1])
                        move_box_add(&layer[(cy / 2) * bx + cx / 2], dim, x, xs, cs[c], cs[c + 1]);
                }
    }
    /* the unions over the 3 x 3 x 3 blocks around each, one axis at a time */
    sbox_pass(A, B, nb, 1, bx);
    sbox_pass(B, A, nb, bx, by);
    const move_box *U = A;
    if (dim == 3) {
        sbox_pass(A, B, nb, bx * by, bz);
        U = B;
    }
    for (size_t b = 0; b < nb; b++)
        if (!(move_box_r2(&U[b]) < lim * lim))
            return 0;
    return 1;
}

/* Keep the list valid for the current positions: build it on the grid of the
 * last sort if that grid is at the list radius and the box of the moves since
 * has a half-diagonal below 0.45 skin h (see "The pair loops"), or else the
 * local test passes (local_valid); otherwise sort first.  box2 is that squared
 * half-diagonal when the caller has it (the step's drift does), else
 * negative. */
static int ensure_list(muller_state *s, pfb_sim *sim, double box2, pfb_err *err)
{
    const size_t n = sim->p.n;
    const pfb_grid *g = &sim->grid;
    int sorted = grid_is_sort(s, sim);
    const double lim = 0.45 * (s->hl - s->h);
    if (sorted && box2 >= 0.0) {
        sorted = box2 < lim * lim || local_valid(s, sim, box2);
    } else if (sorted) {
        const double *xs[3];
        grid_xs(g, xs);
        move_box b = move_box_empty;
#pragma omp parallel num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
        {
            const int t = thread_num(), m = team_size();
            move_box own = move_box_empty;
            move_box_add(&own, sim->dim, (const double *const *)sim->p.x, xs, n * (size_t)t / (size_t)m,
                         n * (size_t)(t + 1) / (size_t)m);
#pragma omp critical(muller_move_box)
            move_box_merge(&b, &own); /* (min and max: any order gives the same box) */
        }
        const double r2 = move_box_r2(&b);
        sorted = r2 < lim * lim || local_valid(s, sim, r2);
    }
    if (!sorted) {
        /* density, pressure and acceleration are all rewritten by the pair
         * passes that follow, before anything reads them: not moved */
        const uint64_t skip = (1u << s->f_rho) | (1u << s->f_p) | (1u << s->f_a);
        int rc = sim_sort_particles_except(sim, s->hl, skip, err);
        if (rc)
            return rc;
    }
    /* a new sort (ours, or the run's at a frame) needs a new list */
    return s->list_gen != sim->grid_gen ? build_list(s, sim, err) : PFB_OK;
}

/* The indices of pairs q .. q+3 of a row of len pairs of particle i: in the
 * row, or, for a last four that runs short, copied into tail and padded with i
 * (muller_rows.inc: a pad adds 0). */
static inline const uint32_t *row_quad(const uint32_t *row, size_t len, size_t q, size_t i, uint32_t tail[4])
{
    if (len - q >= 4)
        return row + q;
    for (size_t k = 0; k < 4; k++)
        tail[k] = q + k < len ? row[q + k] : (uint32_t)i;
    return tail;
}

/* the two row functions, per instruction set (muller_rows.inc) */
/* portable: four lanes of plain C */
typedef struct vd4 {
    double l[4];
} vd4;
#define VD4_BINARY(name, expr)                                                                           \
    static inline vd4 name(vd4 a, vd4 b)                                                                 \
    {                                                                                                    \
        vd4 r;                                                                                           \
        for (int k = 0; k < 4; k++)                                                                      \
            r.l[k] = expr;                                                                               \
        return r;                                                                                        \
    }
VD4_BINARY(vd4_add, a.l[k] + b.l[k])
VD4_BINARY(vd4_sub, a.l[k] - b.l[k])
VD4_BINARY(vd4_mul, a.l[k] * b.l[k])
VD4_BINARY(vd4_div, a.l[k] / b.l[k])
#undef VD4_BINARY
/* a b + c rounded once (C99 fma: the same bits as the FMA instruction) */
static inline vd4 vd4_fma(vd4 a, vd4 b, vd4 c)
{
    for (int k = 0; k < 4; k++)
        c.l[k] = fma(a.l[k], b.l[k], c.l[k]);
    return c;
}
static inline vd4 vd4_set1(double a)
{
    vd4 r = {{a, a, a, a}};
    return r;
}
/* the nearest integer, ties to even (as the AVX round to nearest) */
static inline vd4 vd4_rint(vd4 a)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = rint(a.l[k]);
    return a;
}
static inline vd4 vd4_sqrt(vd4 a)
{
    for (int k = 0; k < 4; k++)
        a.l[k] = sqrt(a.l[k]);
    return a;
}
/* the four values at offset o of the packed records of j[0..3], one vd per value */
#define vd4_record(pk, wmask, j, o, a, b, c, d)                                                                 \
    do {                                                                                                 \
        for (int k_ = 0; k_ < 4; k_++) {                                                                 \
            const double *r_ = (pk) + 8 * ((size_t)(j)[k_] & (wmask)) + (o);                              \
            (a).l[k_] = r_[0];                                                                           \
            (b).l[k_] = r_[1];                                                                           \
            (c).l[k_] = r_[2];                                                                           \
            (d).l[k_] = r_[3];                                                                           \
        }                                                                                                \
    } while (0)
static inline vd4 vd4_index(const uint32_t *j)
{
    vd4 r = {{(double)j[0], (double)j[1], (double)j[2], (double)j[3]}};
    return r;
}
/* x where a OP b, else +0 (as the AVX2 masks give) */
#define VD4_SELECT(name, op)                                                                             \
    static inline vd4 name(vd4 a, vd4 b, vd4 x)                                                          \
    {                                                                                                    \
        for (int k = 0; k < 4; k++)                                                                      \
            x.l[k] = a.l[k] op b.l[k] ? x.l[k] : 0.0;                                                    \
        return x;                                                                                        \
    }
VD4_SELECT(vd4_sel_lt, <)
VD4_SELECT(vd4_sel_gt, >)
VD4_SELECT(vd4_sel_ne, !=)
#undef VD4_SELECT
static inline double vd4_hsum(vd4 a)
{
    return (a.l[0] + a.l[1]) + (a.l[2] + a.l[3]);
}
/* t[j[p]] += a lane p, lanes 0 to 3 in order */
static inline void vd4_add1(double *t, const uint32_t *j, vd4 a)
{
    for (size_t p = 0; p < 4; p++)
        t[j[p]] += a.l[p];
}
/* t[3 j[p] + 0..2] += (a, b, c) lane p */
static inline void vd4_add3(double *t, const uint32_t *j, vd4 a, vd4 b, vd4 c)
{
    for (size_t p = 0; p < 4; p++) {
        double *r = t + 3 * (size_t)j[p];
        r[0] += a.l[p];
        r[1] += b.l[p];
        r[2] += c.l[p];
    }
}
/* t[4 j[p] + 0..3] += (a, b, c, d) lane p */
static inline void vd4_add4(double *t, const uint32_t *j, vd4 a, vd4 b, vd4 c, vd4 d)
{
    for (size_t p = 0; p < 4; p++) {
        double *r = t + 4 * (size_t)j[p];
        r[0] += a.l[p];
        r[1] += b.l[p];
        r[2] += c.l[p];
        r[3] += d.l[p];
    }
}
/* the number of bits set in b */
static inline size_t bits_set(uint32_t b)
{
    b = b - ((b >> 1) & 0x55555555u);
    b = (b & 0x33333333u) + ((b >> 2) & 0x33333333u);
    return (size_t)((((b + (b >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}
/* bit p set where lane p of d is above 0 */
static inline uint32_t vd4_pos_bits(vd4 d)
{
    uint32_t b = 0;
    for (int k = 0; k < 4; k++)
        b |= (uint32_t)(d.l[k] > 0.0) << k;
    return b;
}
/* src[p] for each bit p of keep, in order, to dst; returns how many */
static inline size_t compact4_base(const uint32_t *src, unsigned keep, uint32_t *dst)
{
    size_t m = 0;
    for (int k = 0; k < 4; k++)
        if (keep >> k & 1u)
            dst[m++] = src[k];
    return m;
}
/* The entries of a row of flen the force pass keeps (bit q of inh for the
 * first 32, all past them), in order, into dst, four at a time by compact4
 * (which may write four entries past the last kept); returns their number. */
#define MULLER_COMPACT_ROW(name, compact4)                                                               \
    static inline size_t name(const uint32_t *src, size_t flen, uint32_t inh, uint32_t *dst)             \
    {                                                                                                    \
        size_t len = 0;                                                                                  \
        for (size_t q = 0; q < flen; q += 4) {                                                           \
            unsigned keep = q < 32 ? (inh >> q) & 15u : 15u;                                             \
            if (flen - q < 4)                                                                            \
                keep &= (1u << (flen - q)) - 1u;                                                         \
            len += compact4(src + q, keep, dst + len);                                                   \
        }                                                                                                \
        return len;                                                                                      \
    }
MULLER_COMPACT_ROW(compact_row_base, compact4_base)
/* the end of a force row: each lane sum to its particle's sums (acc: 3, cs: 4) */
static inline void vd4_row_end(double *acc, double *cs, vd4 f0, vd4 f1, vd4 f2, vd4 n0, vd4 n1, vd4 n2, vd4 lc)
{
    acc[0] += vd4_hsum(f0);
    acc[1] += vd4_hsum(f1);
    acc[2] += vd4_hsum(f2);
    cs[0] += vd4_hsum(n0);
    cs[1] += vd4_hsum(n1);
    cs[2] += vd4_hsum(n2);
    cs[3] += vd4_hsum(lc);
}
#define vd vd4
#define V_SET1 vd4_set1
#define V_ADD vd4_add
#define V_SUB vd4_sub
#define V_MUL vd4_mul
#define V_FMA vd4_fma
#define V_DIV vd4_div
#define V_SQRT vd4_sqrt
#define V_RINT vd4_rint
#define V_RECORD vd4_record
#define V_INDEX vd4_index
#define V_SEL_LT vd4_sel_lt
#define V_SEL_GT vd4_sel_gt
#define V_SEL_NE vd4_sel_ne
#define V_HSUM vd4_hsum
#define V_ADD1 vd4_add1
#define V_ADD3 vd4_add3
#define V_ADD4 vd4_add4
#define V_POS_BITS vd4_pos_bits
#define V_COMPACT_ROW compact_row_base
#define V_ROW_QUAD row_quad
#define V_ROW_END vd4_row_end
#define MULLER_ROW_TARGET
#define MULLER_ROW(name) name##_base
#include "muller_rows.inc"
#undef MULLER_ROW_TARGET
#undef MULLER_ROW
#undef vd
#undef V_SET1
#undef V_ADD
#undef V_SUB
#undef V_MUL
#undef V_FMA
#undef V_DIV
#undef V_SQRT
#undef V_RINT
#undef V_RECORD
#undef V_INDEX
#undef V_SEL_LT
#undef V_SEL_GT
#undef V_SEL_NE
#undef V_HSUM
#undef V_ADD1
#undef V_ADD3
#undef V_ADD4
#undef V_POS_BITS
#undef V_COMPACT_ROW
#undef V_ROW_QUAD
#undef V_ROW_END

/* AVX2: the same lanes in one register (the self mask converts 32-bit indices
 * as signed: used up to 2^31 - 1 particles) */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define MULLER_HAVE_AVX2 1
__attribute__((target("avx2,fma"))) static inline double muller_hsum_avx2(__m256d v)
{
    double t[4];
    _mm256_storeu_pd(t, v);
    return (t[0] + t[1]) + (t[2] + t[3]);
}
/* the same as vd4_record: four 32-byte loads, transposed */
#define muller_record_avx2(pk, wmask, j, o, a, b, c, d)                                                         \
    do {                                                                                                 \
        const __m256d r0_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[0] & (wmask)) + (o)),                             \
                      r1_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[1] & (wmask)) + (o)),                             \
                      r2_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[2] & (wmask)) + (o)),                             \
                      r3_ = _mm256_load_pd((pk) + 8 * ((size_t)(j)[3] & (wmask)) + (o));                             \
        const __m256d t0_ = _mm256_unpacklo_pd(r0_, r1_), t1_ = _mm256_unpackhi_pd(r0_, r1_),            \
                      t2_ = _mm256_unpacklo_pd(r2_, r3_), t3_ = _mm256_unpackhi_pd(r2_, r3_);            \
        (a) = _mm256_permute2f128_pd(t0_, t2_, 0x20);                                                    \
        (b) = _mm256_permute2f128_pd(t1_, t3_, 0x20);                                                    \
        (c) = _mm256_permute2f128_pd(t0_, t2_, 0x31);                                                    \
        (d) = _mm256_permute2f128_pd(t1_, t3_, 0x31);                                                    \
    } while (0)
/* the same as compact4_base, by one byte shuffle: it reads all four of src
 * (the list keeps 4 spare entries after its last row) and writes four to dst */
static const uint8_t muller_compact_lut[16][16] = {
#define L_(a, b, c, d) {4 * a, 4 * a + 1, 4 * a + 2, 4 * a + 3, 4 * b, 4 * b + 1, 4 * b + 2, 4 * b + 3,         \
                        4 * c, 4 * c + 1, 4 * c + 2, 4 * c + 3, 4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}
    L_(0, 0, 0, 0), L_(0, 0, 0, 0), L_(1, 0, 0, 0), L_(0, 1, 0, 0), L_(2, 0, 0, 0), L_(0, 2, 0, 0),
    L_(1, 2, 0, 0), L_(0, 1, 2, 0), L_(3, 0, 0, 0), L_(0, 3, 0, 0), L_(1, 3, 0, 0), L_(0, 1, 3, 0),
    L_(2, 3, 0, 0), L_(0, 2, 3, 0), L_(1, 2, 3, 0), L_(0, 1, 2, 3)
#undef L_
};
__attribute__((target("avx2,fma"))) static inline size_t muller_compact4_avx2(const uint32_t *src, unsigned keep,
                                                                         uint32_t *dst)
{
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)src);
    _mm_storeu_si128((__m128i *)(void *)dst,
                     _mm_shuffle_epi8(v, _mm_loadu_si128((const __m128i *)(const void *)muller_compact_lut[keep])));
    return bits_set(keep);
}
__attribute__((target("avx2,fma"))) MULLER_COMPACT_ROW(muller_compact_row_avx2, muller_compact4_avx2)
/* the same as compact_row_base, sixteen entries at a time by AVX-512's
 * compress (the row read by masked loads, so never past its end; writes up to
 * sixteen entries past the last kept) */
__attribute__((target("avx512f"))) static inline size_t muller_compact_row_avx512(const uint32_t *src, size_t flen,
                                                                                  uint32_t inh, uint32_t *dst)
{
    size_t len = 0;
    for (size_t q = 0; q < flen; q += 16) {
        const unsigned in = flen - q < 16 ? (1u << (flen - q)) - 1u : 0xffffu;
        const unsigned keep = (q < 32 ? (inh >> q) & 0xffffu : 0xffffu) & in;
        const __m512i v = _mm512_maskz_loadu_epi32((__mmask16)in, src + q);
        _mm512_storeu_si512((void *)(dst + len), _mm512_maskz_compress_epi32((__mmask16)keep, v));
        len += bits_set(keep);
    }
    return len;
}
/* the same as row_quad: the last four's indices by one blend (reading up to
 * three entries past the row: the list and the compacted rows have them) */
__attribute__((target("avx2,fma"))) static inline const uint32_t *muller_row_quad_avx2(const uint32_t *row, size_t len,
                                                                                  size_t q, size_t i,
                                                                                  uint32_t tail[4])
{
    if (len - q >= 4)
        return row + q;
    const __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32((int)(len - q)), _mm_setr_epi32(0, 1, 2, 3));
    _mm_storeu_si128((__m128i *)(void *)tail,
                     _mm_blendv_epi8(_mm_set1_epi32((int)(uint32_t)i),
                                     _mm_loadu_si128((const __m128i *)(const void *)(row + q)), in));
    return tail;
}
/* (a0 + a1) + (a2 + a3) for each of a, b, c, d, as one vector */
__attribute__((target("avx2,fma"))) static inline __m256d muller_hsum4_avx2(__m256d a, __m256d b, __m256d c,
                                                                       __m256d d)
{
    const __m256d ab = _mm256_hadd_pd(a, b), cd = _mm256_hadd_pd(c, d);
    return _mm256_add_pd(_mm256_permute2f128_pd(ab, cd, 0x20), _mm256_permute2f128_pd(ab, cd, 0x31));
}
/* the same as vd4_row_end */
__attribute__((target("avx2,fma"))) static inline void muller_row_end_avx2(double *acc, double *cs, __m256d f0,
                                                                      __m256d f1, __m256d f2, __m256d n0,
                                                                      __m256d n1, __m256d n2, __m256d lc)
{
    const __m256d f = muller_hsum4_avx2(f0, f1, f2, _mm256_setzero_pd());
    _mm_storeu_pd(acc, _mm_add_pd(_mm_loadu_pd(acc), _mm256_castpd256_pd128(f)));
    _mm_store_sd(acc + 2, _mm_add_sd(_mm_load_sd(acc + 2), _mm256_extractf128_pd(f, 1)));
    _mm256_storeu_pd(cs, _mm256_add_pd(_mm256_loadu_pd(cs), muller_hsum4_avx2(n0, n1, n2, lc)));
}
/* the same as vd4_add1 */
__attribute__((target("avx2,fma"))) static inline void muller_add1_avx2(double *t, const uint32_t *j, __m256d a)
{
    const __m128d lo = _mm256_castpd256_pd128(a), hi = _mm256_extractf128_pd(a, 1);
    _mm_store_sd(t + j[0], _mm_add_sd(_mm_load_sd(t + j[0]), lo));
    _mm_store_sd(t + j[1], _mm_add_sd(_mm_load_sd(t + j[1]), _mm_unpackhi_pd(lo, lo)));
    _mm_store_sd(t + j[2], _mm_add_sd(_mm_load_sd(t + j[2]), hi));
    _mm_store_sd(t + j[3], _mm_add_sd(_mm_load_sd(t + j[3]), _mm_unpackhi_pd(hi, hi)));
}
/* the same as vd4_add3: (a, b) lanes transposed into pairs, c lane by lane */
__attribute__((target("avx2,fma"))) static inline void muller_add3_avx2(double *t, const uint32_t *j, __m256d a,
                                                                   __m256d b, __m256d c)
{
    const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
    const __m128d ab[4] = {_mm256_castpd256_pd128(t0), _mm256_castpd256_pd128(t1), _mm256_extractf128_pd(t0, 1),
                           _mm256_extractf128_pd(t1, 1)};
    const __m128d clo = _mm256_castpd256_pd128(c), chi = _mm256_extractf128_pd(c, 1);
    const __m128d cc[4] = {clo, _mm_unpackhi_pd(clo, clo), chi, _mm_unpackhi_pd(chi, chi)};
    for (size_t p = 0; p < 4; p++) {
        double *q = t + 3 * (size_t)j[p];
        _mm_storeu_pd(q, _mm_add_pd(_mm_loadu_pd(q), ab[p]));
        _mm_store_sd(q + 2, _mm_add_sd(_mm_load_sd(q + 2), cc[p]));
    }
}
/* the same as vd4_add4: lanes transposed into one vector per pair */
__attribute__((target("avx2,fma"))) static inline void muller_add4_avx2(double *t, const uint32_t *j, __m256d a,
                                                                   __m256d b, __m256d c, __m256d d)
{
    const __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b), t2 = _mm256_unpacklo_pd(c, d),
                  t3 = _mm256_unpackhi_pd(c, d);
    const __m256d r[4] = {_mm256_permute2f128_pd(t0, t2, 0x20), _mm256_permute2f128_pd(t1, t3, 0x20),
                          _mm256_permute2f128_pd(t0, t2, 0x31), _mm256_permute2f128_pd(t1, t3, 0x31)};
    for (size_t p = 0; p < 4; p++) {
        double *q = t + 4 * (size_t)j[p];
        _mm256_storeu_pd(q, _mm256_add_pd(_mm256_loadu_pd(q), r[p]));
    }
}
#define vd __m256d
#define V_SET1 _mm256_set1_pd
#define V_ADD _mm256_add_pd
#define V_SUB _mm256_sub_pd
#define V_MUL _mm256_mul_pd
#define V_FMA _mm256_fmadd_pd
#define V_DIV _mm256_div_pd
#define V_SQRT _mm256_sqrt_pd
#define V_RINT(a) _mm256_round_pd(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_RECORD muller_record_avx2
#define V_INDEX(j) _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(const void *)(j)))
#define V_SEL_LT(a, b, x) _mm256_and_pd(_mm256_cmp_pd(a, b, _CMP_LT_OQ), x)
#define V_SEL_GT(a, b, x) _mm256_and_pd(_mm256_cmp_pd(a, b, _CMP_GT_OQ), x)
#define V_SEL_NE(a, b, x) _mm256_and_pd(_mm256_cmp_pd(a, b, _CMP_NEQ_OQ), x)
#define V_HSUM muller_hsum_avx2
#define V_ADD1 muller_add1_avx2
#define V_ADD3 muller_add3_avx2
#define V_ADD4 muller_add4_avx2
#define V_POS_BITS(d) ((uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(d, _mm256_setzero_pd(), _CMP_GT_OQ)))
#define V_COMPACT_ROW muller_compact_row_avx2
#define V_ROW_QUAD muller_row_quad_avx2
#define V_ROW_END muller_row_end_avx2
#define MULLER_ROW_TARGET __attribute__((target("avx2,fma")))
#define MULLER_ROW(name) name##_avx2
#include "muller_rows.inc"
#undef MULLER_ROW_TARGET
#undef MULLER_ROW
/* The same rows compiled for AVX-512VL: the same 256-bit operations in the
 * same order (so the same bits), but with its 32 vector registers instead of
 * 16, the force row's live vectors (the constants, seven sums, a pair's terms)
 * no longer spill to the stack: about 30 stack accesses in its code instead
 * of 75-110, and a step of the 60k dam break at rest 11% faster (lockstep
 * 0.888; an AMD Zen 4, whose AVX-512 runs on 256-bit units, so wider vectors
 * would not have paid the same).  The one 512-bit operation is the force
 * row's compaction (muller_compact_row_avx512: sixteen entries per compress
 * instead of a table shuffle per four; lockstep in the flow 0.975). */
#define MULLER_HAVE_AVX512 1
#undef V_COMPACT_ROW
#define V_COMPACT_ROW muller_compact_row_avx512
#define MULLER_ROW_TARGET __attribute__((target("avx2,fma,avx512f,avx512vl")))
#define MULLER_ROW(name) name##_avx512
#include "muller_rows.inc"
#undef MULLER_ROW_TARGET
#undef MULLER_ROW
#endif

/* The packed records of particles [lo, hi) into the window pk (record k &
 * wmask for particle k): x, y, z and m for the density pass (pass 0); x, y,
 * z, V = m / rho, v and p for the force pass (pass 1).  z and v_z are 0 in 2D. */
static void pack_records(const muller_state *s, const pfb_sim *sim, int pass, size_t lo, size_t hi,
                         double *restrict pk)
{
    const pfb_particles *p = &sim->p;
    const double *restrict x0 = p->x[0], *restrict x1 = p->x[1], *restrict x2 = p->x[2], *restrict m = p->m;
    const double *restrict rho = s->rho;
    const int dim3 = sim->dim == 3;
    for (size_t k = lo; k < hi; k++) {
        double *r = pk + 8 * (k & s->wmask);
        r[0] = x0[k];
        r[1] = x1[k];
        r[2] = dim3 ? x2[k] : 0.0;
        r[3] = pass ? m[k] / rho[k] : m[k];
    }
    if (!pass)
        return;
    const double *restrict v0 = p->v[0], *restrict v1 = p->v[1], *restrict v2 = p->v[2],
                           *restrict pr = p->field[s->f_p].data;
    const double gk = -0.5 * s->ds; /* eq. 10's (p_i + p_j) / 2 dW_spiky/dr, as (gk p_i + gk p_j) (h - r)^2 */
    for (size_t k = lo; k < hi; k++) {
        double *r = pk + 8 * (k & s->wmask);
        r[4] = v0[k];
        r[5] = v1[k];
        r[6] = dim3 ? v2[k] : 0.0;
        r[7] = gk * pr[k];
    }
}

/* Rows [B_b, B_b+1) of block b in pass (0 density, 1 forces), on the packed
 * records of the particles they read, [B_b, B_b+2), packed into the running
 * thread's window as the rows advance (each row's last j, the farthest it
 * reads, is in place before it runs; the window holds reach + MULLER_PACK
 * records, so none a later row needs is overwritten).  The density pass of an
 * even block first sets the density sums of [B_b, B_b+2) to their self terms:
 * no other block writes there before it. */
static void block_rows(muller_state *s, const pfb_sim *sim, int pass, size_t b)
{
    const size_t lo = s->blk[b], mid = s->blk[b + 1], hi = s->blk[b + 2 <= s->nblk ? b + 2 : s->nblk];
    if (pass == 0 && b % 2 == 0) {
        const double hh = s->h * s->h, self = hh * hh * hh;
        for (size_t k = lo; k < hi; k++)
            s->rho[k] = sim->p.m[k] * self;
    }
    const int t = thread_num();
    double *pk = s->pk[t];
    uint32_t *buf = s->cj[t];
    const muller_row_fn row = pass ? s->force_row : s->density_row;
    size_t done = lo; /* records [lo, done) packed */
    for (size_t k = lo; k < mid; k++) {
        const size_t need = s->ls[k + 1] > s->ls[k] ? s->lj[s->ls[k + 1] - 1] + (size_t)1 : k + 1;
        if (need > done) {
            size_t to = done + MULLER_PACK > need ? done + MULLER_PACK : need;
            to = to < hi ? to : hi;
            pack_records(s, sim, pass, done, to, pk);
            done = to;
        }
        row(s, k, pk, s->wmask, buf);
    }
}

/* Particles [lo, hi) of a block after the density pass: eqs. 3 and 12, V = m / rho,
 * and the force sums zeroed but for the self term of lap c_S. */
static void density_done(muller_state *s, const pfb_sim *sim, size_t lo, size_t hi)
{
    const double hh = s->h * s->h;
    /* the self term of lap c_S: V_i c6 h^2 (0 - 6 dim h^2) (eq. 15 at r = 0) */
    const double lap0 = s->c6 * hh * (-6.0 * (double)sim->dim * hh);
    double *restrict rho = s->rho, *restrict pr = sim->p.field[s->f_p].data, *restrict acc = s->acc,
                     *restrict cs = s->cs;
    for (size_t i = lo; i < hi; i++) {
        const double sum = s->c6 * rho[i];
        double pi = s->k * (sum - s->rho0); /* eq. 12 */
        pi = (s->clamp && pi < 0.0) ? 0.0 : pi;
        rho[i] = sum;
        pr[i] = pi;
        acc[3 * i] = acc[3 * i + 1] = acc[3 * i + 2] = 0.0;
        cs[4 * i] = cs[4 * i + 1] = cs[4 * i + 2] = 0.0;
        cs[4 * i + 3] = (sim->p.m[i] / sum) * lap0; /* V_i, as the records' */
    }
}

/* Particles [lo, hi) of a block after the force pass: eqs. 19-20 and 8, a_i =
 * f_i / rho_i + g, then v += half_dt a (the closing half kick; half_dt 0 for
 * none).  Returns the particles with a surface force. */
static size_t forces_done(const muller_state *s, pfb_sim *sim, size_t lo, size_t hi, double half_dt)
{
    const int dim = sim->dim;
    const double *restrict rho = s->rho, *restrict cs = s->cs;
    double *restrict acc = s->acc;
    size_t nsurf = 0;
    for (size_t i = lo; i < hi; i++) {
        const double *n = cs + 4 * i;
        const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        double c = 0.0;
        if (nn > s->l && nn > 0) { /* eq. 20: only near the surface */
            c = -s->sig_rows * n[3] / nn; /* eq. 19 */
            nsurf++;
        }
        for (int d = 0; d < 3; d++) {
            const double f = d < dim ? acc[3 * i + (size_t)d] + c * n[d] : 0.0;
            acc[3 * i + (size_t)d] = f / rho[i] + (d < dim ? sim->g[d] : 0.0); /* eq. 8 */
        }
        if (half_dt != 0.0)
            for (int d = 0; d < dim; d++)
                sim->p.v[d][i] += half_dt * acc[3 * i + (size_t)d];
    }
    return nsurf;
}

#ifdef MULLER_HAVE_AVX2
/* The 3-vectors of particles i .. i+3 at p (3 doubles each) as one vector per
 * component, and back. */
__attribute__((target("avx2"))) static inline void aos3_load(const double *p, __m256d *x, __m256d *y, __m256d *z)
{
    const __m256d l0 = _mm256_loadu_pd(p), l1 = _mm256_loadu_pd(p + 4), l2 = _mm256_loadu_pd(p + 8);
    *x = _mm256_permute4x64_pd(_mm256_blend_pd(_mm256_blend_pd(l0, l1, 4), l2, 2), 0x6c);
    *y = _mm256_permute4x64_pd(_mm256_blend_pd(_mm256_blend_pd(l0, l1, 9), l2, 4), 0xb1);
    *z = _mm256_permute4x64_pd(_mm256_blend_pd(_mm256_blend_pd(l0, l1, 2), l2, 9), 0xc6);
}

__attribute__((target("avx2"))) static inline void aos3_store(double *p, __m256d x, __m256d y, __m256d z)
{
    /* each permutation above swaps two lanes, so it is its own inverse */
    const __m256d X = _mm256_permute4x64_pd(x, 0x6c), Y = _mm256_permute4x64_pd(y, 0xb1),
                  Z = _mm256_permute4x64_pd(z, 0xc6);
    _mm256_storeu_pd(p, _mm256_blend_pd(_mm256_blend_pd(X, Y, 2), Z, 4));
    _mm256_storeu_pd(p + 4, _mm256_blend_pd(_mm256_blend_pd(X, Y, 9), Z, 2));
    _mm256_storeu_pd(p + 8, _mm256_blend_pd(_mm256_blend_pd(X, Y, 4), Z, 9));
}

/* density_done four particles at a time: the same operations on each lane (a
 * correctly rounded division), so the same bits; the remainder by
 * density_done. */
__attribute__((target("avx2"))) static void density_done_avx2(muller_state *s, const pfb_sim *sim, size_t lo,
                                                              size_t hi)
{
    const double hh = s->h * s->h;
    const double lap0 = s->c6 * hh * (-6.0 * (double)sim->dim * hh);
    double *restrict rho = s->rho, *restrict pr = sim->p.field[s->f_p].data, *restrict acc = s->acc,
                     *restrict cs = s->cs;
    const double *restrict m = sim->p.m;
    const __m256d C6 = _mm256_set1_pd(s->c6), K = _mm256_set1_pd(s->k), R0 = _mm256_set1_pd(s->rho0),
                  L0 = _mm256_set1_pd(lap0), ZERO = _mm256_setzero_pd();
    const size_t end = lo + (hi - lo) / 4 * 4;
    for (size_t i = lo; i < end; i += 4) {
        const __m256d sum = _mm256_mul_pd(C6, _mm256_loadu_pd(rho + i));
        __m256d pi = _mm256_mul_pd(K, _mm256_sub_pd(sum, R0));
        if (s->clamp) /* pi < 0 ? 0 : pi (a NaN stays) */
            pi = _mm256_andnot_pd(_mm256_cmp_pd(pi, ZERO, _CMP_LT_OQ), pi);
        _mm256_storeu_pd(rho + i, sum);
        _mm256_storeu_pd(pr + i, pi);
        for (int q = 0; q < 3; q++)
            _mm256_storeu_pd(acc + 3 * i + 4 * (size_t)q, ZERO);
        const __m256d l = _mm256_mul_pd(_mm256_div_pd(_mm256_loadu_pd(m + i), sum), L0);
        /* particle q's four: 0, 0, 0, lane q of l */
        _mm256_storeu_pd(cs + 4 * i, _mm256_blend_pd(ZERO, _mm256_permute4x64_pd(l, 0x00), 8));
        _mm256_storeu_pd(cs + 4 * i + 4, _mm256_blend_pd(ZERO, _mm256_permute4x64_pd(l, 0x55), 8));
        _mm256_storeu_pd(cs + 4 * i + 8, _mm256_blend_pd(ZERO, _mm256_permute4x64_pd(l, 0xaa), 8));
        _mm256_storeu_pd(cs + 4 * i + 12, _mm256_blend_pd(ZERO, _mm256_permute4x64_pd(l, 0xff), 8));
    }
    density_done(s, sim, end, hi);
}

/* forces_done in 3D four particles at a time: the same operations on each
 * lane (no FMA; correctly rounded square root and division), the surface test
 * as a mask, so the same bits; the remainder by forces_done. */
__attribute__((target("avx2"))) static size_t forces_done_avx2(const muller_state *s, pfb_sim *sim, size_t lo,
                                                              size_t hi, double half_dt)
{
    const double *restrict rho = s->rho, *restrict cs = s->cs;
    double *restrict acc = s->acc, *restrict v0 = sim->p.v[0], *restrict v1 = sim->p.v[1],
                     *restrict v2 = sim->p.v[2];
    const __m256d L = _mm256_set1_pd(s->l), MS = _mm256_set1_pd(-s->sig_rows), ZERO = _mm256_setzero_pd(),
                  G0 = _mm256_set1_pd(sim->g[0]), G1 = _mm256_set1_pd(sim->g[1]), G2 = _mm256_set1_pd(sim->g[2]),
                  HDT = _mm256_set1_pd(half_dt);
    const size_t end = lo + (hi - lo) / 4 * 4;
    size_t nsurf = 0;
    for (size_t i = lo; i < end; i += 4) {
        /* the four particles' (grad c_S, lap c_S), transposed */
        const __m256d r0 = _mm256_loadu_pd(cs + 4 * i), r1 = _mm256_loadu_pd(cs + 4 * i + 4),
                      r2 = _mm256_loadu_pd(cs + 4 * i + 8), r3 = _mm256_loadu_pd(cs + 4 * i + 12);
        const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1),
                      t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
        const __m256d N0 = _mm256_permute2f128_pd(t0, t2, 0x20), N1 = _mm256_permute2f128_pd(t1, t3, 0x20),
                      N2 = _mm256_permute2f128_pd(t0, t2, 0x31), N3 = _mm256_permute2f128_pd(t1, t3, 0x31);
        const __m256d nn = _mm256_sqrt_pd(
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(N0, N0), _mm256_mul_pd(N1, N1)), _mm256_mul_pd(N2, N2)));
        const __m256d surf = _mm256_and_pd(_mm256_cmp_pd(nn, L, _CMP_GT_OQ), _mm256_cmp_pd(nn, ZERO, _CMP_GT_OQ));
        const __m256d c = _mm256_and_pd(surf, _mm256_div_pd(_mm256_mul_pd(MS, N3), nn)); /* eqs. 19-20 */
        nsurf += bits_set((uint32_t)_mm256_movemask_pd(surf));
        __m256d a0, a1, a2;
        aos3_load(acc + 3 * i, &a0, &a1, &a2);
        const __m256d rh = _mm256_loadu_pd(rho + i);
        a0 = _mm256_add_pd(_mm256_div_pd(_mm256_add_pd(a0, _mm256_mul_pd(c, N0)), rh), G0); /* eq. 8 */
        a1 = _mm256_add_pd(_mm256_div_pd(_mm256_add_pd(a1, _mm256_mul_pd(c, N1)), rh), G1);
        a2 = _mm256_add_pd(_mm256_div_pd(_mm256_add_pd(a2, _mm256_mul_pd(c, N2)), rh), G2);
        aos3_store(acc + 3 * i, a0, a1, a2);
        if (half_dt != 0.0) {
            _mm256_storeu_pd(v0 + i, _mm256_add_pd(_mm256_loadu_pd(v0 + i), _mm256_mul_pd(HDT, a0)));
            _mm256_storeu_pd(v1 + i, _mm256_add_pd(_mm256_loadu_pd(v1 + i), _mm256_mul_pd(HDT, a1)));
            _mm256_storeu_pd(v2 + i, _mm256_add_pd(_mm256_loadu_pd(v2 + i), _mm256_mul_pd(HDT, a2)));
        }
    }
    return nsurf + forces_done(s, sim, end, hi, half_dt);
}
#endif

/* The completion flag of block b's task at stage (0 density rows, 1 densities
 * done, 2 force rows), blocks -1 and nblk being always done. */
#define DONE(s, stage, b) (&(s)->done[(size_t)(stage) * ((s)->nblk + 2) + (b) + 1])

/* Wait until *f is set (by the thread running that task): spin briefly, then
 * yield the core (the other thread may be waiting for it: CI shares the cores). */
static void wait_done(atomic_uchar *f)
{
    for (unsigned spins = 0; !atomic_load_explicit(f, memory_order_acquire); spins++) {
        if (spins < 2000) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#endif
        } else {
            sched_yield();
        }
    }
}

/* Task t of the list (muller_state.task: stage * nblk + b), after the tasks
 * it depends on. */
static void run_task(muller_state *s, pfb_sim *sim, size_t t, double half_dt)
{
    const size_t nb = s->nblk, stage = t / nb, b = t % nb;
    switch (stage) {
    case 0: /* D_b: odd after its even neighbours */
        if (b % 2) {
            wait_done(DONE(s, 0, b - 1));
            wait_done(DONE(s, 0, b + 1));
        }
        block_rows(s, sim, 0, b);
        break;
    case 1: /* E_b: after the two blocks that add to its sums */
        wait_done(DONE(s, 0, b - 1));
        wait_done(DONE(s, 0, b));
#ifdef MULLER_HAVE_AVX2
        if (s->vec_done)
            density_done_avx2(s, sim, s->blk[b], s->blk[b + 1]);
        else
#endif
            density_done(s, sim, s->blk[b], s->blk[b + 1]);
        break;
    case 2: /* K_b: after E_b, E_b+1 (its records and sums); odd after its even neighbours */
        wait_done(DONE(s, 1, b));
        wait_done(DONE(s, 1, b + 1));
        if (b % 2) {
            wait_done(DONE(s, 2, b - 1));
            wait_done(DONE(s, 2, b + 1));
        }
        block_rows(s, sim, 1, b);
        break;
    default: /* A_b: after the two blocks that add to its forces */
        wait_done(DONE(s, 2, b - 1));
        wait_done(DONE(s, 2, b));
#ifdef MULLER_HAVE_AVX2
        if (s->vec_done && sim->dim == 3)
            s->nsurf_blk[b] = forces_done_avx2(s, sim, s->blk[b], s->blk[b + 1], half_dt);
        else
#endif
            s->nsurf_blk[b] = forces_done(s, sim, s->blk[b], s->blk[b + 1], half_dt);
        return; /* no task waits for it */
    }
    atomic_store_explicit(DONE(s, stage, b), 1, memory_order_release);
}

/* eqs. 3, 12, then 10, 14, 15-20 and 8: densities, pressures, forces and the
 * accelerations of every particle from the list, then the closing half kick
 * v += half_dt a (none when half_dt is 0).
 *
 * One task per block and stage, ordered by dependences instead of barriers:
 * the density rows of block b (D_b; even before odd neighbours, as in "The
 * pair loops": D_b for odd b after D_b-1 and D_b+1), its densities done (E_b,
 * after D_b-1 and D_b, the only blocks that add to its sums), its force rows
 * (K_b, after E_b and E_b+1, whose records it reads and whose sums it adds to;
 * odd after its even neighbours) and its accelerations (A_b, after K_b-1 and
 * K_b).  Every sum therefore receives its terms in the same order as with
 * the two-phase loops, whatever the threads and their timing.  The threads
 * take the tasks from one list in a fixed order (muller_state.task: D even
 * blocks, largest first, then odd; every E; K as D; every A) in which each
 * task comes after those it depends on, so a task waits only for tasks
 * already running, and with one thread never.  (OpenMP's own tasks with
 * depend clauses did the same, but libgomp keeps allocations of theirs that
 * LeakSanitizer reports.) */
static void pair_passes(muller_state *s, pfb_sim *sim, double half_dt)
{
    pfb_particles *p = &sim->p;
    s->rho = p->field[s->f_rho].data;
    s->acc = p->field[s->f_a].data;
    s->density_row = density_row_base;
    s->force_row = force_row_base;
#ifdef MULLER_HAVE_AVX2
    if (s->simd >= 1 && p->n <= INT32_MAX && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        s->density_row = density_row_avx2;
        s->force_row = force_row_avx2;
        if (s->simd >= 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) {
            s->density_row = density_row_avx512;
            s->force_row = force_row_avx512;
        }
    }
    s->vec_done = s->density_row != density_row_base; /* the densities and accelerations four at a time too */
#endif
    const size_t nb = s->nblk, ntask = 4 * nb;
    for (size_t k = 0; k < 3 * (nb + 2); k++)
        atomic_init(&s->done[k], (unsigned char)(k % (nb + 2) == 0 || k % (nb + 2) == nb + 1));
    atomic_size_t next, taken[6];
    atomic_init(&next, 0);
    for (int st = 0; st < 6; st++)
        atomic_init(&taken[st], 0);
#pragma omp parallel num_threads(s->npk) if (sim_parallel_pairs(sim, p->n))
    {
        const int t = thread_num(), m = team_size();
        if (m == 2) {
            /* the six stages in turn (D even, D odd, E, K even, K odd, A), the
             * blocks of each from both ends (claim) */
            for (int st = 0; st < 6; st++) {
                const size_t len = st % 3 == 2 ? nb : st % 3 == 0 ? (nb + 1) / 2 : nb / 2;
                size_t mine = 0;
                for (size_t q; (q = claim(&taken[st], len, t, m, &mine)) < len;)
                    run_task(s, sim, st % 3 == 2 ? (size_t)(st / 3 * 2 + 1) * nb + q
                                                  : (size_t)(st / 3 * 2) * nb + 2 * q + (size_t)(st % 3),
                             half_dt);
            }
        } else {
            for (;;) {
                const size_t k = atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
                if (k >= ntask)
                    break;
                run_task(s, sim, s->task[k], half_dt);
            }
        }
    }
    size_t total = 0;
    for (size_t b = 0; b < nb; b++)
        total += s->nsurf_blk[b];
    s->n_surface = total;
}

/* The divergence curvature (curvature = divergence; the header says why): with
 * n_i = grad c_S (the force pass's) and the unit normals of the particles with
 * |n| > nmin, kappa_i = -div n^_i = -sum_j V_j (n^_j - n^_i) . grad_i W_ij / M_i,
 * M_i = (1/dim) sum_j V_j (x_j - x_i) . grad_i W_ij (1 in a full support: the
 * sum's first moment, which the free surface truncates; Adami, Hu, Adams 2010,
 * eq. 20's normalisation), both over the valid neighbours j; then f_i = sigma
 * kappa_i n_i (eq. 19 with this kappa),
 * added to the accelerations and, with the closing half kick, the velocities.
 * One pass over the half list, in index order (the same bits for any thread count). */
static int surface_divergence(muller_state *s, pfb_sim *sim, double half_dt, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const int dim = sim->dim;
    if (n > s->cap_nh) {
        double *nh = realloc(s->nh, 6 * n * sizeof *nh);
        if (!nh)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the curvature of %zu particles", n);
        s->nh = nh;
        s->cap_nh = n;
    }
    double *restrict nh = s->nh; /* per particle: n^ (3), valid, the divergence sum, M sum */
    const double *restrict cs = s->cs, *restrict rho = p->field[s->f_rho].data;
    for (size_t i = 0; i < n; i++) {
        const double *c = cs + 4 * i;
        const double nn = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        const int valid = nn > s->nmin && nn > 0;
        for (int d = 0; d < 3; d++)
            nh[6 * i + (size_t)d] = valid ? c[d] / nn : 0.0;
        nh[6 * i + 3] = valid;
        nh[6 * i + 4] = nh[6 * i + 5] = 0.0;
    }
    const double hh = s->h * s->h;
    for (size_t i = 0; i < n; i++) {
        if (nh[6 * i + 3] == 0.0)
            continue;
        const double vi = p->m[i] / rho[i];
        for (size_t q = s->ls[i]; q < s->ls[i + 1]; q++) {
            const size_t j = s->lj[q];
            if (nh[6 * j + 3] == 0.0)
                continue;
            double d[3];
            sim_pair_diff(sim, i, j, d); /* x_i - x_j */
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= hh)
                continue;
            const double w = 6.0 * s->c6 * (hh - r2) * (hh - r2); /* grad_i W_ij = -w d */
            double e = 0.0; /* (n^_j - n^_i) . d */
            for (int k = 0; k < dim; k++)
                e += (nh[6 * j + (size_t)k] - nh[6 * i + (size_t)k]) * d[k];
            const double vj = p->m[j] / rho[j];
            nh[6 * i + 4] -= vj * w * e;
            nh[6 * j + 4] -= vi * w * e;
            nh[6 * i + 5] += vj * w * r2;
            nh[6 * j + 5] += vi * w * r2;
        }
    }
    /* the surface accelerations (in n^'s place), their total force F and the
     * mass they act on */
    double F[3] = {0.0, 0.0, 0.0}, mass = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double M = nh[6 * i + 5] / (double)dim;
        const int on = nh[6 * i + 3] != 0.0 && M > 0.0;
        const double kappa = on ? -nh[6 * i + 4] / M : 0.0;
        nh[6 * i + 3] = on;
        for (int k = 0; k < 3; k++) {
            const double a = on && k < dim ? s->sigma * kappa * cs[4 * i + (size_t)k] / rho[i] : 0.0; /* eqs. 19, 8 */
            nh[6 * i + (size_t)k] = a;
            F[k] += p->m[i] * a;
        }
        mass += on ? p->m[i] : 0.0;
    }
    /* less the mean (F / mass on each of them): the total surface force of a
     * closed surface is zero, and what the estimate leaves would move the body */
    double *restrict acc = s->acc;
    for (size_t i = 0; i < n; i++) {
        if (nh[6 * i + 3] == 0.0)
            continue;
        for (int k = 0; k < dim; k++) {
            const double a = nh[6 * i + (size_t)k] - F[k] / mass;
            acc[3 * i + (size_t)k] += a;
            p->v[k][i] += half_dt * a;
        }
    }
    return PFB_OK;
}

/* Densities, forces and accelerations for the current positions (keeping the
 * list valid first; box2 as for ensure_list), then the half kick v += half_dt a. */
static int compute_accel(muller_state *s, pfb_sim *sim, double box2, double half_dt, pfb_err *err)
{
    int rc = ensure_list(s, sim, box2, err);
    if (rc)
        return rc;
    pair_passes(s, sim, half_dt);
    if (s->curv && s->sigma > 0.0)
        return surface_divergence(s, sim, half_dt, err);
    return PFB_OK;
}

/* particles per piece of the drift (muller_step), taken as the threads come (claim) */
#define MULLER_DRIFT 2048

/* The drift of particles [lo, hi): the first half kick v += half_dt a, then
 * x += dt v, the walls (sim_project_particle where sim_walls_clear does not
 * clear the particle), and with xs (the positions at the list's sort; NULL:
 * none) their moves since added to box mb. */
static void drift_base(pfb_sim *sim, const double *acc, const pfb_wall_step *w, const double *const xs[3],
                       size_t lo, size_t hi, double dt, double half_dt, move_box *mb)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (size_t i = lo; i < hi; i++) {
        for (int k = 0; k < dim; k++) {
            double *restrict x = p->x[k], *restrict v = p->v[k];
            v[i] += half_dt * acc[3 * i + (size_t)k];
            x[i] += dt * v[i];
        }
        if (!sim_walls_clear(sim, w, p->x[0][i], p->x[1][i], p->x[2][i]))
            sim_project_particle(sim, w, i);
    }
    if (xs) /* (the piece is still in cache) */
        move_box_add(mb, dim, (const double *const *)p->x, xs, lo, hi);
}

#ifdef MULLER_HAVE_AVX2
/* drift_base in 3D, four particles at a time, for walls sim_walls_clear4
 * decides: the same operations on each (no FMA), the walls by
 * sim_walls_clear4, the particles not cleared projected one by one after the
 * four are stored, the box of the moves by min and max (exact): the same bits
 * and box (test_muller).  The last piece's remainder goes to drift_base. */
__attribute__((target("avx2,fma"))) static void drift_avx2(pfb_sim *sim, const double *acc, const pfb_wall_step *w,
                                                      const double *const xs[3], size_t lo, size_t hi, double dt,
                                                      double half_dt, move_box *mb)
{
    pfb_particles *p = &sim->p;
    double *restrict x0 = p->x[0], *restrict x1 = p->x[1], *restrict x2 = p->x[2];
    double *restrict v0 = p->v[0], *restrict v1 = p->v[1], *restrict v2 = p->v[2];
    const __m256d DT = _mm256_set1_pd(dt), HDT = _mm256_set1_pd(half_dt);
    __m256d mn0 = _mm256_set1_pd(mb->lo[0]), mn1 = _mm256_set1_pd(mb->lo[1]), mn2 = _mm256_set1_pd(mb->lo[2]),
            mx0 = _mm256_set1_pd(mb->hi[0]), mx1 = _mm256_set1_pd(mb->hi[1]), mx2 = _mm256_set1_pd(mb->hi[2]);
    const size_t end = lo + (hi - lo) / 4 * 4;
    for (size_t i = lo; i < end; i += 4) {
        __m256d ax, ay, az; /* a of particles i .. i+3 as one vector per axis */
        aos3_load(acc + 3 * i, &ax, &ay, &az);
        const __m256d V0 = _mm256_add_pd(_mm256_loadu_pd(v0 + i), _mm256_mul_pd(HDT, ax)),
                      V1 = _mm256_add_pd(_mm256_loadu_pd(v1 + i), _mm256_mul_pd(HDT, ay)),
                      V2 = _mm256_add_pd(_mm256_loadu_pd(v2 + i), _mm256_mul_pd(HDT, az));
        const __m256d X0 = _mm256_add_pd(_mm256_loadu_pd(x0 + i), _mm256_mul_pd(DT, V0)),
                      X1 = _mm256_add_pd(_mm256_loadu_pd(x1 + i), _mm256_mul_pd(DT, V1)),
                      X2 = _mm256_add_pd(_mm256_loadu_pd(x2 + i), _mm256_mul_pd(DT, V2));
        _mm256_storeu_pd(v0 + i, V0);
        _mm256_storeu_pd(v1 + i, V1);
        _mm256_storeu_pd(v2 + i, V2);
        _mm256_storeu_pd(x0 + i, X0);
        _mm256_storeu_pd(x1 + i, X1);
        _mm256_storeu_pd(x2 + i, X2);
        const int bits = sim_walls_clear4(sim, w, X0, X1, X2);
        if (bits != 15)
            for (int l = 0; l < 4; l++)
                if (!(bits >> l & 1))
                    sim_project_particle(sim, w, i + (size_t)l);
        if (xs) {
            const __m256d d0 = _mm256_sub_pd(_mm256_loadu_pd(x0 + i), _mm256_loadu_pd(xs[0] + i)),
                          d1 = _mm256_sub_pd(_mm256_loadu_pd(x1 + i), _mm256_loadu_pd(xs[1] + i)),
                          d2 = _mm256_sub_pd(_mm256_loadu_pd(x2 + i), _mm256_loadu_pd(xs[2] + i));
            /* min(a, b) and max(a, b) return b where a is NaN: a NaN lane keeps the box, as in drift_base */
            mn0 = _mm256_min_pd(d0, mn0);
            mn1 = _mm256_min_pd(d1, mn1);
            mn2 = _mm256_min_pd(d2, mn2);
            mx0 = _mm256_max_pd(d0, mx0);
            mx1 = _mm256_max_pd(d1, mx1);
            mx2 = _mm256_max_pd(d2, mx2);
        }
    }
    double l[6][4];
    _mm256_storeu_pd(l[0], mn0);
    _mm256_storeu_pd(l[1], mn1);
    _mm256_storeu_pd(l[2], mn2);
    _mm256_storeu_pd(l[3], mx0);
    _mm256_storeu_pd(l[4], mx1);
    _mm256_storeu_pd(l[5], mx2);
    for (int q = 0; q < 4; q++) { /* the lanes' boxes, merged in (they started from mb) */
        const move_box lane = {{l[0][q], l[1][q], l[2][q]}, {l[3][q], l[4][q], l[5][q]}};
        move_box_merge(mb, &lane);
    }
    if (end < hi)
        drift_base(sim, acc, w, xs, end, hi, dt, half_dt, mb);
}
#endif

static int muller_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    muller_state *s = state;
    pfb_particles *p = &sim->p;
    int rc;
    if (!s->have_accel) {
        rc = compute_accel(s, sim, -1.0, 0.0, err);
        if (rc)
            return rc;
        s->have_accel = 1;
    }
    /* the first half kick, the drift and the walls in one pass, with the box
     * of the moves since the list's sort when nothing moves the particles
     * after it (no rigid bodies) */
    const size_t n = p->n;
    const double *acc = p->field[s->f_a].data;
    const int dim = sim->dim, measure = sim->bodies.n == 0 && grid_is_sort(s, sim);
    const double half_dt = 0.5 * dt;
    pfb_wall_step w;
    sim_wall_step(sim, sim->t + dt, s->margin, s->e, s->fric, &w);
    const double *xs[3] = {NULL, NULL, NULL};
    if (measure)
        grid_xs(&sim->grid, xs);
    move_box box = move_box_empty;
    const size_t nchunk = (n + MULLER_DRIFT - 1) / MULLER_DRIFT;
    int vec = 0;
#ifdef MULLER_HAVE_AVX2
    vec = dim == 3 && s->simd && __builtin_cpu_supports("avx2") && sim_walls_clear4_decides(sim);
#endif
    atomic_size_t taken;
    atomic_init(&taken, 0);
#pragma omp parallel num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    {
        const int t = thread_num(), m = team_size();
        size_t mine = 0;
        move_box mb = move_box_empty;
        for (size_t c; (c = claim(&taken, nchunk, t, m, &mine)) < nchunk;) {
            const size_t lo = c * MULLER_DRIFT, hi = lo + MULLER_DRIFT < n ? lo + MULLER_DRIFT : n;
#ifdef MULLER_HAVE_AVX2
            if (vec)
                drift_avx2(sim, acc, &w, measure ? xs : NULL, lo, hi, dt, half_dt, &mb);
            else
#endif
                drift_base(sim, acc, &w, measure ? xs : NULL, lo, hi, dt, half_dt, &mb);
        }
#pragma omp critical(muller_move_box)
        move_box_merge(&box, &mb); /* (min and max: any order gives the same box) */
    }
    sim_bodies_couple(sim, dt, sim->t + dt, s->margin, s->fric); /* rigid bodies: see core/sim.h */
    sim_positions_changed(sim);
    return compute_accel(s, sim, measure ? move_box_r2(&box) : -1.0, 0.5 * dt, err); /* with the closing half kick */
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

static const char *const muller_diag_names[] = {"rho0", "rho_max_rel", "n_surface", "list_builds", NULL};

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
    values[3] = (double)s->builds;
}

static double muller_surface_tension(const void *state)
{
    const muller_state *s = state;
    return s->sigma;
}

/* The pair virial (solver.h) of eqs. 10 and 14 at the current state (the
 * density and pressure fields are the last pair pass's, at these positions):
 * f_ij = -m_i m_j (p_i + p_j) / (2 rho_i rho_j) grad W_spiky + mu m_i m_j
 * (v_j - v_i) / (rho_i rho_j) lap W_visc.  The colour-field force (eq. 19) is
 * not a pair force and is left out. */
static double muller_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in)
{
    const muller_state *s = state;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    if (sim_neighbours_fresh(sim, s->h, &nl, &err)) {
        nlist_free(&nl);
        return NAN;
    }
    const double *rho = p->field[s->f_rho].data, *pr = p->field[s->f_p].data;
    double W = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            double d[3];
            sim_pair_diff(sim, i, j, d);
            const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double mm = p->m[i] * p->m[j] / (rho[i] * rho[j]);
            double rv = 0.0; /* r_ij . (v_j - v_i) */
            for (int k = 0; k < dim; k++)
                rv += d[k] * (p->v[k][j] - p->v[k][i]);
            const double dwdr = s->ds * (s->h - r) * (s->h - r); /* spiky dW/dr */
            W += 0.5 * (-mm * 0.5 * (pr[i] + pr[j]) * dwdr * r + s->mu * mm * s->lv * (s->h - r) * rv);
        }
    }
    nlist_free(&nl);
    return W;
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
    NULL,
    muller_pair_virial};

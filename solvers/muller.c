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
 * The pairs: the framework's half list with a skin (core/halflist.h), kept
 * over steps and rebuilt only when the particles' moves require it, and its
 * blocked schedule (core/pairtasks.h), so every pair is evaluated once for
 * both particles and every sum receives its terms in one order whatever the
 * thread count (see "The pair loops" for what muller adds: packed records,
 * compacted force rows, the SIMD levels).  Figures and their history:
 * bench/README.md.
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
 *    off, or rest_density given: rest_density is used).  k = 0 selects k = (10 v_ref)^2,
 *    a speed of sound ten times the scene's characteristic speed (density variation ~1%).
 *  - Periodic axes (core/periodic.h; the paper has none): the rows take the
 *    minimum image of each pair's displacement (muller_rows.inc, compiled apart
 *    from the open rows, which stay as they were); core/halflist.h lists the
 *    pairs by the minimum image, on a ring whose last block's rows reach block
 *    0: that block packs block 0's records too, into a window of every record.
 *    On a sheared box (Lees-Edwards; the rheometer's start-up and flow curve)
 *    the rows, the curvature's pass and the pair virial take the sliding
 *    images (period_vec's minimum image; the viscosity's velocity difference
 *    adds the image's k U), the images placed where the positions are, at
 *    t + dt after the drift; a particle the sort wraps across a sliding face
 *    becomes the image (x - k s, v_x - k U), and its acceleration, a function
 *    of the relative positions and velocities, is unchanged by that.
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
 *    validation experiment measures omega against Rayleigh's).  That 1.2 is the
 *    product of two errors of opposite sign: the mean curvature of the ring of
 *    surface particles is about 22 1/m against the ring's own 11 (R/dx = 20),
 *    because the first moment normalising the sum counts the normal direction,
 *    which a one-layer surface does not fill; and the surface particles' area
 *    sum V |n| is 0.37 m against the ring's perimeter, 0.57.  A tangent-plane moment
 *    with a projected area corrects both (0.96 and 1.02 omega_R at R/dx 10 and
 *    20 in 2D) but stalls the 3D drop after its first swing and leaves R/dx = 40
 *    unstable, so it is not used.  surface_measure = share is that correction's
 *    measure alone, with the tangent-plane moment: each surface particle
 *    carries 1 / lambda_i of the surface, lambda_i = sum_j W_{dim-1}(r_ij) over
 *    the surface particles (poly6 on a line in 2D, a plane in 3D), and f_i =
 *    sigma kappa_i n^_i / lambda_i, with n^_i the normal of the line (plane)
 *    fitted through those surface particles (surface_fit), not grad c's
 *    direction: grad c tilts towards where the particles are denser, and a
 *    force along it pushes surface particles along the surface towards each
 *    other, which the clamped pressure (0 in the surface layer) does not
 *    resist (test_surface_direction_spacing: 0.28 rad off the radius against
 *    the fit's 0.011 on a shell moved by 0.2 spacings).  Eq. 19's V |n| per unit length is the
 *    surface layer's thickness over h, not 1: a mode-2 stretch, which the
 *    drop's own flow also makes, thins the layer along the axis it lengthens
 *    and bunches the surface particles at its tips, so the colour measure's
 *    mode-2 force is 1.17-1.20 times the continuum's 4 eps (R/dx 10-40, the
 *    shell start, test_surface_measure_mode2); the share measure's is 0.99
 *    and its Laplace force 0.99 of 2 pi sigma.  On the shell start at R/dx =
 *    40 it rings (fitted over its first second) at 1.062 times the reference
 *    drop's omega (colour: 1.16) and 1.008 times that of the drop with eq. 14's
 *    own surface traction (maxwell_drop_mode_traction, 12.34 1/s; the next
 *    paragraph), with a damping 1.02 times that drop's.  A drop at rest on the shell start
 *    grows a particle-scale surface mode: with the colour measure after about
 *    1 s; with the share measure and its fitted direction its kinetic energy
 *    stays near 1e-6 J (R/dx = 40) and the mode appears after about 1.3 s, a
 *    subsurface particle drifting out into the surface layer.  So neither is
 *    the default yet.  normal_min = 0.5:
 *    |n| h is about 1 at the outer layer of a flat lattice surface and 0 one layer
 *    in (h = 2 spacings), and the layers between exist only where the lattice is
 *    disordered; at 0.3 the second layer's noisy normals pumped up to 3.9 J into
 *    the drop, at 0.7 it tore apart within 1 s (same drop, 2 s).
 *  - Eq. 14 is the Laplacian mu lap v, whose stress is mu grad v, not the
 *    fluid's mu (grad v + grad v^T): the same force in the bulk of an
 *    incompressible flow, but half the dissipation of a potential flow and
 *    another free-surface traction.  The drop's mode-2 flow loses its energy
 *    at 0.48 of the continuum's rate at the shear wave's viscosity, at every
 *    resolution (test_viscosity_half_dissipation), and the drop rings with
 *    about half the reference's damping and a higher frequency.  That is the
 *    method's, not the harness's: calibrating mu to the drop would halve the
 *    shear viscosity that the dam break and the shear wave measure.
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

#include <stdatomic.h>

#include "../core/diag.h"
#include "../core/halflist.h"
#include "../core/kernels.h"
#include "../core/lanes.h"
#include "../core/checkpoint.h"
#include "../core/pairtasks.h"
#include "../core/solver.h"

static const pfb_param_spec muller_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 2.0, 1.01, 6.0, "1", "support radius h in particle spacings", NULL},
    {"rest_density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e7, "kg/m^3", "rest density rho0; given, it turns calibrate_rest_density off", NULL},
    {"calibrate_rest_density", PFB_PARAM_BOOL, 1, 0, 1, "", "rho0 := poly6 density of the initial lattice (unless rest_density is given)", NULL},
    {"k", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e12, "m^2/s^2", "gas constant of p = k (rho - rho0); 0 = (10 v_ref)^2", NULL},
    {"clamp_pressure", PFB_PARAM_BOOL, 1, 0, 1, "", "p = max(k (rho - rho0), 0); false: the paper's unclamped eq. 12", NULL},
    {"viscosity", PFB_PARAM_DOUBLE, -1.0, -1.0, 1e6, "Pa s", "dynamic viscosity mu; -1 = viscosity_alpha rho0 c h (water: 1.0e-3)", NULL},
    {"viscosity_alpha", PFB_PARAM_DOUBLE, 0.02, 0.0, 10.0, "1", "mu = alpha rho0 c h when viscosity = -1", NULL},
    {"surface_tension", PFB_PARAM_DOUBLE, 0.0728, 0.0, 1e6, "N/m", "surface tension coefficient sigma", NULL},
    {"surface_threshold", PFB_PARAM_DOUBLE, 7.065, 0.0, 1e9, "1/m", "l: surface force where |grad c| > l", NULL},
    {"curvature", PFB_PARAM_CHOICE, 0, 0, 0, "", "the surface force's curvature: laplacian (the paper's eq. 18, kappa = -lap c / |n|) or divergence (kappa = -div n/|n| over the particles with |n| h > normal_min, Morris 2000; the forces' mean removed)", "laplacian|divergence"},
    {"surface_measure", PFB_PARAM_CHOICE, 0, 0, 0, "", "curvature = divergence: the surface each particle carries, colour (eq. 19: V |n|, kappa normalised by the full first moment) or share (its share of the surface, 1 / the surface particles' (dim-1)-dimensional number density, kappa by the tangent-plane moment)", "colour|share"},
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
    int periodic;          /* the scene has periodic axes: minimum-image rows (1; 2 on a sheared box) */
    double per_L[3], per_I[3]; /* the periods and their inverses (0 on open axes) */
    double le_s, le_U;     /* a sheared box's image offset and speed at the positions' time */
    double h, rho0, k, mu, sigma, l, e, fric, margin, cfl;
    int curv;              /* curvature: 0 the paper's laplacian, 1 divergence (surface_divergence) */
    int share;             /* surface_measure = share */
    double nmin;           /* divergence: the normals' threshold, |n| > nmin (normal_min / h, at least l) */
    double sig_rows;       /* the sigma of forces_done: sigma for the paper's curvature, else 0 */
    double *nh;            /* divergence: 7 per particle (surface_divergence) */
    double *fit;           /* share: 10 per particle, the surface neighbours' weighted moments (surface_fit) */
    size_t cap_nh;
    pfb_kernel poly6, spiky, visc;
    int f_rho, f_p, f_a;   /* particle field indices: density, pressure, acceleration */
    int have_accel;
    size_t n_surface;
    /* the half list of radius h (1 + list_skin) and its blocks (core/halflist.h),
     * the schedule of the pair passes over it (core/pairtasks.h), and per
     * particle the colour-field sums (grad c_S, lap c_S: 4 doubles) */
    pfb_halflist L;
    pfb_pairtasks T;
    size_t cap_n;          /* particles the per-particle arrays hold */
    double *cs;
    uint32_t *inh;         /* per particle, bit q: pair q of its row was within h in this
                              step's density pass (pairs 0-31; see "The pair loops") */
    uint32_t *cj[MULLER_MAX_THREADS]; /* per thread, the force pass's compacted row */
    size_t cap_cj;         /* entries each cj[t] holds: the longest row + 16 */
    /* per thread, a window of packed records (see "The pair loops"): 8 doubles
     * (64 bytes, one cache line) per particle, particle k in record k & wmask */
    double *pk[MULLER_MAX_THREADS];
    size_t cap_pk, wmask;  /* records each pk[t] holds (a power of 2), and cap_pk - 1 */
    int npk;               /* threads with a pk: the pair loops' threads */
    size_t *nsurf_blk;     /* surface particles per block */
    double *rho, *acc;     /* the fields density and accel, for the rows */
    /* the rows of the two passes, for the instruction set of this CPU (muller_rows.inc) */
    muller_row_fn density_row, force_row;
    int vec_done;          /* density_done_avx2 and forces_done_avx2 (3D) for the done stages */
    /* kernel constants: poly6 c, spiky dW/dr = ds (h - r)^2, viscosity lap = lv (h - r) */
    double c6, ds, lv;
    double wsurf;         /* share: the (dim-1)-dimensional poly6's norm */
} muller_state;

static void muller_destroy(void *state)
{
    muller_state *s = state;
    if (!s)
        return;
    halflist_free(&s->L);
    pairtasks_free(&s->T);
    free(s->nsurf_blk);
    free(s->cs);
    free(s->nh);
    free(s->fit);
    free(s->inh);
    for (int t = 0; t < MULLER_MAX_THREADS; t++) {
        free(s->pk[t]);
        free(s->cj[t]);
    }
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
    s->share = params_get_int(p, "surface_measure");
    s->e = params_get(p, "wall_restitution");
    s->fric = params_get(p, "wall_friction");
    s->cfl = params_get(p, "cfl");
    s->margin = 0.5 * sim->spacing;
    halflist_init(&s->L, sim, s->h, halflist_skin(sim, s->h, params_get(p, "list_skin"), params_is_set(p, "list_skin"))); /* the run's sorts on the list's grid */
    s->periodic = sim_sheared(sim) ? 2 : sim_periodic(sim);
    for (int k = 0; k < 3; k++) {
        s->per_L[k] = sim->period.L[k];
        s->per_I[k] = sim->period.inv[k];
    }
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
    /* poly6 in dim - 1 dimensions: 35 / (32 h^7) on a line, 4 / (pi h^8) on a plane */
    s->wsurf = sim->dim == 3 ? 4.0 / (M_PI * pow(s->h, 8)) : 35.0 / (32.0 * pow(s->h, 7));
    s->ds = -3.0 * s->spiky.norm;
    s->lv = (sim->dim == 3 ? 6.0 : 1.0) * s->visc.norm / (s->h * s->h * s->h);
    const int calibrate = params_calibrate_rest_density(p, "muller", err);
    if (calibrate < 0) {
        muller_destroy(s);
        return PFB_EINVAL;
    }
    if (calibrate) {
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

/* The pair loops: the half list evaluated symmetrically.
 *
 * Each pair is evaluated once and its terms added to both particles (the
 * paper's sums are symmetric up to the factors m_j / rho_j, applied per side),
 * in four stages per step over the blocks of core/halflist.h, ordered by
 * core/pairtasks.h: density rows, densities done (eqs. 3, 12), force rows,
 * accelerations done (eqs. 10, 14, 15-20, 8).  Terms of list pairs at r >= h
 * are multiplied by 0 (masked, not branched on).
 *
 * Pairs beyond h, skipped in the force pass: in a disordered fluid a quarter
 * of a row is skin.  The density pass records, per row, which of its first 32
 * pairs had h^2 - r^2 > 0 (inh, 4 bytes per particle), and the force pass,
 * when that saves at least one four, runs only those (and every pair past the
 * 32nd), compacted into a per-thread buffer.  Both passes read the same
 * coordinates in the same step, so a pair left out has r^2 >= h^2 in the
 * force pass too, where every term of it is exactly 0; the lanes the others
 * fall in change, so the bits are those of the compacted rows, at every
 * thread count and SIMD level alike.
 *
 * Packed records: a block's thread copies what its rows read of particles
 * [B_b, B_b+2) into one 64-byte record each (x, y, z, m or V, then v, p), so
 * that a pair's data are one or two aligned 32-byte loads from one cache line
 * instead of eight scattered ones.  The records live in a window per thread,
 * particle k at record k & wmask, filled as the rows advance: its size is the
 * power of 2 above the farthest any row reaches ahead (the list's reach), a
 * few bytes per particle where a global copy would cost 64.
 *
 * SIMD: the rows are written once over four-lane primitives (muller_rows.inc)
 * and compiled three times: portable C, AVX2 + FMA, and AVX2 compiled for
 * AVX-512VL (its 32 registers hold a force row's ~40 live vectors without
 * spilling).  Every level performs the same operations in the same order,
 * with fma rounded once in C as in hardware, so the bits are the same
 * (test_muller checks it).  The drift, walls and move box share one loop
 * (drift_avx2, four particles at a time in 3D, the same bits).  Two threads
 * take each loop's pieces from both ends (pfb_claim), so each keeps to its
 * part of the storage from loop to loop and step to step. */
/* records packed at a time, at least (block_rows) */
#define MULLER_PACK 64

/* Room for the per-particle arrays of n particles (and a flag per block). */
static int ensure_arrays(muller_state *s, size_t n, pfb_err *err)
{
    if (n + 1 > s->cap_n) {
        size_t cap = n + n / 4 + 64;
        double *cs = realloc(s->cs, 4 * cap * sizeof *cs);
        if (cs)
            s->cs = cs;
        uint32_t *inh = cs ? realloc(s->inh, cap * sizeof *inh) : NULL;
        if (inh)
            s->inh = inh;
        const size_t mb = cap / HALFLIST_BLOCK_MIN + 3; /* room for the blocks, nblk + 1 <= mb */
        size_t *ns = inh ? realloc(s->nsurf_blk, mb * sizeof *ns) : NULL;
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

/* Keep the half list valid for the current positions (core/halflist.h; box2
 * the squared half-diagonal of the moves since the sort when the caller has
 * it, else negative), and after a rebuild the arrays and records it needs. */
static int ensure_list(muller_state *s, pfb_sim *sim, double box2, pfb_err *err)
{
    /* density, pressure and acceleration are all rewritten by the pair passes
     * that follow, before anything reads them: a sort does not move them */
    const uint64_t skip = (1u << s->f_rho) | (1u << s->f_p) | (1u << s->f_a);
    int built;
    int rc = halflist_ensure(&s->L, sim, box2, skip, &built, err);
    if (rc || !built)
        return rc;
    rc = ensure_arrays(s, sim->p.n, err);
    /* on a ring (periodic) the last block's rows read block 0's records too:
     * a window of every record, so that none of them share a place */
    return rc ? rc : ensure_records(s, s->L.ring ? sim->p.n : s->L.reach, s->L.maxrow, sim_threads(sim), err);
}

/* The rows of the two passes (muller_rows.inc) over core/lanes.h's four
 * lanes, once per level; here the pieces that are muller's own: the force
 * row's compaction and the end of a force row. */
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
MULLER_COMPACT_ROW(compact_row_base, lanes_compact4_base)
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
#include "../core/lanes_portable.inc"
#define V_COMPACT_ROW compact_row_base
#define V_ROW_END vd4_row_end
#define MULLER_ROW_TARGET
#define MULLER_ROW(name) name##_base
#include "muller_rows.inc"
#undef MULLER_ROW_TARGET
#undef MULLER_ROW
#undef V_COMPACT_ROW
#undef V_ROW_END
#include "../core/lanes_undef.inc"

#ifdef PFB_LANES_AVX2
#define MULLER_HAVE_AVX2 1
__attribute__((target("avx2,fma"))) MULLER_COMPACT_ROW(muller_compact_row_avx2, lanes_compact4_avx2)
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
        len += lanes_bits_set(keep);
    }
    return len;
}
/* the same as vd4_row_end */
__attribute__((target("avx2,fma"))) static inline void muller_row_end_avx2(double *acc, double *cs, __m256d f0,
                                                                      __m256d f1, __m256d f2, __m256d n0,
                                                                      __m256d n1, __m256d n2, __m256d lc)
{
    const __m256d f = lanes_hsum4_avx2(f0, f1, f2, _mm256_setzero_pd());
    _mm_storeu_pd(acc, _mm_add_pd(_mm_loadu_pd(acc), _mm256_castpd256_pd128(f)));
    _mm_store_sd(acc + 2, _mm_add_sd(_mm_load_sd(acc + 2), _mm256_extractf128_pd(f, 1)));
    _mm256_storeu_pd(cs, _mm256_add_pd(_mm256_loadu_pd(cs), lanes_hsum4_avx2(n0, n1, n2, lc)));
}
#include "../core/lanes_avx2.inc"
#define V_COMPACT_ROW muller_compact_row_avx2
#define V_ROW_END muller_row_end_avx2
#define MULLER_ROW_TARGET __attribute__((target("avx2,fma")))
#define MULLER_ROW(name) name##_avx2
#include "muller_rows.inc"
#undef MULLER_ROW_TARGET
#undef MULLER_ROW
/* The same rows compiled for AVX-512VL: the same 256-bit operations in the
 * same order (so the same bits), with its 32 vector registers instead of 16,
 * so the force row's live vectors no longer spill to the stack.  The one
 * 512-bit operation is the force row's compaction (muller_compact_row_avx512:
 * sixteen entries per compress instead of a table shuffle per four). */
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
    const size_t *blk = s->L.blk, nb = s->L.nblk;
    const size_t lo = blk[b], mid = blk[b + 1], hi = blk[b + 2 <= nb ? b + 2 : nb];
    if (pass == 0 && b % 2 == 0) {
        const double hh = s->h * s->h, self = hh * hh * hh;
        for (size_t k = lo; k < hi; k++)
            s->rho[k] = sim->p.m[k] * self;
    }
    const int t = pfb_thread_num();
    double *pk = s->pk[t];
    uint32_t *buf = s->cj[t];
    const muller_row_fn row = pass ? s->force_row : s->density_row;
    size_t done = lo; /* records [lo, done) packed */
    if (s->L.ring && b + 1 == nb) { /* the last block on a ring: its rows reach around the end into block 0 */
        pack_records(s, sim, pass, 0, s->L.wrap, pk);
        pack_records(s, sim, pass, lo, hi, pk);
        done = hi;
    }
    for (size_t k = lo; k < mid; k++) {
        const size_t need = s->L.ls[k + 1] > s->L.ls[k] ? s->L.lj[s->L.ls[k + 1] - 1] + (size_t)1 : k + 1;
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
        nsurf += lanes_bits_set((uint32_t)_mm256_movemask_pd(surf));
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

/* The four stages of pair_passes, each for block b (core/pairtasks.h orders
 * them): D the density rows, E the densities done, K the force rows, A the
 * accelerations done. */
typedef struct {
    muller_state *s;
    pfb_sim *sim;
    double half_dt;
} pass_ctx;

static void stage_density_rows(void *ctx, size_t b)
{
    const pass_ctx *c = ctx;
    block_rows(c->s, c->sim, 0, b);
}

static void stage_densities(void *ctx, size_t b)
{
    const pass_ctx *c = ctx;
    const size_t lo = c->s->L.blk[b], hi = c->s->L.blk[b + 1];
#ifdef MULLER_HAVE_AVX2
    if (c->s->vec_done)
        density_done_avx2(c->s, c->sim, lo, hi);
    else
#endif
        density_done(c->s, c->sim, lo, hi);
}

static void stage_force_rows(void *ctx, size_t b)
{
    const pass_ctx *c = ctx;
    block_rows(c->s, c->sim, 1, b);
}

static void stage_accelerations(void *ctx, size_t b)
{
    const pass_ctx *c = ctx;
    const size_t lo = c->s->L.blk[b], hi = c->s->L.blk[b + 1];
#ifdef MULLER_HAVE_AVX2
    if (c->s->vec_done && c->sim->dim == 3)
        c->s->nsurf_blk[b] = forces_done_avx2(c->s, c->sim, lo, hi, c->half_dt);
    else
#endif
        c->s->nsurf_blk[b] = forces_done(c->s, c->sim, lo, hi, c->half_dt);
}

static const pfb_stage muller_stages[] = {
    {1, stage_density_rows}, {0, stage_densities}, {1, stage_force_rows}, {0, stage_accelerations}};

/* eqs. 3, 12, then 10, 14, 15-20 and 8: densities, pressures, forces and the
 * accelerations of every particle from the list, then the closing half kick
 * v += half_dt a (none when half_dt is 0): the density rows of each block (D),
 * its densities done (E, after the two blocks that add to its sums), its force
 * rows (K, after E of its block and the next, whose records it reads and whose
 * sums it adds to) and its accelerations (A), in core/pairtasks.h's order, so
 * every sum receives its terms in one order whatever the threads. */
static int pair_passes(muller_state *s, pfb_sim *sim, double half_dt, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    s->rho = p->field[s->f_rho].data;
    s->acc = p->field[s->f_a].data;
    s->density_row = density_row_base;
    s->force_row = force_row_base;
#ifdef MULLER_HAVE_AVX2
    const int level = p->n <= INT32_MAX ? lanes_level(s->simd) : 0; /* (32-bit signed indices in V_INDEX) */
    if (level >= 1) {
        s->density_row = level == 2 ? density_row_avx512 : density_row_avx2;
        s->force_row = level == 2 ? force_row_avx512 : force_row_avx2;
    }
    s->vec_done = s->density_row != density_row_base; /* the densities and accelerations four at a time too */
#endif
    pass_ctx c = {s, sim, half_dt};
    int rc = pairtasks_run(&s->T, &s->L, muller_stages, 4, &c, s->npk, sim_parallel_pairs(sim, p->n), err);
    if (rc)
        return rc;
    size_t total = 0;
    for (size_t b = 0; b < s->L.nblk; b++)
        total += s->nsurf_blk[b];
    s->n_surface = total;
    return PFB_OK;
}

/* The smallest eigenvalue's eigenvector of the symmetric dim x dim matrix
 * c = (xx, yy, zz, xy, xz, yz) into e (unit), when the smallest eigenvalue is
 * at most half the next: the points it describes are spread over a line (2D)
 * or a plane (3D).  Returns 0 (e untouched) where they are not. */
static int thin_direction(const double *c, int dim, double *e)
{
    if (dim == 2) {
        const double t = 0.5 * (c[0] + c[1]), dd = hypot(0.5 * (c[0] - c[1]), c[3]);
        const double l1 = t - dd, l2 = t + dd;
        if (!(l2 > 0.0) || l1 > 0.5 * l2)
            return 0;
        double u[2] = {c[3], l1 - c[0]}, v[2] = {l1 - c[1], c[3]};
        const double nu = hypot(u[0], u[1]), nv = hypot(v[0], v[1]);
        const double *w = nu >= nv ? u : v, nw = fmax(nu, nv);
        if (!(nw > 0.0))
            return 0;
        e[0] = w[0] / nw;
        e[1] = w[1] / nw;
        e[2] = 0.0;
        return 1;
    }
    /* 3D: the eigenvalues by the trigonometric form of the cubic's roots */
    const double q = (c[0] + c[1] + c[2]) / 3.0, p1 = c[3] * c[3] + c[4] * c[4] + c[5] * c[5];
    const double p2 = (c[0] - q) * (c[0] - q) + (c[1] - q) * (c[1] - q) + (c[2] - q) * (c[2] - q) + 2.0 * p1;
    if (!(p2 > 0.0))
        return 0;
    const double pp = sqrt(p2 / 6.0), b0 = (c[0] - q) / pp, b1 = (c[1] - q) / pp, b2 = (c[2] - q) / pp;
    const double b3 = c[3] / pp, b4 = c[4] / pp, b5 = c[5] / pp;
    const double r = 0.5 * (b0 * (b1 * b2 - b5 * b5) - b3 * (b3 * b2 - b5 * b4) + b4 * (b3 * b5 - b1 * b4));
    const double phi = acos(fmin(1.0, fmax(-1.0, r))) / 3.0;
    const double l3 = q + 2.0 * pp * cos(phi), l1 = q + 2.0 * pp * cos(phi + 2.0 * M_PI / 3.0);
    const double l2 = 3.0 * q - l1 - l3;
    if (!(l2 > 0.0) || l1 > 0.5 * l2)
        return 0;
    /* e is normal to the rows of c - l1 I: the largest of their cross products */
    const double a[3][3] = {{c[0] - l1, c[3], c[4]}, {c[3], c[1] - l1, c[5]}, {c[4], c[5], c[2] - l1}};
    double best = 0.0;
    for (int u = 0; u < 3; u++) {
        const double *x = a[u], *y = a[(u + 1) % 3];
        const double w[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]};
        const double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        if (nw > best) {
            best = nw;
            for (int k = 0; k < 3; k++)
                e[k] = w[k] / nw;
        }
    }
    return best > 0.0;
}

/* surface_measure = share: the surface particles' own surface.  Over the
 * surface particles j within h of a surface particle i (itself included), with
 * the weights q_ij = (h^2 - r_ij^2)^3, the surface density lambda_i = wsurf
 * sum_j q_ij (the (dim-1)-dimensional poly6) and the weighted covariance of
 * their positions; its thinnest direction, oriented along grad c, replaces n^_i
 * where the points are spread over a line (plane).  Why: grad c's direction
 * tilts towards where the particles are denser, so a force along it moves the
 * surface particles along the surface towards each other, and nothing resists
 * that where the clamped pressure is 0 (the surface layer, rho < rho0): the
 * surface clusters and a drop at rest grows particle-scale bumps.  A line
 * (plane) fitted through the surface particles does not depend on how they are
 * spaced along it.  One pass over the half list, in index order. */
static void surface_fit(muller_state *s, pfb_sim *sim, double *restrict nh)
{
    const size_t n = sim->p.n;
    const int dim = sim->dim;
    const double hh = s->h * s->h;
    double *restrict f = s->fit; /* W, sum q d (3), sum q d d (xx, yy, zz, xy, xz, yz) */
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < 10; k++)
            f[10 * i + (size_t)k] = 0.0;
        f[10 * i] = nh[7 * i + 3] != 0.0 ? hh * hh * hh : 0.0; /* the self term */
    }
    static const int ia[6] = {0, 1, 2, 0, 0, 1}, ib[6] = {0, 1, 2, 1, 2, 2};
    for (size_t i = 0; i < n; i++) {
        if (nh[7 * i + 3] == 0.0)
            continue;
        for (size_t t = s->L.ls[i]; t < s->L.ls[i + 1]; t++) {
            const size_t j = s->L.lj[t];
            if (nh[7 * j + 3] == 0.0)
                continue;
            double d[3];
            sim_pair_diff(sim, i, j, d); /* x_i - x_j */
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= hh)
                continue;
            const double q = (hh - r2) * (hh - r2) * (hh - r2);
            f[10 * i] += q;
            f[10 * j] += q;
            for (int k = 0; k < 3; k++) {
                f[10 * i + 1 + (size_t)k] -= q * d[k];
                f[10 * j + 1 + (size_t)k] += q * d[k];
            }
            for (int k = 0; k < 6; k++) {
                const double c = q * d[ia[k]] * d[ib[k]];
                f[10 * i + 4 + (size_t)k] += c;
                f[10 * j + 4 + (size_t)k] += c;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        nh[7 * i + 6] = f[10 * i] * s->wsurf; /* lambda_i (0 off the surface) */
        if (nh[7 * i + 3] == 0.0)
            continue;
        const double *g = f + 10 * i, W = g[0], m[3] = {g[1] / W, g[2] / W, g[3] / W};
        double c[6], e[3] = {0.0, 0.0, 0.0};
        for (int k = 0; k < 6; k++)
            c[k] = g[4 + k] / W - m[ia[k]] * m[ib[k]];
        if (!thin_direction(c, dim, e))
            continue;
        double dot = 0.0;
        for (int k = 0; k < 3; k++)
            dot += e[k] * nh[7 * i + (size_t)k];
        for (int k = 0; k < 3; k++)
            nh[7 * i + (size_t)k] = dot < 0.0 ? -e[k] : e[k];
    }
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
        double *nh = realloc(s->nh, 7 * n * sizeof *nh);
        if (!nh)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the curvature of %zu particles", n);
        s->nh = nh;
        double *fit = s->share ? realloc(s->fit, 10 * n * sizeof *fit) : NULL;
        if (s->share && !fit)
            return pfb_err_set(err, PFB_ENOMEM, "muller: out of memory for the surface fit of %zu particles", n);
        s->fit = fit;
        s->cap_nh = n;
    }
    double *restrict nh = s->nh; /* per particle: n^ (3), valid, the divergence sum, M sum, the surface density */
    const double *restrict cs = s->cs, *restrict rho = p->field[s->f_rho].data;
    for (size_t i = 0; i < n; i++) {
        const double *c = cs + 4 * i;
        const double nn = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        const int valid = nn > s->nmin && nn > 0;
        for (int d = 0; d < 3; d++)
            nh[7 * i + (size_t)d] = valid ? c[d] / nn : 0.0;
        nh[7 * i + 3] = valid;
        nh[7 * i + 4] = nh[7 * i + 5] = 0.0; /* nh[7 i + 6]: surface_fit's (share only) */
    }
    const double hh = s->h * s->h;
    if (s->share)
        surface_fit(s, sim, nh);
    for (size_t i = 0; i < n; i++) {
        if (nh[7 * i + 3] == 0.0)
            continue;
        const double vi = p->m[i] / rho[i];
        for (size_t q = s->L.ls[i]; q < s->L.ls[i + 1]; q++) {
            const size_t j = s->L.lj[q];
            if (nh[7 * j + 3] == 0.0)
                continue;
            double d[3];
            sim_pair_diff(sim, i, j, d); /* x_i - x_j */
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= hh)
                continue;
            const double w = 6.0 * s->c6 * (hh - r2) * (hh - r2); /* grad_i W_ij = -w d */
            double e = 0.0; /* (n^_j - n^_i) . d */
            for (int k = 0; k < dim; k++)
                e += (nh[7 * j + (size_t)k] - nh[7 * i + (size_t)k]) * d[k];
            const double vj = p->m[j] / rho[j];
            nh[7 * i + 4] -= vj * w * e;
            nh[7 * j + 4] -= vi * w * e;
            if (s->share) { /* tangent-plane moments |P d|^2 and the surface density */
                double di = 0.0, dj = 0.0;
                for (int k = 0; k < dim; k++) {
                    di += nh[7 * i + (size_t)k] * d[k];
                    dj += nh[7 * j + (size_t)k] * d[k];
                }
                nh[7 * i + 5] += vj * w * (r2 - di * di);
                nh[7 * j + 5] += vi * w * (r2 - dj * dj);
            } else {
                nh[7 * i + 5] += vj * w * r2;
                nh[7 * j + 5] += vi * w * r2;
            }
        }
    }
    /* the surface accelerations (in n^'s place), their total force F and the
     * mass they act on */
    double F[3] = {0.0, 0.0, 0.0}, mass = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double M = nh[7 * i + 5] / (double)(s->share ? dim - 1 : dim);
        const int on = nh[7 * i + 3] != 0.0 && M > 0.0;
        const double kappa = on ? -nh[7 * i + 4] / M : 0.0;
        nh[7 * i + 3] = on;
        /* the surface it carries over its mass: V |n| / m = |n| / rho (eq. 19's, along n), or its share,
         * 1 / (lambda m), along n^ */
        const double *dir = s->share ? nh + 7 * i : cs + 4 * i; /* each dir[k] read before nh[7 i + k] is set */
        const double g = s->share ? nh[7 * i + 6] * p->m[i] : rho[i];
        for (int k = 0; k < 3; k++) {
            const double a = on && k < dim ? s->sigma * kappa * dir[k] / g : 0.0; /* eqs. 19, 8 */
            nh[7 * i + (size_t)k] = a;
            F[k] += p->m[i] * a;
        }
        mass += on ? p->m[i] : 0.0;
    }
    /* less the mean (F / mass on each of them): the total surface force of a
     * closed surface is zero, and what the estimate leaves would move the body */
    double *restrict acc = s->acc;
    for (size_t i = 0; i < n; i++) {
        if (nh[7 * i + 3] == 0.0)
            continue;
        for (int k = 0; k < dim; k++) {
            const double a = nh[7 * i + (size_t)k] - F[k] / mass;
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
    s->le_s = sim->period.le_s;
    s->le_U = sim->period.le_U;
    int rc = ensure_list(s, sim, box2, err);
    if (!rc)
        rc = pair_passes(s, sim, half_dt, err);
    if (rc)
        return rc;
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
                       size_t lo, size_t hi, double dt, double half_dt, pfb_move_box *mb)
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
                                                      double half_dt, pfb_move_box *mb)
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
        const pfb_move_box lane = {{l[0][q], l[1][q], l[2][q]}, {l[3][q], l[4][q], l[5][q]}};
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
    const int dim = sim->dim, measure = sim->bodies.n == 0 && halflist_is_sort(&s->L, sim);
    const double half_dt = 0.5 * dt;
    pfb_wall_step w;
    sim_wall_step(sim, sim->t + dt, s->margin, s->e, s->fric, &w);
    const double *xs[3] = {NULL, NULL, NULL};
    if (measure)
        grid_xs(&sim->grid, xs);
    pfb_move_box box = PFB_MOVE_BOX_EMPTY;
    const size_t nchunk = (n + MULLER_DRIFT - 1) / MULLER_DRIFT;
    int vec = 0;
#ifdef MULLER_HAVE_AVX2
    vec = dim == 3 && s->simd && __builtin_cpu_supports("avx2") && sim_walls_clear4_decides(sim);
#endif
    atomic_size_t taken;
    atomic_init(&taken, 0);
#pragma omp parallel num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    {
        const int t = pfb_thread_num(), m = pfb_team_size();
        size_t mine = 0;
        pfb_move_box mb = PFB_MOVE_BOX_EMPTY;
        for (size_t c; (c = pfb_claim(&taken, nchunk, t, m, &mine)) < nchunk;) {
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
    period_le_at(&sim->period, sim->t + dt); /* a sheared box's images where the positions are */
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
    values[3] = (double)s->L.builds;
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
static double muller_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[4])
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
    double W = 0.0, D[4] = {0.0, 0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            double d[3], dv[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0};
            const double kk = period_diff(&sim->period, dim, (const double *const *)p->x, i, j, d);
            const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            const double mm = p->m[i] * p->m[j] / (rho[i] * rho[j]);
            double rv = 0.0; /* r_ij . (v_j - v_i), and its terms dv (a sheared box's image of j moves at v_j + k U) */
            for (int k = 0; k < dim; k++) {
                u[k] = p->v[k][j] - p->v[k][i] + (k == 0 ? period_le_dv(&sim->period, kk) : 0.0);
                dv[k] = d[k] * u[k];
                rv += dv[k];
            }
            if (!(r > 0.0))
                continue;
            const double dwdr = s->ds * (s->h - r) * (s->h - r); /* spiky dW/dr */
            /* f_ij = cp r_ij / r + cv (v_j - v_i) */
            const double cp = -mm * 0.5 * (pr[i] + pr[j]) * dwdr, cv = s->mu * mm * s->lv * (s->h - r);
            W += 0.5 * (cp * r + cv * rv);
            for (int k = 0; k < dim; k++)
                D[k] += 0.5 * (cp * d[k] * d[k] / r + cv * dv[k]);
            D[3] += 0.5 * d[1] * (cp * d[0] / r + cv * u[0]); /* r_y f_x */
        }
    }
    nlist_free(&nl);
    if (diag)
        memcpy(diag, D, sizeof D);
    return W;
}

/* Checkpoints: whether the acceleration field holds the last step's, and the
 * list's builds (the list itself follows from the restored sort). */
static int muller_save(const void *state, const pfb_sim *sim, pfb_ckpt_w *w, pfb_err *err)
{
    (void)err;
    const muller_state *s = state;
    ckpt_put(w, "MULR", &s->have_accel, sizeof s->have_accel);
    halflist_save(&s->L, sim, w);
    return PFB_OK;
}

static int muller_load(void *state, pfb_sim *sim, pfb_ckpt_r *r, pfb_err *err)
{
    muller_state *s = state;
    int rebuilt;
    int rc = ckpt_get_exact(r, "MULR", &s->have_accel, sizeof s->have_accel, err);
    if (!rc)
        rc = halflist_load(&s->L, sim, r, &rebuilt, err);
    if (!rc && rebuilt)
        rc = ensure_arrays(s, sim->p.n, err);
    if (!rc && rebuilt)
        rc = ensure_records(s, s->L.ring ? sim->p.n : s->L.reach, s->L.maxrow, sim_threads(sim), err);
    return rc;
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
    muller_pair_virial,
    muller_save,
    muller_load,
    {450.0, 500.0},
    PFB_STRESS_GRADIENT};

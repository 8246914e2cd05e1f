/* mao_yang.c — H. Mao, Y.-H. Yang, "A Particle-Based Model for Non-Newtonian Fluid
 * Animation" (University of Alberta); text in ../shared/papers/mao-yang-nonnewtonian.txt.
 *
 * The paper's equations and where each lives (the files: mao_yang.c, the
 * density, the non-pressure forces and the step; mao_yang_pressure.c, the
 * projection; mao_yang_stress.c, the viscoelastic stress; mao_yang_mirrors.c,
 * the walls' and bodies' mirror particles):
 *   eq. 1   momentum        dv/dt = -grad p / rho + div T / rho + mu lap v / rho + f / rho
 *   eqs. 2-4 SPH interpolation and density with the cubic spline, q = 2r/h ... my_compute_density
 *   eqs. 5-6 pressure acceleration with the spiky gradient ....... my_pressure_accel (pressure)
 *   eq. 7   pressure Poisson equation, eq. 8 its SPH Laplacian .. assemble_pressure (pressure), or
 *           over the pairs without a matrix ......... pressure_operator (core/pairop.h)
 *           solved by preconditioned conjugate gradients .. my_solve_pressure (core/pcg.h)
 *   eqs. 9-15 corotational Maxwell rate, rotation tensor, strain tensors .. stress_rate (stress)
 *   eq. 16  velocity gradient ........................ my_compute_density (grad_products)
 *   eq. 17  von Mises yield .............................................. stress_rate (stress)
 *   viscosity "as in Müller 2003" (viscosity kernel Laplacian) ............... nonpressure_accel
 *   §5      re-sampling once per frame ....................... mao_yang_frame (mao_yang_resample.c)
 *
 * Step order (the paper's Fig. 1, which lists it, is lost; this is the MPS order of
 * Premoze et al. 2003 that §4.2 says is adopted "completely"):
 *   1. at x_n: density (eq. 4), velocity gradient (eq. 16);
 *   2. stress: T_{n+1} = T_n + dt dT/dt (eq. 9, explicit Euler as §7 says), then
 *      the non-pressure accelerations: gravity, viscosity, stress divergence of
 *      T_{n+1} (stress before force makes the elastic part symplectic Euler);
 *   3. prediction: v* = v_n + dt a, x* = x_n + dt v*, walls;
 *   4. at x*: density rho* (eq. 4), surface flags, pressure from eqs. 7-8 by PCG;
 *   5. correction: u' = -dt grad p / rho* (eq. 5), v_{n+1} = v* + u',
 *      x_{n+1} = x* + dt u', walls.
 *   The Poisson equation is solved at the predicted positions because its source
 *   term is the density error the prediction would cause: the correction removes
 *   it (to first order) within the same step, which is what "enforce
 *   incompressibility" asks.  The stress, which is slow, is integrated explicitly.
 *
 * The corrections to the printed equations are with their parts: eqs. 5 and 8
 * in mao_yang_pressure.c, eqs. 13 and 17 in mao_yang_stress.c.
 *
 * Choices where the paper is silent (each measured with pfbench run on the 2D
 * pool, dam_break, stretch, balls and rod scenes; "blew up" = the run stopped
 * on the framework's energy check):
 *  - Support h = 2.5 spacings.  A particle's own mass times W(0) is 45% of its
 *    kernel density at h = 2 spacings (20% at 3): a merged particle reads ~1.4
 *    rho_0 uncompressed, and with re-sampling the dam break blew up at h = 2.
 *  - Re-sampled particles keep eq. 7's rest density rho_0, as printed.  A merge
 *    of two particles 0.6 D apart (eps_d) raises the merged particle's kernel
 *    density by m_0 (W(0) - W(0.6 D)), 8% of rho_0 at h = 2.5 spacings in 2D,
 *    and leaves its neighbours' about as they were.  Two per-particle
 *    references were tried and fail the 2D dam break at a/dx = 100 (free slip):
 *    a reference rescaled by the density after / before each re-sampling
 *    random-walks (0.89 to 1.05 rho_0), and the run blew up at t = 0.28 s; the
 *    number-density reference rho_0 sum_j m_j W_ij / (m_0 sum_j W_ij) drops 25%
 *    at a merge, which makes the merged particle a surface particle (p = 0), a
 *    sink its neighbours fall into and merge in turn (5,600 merges in one frame,
 *    the same blow-up).  With rho_0 the run reaches t = 0.3 s with 122 merges
 *    and its volume within 0.6%.
 *  - Surface particles (held at air pressure, p = 0): rho*_i < 0.97 rho_0, the
 *    MPS criterion of Premoze et al. (Koshizuka and Oka).  A geometric criterion
 *    (smallest eigenvalue of the kernel moment matrix B below 0.75, after Marrone
 *    et al. 2010) flagged thin compressed jets as surface and the dam break blew
 *    up with it, so it was dropped.
 *  - Velocity gradient (grad_correction, default on): eq. 16 times the inverse of
 *    B_i = sum_j (m_j / rho_i) (x_j - x_i) (x) grad W_ij, exact for linear velocity
 *    fields; B's eigenvalues are raised to at least 0.25 before inverting (a flat
 *    surface has 1/2), so a thin jet's correction stays bounded.  Without it eq. 16
 *    reads a rigid rotation at the lattice moment of the kernel inside and at up to
 *    half the rate at the surface, where it also sees a spurious strain, so the
 *    stress does not turn with the body (test_mao_yang); off = the paper's eq. 16.
 *    The weight m_j / rho_i (eq. 16: m_j / rho_j, the same for uniform density)
 *    makes the gradient the exact adjoint of the stress force below.
 *  - Stress divergence: sum_j m_j (T_i B_i^-1 / rho_i^2 + T_j B_j^-1 / rho_j^2)
 *    grad_i W_ij, the symmetric SPH form with the same correction: momentum is
 *    conserved pair by pair, and the stress power sum_i V_i T_i : G_i equals minus
 *    the work of these forces exactly, so the elastic exchange neither creates nor
 *    destroys energy (with the uncorrected pair the balls blew up at impact).
 *  - Viscosity: Mueller's mu m_j (v_j - v_i) lap W / (rho_i rho_j) with rho_i rho_j
 *    replaced by rho_0 (rho_i + rho_j) / 2: the same for equal densities, pairwise
 *    antisymmetric, and bounded for a light, low-density surface particle, whose
 *    explicit viscous limit 0.125 h^2 rho_i / mu would otherwise fall below the
 *    step (re-sampled particles of 0.1 m0 at a column tip blew up).
 *  - Viscosity magnitude: mu = 0.5 rho_0 v_ref h by default.  The paper names no
 *    value; water's 1e-3 Pa s leaves an odd-even mode of the projection undamped
 *    (eq. 8's W-weighted Laplacian sees alternating pressures the spiky gradient
 *    cannot): a 2D pool at rest blew up within 0.3 s at every step tried.
 *  - Re-sampling and the density reference: see mao_yang_frame.
 *  - Material: mu_e (Pa), lambda (s), yield gamma (Pa) are parameters; a scene may
 *    give particles their own through fields named "mu_e" and "lambda" (the balls
 *    scene, Fig. 2).  With no elastic modulus anywhere and no stress (a
 *    Newtonian fluid: the calibrated preset's mu_e = 0) eq. 9 keeps T = 0, and
 *    the step skips the stress's work (stress_active), with the same result.  Units SI, rho_0 calibrated to the initial lattice (the cubic
 *    spline density of an interior particle) so the initial state is at rest.
 *  - Time step suggestion: the minimum of cfl D / (v_ref + c_s) with the shear wave
 *    speed c_s = sqrt(mu_e / rho_0) (D the spacing: the shortest elastic wave spans
 *    2 D and symplectic Euler needs c_s k dt < 2), lambda / 2 (explicit Euler of
 *    -T/lambda), the viscous limit 0.125 h^2 rho_0 / mu and the force limit
 *    0.25 sqrt(h / |g|).
 *  - Pairs (the framework's, as for every solver): the real particles' pairs come
 *    from the kept half list of core/halflist.h (radius h (1 + list_skin), checked
 *    at x_n and at x*; a rebuild sorts the storage, the density field carrying
 *    rho_n across the second).  The SPH sums (eq. 4 with eq. 16's gradient and B
 *    in one pass), the non-pressure and the pressure accelerations visit each
 *    real pair once on the blocked schedule of core/pairtasks.h and add to both
 *    particles (every term is m_j X for i and -m_i X or, for the difference
 *    form's part, +m_i X for j), so the sums do not depend on the thread count.
 *    Each pass's rows are written once with the geometry as constants (2D or
 *    3D on open axes, or the minimum image), and on open axes the density
 *    without the gradient, the viscosity of a fluid without elastic stress and
 *    eq. 5's split form compute each pair's terms in four lanes
 *    (mao_yang_rows.inc, solver.simd) with muller's engineering: row i's sums in
 *    four lane sums, j's added in the vector loop, the same bits at every
 *    level (they differ from the scalar rows' by the rounding of each row's
 *    sum, test_rows_lanes_round_off).  With pcg_operator = pairs each density
 *    pass also lists the pairs it found within h (hj, hn), and the passes
 *    after it at the same positions (the viscosity; eq. 8's coefficients and
 *    product, eq. 5) run over those, not over the list's skin
 *    (mao_yang_pressure.c): a pair beyond h adds nothing to their sums.
 *    Mirrors act on real particles only: each particle's mirrors within h come
 *    from the kept list's pairs when every mirror is across a plane or a box
 *    face (mirror_rows_from_list), else from a search over the mirrors and the
 *    particles that can reach one (build_ghosts, mirror_rows), and are added
 *    per particle after the real pairs.
 *  - Periodic axes (core/periodic.h; the paper has none): the lists are the
 *    minimum-image ones and every pair term takes the minimum-image
 *    displacement.  A fluid without a free surface (a periodic box) leaves eq. 7's
 *    system singular (p up to a constant); the particle of smallest id is then
 *    held at p = 0, the source is made consistent (its mean removed: a uniform
 *    density error is no pressure gradient's to remove) and the pressures are
 *    shifted to mean 0.  Merging averages positions by the minimum image; the
 *    Delaunay up-sampling triangulates the wrapped positions, so it never inserts
 *    across a face.
 *  - Re-sampling runs "once per frame" (section 5 and Table 1: the paper's
 *    frames are its animation's), here once per resample_interval of
 *    simulated time (default 1/30 s), at the end of the output frame that
 *    reaches each multiple, at most once per frame: an output rate chosen for
 *    a measurement (the rheometer's 1,000 frames per second, the drop's 120)
 *    does not change how often the method re-samples.  At 30 frames per
 *    second it is every frame.  resample_every = 0 turns it off;
 *    resample_interval = 0 re-samples every resample_every-th output frame
 *    instead.  eps_d = 0.6 D, R_min = 0.95 D, eps_m = 0.01 m_0.
 *
 * Known limits:
 *  - Re-sampling with the paper's thresholds keeps churning in splashing flows:
 *    the 2D dam break merges and inserts ~10^3 particles per second (count within
 *    3% of the initial).  qhull's Delaunay construction costs seconds per call at
 *    ~10^5 particles in 3D, of the particles that can border a hole only
 *    (delaunay_whole = false, the default: mao_yang_resample.c). */
#include "mao_yang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/diag.h"
#include "../core/lanes.h"
#include "../core/checkpoint.h"
#include "../core/timing.h"
#include "mao_yang_internal.h"
#include "../core/solver.h"

static const pfb_param_spec mao_yang_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 2.5, 1.2, 6.0, "1", "support radius h of both kernels in particle spacings (cubic spline q = 2r/h)", NULL},
    {"rest_density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e7, "kg/m^3", "rest density rho_0; given, it turns calibrate_rest_density off", NULL},
    {"calibrate_rest_density", PFB_PARAM_BOOL, 1, 0, 1, "", "rho_0 := cubic-spline density of the initial lattice (unless rest_density is given)", NULL},
    {"mu_e", PFB_PARAM_DOUBLE, 1000.0, 0.0, 1e9, "Pa", "elasticity constant mu_e of eq. 9 (a particle field mu_e overrides)", NULL},
    {"lambda", PFB_PARAM_DOUBLE, 0.02, 1e-9, 1e9, "s", "relaxation time lambda of eq. 9 (a particle field lambda overrides)", NULL},
    {"yield", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e12, "Pa", "von Mises yield value gamma of eq. 17 (0: plain Maxwell)", NULL},
    {"rotational_term", PFB_PARAM_BOOL, 1, 0, 1, "", "include Omega (eq. 10) in eq. 9; off for the paper's Fig. 3 comparison", NULL},
    {"grad_correction", PFB_PARAM_BOOL, 1, 0, 1, "", "correct eq. 16 so linear velocity fields are exact; off = the paper's eq. 16", NULL},
    {"grad_correction_min", PFB_PARAM_DOUBLE, 0.25, 0.01, 1.0, "1", "eigenvalues of B below this are raised to it before inverting (bounds the correction)", NULL},
    {"viscosity", PFB_PARAM_DOUBLE, -1.0, -1.0, 1e6, "Pa s", "Newtonian viscosity mu of eq. 1 (Mueller 2003 form); -1 = viscosity_alpha rho_0 v_ref h", NULL},
    {"viscosity_alpha", PFB_PARAM_DOUBLE, 0.5, 0.0, 100.0, "1", "mu = alpha rho_0 v_ref h when viscosity = -1", NULL},
    {"surface_beta", PFB_PARAM_DOUBLE, 0.97, 0.0, 1.0, "1", "density criterion: surface when rho* < beta rho_0", NULL},
    {"pressure_form", PFB_PARAM_CHOICE, 2, 0, 0, "", "pressure gradient: the difference (p_j - p_i) form, eq. 5's symmetric sum, or split (sum of positive parts + difference of negative parts)", "difference|sum|split"},
    {"my_artificial_stress", PFB_PARAM_DOUBLE, 0.2, 0.0, 2.0, "1", "epsilon of Monaghan's artificial stress against the tensile instability (0: off)", NULL},
    {"density_correction", PFB_PARAM_CHOICE, 1, 0, 0, "", "what eq. 7's density-error part corrects: velocity and position (the paper) or the position only", "velocity|position"},
    {"pcg_tol", PFB_PARAM_DOUBLE, 1e-6, 1e-14, 0.5, "1", "pcg_stop = residual: relative residual |b - A p| / |b| at which PCG stops", NULL},
    {"pcg_stop", PFB_PARAM_CHOICE, 1, 0, 0, "", "what stops each PCG solve: the relative residual (pcg_tol), or the mean density error the solve leaves (pcg_eta, pcg_eta_div: the rule of SPlisHSPlasH's DFSPH)", "residual|density"},
    {"pcg_eta", PFB_PARAM_DOUBLE, 1e-4, 1e-12, 0.5, "1", "pcg_stop = density: the pressure solve stops when the mean |rho - rho_0| / rho_0 it leaves is at most this (DFSPH's maxError, 0.01%)", NULL},
    {"pcg_eta_div", PFB_PARAM_DOUBLE, 1e-5, 1e-12, 0.5, "1", "pcg_stop = density: the divergence solve stops when the mean density change per step it leaves, over rho_0, is at most this (DFSPH's maxErrorV is 1e-3; see the header for why not here)", NULL},
    {"pcg_max_iter", PFB_PARAM_INT, 1000, 1, 1e6, "1", "PCG iteration cap per step", NULL},
    {"pcg_precond", PFB_PARAM_CHOICE, 1, 0, 0, "", "PCG preconditioner (amg: the multigrid of core/amg.c)", "none|jacobi|amg"},
    {"pcg_operator", PFB_PARAM_CHOICE, 0, 0, 0, "", "eq. 8's operator: applied over the pairs (no stored matrix; pcg_precond jacobi or none), or a stored CSR matrix (which pcg_precond = amg needs)", "pairs|matrix"},
    {"wall_no_slip", PFB_PARAM_BOOL, 0, 0, 1, "", "false (the default, as every method): mirrors carry the reflected normal velocity (free slip); true: 2 v_wall - v (no slip)", NULL},
    {"resample_every", PFB_PARAM_INT, 1, 0, 1e9, "1", "0 = never re-sample (section 5); with resample_interval = 0, the frames between re-samplings", NULL},
    {"resample_interval", PFB_PARAM_DOUBLE, 1.0 / 30.0, 0.0, 1e9, "s", "simulated time between re-samplings (section 5's once per animation frame): at the end of each output frame that reaches a multiple of it, at most once per frame, whatever the output rate; 0 = every resample_every-th frame", NULL},
    {"eps_d", PFB_PARAM_DOUBLE, 0.6, 0.0, 10.0, "D", "down-sampling: merge pairs closer than eps_d spacings", NULL},
    {"r_min", PFB_PARAM_DOUBLE, 0.95, 0.0, 10.0, "D", "up-sampling: insert where a Delaunay circumradius exceeds r_min spacings", NULL},
    {"eps_m", PFB_PARAM_DOUBLE, 0.01, 0.0, 1.0, "m0", "up-sampling: no insertion below eps_m times the initial particle mass", NULL},
    {"delaunay_whole", PFB_PARAM_BOOL, 0, 0, 1, "", "up-sampling: triangulate every particle (true) or only those that can border an empty circle wider than r_min (false, the default: the same insertions, in less time and memory)", NULL},
    {"wall_margin", PFB_PARAM_DOUBLE, 0.25, 0.0, 1.0, "D", "position projection onto this distance from the walls (spacings)", NULL},
    {"wall_restitution", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "normal restitution of the wall projection", NULL},
    {"wall_friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "tangential velocity removed by the wall projection", NULL},
    {"cfl", PFB_PARAM_DOUBLE, 0.25, 0.01, 2.0, "1", "CFL number of the suggested time step", NULL},
    {"list_skin", PFB_PARAM_DOUBLE, 0.1, 0.01, 1.0, "1", "neighbour list radius h (1 + skin), kept until the moves since its build could bring a pair from beyond it within h (core/halflist.h)", NULL},
    {"simd", PFB_PARAM_INT, 2, 0, 2, "1", "the pair rows' arithmetic in four lanes up to this level, where the CPU has it: 0 portable C, 1 AVX2, 2 AVX2 compiled for AVX-512VL; the same bits at every level", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};
/* ---- small helpers ----------------------------------------------------------- */

int my_ensure_particles(my_state *s, size_t n, pfb_err *err)
{
    if (n <= s->cap_n)
        return PFB_OK;
    size_t nc = n + n / 4 + 64;
    double *a = realloc(s->acc, 3 * nc * sizeof *a);
    if (a)
        s->acc = a;
    double *a2 = realloc(s->acc2, 3 * nc * sizeof *a2);
    if (a2)
        s->acc2 = a2;
    double *gv = realloc(s->gradv, 9 * nc * sizeof *gv);
    if (gv)
        s->gradv = gv;
    double *bv = realloc(s->binv, 9 * nc * sizeof *bv);
    if (bv)
        s->binv = bv;
    double *ra = realloc(s->rart, 9 * nc * sizeof *ra);
    if (ra)
        s->rart = ra;
    double *rn = realloc(s->rho_n, nc * sizeof *rn);
    if (rn)
        s->rho_n = rn;
    unsigned char *sf = realloc(s->surface, nc);
    if (sf)
        s->surface = sf;
    unsigned char *dt = realloc(s->detached, nc);
    if (dt)
        s->detached = dt;
    unsigned char *nr = realloc(s->near, nc);
    if (nr)
        s->near = nr;
    unsigned char *wq = realloc(s->wq, nc);
    if (wq)
        s->wq = wq;
    uint32_t *ms = realloc(s->ms, (nc + 1) * sizeof *ms);
    if (ms)
        s->ms = ms;
    long *u = realloc(s->unk, nc * sizeof *u);
    if (u)
        s->unk = u;
    uint32_t *hn = realloc(s->hn, nc * sizeof *hn);
    if (hn)
        s->hn = hn;
    free(s->mark); /* made again by assemble_pressure */
    s->mark = NULL;
    s->mark_threads = 0;
    if (!a || !a2 || !gv || !bv || !ra || !rn || !sf || !dt || !nr || !wq || !ms || !u || !hn)
        return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu particles", n);
    s->cap_n = nc;
    return PFB_OK;
}


/* ---- SPH sums ------------------------------------------------------------------ */

/* The symmetric passes run over the kept half list (core/halflist.h) on the
 * blocked schedule (core/pairtasks.h): each real pair once, its term added to
 * both particles, every sum receiving its terms in one order whatever the
 * threads.  Each pass is three stages: zero the sums of a block, the pairs of
 * its rows, then per particle the self term, the mirrors (which act on real
 * particles only) and what follows from the complete sums. */


int my_run_pass(my_state *s, pfb_sim *sim, const pfb_stage st[3], my_pass *c, pfb_err *err)
{
    return pairtasks_run(&s->T, &s->L, st, 3, c, pairtasks_threads(sim), sim_parallel_pairs(sim, sim->p.n), err);
}

static void density_zero(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    memset(c->sim->p.field[s->f_rho].data + lo, 0, (hi - lo) * sizeof(double));
    if (c->grad) {
        memset(s->gradv + 9 * lo, 0, 9 * (hi - lo) * sizeof(double));
        memset(s->binv + 9 * lo, 0, 9 * (hi - lo) * sizeof(double));
    }
}

/* Eq. 16's products for the pair (i, j) (combined indices) at distance r > 0,
 * added to i's sums: G_i += m_j (v_j - v_i) (x) grad_i W_ij and B_i += m_j (x_j
 * - x_i) (x) grad_i W_ij; with Gj (a real pair) the same products to j's sums
 * with m_i (each factor changes sign). */
static inline void grad_products(const my_state *s, size_t i, size_t j, double r, double mj, double *Gi, double *Bi,
                                 double mi, double *Gj, double *Bj)
{
    const int dim = s->dim;
    const double f = kernel_cubic_dw(&s->cubic, r) / r;
    double gw[3], dx[3];
    for (int k = 0; k < dim; k++) {
        dx[k] = -pair_d(s, k, i, j); /* x_j - x_i */
        gw[k] = -f * dx[k];          /* grad_i W(x_i - x_j) */
    }
    for (int a = 0; a < dim; a++) {
        const double dv = pair_dv(s, a, i, j);
        for (int e = 0; e < dim; e++) {
            const double g = dv * gw[e], bb = dx[a] * gw[e];
            Gi[3 * a + e] += mj * g;
            Bi[3 * a + e] += mj * bb;
            if (Gj) {
                Gj[3 * a + e] += mi * g;
                Bj[3 * a + e] += mi * bb;
            }
        }
    }
}

/* eq. 4's pair terms m_j W(r_ij), and with grad eq. 16's sums before their
 * division by rho_i: G_i += m_j (v_j - v_i) (x) grad_i W_ij and B_i += m_j (x_j
 * - x_i) (x) grad_i W_ij; for j both products are the same (each factor
 * changes sign), times m_i. */
MY_INLINE void density_rows(const my_pass *c, size_t b, const int dim, const int per)
{
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const double *const x[3] = {s->xc[0], s->xc[1], s->xc[2]};
    const double hh = s->hh, *restrict m = p->m;
    const pfb_kernel cubic = s->cubic;
    const uint32_t *restrict ls = s->L.ls, *restrict lj = s->L.lj;
    double *restrict rho = p->field[s->f_rho].data, *restrict wq = c->wq;
    uint32_t *restrict hj = c->part ? s->hj : NULL;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        const double mi = m[i];
        double rho_i = rho[i]; /* (no entry of row i is i: its sum is local until the row ends) */
        size_t at = ls[i]; /* the next pair within h's place in hj */
        for (size_t q = ls[i]; q < ls[i + 1]; q++) {
            const size_t j = lj[q];
            double r;
            if (!within_g(s, x, hh, i, j, &r, dim, per))
                continue;
            const double w = kernel_cubic_w(&cubic, r), mj = m[j];
            if (hj) {
                if (wq)
                    wq[at] = w;
                hj[at++] = (uint32_t)j;
            }
            rho_i += mj * w;
            rho[j] += mi * w;
            if (!c->grad || !(r > 0))
                continue;
            grad_products(s, i, j, r, mj, s->gradv + 9 * i, s->binv + 9 * i, mi, s->gradv + 9 * j, s->binv + 9 * j);
        }
        rho[i] = rho_i;
        if (hj)
            s->hn[i] = (uint32_t)(at - ls[i]);
    }
}

/* the density rows without the gradient and the non-pressure rows without
 * the elastic terms in lanes (mao_yang_rows.inc), at every level */
#define MY_ROWS_DENSITY
#define MY_ROWS_NONPRESSURE
#define LANES_ROWS "../solvers/mao_yang_rows.inc"
#include "../core/lanes_levels.inc"
#undef LANES_ROWS
#undef MY_ROWS_DENSITY
#undef MY_ROWS_NONPRESSURE

static void density_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    if (c->s->lanes >= 0 && !c->grad && !period_any(&c->s->per, c->s->dim)) { /* (density_rows' sums, test_rows_lanes_round_off) */
        LANES_AT(c->s->lanes, density_block, c, b);
        return;
    }
    MY_GEOMETRY_DISPATCH(c->s, density_rows, c, b);
}

/* The self term and the mirrors' terms; with grad, then B_i and G_i divided by
 * rho_i (the weight m_j / rho_i, see the header), B_i's clamped inverse (or I
 * when grad_correction is off), the detached flag and G_i B_i^-1. */
static void density_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    if (s->lanes >= 0 && !c->grad && !period_any(&s->per, s->dim)) { /* (this loop's sums, in lanes) */
        LANES_AT(s->lanes, density_mirrors_block, c, b);
        return;
    }
    const pfb_particles *p = &c->sim->p;
    const size_t n = p->n;
    const int dim = s->dim;
    double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        double sum = rho[i] + p->m[i] * s->w0;
        double *G = s->gradv + 9 * i, *Bi = s->binv + 9 * i;
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            const size_t j = n + s->mj[q], js = s->g[s->mj[q]].src;
            const double r = pair_r(s, dim, i, j);
            sum += p->m[js] * kernel_cubic_w(&s->cubic, r);
            if (!c->grad || !(r > 0))
                continue;
            grad_products(s, i, j, r, p->m[js], G, Bi, 0.0, NULL, NULL);
        }
        rho[i] = sum;
        if (!c->grad)
            continue;
        double B[9], Gs[9], Bc[9];
        for (int k = 0; k < 9; k++) {
            B[k] = Bi[k] / sum;
            Gs[k] = G[k] / sum;
        }
        s->detached[i] = my_inverse_clamped(dim, B, s->corr_min, Bc) < s->corr_min;
        if (s->corr) {
            memcpy(Bi, Bc, sizeof Bc);
        } else {
            memset(Bi, 0, 9 * sizeof *Bi);
            for (int a = 0; a < dim; a++)
                Bi[4 * a] = 1.0;
        }
        for (int a = 0; a < 3; a++)
            for (int e = 0; e < 3; e++)
                G[3 * a + e] = Gs[3 * a] * Bi[e] + Gs[3 * a + 1] * Bi[3 + e] + Gs[3 * a + 2] * Bi[6 + e];
    }
}

static const pfb_stage density_stages[3] = {{0, density_zero}, {1, density_pairs}, {0, density_finish}};

/* The density pass c; with pcg_operator = pairs it lists the pairs within h
 * as it finds them (hj, hn: s->compact until the positions change). */
static int density_pass(my_state *s, pfb_sim *sim, my_pass *c, pfb_err *err)
{
    s->compact = 0;
    if (s->matfree) {
        int rc = pfb_grow((void **)&s->hj, &s->cap_hj, (size_t)s->L.ls[sim->p.n] + 4, sizeof *s->hj, err);
        if (rc)
            return rc;
        c->part = 1;
    }
    const int rc = my_run_pass(s, sim, density_stages, c, err);
    s->compact = !rc && c->part;
    return rc;
}

/* eq. 4: rho_i = sum_j m_j W(r_ij) with the cubic spline, self and mirrors
 * included; with grad also eq. 16's velocity gradient G_i into s->gradv, times
 * B_i^-1 (s->binv) when grad_correction is on (exact for linear velocity
 * fields), and s->detached. */
int my_compute_density(my_state *s, pfb_sim *sim, int grad, pfb_err *err)
{
    my_pass c = {s, sim, grad, NULL, NULL, NULL, NULL, 0};
    s->op_w = 0;
    return density_pass(s, sim, &c, err);
}

int my_compute_density_w(my_state *s, pfb_sim *sim, pfb_err *err)
{
    if (!s->matfree)
        return my_compute_density(s, sim, 0, err);
    s->op.L = &s->L;
    int rc = pairop_reserve(&s->op, sim->p.n, err);
    if (rc)
        return rc;
    my_pass c = {s, sim, 0, NULL, NULL, NULL, s->op.c, 0};
    rc = density_pass(s, sim, &c, err);
    s->op_w = !rc;
    return rc;
}

/* Surface particles, held at air pressure: rho*_i < beta rho_0, the MPS
 * criterion (Koshizuka and Oka, used by Premoze et al.). */
void my_surface_flags(my_state *s, pfb_sim *sim)
{
    const pfb_particles *p = &sim->p;
    const double *restrict rho = p->field[s->f_rho].data;
    size_t nsurf = 0, pin = 0;
    for (size_t i = 0; i < p->n; i++) {
        s->surface[i] = rho[i] < s->beta * s->rho0;
        nsurf += s->surface[i];
        pin = p->id[i] < p->id[pin] ? i : pin;
    }
    /* a fluid with no free surface (a periodic box) leaves the Poisson system
     * singular (a graph Laplacian: p up to a constant); the particle of smallest
     * id is then held at 0, and assemble_pressure and my_solve_pressure make the
     * source consistent and the mean pressure 0 (s->pinned) */
    s->pinned = nsurf == 0 && p->n > 0;
    if (s->pinned)
        s->surface[pin] = 1;
}

/* eq. 1 without pressure: gravity, viscosity (Mueller 2003 eq. 14, symmetrised),
 * the stress divergence sum_j m_j (T_i B_i^-1 / rho_i^2 + T_j B_j^-1 / rho_j^2)
 * grad_i W_ij and the artificial stress (see the header), into s->acc. */
/* Particle i's non-pressure acceleration from neighbour j (source js) at
 * distance r, added to a: viscosity, the stress divergence (eq. 10, corrected
 * gradients) and the artificial stress; Ti, Bi, Ri are i's tensors. */
static inline void nonpressure_pair(const my_state *s, const pfb_particles *p, const double *restrict rho, size_t n,
                                    size_t i, size_t j, size_t js, double r, const double Ti[9], const double *Bi,
                                    const double Ri[9], double a[3])
{
    const int dim = s->dim;
    double Tj[9], Bj[9], Rj[9];
    double mj = p->m[js], rj = rho[js];
    double lap = kernel_viscosity_lap(&s->visc, r);
    double cv = s->mu * mj * 2.0 / (rho[i] + rj) / s->rho0 * lap;
    for (int k = 0; k < dim; k++)
        a[k] += cv * pair_dv(s, k, i, j);
    if (!(r > 0) || !s->elastic)
        return;
    tensor_of(s, n, p->field[s->f_T].data, j, Tj);
    tensor_of(s, n, s->binv, j, Bj);
    double f = kernel_cubic_dw(&s->cubic, r) / r;
    double gw[3], gi[3] = {0, 0, 0}, gj[3] = {0, 0, 0};
    for (int b = 0; b < 3; b++)
        gw[b] = b < dim ? f * pair_d(s, b, i, j) : 0.0;
    for (int b = 0; b < dim; b++)
        for (int c = 0; c < dim; c++) {
            gi[b] += Bi[3 * b + c] * gw[c]; /* corrected gradients, B symmetric */
            gj[b] += Bj[3 * b + c] * gw[c];
        }
    double ci = mj / (rho[i] * rho[i]), cj = mj / (rj * rj);
    for (int k = 0; k < dim; k++)
        for (int b = 0; b < dim; b++)
            a[k] += ci * Ti[3 * k + b] * gi[b] + cj * Tj[3 * k + b] * gj[b];
    if (s->eps_art > 0) {
        double fr = kernel_cubic_w(&s->cubic, r) / s->w_d, fn = mj * fr * fr * fr * fr;
        tensor_of(s, n, s->rart, j, Rj);
        for (int k = 0; k < dim; k++)
            for (int b = 0; b < dim; b++)
                a[k] += fn * (Ri[3 * k + b] + Rj[3 * k + b]) * gw[b];
    }
}

void my_acc_zero(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    memset(s->acc + 3 * lo, 0, 3 * (hi - lo) * sizeof(double));
}

/* nonpressure_pair for a real pair, added to both: every term is m_j X for i
 * and -m_i X for j (X antisymmetric in i and j: the velocity difference, and
 * the symmetric stress and artificial-stress sums times grad_i W = -grad_j W). */
MY_INLINE void nonpressure_rows(const my_pass *c, size_t b, const int dim, const int per)
{
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const double *const x[3] = {s->xc[0], s->xc[1], s->xc[2]}, *const v[3] = {s->vc[0], s->vc[1], s->vc[2]};
    const double hh = s->hh, *restrict m = p->m, mu = s->mu, rho0 = s->rho0;
    const pfb_kernel visc = s->visc;
    const int elastic = s->elastic;
    const double *restrict rho = p->field[s->f_rho].data, *restrict T = p->field[s->f_T].data;
    double *restrict acc = s->acc;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        const double mi = m[i];
        double ai[3] = {acc[3 * i], acc[3 * i + 1], acc[3 * i + 2]}; /* (local until the row ends) */
        size_t len;
        const uint32_t *restrict row = my_row(s, i, &len);
        for (size_t q = 0; q < len; q++) {
            const size_t j = row[q];
            double r;
            if (!within_g(s, x, hh, i, j, &r, dim, per))
                continue;
            const double mj = m[j];
            double X[3] = {0, 0, 0};
            const double cv = mu * 2.0 / (rho[i] + rho[j]) / rho0 * kernel_viscosity_lap(&visc, r);
            for (int k = 0; k < dim; k++)
                X[k] = cv * pair_dv_g(s, v, k, i, j, per);
            if (r > 0 && elastic) {
                const double *Ti = T + 9 * i, *Tj = T + 9 * j, *Bi = s->binv + 9 * i, *Bj = s->binv + 9 * j;
                const double f = kernel_cubic_dw(&s->cubic, r) / r;
                double gw[3], gi[3] = {0, 0, 0}, gj[3] = {0, 0, 0};
                for (int e = 0; e < 3; e++)
                    gw[e] = e < dim ? f * pair_d_g(s, x, e, i, j, per) : 0.0;
                for (int e = 0; e < dim; e++)
                    for (int h = 0; h < dim; h++) {
                        gi[e] += Bi[3 * e + h] * gw[h]; /* corrected gradients, B symmetric */
                        gj[e] += Bj[3 * e + h] * gw[h];
                    }
                const double ci = 1.0 / (rho[i] * rho[i]), cj = 1.0 / (rho[j] * rho[j]);
                for (int k = 0; k < dim; k++)
                    for (int e = 0; e < dim; e++)
                        X[k] += ci * Ti[3 * k + e] * gi[e] + cj * Tj[3 * k + e] * gj[e];
                if (s->eps_art > 0) {
                    const double fr = kernel_cubic_w(&s->cubic, r) / s->w_d, f4 = fr * fr * fr * fr;
                    const double *Ri = s->rart + 9 * i, *Rj = s->rart + 9 * j;
                    for (int k = 0; k < dim; k++)
                        for (int e = 0; e < dim; e++)
                            X[k] += f4 * (Ri[3 * k + e] + Rj[3 * k + e]) * gw[e];
                }
            }
            for (int k = 0; k < dim; k++) {
                ai[k] += mj * X[k];
                acc[3 * j + (size_t)k] -= mi * X[k];
            }
        }
        for (int k = 0; k < dim; k++)
            acc[3 * i + (size_t)k] = ai[k];
    }
}

void my_set_rows(void *state, int level)
{
    my_state *s = state;
    s->lanes = level < 0 ? -1 : lanes_level(level);
    s->op_lanes = 1 + lanes_level(level < 0 ? 2 : level); /* (the same bits at every level) */
}

static void nonpressure_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    if (c->s->lanes >= 0 && !c->s->elastic && !period_any(&c->s->per, c->s->dim)) { /* (nonpressure_rows' sums) */
        LANES_AT(c->s->lanes, viscosity_block, c, b);
        return;
    }
    MY_GEOMETRY_DISPATCH(c->s, nonpressure_rows, c, b);
}

/* The mirrors' terms (nonpressure_pair) and gravity. */
static void nonpressure_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    if (s->lanes >= 0 && !s->elastic && !period_any(&s->per, s->dim)) { /* (this loop's sums, in lanes) */
        LANES_AT(s->lanes, viscosity_mirrors_block, c, b);
        return;
    }
    const pfb_sim *sim = c->sim;
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        double *a = s->acc + 3 * i;
        if (s->ms[i + 1] > s->ms[i]) {
            double Ti[9] = {0}, Ri[9] = {0};
            if (s->elastic)
                tensor_of(s, n, p->field[s->f_T].data, i, Ti);
            if (s->elastic && s->eps_art > 0)
                tensor_of(s, n, s->rart, i, Ri);
            for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
                const size_t j = n + s->mj[q];
                nonpressure_pair(s, p, rho, n, i, j, s->g[s->mj[q]].src, pair_r(s, s->dim, i, j), Ti, s->binv + 9 * i,
                                 Ri, a);
            }
        }
        for (int k = 0; k < s->dim; k++)
            a[k] += sim->g[k];
    }
}

static const pfb_stage nonpressure_stages[3] = {{0, my_acc_zero}, {1, nonpressure_pairs}, {0, nonpressure_finish}};

static int nonpressure_accel(my_state *s, pfb_sim *sim, pfb_err *err)
{
    my_pass c = {s, sim, 0, NULL, NULL, NULL, NULL, 0};
    return my_run_pass(s, sim, nonpressure_stages, &c, err);
}

int my_rows_sums(void *state, pfb_sim *sim, int level, double *rho, double *acc_v, double *acc_p, pfb_err *err)
{
    my_state *s = state;
    const size_t n = sim->p.n;
    const int lanes = s->lanes, op_lanes = s->op_lanes;
    my_set_rows(s, level);
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (!rc)
        rc = my_compute_density(s, sim, 0, err);
    if (!rc) {
        memcpy(rho, sim->p.field[s->f_rho].data, n * sizeof *rho);
        rc = nonpressure_accel(s, sim, err);
    }
    if (!rc) {
        memcpy(acc_v, s->acc, 3 * n * sizeof *acc_v);
        rc = my_pressure_accel(s, sim, sim->p.field[s->f_p].data, sim->p.field[s->f_pd].data, err);
    }
    if (!rc) {
        memcpy(acc_p, s->acc, 3 * n * sizeof *acc_p);
        memcpy(acc_p + 3 * n, s->acc2, 3 * n * sizeof *acc_p);
    }
    s->lanes = lanes;
    s->op_lanes = op_lanes;
    return rc;
}

/* The bodies' share of the non-pressure forces: minus what every particle's
 * velocity receives over dt from the mirrors across a body (nonpressure_pair
 * with those mirrors, times m_i dt), at the surface point midway between them. */
static void body_nonpressure_impulse(my_state *s, pfb_sim *sim, double dt)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const int dim = sim->dim;
    const double *restrict rho = p->field[s->f_rho].data;
    if (sim->bodies.n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        double Ti[9] = {0}, Ri[9] = {0};
        int have = !s->elastic; /* without a stress the pair has no stress terms */
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            size_t j = n + s->mj[q];
            if (s->g[j - n].body < 0)
                continue;
            if (!have) {
                tensor_of(s, n, p->field[s->f_T].data, i, Ti);
                if (s->eps_art > 0)
                    tensor_of(s, n, s->rart, i, Ri);
                have = 1;
            }
            double a[3] = {0, 0, 0}, J[3] = {0, 0, 0}, at[3] = {0, 0, 0};
            nonpressure_pair(s, p, rho, n, i, j, s->g[j - n].src, pair_r(s, dim, i, j), Ti, s->binv + 9 * i, Ri, a);
            for (int k = 0; k < dim; k++) {
                J[k] = -p->m[i] * dt * a[k];
                at[k] = s->xc[k][i] - 0.5 * pair_d(s, k, i, j);
            }
            body_apply_impulse(&sim->bodies.b[s->g[j - n].body], dim, at, J);
        }
    }
}

/* ---- the step ------------------------------------------------------------------- */

/* Whether this step carries an elastic stress: an elastic modulus mu_e > 0 (the
 * parameter, or a particle's own) or a stress already there.  Without one,
 * eq. 9 keeps T = 0 (its rate is Omega(0) + 0 D' - 0 / lambda = 0), so the step
 * skips what only the stress needs: the velocity gradient and B (eq. 16), the
 * stress update, the artificial stress and the stress terms of the pairs (a
 * Newtonian fluid, the calibrated preset's, as muller computes it). */
static int stress_active(const my_state *s, const pfb_sim *sim)
{
    const pfb_particles *p = &sim->p;
    if (s->mu_e > 0)
        return 1;
    if (s->f_mue >= 0)
        for (size_t i = 0; i < p->n; i++)
            if (p->field[s->f_mue].data[i] > 0)
                return 1;
    const double *T = p->field[s->f_T].data;
    for (size_t k = 0; k < 9 * p->n; k++)
        if (T[k] != 0)
            return 1;
    return 0;
}

static int mao_yang_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    my_state *s = state;
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double t1 = sim->t + dt;
    lanes_clean_upper(); /* what library code left in the vector registers (core/lanes.h) */
    /* 1. at x_n: density, velocity gradient, non-pressure accelerations */
    s->elastic = stress_active(s, sim);
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (!rc)
        rc = my_compute_density(s, sim, s->elastic, err);
    if (rc)
        return rc;
    /* 2. stress, eq. 9, before the force it exerts: T_{n+1} from v_n, then v from
     * T_{n+1} (symplectic Euler; both from the old values is forward Euler on an
     * oscillator, whose amplitude grows by (1 + (c_s k dt)^2)^(1/2) per step) */
    if (s->elastic) {
        my_update_stress(s, sim, dt);
        if (s->eps_art > 0)
            my_artificial_stress(s, sim);
    }
    rc = nonpressure_accel(s, sim, err);
    if (rc)
        return rc;
    body_nonpressure_impulse(s, sim, dt);
    /* 3. prediction */
    for (int k = 0; k < dim; k++)
        for (size_t i = 0; i < p->n; i++) {
            p->v[k][i] += dt * s->acc[3 * i + (size_t)k];
            p->x[k][i] += dt * p->v[k][i];
        }
    sim_project_walls(sim, t1, s->margin, s->e, s->fric);
    sim_bodies_couple(sim, dt, t1, s->margin, s->fric); /* rigid bodies: see core/sim.h and the header */
    /* 4. pressure at x*: the list kept or made again (a rebuild sorts the
     * storage; the density field, still rho_n, moves with the particles) */
    rc = my_neighbours(s, sim, t1, 0, err); /* (no velocities read at x*: vc is not made) */
    if (rc)
        return rc;
    memcpy(s->rho_n, p->field[s->f_rho].data, p->n * sizeof *s->rho_n);
    rc = my_compute_density_w(s, sim, err);
    if (rc)
        return rc;
    my_surface_flags(s, sim);
    const double t_p = pfb_now();
    rc = my_solve_pressure(s, sim, dt, err);
    s->seconds_pressure += pfb_now() - t_p;
    if (rc)
        return rc;
    /* 5. correction: positions by the whole pressure, velocities by the whole
     * pressure (the paper) or by its divergence part only (density_correction =
     * position, see the header) */
    rc = my_pressure_accel(s, sim, p->field[s->f_p].data, s->pos_only ? p->field[s->f_pd].data : NULL, err);
    if (rc)
        return rc;
    for (int k = 0; k < dim; k++)
        for (size_t i = 0; i < p->n; i++) {
            double du = dt * s->acc[3 * i + (size_t)k];
            p->x[k][i] += dt * du;
            p->v[k][i] += s->pos_only ? dt * s->acc2[3 * i + (size_t)k] : du;
        }
    /* the bodies get the reaction of the velocity correction's mirror terms */
    my_body_pressure_impulse(s, sim, p->field[s->pos_only ? s->f_pd : s->f_p].data, dt);
    sim_project_walls(sim, t1, s->margin, s->e, s->fric);
    /* the correction can move a particle into a body: the coupling again, the
     * bodies not advancing (dt = 0) */
    sim_bodies_couple(sim, 0.0, t1, s->margin, s->fric);
    sim_positions_changed(sim);
    return PFB_OK;
}

/* Whether frame `frame` (1, 2, ...), ending at sim->t, re-samples: never with
 * resample_every = 0; at frame 0 (the benchmarks' timed call, core/solver.h)
 * always; with resample_interval = I > 0 when the frame, from
 * t (frame - 1) / frame to t, reaches a multiple of I (the frames are of equal
 * length from t = 0; 1e-9 of I absorbs the round-off of t, so at 30 frames per
 * second and I = 1/30 s every frame re-samples); with I = 0 every
 * resample_every-th frame. */
static int resample_due(const my_state *s, const pfb_sim *sim, long frame)
{
    if (s->resample_every <= 0)
        return 0;
    if (frame == 0)
        return 1;
    if (!(s->resample_interval > 0))
        return frame % s->resample_every == 0;
    const double now = sim->t / s->resample_interval, before = now * (double)(frame - 1) / (double)frame;
    return floor(now + 1e-9) > floor(before + 1e-9);
}

/* §5: re-sampling at the end of a frame that resample_due picks.  Eq. 7 keeps
 * rho_0 as every particle's rest density, also for the merged and inserted
 * particles (see the header). */
static int resample_frame(void *state, pfb_sim *sim, pfb_err *err)
{
    my_state *s = state;
    /* densities for eq. 19 at the current positions */
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (!rc)
        rc = my_compute_density(s, sim, 0, err);
    if (rc)
        return rc;
    /* the solve's scratch, built again by the next step, the pairs the
     * density listed and the mirrors: not beside the triangulation */
    my_pressure_release(s);
    my_mirrors_release(s, sim->p.n);
    rc = my_downsample(sim, &s->rp, &s->rs, err);
    if (!rc)
        rc = my_upsample(sim, &s->rp, &s->rs, err);
    if (!rc)
        rc = my_ensure_particles(s, sim->p.n, err);
    /* a merged pair's centre of mass can lie inside a body (a chord across it) */
    sim_bodies_couple(sim, 0.0, sim->t, s->margin, s->fric);
    sim_positions_changed(sim);
    return rc;
}

static int mao_yang_frame(void *state, pfb_sim *sim, long frame, pfb_err *err)
{
    my_state *s = state;
    if (!resample_due(s, sim, frame))
        return PFB_OK;
    const double t0 = pfb_now();
    int rc = resample_frame(state, sim, err);
    s->seconds_resample += pfb_now() - t0;
    return rc;
}

/* ---- create, destroy, time step, diagnostics --------------------------------------- */

static void mao_yang_destroy(void *state)
{
    my_state *s = state;
    if (!s)
        return;
    free(s->g);
    for (int k = 0; k < 3; k++) {
        free(s->xc[k]);
        free(s->vc[k]);
    }
    grid_free(&s->grid);
    nlist_free(&s->nl);
    halflist_free(&s->L);
    fulllist_free(&s->F);
    pairtasks_free(&s->T);
    for (int k = 0; k < 3; k++)
        free(s->cx[k]);
    free(s->cidx);
    free(s->near);
    free(s->wq);
    free(s->gs);
    free(s->mseg);
    free(s->wbox);
    for (int t = 0; t < PFB_MAX_THREADS; t++)
        free(s->me[t]);
    free(s->ms);
    free(s->mj);
    free(s->acc);
    free(s->acc2);
    free(s->gradv);
    free(s->binv);
    free(s->rart);
    free(s->surface);
    free(s->detached);
    free(s->unk);
    free(s->hn);
    free(s->mark);
    my_pressure_release(s); /* the solve's scratch */
    free(s->A.col);
    free(s->A.val);
    amg_free(&s->amg);
    free(s->mcw);
    free(s->mcv);
    free(s->rho_n);
    free(s);
}

struct r2w_ctx {
    const pfb_kernel *w;
    double spacing;
};

static double r2w_term(double r, void *ctx)
{
    const struct r2w_ctx *c = ctx;
    double d = r * c->spacing;
    return d * d * kernel_w(c->w, d);
}

static int field_or_add(pfb_particles *p, const char *name, int ncomp, int *idx, pfb_err *err)
{
    int f = particles_find_field(p, name);
    if (f >= 0) {
        if (p->field[f].ncomp != ncomp)
            return pfb_err_set(err, PFB_EINVAL, "mao_yang: particle field '%s' has %d components; valid: %d", name,
                               p->field[f].ncomp, ncomp);
        *idx = f;
        return PFB_OK;
    }
    return particles_add_field(p, name, ncomp, idx, err);
}

static int mao_yang_create(const pfb_params *pp, pfb_sim *sim, void **out, pfb_err *err)
{
    *out = NULL;
    my_state *s = calloc(1, sizeof *s);
    if (!s)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory creating the mao_yang solver");
    const double D = sim->spacing;
    s->dim = sim->dim;
    s->h = params_get(pp, "h_factor") * D;
    s->hh = s->h * s->h;
    s->mu = params_get(pp, "viscosity");
    s->mu_e = params_get(pp, "mu_e");
    s->lambda = params_get(pp, "lambda");
    s->gamma = params_get(pp, "yield");
    s->rot = params_get_int(pp, "rotational_term");
    s->corr = params_get_int(pp, "grad_correction");
    s->corr_min = params_get(pp, "grad_correction_min");
    s->eps_art = params_get(pp, "my_artificial_stress");
    s->beta = params_get(pp, "surface_beta");
    s->tol = params_get(pp, "pcg_tol");
    s->stop = params_get_int(pp, "pcg_stop");
    s->eta = params_get(pp, "pcg_eta");
    s->eta_div = params_get(pp, "pcg_eta_div");
    s->max_iter = params_get_int(pp, "pcg_max_iter");
    s->precond = params_get_int(pp, "pcg_precond");
    s->matfree = params_get_int(pp, "pcg_operator") == 0;
    s->no_slip = params_get_int(pp, "wall_no_slip");
    s->resample_every = params_get_int(pp, "resample_every");
    s->resample_interval = params_get(pp, "resample_interval");
    s->e = params_get(pp, "wall_restitution");
    s->fric = params_get(pp, "wall_friction");
    s->cfl = params_get(pp, "cfl");
    s->pform = params_get_int(pp, "pressure_form");
    s->pos_only = params_get_int(pp, "density_correction");
    s->lanes = lanes_level(params_get_int(pp, "simd"));
    s->op_lanes = 1 + s->lanes;
    s->margin = params_get(pp, "wall_margin") * D;
    s->m0 = sim->p.n ? particles_total_mass(&sim->p) / (double)sim->p.n : 0.0;
    /* a tolerance given for the rule not in force would be silently ignored */
    if (s->stop == MY_STOP_RESIDUAL && (params_is_set(pp, "pcg_eta") || params_is_set(pp, "pcg_eta_div"))) {
        free(s);
        return pfb_err_set(err, PFB_EINVAL, "mao_yang: pcg_eta and pcg_eta_div apply to pcg_stop = density, and "
                           "pcg_stop is residual; valid: pcg_stop = density with them, or pcg_tol");
    }
    if (s->precond == PFB_PRECOND_AMG && s->matfree) {
        free(s);
        return pfb_err_set(err, PFB_EINVAL, "mao_yang: pcg_operator = pairs stores no matrix, and pcg_precond = amg "
                           "needs one; valid: pcg_operator = matrix with amg, or pcg_precond = jacobi or none");
    }
    if (s->resample_every > 1 && s->resample_interval > 0) {
        const long every = s->resample_every;
        free(s);
        return pfb_err_set(err, PFB_EINVAL, "mao_yang: resample_every = %ld counts frames, which applies with "
                           "resample_interval = 0, and resample_interval is %g s; valid: resample_interval = 0 with "
                           "it, or resample_every 0 (never) or 1", every,
                           params_get(pp, "resample_interval"));
    }
    if (s->stop == MY_STOP_DENSITY && params_is_set(pp, "pcg_tol")) {
        free(s);
        return pfb_err_set(err, PFB_EINVAL, "mao_yang: pcg_tol applies to pcg_stop = residual, and pcg_stop is "
                           "density; valid: pcg_stop = residual with it, or pcg_eta and pcg_eta_div");
    }
    int rc = kernel_init(&s->cubic, PFB_KERNEL_CUBIC, sim->dim, s->h, err);
    if (!rc)
        rc = kernel_init(&s->spiky, PFB_KERNEL_SPIKY, sim->dim, s->h, err);
    if (!rc)
        rc = kernel_init(&s->visc, PFB_KERNEL_VISCOSITY, sim->dim, s->h, err);
    if (!rc)
        rc = field_or_add(&sim->p, "density", 1, &s->f_rho, err);
    if (!rc)
        rc = field_or_add(&sim->p, "pressure", 1, &s->f_p, err);
    if (!rc)
        rc = field_or_add(&sim->p, "pressure_div", 1, &s->f_pd, err);
    if (!rc)
        rc = field_or_add(&sim->p, "stress", 9, &s->f_T, err);
    if (rc) {
        mao_yang_destroy(s);
        return rc;
    }
    s->f_mue = particles_find_field(&sim->p, "mu_e");
    s->f_lam = particles_find_field(&sim->p, "lambda");
    s->w0 = kernel_cubic_w(&s->cubic, 0.0);
    s->w_d = kernel_cubic_w(&s->cubic, D);
    const int calibrate = params_calibrate_rest_density(pp, "mao_yang", err);
    if (calibrate < 0) {
        mao_yang_destroy(s);
        return PFB_EINVAL;
    }
    s->rho0 = calibrate ? lattice_density(&s->cubic, D, s->m0) : params_get(pp, "rest_density");
    if (s->mu < 0)
        s->mu = params_get(pp, "viscosity_alpha") * s->rho0 * sim->v_ref * s->h;
    if (!(s->rho0 > 0) || !(s->m0 > 0)) {
        rc = pfb_err_set(err, PFB_EINVAL, "mao_yang: rest density %g and particle mass %g must be positive", s->rho0,
                         s->m0);
        mao_yang_destroy(s);
        return rc;
    }
    /* kappa: kappa sum_j (p_i - p_j) c_ij = -(1/rho_0) lap p on the lattice for p = |x - x_i|^2 / 2 */
    struct r2w_ctx rc2 = {&s->cubic, D};
    double S = lattice_sum(sim->dim, s->h / D, r2w_term, &rc2);
    s->kappa = 8.0 * sim->dim * s->rho0 / (s->m0 * S);
    s->rp.eps_d = params_get(pp, "eps_d") * D;
    s->rp.r_min = params_get(pp, "r_min") * D;
    s->rp.eps_m = params_get(pp, "eps_m") * s->m0;
    s->rp.h = s->h;
    s->rp.f_rho = s->f_rho;
    s->rp.whole = params_get_int(pp, "delaunay_whole");
    if (s->resample_every > 0 && !(s->rp.eps_d < s->rp.r_min)) {
        rc = pfb_err_set(err, PFB_EINVAL, "mao_yang: eps_d %g must be below r_min %g (section 5.1); valid: eps_d < r_min",
                         params_get(pp, "eps_d"), params_get(pp, "r_min"));
        mao_yang_destroy(s);
        return rc;
    }
    s->per = sim->period;
    halflist_init(&s->L, sim, s->h, halflist_skin(sim, s->h, params_get(pp, "list_skin"), params_is_set(pp, "list_skin")));
    s->F = (pfb_fulllist)PFB_FULLLIST_EMPTY;
    rc = grid_init(&s->grid, sim->dim, s->h, err);
    if (!rc)
        rc = my_ensure_particles(s, sim->p.n, err);
    if (rc) {
        mao_yang_destroy(s);
        return rc;
    }
    *out = s;
    return PFB_OK;
}

static double mao_yang_suggest_dt(const void *state, const pfb_sim *sim)
{
    const my_state *s = state;
    double mu_e = s->mu_e, lam = s->lambda;
    for (size_t i = 0; i < sim->p.n; i++) {
        mu_e = fmax(mu_e, material(sim, s->f_mue, i, s->mu_e));
        lam = fmin(lam, material(sim, s->f_lam, i, s->lambda));
    }
    double cs = sqrt(mu_e / s->rho0);
    double dt = s->cfl * sim->spacing / (sim->v_ref + cs); /* the shortest wave spans 2 spacings */
    dt = fmin(dt, 0.5 * lam);
    if (s->mu > 0)
        dt = fmin(dt, 0.125 * s->h * s->h * s->rho0 / s->mu);
    double g = sqrt(sim->g[0] * sim->g[0] + sim->g[1] * sim->g[1] + sim->g[2] * sim->g[2]);
    if (g > 0)
        dt = fmin(dt, 0.25 * sqrt(s->h / g));
    return dt;
}

static const char *const mao_yang_diag_names[] = {"rho0",   "pcg_iters", "pcg_iters_mean", "pcg_residual", "n_surface",
                                                  "merged", "inserted",  "stress_max",     NULL};

static void mao_yang_diag(const void *state, const pfb_sim *sim, double *values)
{
    const my_state *s = state;
    const double *T = sim->p.field[s->f_T].data;
    double mx = 0.0;
    for (size_t i = 0; i < sim->p.n; i++) {
        double nt = 0.0;
        for (int k = 0; k < 9; k++)
            nt += T[9 * i + k] * T[9 * i + k];
        mx = fmax(mx, sqrt(nt));
    }
    values[0] = s->rho0;
    values[1] = s->steps ? (double)s->last_iters : NAN;
    values[2] = s->steps ? (double)s->iters_total / (double)s->steps : NAN;
    values[3] = s->steps ? s->last_resid : NAN;
    values[4] = s->steps ? (double)s->n_surface : NAN;
    values[5] = (double)s->rs.merged;
    values[6] = (double)s->rs.inserted;
    values[7] = mx;
}

/* Where a step's time goes: the pressure solve (assembly + PCG, eqs. 7-8), the
 * whole re-sampling of a frame (section 5), and within it the Delaunay
 * triangulation (section 5.1). */
static const char *const mao_yang_timer_names[] = {"pressure", "resample", "delaunay", NULL};

static void mao_yang_timers(const void *state, double *seconds)
{
    const my_state *s = state;
    seconds[0] = s->seconds_pressure;
    seconds[1] = s->seconds_resample;
    seconds[2] = s->rs.seconds_delaunay;
}

/* The pair virial (solver.h) at the current state, over the real neighbours
 * (a free drop has no mirrors).  The pressure's pair force is eq. 5's, f_ij =
 * m_i c_ij r_ij with c_ij pressure_pair's coefficient (the density and
 * pressure fields of the last step; the pressure whose gradient changed the
 * velocities).  In the difference form (and the split form's negative part)
 * the two terms of a pair are not equal and opposite; each particle's own
 * term is taken.
 *
 * The trace, the diagonal and the shear term diag[3] (the rheometer's
 * sigma_xy, and its normal stress differences from the diagonal) take every
 * pair force the step applies but the artificial stress: the pressure's, eq. 1's
 * viscosity, m_i m_j mu 2 / ((rho_i + rho_j) rho_0) lap W (v_j - v_i), and
 * eq. 10's stress divergence, m_i m_j (T_i B_i / rho_i^2 + T_j B_j / rho_j^2)
 * grad_i W, with B made again from the current positions (the step's B belongs
 * to the storage order before its last sort).  With B the virial of the
 * stress term is exactly minus the volume-weighted sum of T (sum_j (m_j /
 * rho_i) r_ij (x) B_i grad W = -I), so sigma_xy is the mean T_xy plus the
 * viscous stress.  The artificial stress is a numerical repulsion against the
 * tensile instability, of order eps |T| W^4 / W(dx)^4, not part of the
 * material. */
static double mao_yang_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[4])
{
    const my_state *s = state;
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    if (sim_neighbours_fresh(sim, s->h, &nl, &err)) {
        nlist_free(&nl);
        return NAN;
    }
    /* the pressure the velocities received (density_correction = position: its
     * divergence part), as my_body_pressure_impulse */
    const double *rho = p->field[s->f_rho].data, *pr = p->field[s->f_p].data;
    if (s->pos_only)
        pr = p->field[s->f_pd].data;
    const double *T = s->f_T >= 0 ? p->field[s->f_T].data : NULL;
    double *B = NULL;
    if (s->elastic && T) { /* eq. 16's B_i at the current positions */
        B = calloc(9 * (p->n ? p->n : 1), sizeof *B);
        if (!B) {
            nlist_free(&nl);
            return NAN;
        }
        for (size_t i = 0; i < p->n; i++) {
            double Bs[9] = {0};
            for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
                const size_t j = nl.idx[q];
                double d[3];
                sim_pair_diff(sim, i, j, d);
                const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                if (!(r > 0))
                    continue;
                const double f = kernel_cubic_dw(&s->cubic, r) / r;
                for (int a = 0; a < dim; a++)
                    for (int e = 0; e < dim; e++)
                        Bs[3 * a + e] += p->m[j] * (-d[a]) * (f * d[e]) / rho[i];
            }
            if (s->corr)
                my_inverse_clamped(dim, Bs, s->corr_min, B + 9 * i);
            else
                for (int a = 0; a < dim; a++)
                    B[9 * i + 4 * (size_t)a] = 1.0;
        }
    }
    double W = 0.0, D[3] = {0.0, 0.0, 0.0}, S = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            double d[3];
            const double kk = period_diff(&sim->period, dim, (const double *const *)p->x, i, j, d);
            const double r2 = period_dist2(&sim->period, dim, (const double *const *)p->x, i, j);
            const double r = sqrt(r2);
            if (!(r > 0))
                continue;
            const double c = 0.5 * p->m[i] * pressure_pair(s, p, rho, pr, i, j, r); /* f_ij = 2 c r_ij */
            /* the force on i from j: the pressure's, the viscosity's, the stress divergence's */
            double f[3] = {0.0, 0.0, 0.0};
            const double cv = p->m[i] * p->m[j] * s->mu * 2.0 / ((rho[i] + rho[j]) * s->rho0) *
                              kernel_viscosity_lap(&s->visc, r);
            for (int a = 0; a < dim; a++)
                f[a] = 2.0 * c * d[a] + cv * (p->v[a][j] - p->v[a][i] + (a == 0 ? period_le_dv(&sim->period, kk) : 0.0));
            if (B) {
                const double fw = kernel_cubic_dw(&s->cubic, r) / r;
                const double *Ti = T + 9 * i, *Tj = T + 9 * j, *Bi = B + 9 * i, *Bj = B + 9 * j;
                double gi[3] = {0, 0, 0}, gj[3] = {0, 0, 0};
                for (int e = 0; e < dim; e++)
                    for (int h = 0; h < dim; h++) {
                        gi[e] += Bi[3 * e + h] * fw * d[h];
                        gj[e] += Bj[3 * e + h] * fw * d[h];
                    }
                for (int a = 0; a < dim; a++)
                    for (int e = 0; e < dim; e++)
                        f[a] += p->m[i] * p->m[j] *
                                (Ti[3 * a + e] * gi[e] / (rho[i] * rho[i]) + Tj[3 * a + e] * gj[e] / (rho[j] * rho[j]));
            }
            for (int a = 0; a < dim; a++) {
                W += 0.5 * d[a] * f[a];
                D[a] += 0.5 * d[a] * f[a];
            }
            S += 0.5 * d[1] * f[0];
        }
    }
    nlist_free(&nl);
    free(B);
    if (diag) {
        memcpy(diag, D, sizeof D);
        diag[3] = S;
    }
    return W;
}

/* Checkpoints: the solve's and the re-sampling's counters, and the list's
 * builds (the pressures, stresses and reference densities are fields). */
static int mao_yang_save(const void *state, const pfb_sim *sim, pfb_ckpt_w *w, pfb_err *err)
{
    (void)err;
    const my_state *s = state;
    ckpt_put_many(w, "MYST", &s->steps, sizeof s->steps, &s->iters_total, sizeof s->iters_total, &s->last_iters,
                  sizeof s->last_iters, &s->last_resid, sizeof s->last_resid, &s->n_surface, sizeof s->n_surface,
                  &s->rs, sizeof s->rs, (void *)NULL);
    halflist_save(&s->L, sim, w);
    return PFB_OK;
}

static int mao_yang_load(void *state, pfb_sim *sim, pfb_ckpt_r *r, pfb_err *err)
{
    my_state *s = state;
    char buf[sizeof s->steps + sizeof s->iters_total + sizeof s->last_iters + sizeof s->last_resid +
             sizeof s->n_surface + sizeof s->rs];
    int rc = ckpt_get_exact(r, "MYST", buf, sizeof buf, err);
    if (rc)
        return rc;
    const char *b = buf;
    memcpy(&s->steps, b, sizeof s->steps);
    b += sizeof s->steps;
    memcpy(&s->iters_total, b, sizeof s->iters_total);
    b += sizeof s->iters_total;
    memcpy(&s->last_iters, b, sizeof s->last_iters);
    b += sizeof s->last_iters;
    memcpy(&s->last_resid, b, sizeof s->last_resid);
    b += sizeof s->last_resid;
    memcpy(&s->n_surface, b, sizeof s->n_surface);
    b += sizeof s->n_surface;
    memcpy(&s->rs, b, sizeof s->rs);
    int rebuilt;
    return halflist_load(&s->L, sim, r, &rebuilt, err);
}

const pfb_solver_ops pfb_solver_mao_yang = {
    "mao_yang",
    "H. Mao, Y.-H. Yang. A particle-based model for non-Newtonian fluid animation. University of Alberta",
    mao_yang_params,
    mao_yang_create,
    mao_yang_step,
    mao_yang_destroy,
    mao_yang_suggest_dt,
    mao_yang_diag_names,
    mao_yang_diag,
    NULL,
    mao_yang_frame,
    mao_yang_timer_names,
    mao_yang_timers,
    mao_yang_pair_virial,
    mao_yang_save,
    mao_yang_load,
    {2200.0, 5600.0},
    PFB_STRESS_GRADIENT};

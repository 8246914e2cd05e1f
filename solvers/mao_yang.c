/* mao_yang.c — H. Mao, Y.-H. Yang, "A Particle-Based Model for Non-Newtonian Fluid
 * Animation" (University of Alberta); text in ../shared/papers/mao-yang-nonnewtonian.txt.
 *
 * The paper's equations and where each lives:
 *   eq. 1   momentum        dv/dt = -grad p / rho + div T / rho + mu lap v / rho + f / rho
 *   eqs. 2-4 SPH interpolation and density with the cubic spline, q = 2r/h ... compute_density
 *   eqs. 5-6 pressure acceleration with the spiky gradient ................... pressure_accel
 *   eq. 7   pressure Poisson equation, eq. 8 its SPH Laplacian ...... assemble_pressure, or
 *           over the pairs without a matrix ......... pressure_operator (core/pairop.h)
 *           solved by preconditioned conjugate gradients ...... solve_pressure (core/pcg.h)
 *   eqs. 9-15 corotational Maxwell rate, rotation tensor, strain tensors ...... stress_rate
 *   eq. 16  velocity gradient ........................... compute_density (grad_products)
 *   eq. 17  von Mises yield .................................................. stress_rate
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
 * Corrections to the printed equations, and why:
 *  - eq. 5's sum is printed without its minus sign; with it, positive pressure
 *    pushes particles apart (Monaghan 1992, which the paper cites for it).
 *    (The default uses the difference form; see below.)
 *  - eq. 8 as printed, sum_j (p_i - p_j) (m_i + m_j) / (2 (rho_i + rho_j)^2) W_ij, is
 *    minus a Laplacian (for p_i a local maximum it is positive) and is short of a
 *    factor 1/length^2 (W has units 1/m^dim, so the sum has units of p / rho times
 *    m^2 / m^2 ... of p m^dim / kg, not p / (rho m^2)).  We keep the paper's weights
 *    and multiply by one constant kappa (1/m^2), calibrated so that on the initial
 *    lattice the sum equals -(1/rho) lap p exactly for a quadratic p; eq. 7's sign
 *    follows: kappa sum_j (p_i - p_j) c_ij = (rho*_i - rho_0) / (rho_0 dt^2).  The
 *    matrix A_ii = kappa sum_j c_ij, A_ij = -kappa c_ij is then symmetric, diagonally
 *    dominant and positive definite once a row touches a surface particle (p = 0).
 *  - eq. 13 divides the trace by 3 (3D); in 2D the traceless part divides by 2.
 *  - eq. 17 "replaces T with T'" in eq. 9: we take it in the relaxation term,
 *    dT/dt = Omega + mu_e/2 D' - T'/lambda, so below the yield value gamma the
 *    material is elastic (no relaxation) and above it the excess relaxes — the von
 *    Mises behaviour of Goktekin et al. 2004 the paper refers to.  gamma = 0 gives
 *    T' = T, the plain Maxwell model.
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
 *  - Walls (§3: "the method in [Muller et al. 2004]", no details): mirror particles.
 *    Every particle within h of a wall has a mirror image across the wall's
 *    tangent plane (across each near face of a box container, corners included),
 *    with its mass, density, pressure (Neumann: dp/dn = 0), mirrored stress and
 *    the reflected velocity (free slip, the walls of every method here, so that
 *    a comparison of methods is not one of boundary conditions), or with
 *    wall_no_slip the no-slip velocity 2 v_wall - v (spinning walls included).
 *    Mirrors enter the density, the velocity gradient, the viscosity, the
 *    stress divergence, the pressure force and the pressure matrix (a mirror
 *    j' of j couples i to p_j), so a particle at a wall has a full neighbourhood.
 *    A position projection onto spacing/4 from the walls backs this up.
 *  - Pressure gradient (pressure_form = split, the default): eq. 5's symmetric sum
 *    over the positive parts of the pressures plus the difference form
 *    -(1/rho_i) sum_j V_j (p_j - p_i) grad W over the negative parts (p = p+ + p-,
 *    each term a gradient estimate of its part).  Both pure forms stay available,
 *    and each fails one of the paper's scenes (2D, measured):
 *      difference: no force between particles of equal pressure, so nothing undoes
 *      the pairs the elastic stress pulls together: in the balls scene nearest
 *      neighbours came to 0.02 D and the soft ball (mu_e = 1e3, lambda = 1 s)
 *      blew up at 0.4 s (measured with the paper's velocity correction, below);
 *      with the position correction the balls still blew up, at 0.91 s;
 *      sum: negative pressures attract (SPH's tensile instability, Swegle et al.
 *      1995): the stretched column clumps and tears (colour-field volume 0.61 at
 *      0.15 s, 1700 insertions) and the balls with re-sampling blew up at 0.26 s.
 *    The split keeps the sum's repulsion under compression and the difference's
 *    freedom from attraction under tension: the balls run 2 s and the stretched
 *    column keeps its volume.  Clamping negative pressures to 0 instead is wrong
 *    where the free surface needs them (a stretched column's sides carry
 *    p = T_xx < 0): the column fell apart (volume 0.37 at 0.12 s).
 *  - Artificial stress against the tensile instability of the elastic stress
 *    (Monaghan 2000; Gray, Monaghan and Swift 2001), epsilon = 0.2 as they
 *    recommend, exponent 4, reference W(D): R_i = -eps sum_k max(t_k, 0) e_k e_k^T
 *    over T_i's principal tensions, pair term m_j f^4 (R_i + R_j) grad W.  With
 *    the paper's velocity correction the six balls blew up at 0.25 s without it;
 *    with the position correction they ran the 1.2 s tried without it, and 2 s
 *    with it (the tested default).  With pressure_form = sum it also acts on
 *    negative pressures (Monaghan 2000's artificial pressure).
 *  - Delta t of eq. 7 is the step, as printed.
 *  - What the pressure corrects (density_correction = position, the default).
 *    Eq. 7's source splits exactly into this step's compression and the density
 *    error the step started with: rho* - rho_0 = (rho* - rho_n) + (rho_n -
 *    rho_0).  The pressure p of the whole source moves the particles, x_{n+1} =
 *    x* - dt^2 grad p / rho (as the paper); the velocity is corrected only by the
 *    pressure p_div of the first part (same matrix, a second PCG solve), v_{n+1} =
 *    v* - dt grad p_div / rho, which makes the predicted velocity
 *    divergence-free as in Cummins and Rudman 1999.  The second part is noise of
 *    the particle arrangement, of order 1% after an impact or a re-sampling; as a
 *    velocity (the paper's choice, density_correction = velocity) it becomes a
 *    kick of order (delta rho / rho) D / dt, which grows as the step shrinks:
 *    with the mu_e = 1e5 ball's step (0.04 D / v_ref) kicks of ~0.5 m/s in a
 *    1.4 m/s impact, pressures of -86 kPa (rho g H is 1 kPa) and 260 Pa of
 *    spurious stress in balls in free fall; with the split form and the
 *    artificial stress below the balls scene still blew up, at 0.31 s
 *    (re-sampling off) and 1.10 s (on).  As a
 *    position shift it does the same correction without heating: the ball in
 *    free fall keeps |T| < 1e-9 Pa, and the scene settles.  The pressure field
 *    written out is p; "pressure_div" is p_div.
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
 *  - Detached particles carry no stress: where B has an eigenvalue below 0.25 the
 *    particle has no neighbourhood spanning the space (a lone particle, a one-row
 *    thread), eq. 9's continuum strain is undefined, and its stress is set to 0.
 *    Kept, it threw fragments of a bouncing mu_e = 1e5 ball at 9 m/s.
 *  - Viscosity: Mueller's mu m_j (v_j - v_i) lap W / (rho_i rho_j) with rho_i rho_j
 *    replaced by rho_0 (rho_i + rho_j) / 2: the same for equal densities, pairwise
 *    antisymmetric, and bounded for a light, low-density surface particle, whose
 *    explicit viscous limit 0.125 h^2 rho_i / mu would otherwise fall below the
 *    step (re-sampled particles of 0.1 m0 at a column tip blew up).
 *  - Viscosity magnitude: mu = 0.5 rho_0 v_ref h by default.  The paper names no
 *    value; water's 1e-3 Pa s leaves an odd-even mode of the projection undamped
 *    (eq. 8's W-weighted Laplacian sees alternating pressures the spiky gradient
 *    cannot): a 2D pool at rest blew up within 0.3 s at every step tried.
 *  - Rigid bodies (issue 7; the paper's Fig. 12 gives no method): a body is a
 *    moving wall.  Particles within h of it get mirrors across its tangent
 *    plane at the nearest surface point, moving with the body's material point
 *    there (free slip, or no slip with wall_no_slip), so the fluid next to it
 *    has its full density and pressure; every force a mirror exerts on a
 *    particle (viscosity, stress and artificial stress before the prediction,
 *    the pressure of the velocity correction after it) acts back on the body,
 *    equal and opposite, at the surface point midway between the two
 *    (body_nonpressure_impulse, body_pressure_impulse).  Right after the
 *    prediction and the walls, sim_bodies_couple (core/sim.h) advances the body
 *    and removes the particles' normal velocity into it (the body's counterpart
 *    of the wall projection, which the pressure solve then sees); after the
 *    correction it runs again with dt = 0, for particles the correction moved
 *    into a body.  Measured: a
 *    disc of half the fluid density floats 0.517 submerged (2D, 0.02 m spacing;
 *    0.506 at 0.01 m); without the mirrors it floated 0.62, the fluid next to it
 *    being held at air pressure; without the non-pressure reaction, 0.71 (the
 *    viscous drag of the mirrors holds the fluid to the body).  Up-sampling
 *    skips bodies.
 *  - Re-sampling and the density reference: see mao_yang_frame.
 *  - Material: mu_e (Pa), lambda (s), yield gamma (Pa) are parameters; a scene may
 *    give particles their own through fields named "mu_e" and "lambda" (the balls
 *    scene, Fig. 2).  Units SI, rho_0 calibrated to the initial lattice (the cubic
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
 *    Mirrors act on real particles only: each particle's mirrors within h come
 *    from a search over the mirrors and the particles that can reach one
 *    (build_ghosts), added per particle after the real pairs.
 *  - Eq. 8's operator.  pcg_operator = matrix (the default) stores the CSR
 *    matrix (assemble_pressure; its rows walk the list's full form,
 *    halflist_full, each row on one thread), which the multigrid needs.
 *    pcg_operator = pairs stores none: core/pairop.h keeps each pair's
 *    coefficient kappa c_ij (8 bytes per entry of the half list, against the
 *    matrix's 16 per entry of both rows) and the diagonal, for Jacobi's
 *    preconditioner, and applies the operator as a pair pass on the blocked
 *    schedule; the mirrors' couplings, few, are gathered and symmetrised per
 *    solve as the matrix's are (mirror_couplings) and handed to it as extra
 *    couplings (pressure_operator).  Its unknowns are all the particles, a
 *    surface particle's row the identity with source 0.  The two are the same
 *    operator to round-off (test_mao_yang).
 *  - PCG: warm-started from the previous step's pressure.  The paper names no
 *    stopping rule.  pcg_stop = residual (the default): relative residual
 *    |b - A p| <= pcg_tol |b| (1e-6).  pcg_stop = density is DFSPH's rule, the
 *    peers' (SPlisHSPlasH): eq. 7's residual r = b - A p is the density error
 *    the pressure leaves, rho_0 dt^2 r_i at particle i, so the solve stops when
 *    the mean |r| over the unknowns is at most eta / dt^2, with pcg_eta = 1e-4,
 *    SPlisHSPlasH's maxError (0.01%); pcg_residual then reports the relative
 *    density error dt^2 mean |r|.  The divergence solve stops likewise at
 *    eta_div / dt^2, the density change per step its velocity correction
 *    leaves, with pcg_eta_div = 1e-5, not SPlisHSPlasH's maxErrorV (0.1% per
 *    step).  DFSPH's pressure solve corrects the velocities too, so what its
 *    divergence solve leaves is removed by the next pressure solve; here, with
 *    the position correction, the divergence solve is the only velocity
 *    correction, and what it leaves accumulates.  Measured on the 2D dam break
 *    (a/dx = 50, free slip, the calibrated fluid, dt = 3.8e-4 s): with
 *    eta_div = 1e-3 the kinetic energy at t = 0.02 s is 35% above the
 *    residual rule's and the run blows up at t = 0.048 s (most steps do not
 *    iterate: gravity's compression per step stays below 0.1%); with 1e-4 it
 *    is 0.2% above at 0.1 s, with 3e-5 and 1e-5 within 0.01%.  Both rules leave
 *    the same density error in the flow (0.29% mean at t = 0.1 s): eq. 8's
 *    Laplacian, which is not the density response of eq. 5's spiky-gradient
 *    correction, sets it, not the solve.  The density rule is not the default
 *    because of the settled pool: the method's pool at rest has a growing mode
 *    (2D, 0.01 m, the calibrated fluid: its kinetic energy leaves its floor at
 *    the bottom and grows about e-fold per 0.1 s, the same with half the step,
 *    with the paper's velocity correction and with eq. 5's sum form; twice the
 *    viscosity, or h = 3 spacings, damps it) whose onset the solve's error
 *    sets: t = 2.2 s with the residual rule, 1.8 s with eta = eta_div = 1e-8,
 *    1.4 s with 1e-6, 1.2 s with the defaults; the validation's hydrostatic
 *    case averages up to 2 s, so its error grows (0.03% to 1.0% at
 *    D/dx = 100) under the density rule (bench/README.md).  Parallel, with
 *    every sum formed over fixed blocks in a fixed order, so the bits do not
 *    depend on the thread count.
 *  - Preconditioner: an aggregation multigrid W-cycle by default (core/amg.c),
 *    rebuilt for each step's matrix, whose iterations do not grow with N (3D
 *    dam break, 8k to 524k particles: 16-18 per solve to the relative
 *    residual 1e-6; Jacobi's, 117 to 445, grew like N^0.32): per step,
 *    Jacobi's took 1.40 times the multigrid's in the flow at 60k particles,
 *    1.44 at rest and 3.1 at rest at 10^6.  Under the density rule a step needs
 *    few iterations of either (the 2D dam break: about 1 a step with the
 *    multigrid, 17-29 with Jacobi), the set-up is then most of the
 *    multigrid's cost, and Jacobi's step is the faster: 0.86 of the
 *    multigrid's in the flow at 60k, 0.87 at rest, 0.80 at rest at 10^6
 *    (bench/README.md).  The hierarchy is not kept across steps: its aggregates
 *    number the unknowns, and in a flow the unknowns (the particles not at the
 *    surface) change from one step to the next.
 *    With the position correction there are two solves per step (p and p_div,
 *    one matrix); the pcg_iters diagnostic counts both and pcg_residual is the
 *    larger final residual.
 *  - Periodic axes (core/periodic.h; the paper has none): the lists are the
 *    minimum-image ones and every pair term takes the minimum-image
 *    displacement.  A fluid without a free surface (a periodic box) leaves eq. 7's
 *    system singular (p up to a constant); the particle of smallest id is then
 *    held at p = 0, the source is made consistent (its mean removed: a uniform
 *    density error is no pressure gradient's to remove) and the pressures are
 *    shifted to mean 0.  Merging averages positions by the minimum image; the
 *    Delaunay up-sampling triangulates the wrapped positions, so it never inserts
 *    across a face.
 *  - Re-sampling runs every resample_every frames (default 1, the paper's "once
 *    per frame"; 0 = off) with eps_d = 0.6 D, R_min = 0.95 D, eps_m = 0.01 m_0.
 *
 * Known limits:
 *  - Re-sampling with the paper's thresholds keeps churning in splashing flows:
 *    the 2D dam break merges and inserts ~10^3 particles per second (count within
 *    3% of the initial).  qhull's Delaunay construction costs seconds per call at
 *    ~10^5 particles in 3D (delaunay_whole = false triangulates only the
 *    particles that can border a hole: mao_yang_resample.c). */
#include "mao_yang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/diag.h"
#include "../core/checkpoint.h"
#include "../core/halflist.h"
#include "../core/pairop.h"
#include "../core/pairtasks.h"
#include "../core/kernels.h"
#include "../core/timing.h"
#include "mao_yang_resample.h"
#include "solver.h"

static const pfb_param_spec mao_yang_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 2.5, 1.2, 6.0, "1", "support radius h of both kernels in particle spacings (cubic spline q = 2r/h)", NULL},
    {"rest_density", PFB_PARAM_DOUBLE, 1000.0, 1e-6, 1e7, "kg/m^3", "rest density rho_0 (when not calibrated)", NULL},
    {"calibrate_rest_density", PFB_PARAM_BOOL, 1, 0, 1, "", "rho_0 := cubic-spline density of the initial lattice", NULL},
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
    {"artificial_stress", PFB_PARAM_DOUBLE, 0.2, 0.0, 2.0, "1", "epsilon of Monaghan's artificial stress against the tensile instability (0: off)", NULL},
    {"density_correction", PFB_PARAM_CHOICE, 1, 0, 0, "", "what eq. 7's density-error part corrects: velocity and position (the paper) or the position only", "velocity|position"},
    {"pcg_tol", PFB_PARAM_DOUBLE, 1e-6, 1e-14, 0.5, "1", "pcg_stop = residual: relative residual |b - A p| / |b| at which PCG stops", NULL},
    {"pcg_stop", PFB_PARAM_CHOICE, 0, 0, 0, "", "what stops each PCG solve: the relative residual (pcg_tol), or the mean density error the solve leaves (pcg_eta, pcg_eta_div: the rule of SPlisHSPlasH's DFSPH)", "residual|density"},
    {"pcg_eta", PFB_PARAM_DOUBLE, 1e-4, 1e-12, 0.5, "1", "pcg_stop = density: the pressure solve stops when the mean |rho - rho_0| / rho_0 it leaves is at most this (DFSPH's maxError, 0.01%)", NULL},
    {"pcg_eta_div", PFB_PARAM_DOUBLE, 1e-5, 1e-12, 0.5, "1", "pcg_stop = density: the divergence solve stops when the mean density change per step it leaves, over rho_0, is at most this (DFSPH's maxErrorV is 1e-3; see the header for why not here)", NULL},
    {"pcg_max_iter", PFB_PARAM_INT, 1000, 1, 1e6, "1", "PCG iteration cap per step", NULL},
    {"pcg_precond", PFB_PARAM_CHOICE, 2, 0, 0, "", "PCG preconditioner (amg: the multigrid of core/amg.c)", "none|jacobi|amg"},
    {"pcg_operator", PFB_PARAM_CHOICE, 1, 0, 0, "", "eq. 8's operator: applied over the pairs (no stored matrix; pcg_precond jacobi or none), or a stored CSR matrix (which pcg_precond = amg needs)", "pairs|matrix"},
    {"wall_no_slip", PFB_PARAM_BOOL, 0, 0, 1, "", "false (the default, as every method): mirrors carry the reflected normal velocity (free slip); true: 2 v_wall - v (no slip)", NULL},
    {"resample_every", PFB_PARAM_INT, 1, 0, 1e9, "1", "frames between re-samplings (section 5); 0 = never", NULL},
    {"eps_d", PFB_PARAM_DOUBLE, 0.6, 0.0, 10.0, "D", "down-sampling: merge pairs closer than eps_d spacings", NULL},
    {"r_min", PFB_PARAM_DOUBLE, 0.95, 0.0, 10.0, "D", "up-sampling: insert where a Delaunay circumradius exceeds r_min spacings", NULL},
    {"eps_m", PFB_PARAM_DOUBLE, 0.01, 0.0, 1.0, "m0", "up-sampling: no insertion below eps_m times the initial particle mass", NULL},
    {"delaunay_whole", PFB_PARAM_BOOL, 1, 0, 1, "", "up-sampling: triangulate every particle (true) or only those that can border an empty circle wider than r_min (false: the same insertions; less time and memory at 60k particles, more instructions at 2k)", NULL},
    {"wall_margin", PFB_PARAM_DOUBLE, 0.25, 0.0, 1.0, "D", "position projection onto this distance from the walls (spacings)", NULL},
    {"wall_restitution", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "normal restitution of the wall projection", NULL},
    {"wall_friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "tangential velocity removed by the wall projection", NULL},
    {"cfl", PFB_PARAM_DOUBLE, 0.25, 0.01, 2.0, "1", "CFL number of the suggested time step", NULL},
    {"list_skin", PFB_PARAM_DOUBLE, 0.1, 0.01, 1.0, "1", "neighbour list radius h (1 + skin), kept until the moves since its build could bring a pair from beyond it within h (core/halflist.h)", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* A mirror particle: image of real particle src across one to three planes. */
typedef struct my_ghost {
    size_t src;
    int body;              /* the rigid body it mirrors across, or -1 (a wall) */
    double M[9];           /* the reflection (row-major) applied to vectors and tensors */
    double x[3], v[3];     /* mirror position and velocity */
} my_ghost;

typedef struct my_state {
    int dim;
    double h, hh, rho0, m0, mu, mu_e, lambda, gamma, kappa, beta, tol, e, fric, margin, cfl;
    int rot, corr, no_slip, max_iter, precond, pform, pos_only, stop;
    double eta, eta_div;       /* pcg_stop = density: the mean density errors left */
    double corr_min, eps_art, w_d; /* w_d: W_cubic(D), the artificial stress's reference */
    long resample_every;
    my_resample_params rp;
    my_resample_stats rs;
    double seconds_pressure, seconds_resample; /* phase timers (observed only) */
    pfb_kernel cubic, spiky, visc;
    double w0;                 /* W_cubic(0): self term of eq. 4 */
    int f_rho, f_p, f_pd, f_T, f_mue, f_lam;
    /* the real particles' pairs: the framework's kept list (core/halflist.h) in
     * its full form */
    pfb_halflist L;
    pfb_fulllist F;
    pfb_pairtasks T;           /* the symmetric passes' schedule over L (core/pairtasks.h) */
    /* mirrors, and each real particle's mirrors within h (rows ms[i] .. ms[i+1]-1
     * of mj, mirror indices ascending) */
    my_ghost *g;
    size_t ng, cap_g;
    double *xc[3], *vc[3];     /* combined positions and velocities: real i at i, mirror q at n + q */
    pfb_period per;            /* the scene's periodic axes (sim->period), for the minimum image */
    int pinned;                /* no free surface: one particle held at p = 0 (surface_flags) */
    size_t cap_c;
    unsigned char *near;       /* real particles that can be within h of a mirror (build_ghosts) */
    double *cx[3];             /* the mirror search's points: the near particles, then the mirrors */
    uint32_t *cidx;            /* the near particles' indices */
    size_t cap_cx;
    pfb_grid grid;             /* the mirror search's grid and list */
    pfb_nlist nl;
    uint32_t *ms, *mj;
    size_t cap_ms, cap_mj;
    /* per-particle workspace */
    double *acc;               /* 3 n */
    double *gradv;             /* 9 n velocity gradients */
    double *binv;              /* 9 n gradient corrections B^-1 (I when off) */
    double *rart;              /* 9 n artificial stress R_i / rho_i^2 of the elastic stress */
    double *rho_n;             /* n densities at x_n (the divergence part's reference) */
    unsigned char *surface;
    unsigned char *detached;   /* lambda_min(B) < grad_correction_min: carries no stress */
    long *unk;                 /* unknown index of a particle, -1 if surface */
    uint32_t *mark;            /* per thread (cap_n each), a column's entry in the row being assembled, or UINT32_MAX */
    int mark_threads;
    size_t cap_n;
    pfb_csr A;                  /* the stored matrix (pcg_operator = matrix, and the multigrid's) */
    pfb_amg amg;                /* the multigrid hierarchy of A (pcg_precond amg) */
    /* pcg_operator = pairs, eq. 8 applied over the pairs (pressure_operator):
     * the operator, and per particle the mirrors' part of its diagonal and its
     * symmetric mirror couplings (row i: columns mcv[mcs[i] .. mcs[i+1]-1],
     * weights mcw) */
    int matfree;
    pfb_pairop op;              /* core/pairop.h: the coefficients and the diagonal */
    double *mdiag, *mcw;
    uint32_t *mcs, *mcv;
    size_t cap_pd, cap_mc;
    size_t nvec, count;         /* the last solve's unknowns (particles or rows of A) and those not at the surface */
    double *b, *x, *work, *dsurf;
    double *b1, *x1;           /* the divergence part's right-hand side and solution */
    size_t *rows;
    size_t cap_u;
    /* statistics */
    int last_iters;
    double last_resid;
    long steps, iters_total;
    size_t n_surface;
} my_state;

enum { MY_PFORM_DIFFERENCE, MY_PFORM_SUM, MY_PFORM_SPLIT }; /* pressure_form's choices, in order */
enum { MY_STOP_RESIDUAL, MY_STOP_DENSITY };                  /* pcg_stop's choices, in order */

/* ---- small helpers ----------------------------------------------------------- */

static int ensure_particles(my_state *s, size_t n, pfb_err *err)
{
    if (n <= s->cap_n)
        return PFB_OK;
    size_t nc = n + n / 4 + 64;
    double *a = realloc(s->acc, 3 * nc * sizeof *a);
    if (a)
        s->acc = a;
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
    uint32_t *ms = realloc(s->ms, (nc + 1) * sizeof *ms);
    if (ms)
        s->ms = ms;
    long *u = realloc(s->unk, nc * sizeof *u);
    if (u)
        s->unk = u;
    free(s->mark); /* made again by assemble_pressure */
    s->mark = NULL;
    s->mark_threads = 0;
    if (!a || !gv || !bv || !ra || !rn || !sf || !dt || !nr || !ms || !u)
        return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu particles", n);
    s->cap_n = nc;
    return PFB_OK;
}

static double material(const pfb_sim *sim, int f, size_t i, double dflt)
{
    if (f < 0)
        return dflt;
    double v = sim->p.field[f].data[i];
    return v > 0 ? v : dflt;
}

/* ---- wall mirrors -------------------------------------------------------------- */

static void mat_reflect(double M[9], const double n[3])
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            M[3 * a + b] = (a == b ? 1.0 : 0.0) - 2.0 * n[a] * n[b];
}

static int add_ghost(my_state *s, size_t src, int body, const double M[9], const double x[3], const double v[3],
                     pfb_err *err)
{
    int rc = pfb_grow((void **)&s->g, &s->cap_g, s->ng + 1, sizeof *s->g, err);
    if (rc)
        return rc;
    my_ghost *g = &s->g[s->ng++];
    g->src = src;
    g->body = body;
    memcpy(g->M, M, sizeof g->M);
    for (int k = 0; k < 3; k++) {
        g->x[k] = x[k];
        g->v[k] = v[k];
    }
    return PFB_OK;
}

/* Mirror velocity across a plane of unit normal n moving with wall velocity vw. */
static void mirror_velocity(const my_state *s, int dim, const double n[3], const double vw[3], double v[3])
{
    if (s->no_slip) {
        for (int k = 0; k < dim; k++)
            v[k] = 2.0 * vw[k] - v[k];
        return;
    }
    double vn = 0.0;
    for (int k = 0; k < dim; k++)
        vn += (v[k] - vw[k]) * n[k];
    for (int k = 0; k < dim; k++)
        v[k] -= 2.0 * vn * n[k];
}

/* Mirrors of every particle within h of a wall (across its tangent plane; across
 * each near face of a box container and each combination of them at corners),
 * then the combined real + mirror coordinate arrays.  Marks, in s->near, every
 * particle that can be within h of a mirror: a mirror across a box face lies
 * within h beyond it, so such a particle is within h of the face (its distance
 * below h, of either sign); a mirror across the tangent plane of a wall or body
 * at distance phi < h from it has sdf at most 3 phi (the sdf changes by at most
 * the distance moved, 2 phi), so such a particle has sdf below 4 h. */
static int build_ghosts(my_state *s, pfb_sim *sim, double t, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    s->ng = 0;
    for (size_t i = 0; i < p->n; i++) {
        const double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
        const double v[3] = {p->v[0][i], p->v[1][i], p->v[2][i]};
        unsigned char near = 0;
        for (size_t w = 0; w < sim->walls.n; w++) {
            const pfb_shape *sh = &sim->walls.s[w];
            double vw[3];
            shape_velocity_at(sh, dim, t, x, vw);
            if (sh->type == PFB_SHAPE_BOX && sh->inside) {
                double c[3], face[3] = {0, 0, 0};
                shape_centre(sh, t, c);
                int axes[3], na = 0;
                for (int k = 0; k < dim; k++) {
                    double lo = c[k] - sh->half[k], hi = c[k] + sh->half[k];
                    double dlo = x[k] - lo, dhi = hi - x[k];
                    double d = dlo <= dhi ? dlo : dhi;
                    near |= d < s->h;
                    if (d >= 0 && d < s->h) {
                        face[k] = dlo <= dhi ? lo : hi;
                        axes[na++] = k;
                    }
                }
                for (int mask = 1; mask < (1 << na); mask++) {
                    double M[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
                    double xg[3] = {x[0], x[1], x[2]}, vg[3] = {v[0], v[1], v[2]};
                    for (int q = 0; q < na; q++) {
                        if (!(mask & (1 << q)))
                            continue;
                        int k = axes[q];
                        double n[3] = {0, 0, 0};
                        n[k] = 1.0;
                        M[4 * k] = -1.0;
                        xg[k] = 2.0 * face[k] - x[k];
                        mirror_velocity(s, dim, n, vw, vg);
                    }
                    int rc = add_ghost(s, i, -1, M, xg, vg, err);
                    if (rc)
                        return rc;
                }
            } else {
                double gr[3] = {0, 0, 0};
                double phi = shape_sdf(sh, dim, t, x, gr);
                near |= phi < 4.0 * s->h;
                if (!(phi >= 0 && phi < s->h))
                    continue;
                double M[9], xg[3] = {0, 0, 0}, vg[3] = {v[0], v[1], v[2]};
                mat_reflect(M, gr);
                for (int k = 0; k < dim; k++)
                    xg[k] = x[k] - 2.0 * phi * gr[k];
                double xw[3] = {x[0] - phi * gr[0], x[1] - phi * gr[1], x[2] - phi * gr[2]};
                shape_velocity_at(sh, dim, t, xw, vw);
                mirror_velocity(s, dim, gr, vw, vg);
                int rc = add_ghost(s, i, -1, M, xg, vg, err);
                if (rc)
                    return rc;
            }
        }
        /* rigid bodies: across the tangent plane at the nearest surface point,
         * moving with the body's material point there */
        for (size_t b = 0; b < sim->bodies.n; b++) {
            const pfb_body *B = &sim->bodies.b[b];
            double gr[3] = {0, 0, 0};
            double phi = body_sdf(B, dim, x, gr);
            near |= phi < 4.0 * s->h;
            if (!(phi >= 0 && phi < s->h))
                continue;
            double M[9], xg[3] = {0, 0, 0}, vg[3] = {v[0], v[1], v[2]}, vb[3];
            mat_reflect(M, gr);
            for (int k = 0; k < dim; k++)
                xg[k] = x[k] - 2.0 * phi * gr[k];
            double xs[3] = {x[0] - phi * gr[0], x[1] - phi * gr[1], x[2] - phi * gr[2]};
            body_velocity_at(B, dim, xs, vb);
            mirror_velocity(s, dim, gr, vb, vg);
            int rc = add_ghost(s, i, (int)b, M, xg, vg, err);
            if (rc)
                return rc;
        }
        s->near[i] = near;
    }
    size_t ntot = p->n + s->ng;
    if (ntot > s->cap_c) {
        size_t nc = ntot + ntot / 4 + 64;
        for (int k = 0; k < 3; k++) {
            double *a = realloc(s->xc[k], nc * sizeof *a);
            if (a)
                s->xc[k] = a;
            double *b = realloc(s->vc[k], nc * sizeof *b);
            if (b)
                s->vc[k] = b;
            if (!a || !b)
                return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror particles", s->ng);
        }
        s->cap_c = nc;
    }
    for (int k = 0; k < 3; k++) {
        memcpy(s->xc[k], p->x[k], p->n * sizeof(double));
        memcpy(s->vc[k], p->v[k], p->n * sizeof(double));
        for (size_t q = 0; q < s->ng; q++) {
            s->xc[k][p->n + q] = s->g[q].x[k];
            s->vc[k][p->n + q] = s->g[q].v[k];
        }
    }
    return PFB_OK;
}

/* Each real particle's mirrors within h (s->ms, s->mj): the full list, radius h,
 * of the near particles and the mirrors together (core/grid.h, or the
 * minimum-image list on periodic axes), whose rows ascend. */
static int mirror_rows(my_state *s, pfb_sim *sim, pfb_err *err)
{
    const size_t n = sim->p.n;
    size_t nn = 0;
    for (size_t i = 0; i < n; i++)
        nn += s->near[i];
    memset(s->ms, 0, (n + 1) * sizeof *s->ms);
    if (s->ng == 0 || nn == 0)
        return PFB_OK;
    const size_t nc = nn + s->ng;
    if (nc > s->cap_cx) {
        const size_t cap = nc + nc / 4 + 64;
        for (int k = 0; k < 3; k++) {
            double *a = realloc(s->cx[k], cap * sizeof *a);
            if (!a)
                return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror search points", nc);
            s->cx[k] = a;
        }
        uint32_t *ci = realloc(s->cidx, cap * sizeof *ci);
        if (!ci)
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror search points", nc);
        s->cidx = ci;
        s->cap_cx = cap;
    }
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (s->near[i]) {
            s->cidx[c] = (uint32_t)i;
            for (int k = 0; k < 3; k++)
                s->cx[k][c] = s->xc[k][i];
            c++;
        }
    for (int k = 0; k < 3; k++)
        memcpy(s->cx[k] + nn, s->xc[k] + n, s->ng * sizeof(double));
    int rc = sim_periodic(sim) ? sim_periodic_list(sim, s->h, (const double *const *)s->cx, nc, &s->nl, err)
                               : grid_build(&s->grid, (const double *const *)s->cx, nc, err);
    if (!rc && !sim_periodic(sim))
        rc = grid_neighbours(&s->grid, (const double *const *)s->cx, &s->nl, err);
    if (rc)
        return rc;
    const pfb_nlist *nl = &s->nl;
    size_t m = 0;
    for (c = 0; c < nn; c++)
        for (size_t q = nl->start[c]; q < nl->start[c + 1]; q++)
            m += nl->idx[q] >= nn;
    rc = pfb_grow((void **)&s->mj, &s->cap_mj, m, sizeof *s->mj, err);
    if (rc)
        return rc;
    m = 0;
    for (c = 0; c < nn; c++) {
        const size_t i = s->cidx[c];
        for (size_t q = nl->start[c]; q < nl->start[c + 1]; q++)
            if (nl->idx[q] >= nn)
                s->mj[m++] = (uint32_t)(nl->idx[q] - nn);
        s->ms[i + 1] = (uint32_t)m;
    }
    for (size_t i = 0; i < n; i++) /* rows of particles that are not near: empty */
        s->ms[i + 1] = s->ms[i + 1] > s->ms[i] ? s->ms[i + 1] : s->ms[i];
    return PFB_OK;
}

/* The pairs at the current positions: the kept list of the real particles (a
 * rebuild sorts the storage, so it comes first), then the mirrors and their
 * rows. */
static int neighbours(my_state *s, pfb_sim *sim, double t, pfb_err *err)
{
    int built;
    int rc = halflist_ensure(&s->L, sim, -1.0, 0, &built, err);
    if (!rc)
        rc = ensure_particles(s, sim->p.n, err);
    if (!rc)
        rc = build_ghosts(s, sim, t, err);
    if (!rc)
        rc = mirror_rows(s, sim, err);
    return rc;
}

/* x_i - x_j of the pair (i, j) (combined indices) on axis b, by the minimum
 * image on periodic axes. */
static inline double pair_d(const my_state *s, int b, size_t i, size_t j)
{
    return period_delta(&s->per, b, s->xc[b][i] - s->xc[b][j]);
}

/* The distance of the pair (i, j) (combined indices), from the combined
 * positions (the lists keep no distances). */
static inline double pair_r(const my_state *s, int dim, size_t i, size_t j)
{
    return sqrt(period_dist2(&s->per, dim, (const double *const *)s->xc, i, j));
}

/* Whether real particles i and j are within h (the kept list also holds the
 * pairs of its skin), with their distance in *r. */
static inline int within(const my_state *s, size_t i, size_t j, double *r)
{
    const double r2 = period_dist2(&s->per, s->dim, (const double *const *)s->xc, i, j);
    if (!(r2 < s->hh))
        return 0;
    *r = sqrt(r2);
    return 1;
}

/* The body (a statement list, which may `continue`) for every neighbour of real
 * particle i within h, as combined index j at distance r: the real ones in the
 * row's order, then the mirrors in theirs (n the real particles). */
#define MY_FOR_NEIGHBOURS(s, i, n, j, r, ...)                                                                   \
    do {                                                                                                        \
        for (size_t q_ = (s)->F.fs[i]; q_ < (s)->F.fs[(i) + 1]; q_++) {                                         \
            const size_t j = (s)->F.fj[q_];                                                                     \
            double r;                                                                                           \
            if (!within(s, i, j, &r))                                                                           \
                continue;                                                                                       \
            __VA_ARGS__                                                                                         \
        }                                                                                                       \
        for (size_t q_ = (s)->ms[i]; q_ < (s)->ms[(i) + 1]; q_++) {                                             \
            const size_t j = (n) + (s)->mj[q_];                                                                 \
            const double r = pair_r(s, (s)->dim, i, j);                                                         \
            __VA_ARGS__                                                                                         \
        }                                                                                                       \
    } while (0)

/* The real particle behind combined index j. */
static inline size_t src_of(const my_state *s, size_t n, size_t j)
{
    return j < n ? j : s->g[j - n].src;
}

/* Field X (9 per particle, row-major 3x3) of combined index j: X_src, or the
 * mirrored M X_src M^T for a mirror (M is a reflection: symmetric). */
static void tensor_of(const my_state *s, size_t n, const double *X, size_t j, double out[9])
{
    const double *Xs = X + 9 * src_of(s, n, j);
    if (j < n) {
        memcpy(out, Xs, 9 * sizeof *out);
        return;
    }
    const double *M = s->g[j - n].M;
    double MX[9];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            MX[3 * a + b] = M[3 * a] * Xs[b] + M[3 * a + 1] * Xs[3 + b] + M[3 * a + 2] * Xs[6 + b];
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            out[3 * a + b] = MX[3 * a] * M[3 * b] + MX[3 * a + 1] * M[3 * b + 1] + MX[3 * a + 2] * M[3 * b + 2];
}

/* ---- SPH sums ------------------------------------------------------------------ */

/* The symmetric passes run over the kept half list (core/halflist.h) on the
 * blocked schedule (core/pairtasks.h): each real pair once, its term added to
 * both particles, every sum receiving its terms in one order whatever the
 * threads.  Each pass is three stages: zero the sums of a block, the pairs of
 * its rows, then per particle the self term, the mirrors (which act on real
 * particles only) and what follows from the complete sums. */
static double inverse_clamped(int dim, const double B[9], double lmin, double Bi[9]);

typedef struct my_pass {
    my_state *s;
    pfb_sim *sim;
    int grad;              /* the density pass also sums eq. 16's gradient and B */
    const double *pr;      /* the pressure pass's pressure */
} my_pass;

static int run_pass(my_state *s, pfb_sim *sim, const pfb_stage st[3], my_pass *c, pfb_err *err)
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
    const double f = kernel_dw(&s->cubic, r) / r;
    double gw[3], dx[3];
    for (int k = 0; k < dim; k++) {
        dx[k] = -pair_d(s, k, i, j); /* x_j - x_i */
        gw[k] = -f * dx[k];          /* grad_i W(x_i - x_j) */
    }
    for (int a = 0; a < dim; a++) {
        const double dv = s->vc[a][j] - s->vc[a][i];
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
static void density_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++)
        for (size_t q = s->L.ls[i]; q < s->L.ls[i + 1]; q++) {
            const size_t j = s->L.lj[q];
            double r;
            if (!within(s, i, j, &r))
                continue;
            const double w = kernel_w(&s->cubic, r), mi = p->m[i], mj = p->m[j];
            rho[i] += mj * w;
            rho[j] += mi * w;
            if (!c->grad || !(r > 0))
                continue;
            grad_products(s, i, j, r, mj, s->gradv + 9 * i, s->binv + 9 * i, mi, s->gradv + 9 * j, s->binv + 9 * j);
        }
}

/* The self term and the mirrors' terms; with grad, then B_i and G_i divided by
 * rho_i (the weight m_j / rho_i, see the header), B_i's clamped inverse (or I
 * when grad_correction is off), the detached flag and G_i B_i^-1. */
static void density_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
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
            sum += p->m[js] * kernel_w(&s->cubic, r);
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
        s->detached[i] = inverse_clamped(dim, B, s->corr_min, Bc) < s->corr_min;
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

/* eq. 4: rho_i = sum_j m_j W(r_ij) with the cubic spline, self and mirrors
 * included; with grad also eq. 16's velocity gradient G_i into s->gradv, times
 * B_i^-1 (s->binv) when grad_correction is on (exact for linear velocity
 * fields), and s->detached. */
static int compute_density(my_state *s, pfb_sim *sim, int grad, pfb_err *err)
{
    my_pass c = {s, sim, grad, NULL};
    return run_pass(s, sim, density_stages, &c, err);
}

/* Eigenvalues e and eigenvectors (columns of V) of the symmetric part of the dim x
 * dim block of B by cyclic Jacobi rotations, a fixed number of sweeps, so the
 * result is deterministic. */
static void sym_eigen(int dim, const double B[9], double e[3], double V[3][3])
{
    double A[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            V[a][b] = a == b;
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++)
            A[a][b] = 0.5 * (B[3 * a + b] + B[3 * b + a]);
    for (int sweep = 0; sweep < 8; sweep++)
        for (int p = 0; p < dim - 1; p++)
            for (int q = p + 1; q < dim; q++) {
                if (A[p][q] == 0.0)
                    continue;
                double th = 0.5 * atan2(2.0 * A[p][q], A[q][q] - A[p][p]);
                double c = cos(th), sn = sin(th);
                for (int k = 0; k < dim; k++) { /* A := A J */
                    double akp = A[k][p], akq = A[k][q];
                    A[k][p] = c * akp - sn * akq;
                    A[k][q] = sn * akp + c * akq;
                }
                for (int k = 0; k < dim; k++) { /* A := J^T A */
                    double apk = A[p][k], aqk = A[q][k];
                    A[p][k] = c * apk - sn * aqk;
                    A[q][k] = sn * apk + c * aqk;
                }
                for (int k = 0; k < dim; k++) {
                    double vkp = V[k][p], vkq = V[k][q];
                    V[k][p] = c * vkp - sn * vkq;
                    V[k][q] = sn * vkp + c * vkq;
                }
            }
    for (int k = 0; k < 3; k++)
        e[k] = k < dim ? A[k][k] : 0.0;
}

/* Inverse of the symmetric dim x dim block of B with its eigenvalues clamped below
 * at lmin: B^-1 exactly where B is well conditioned (interior, flat surfaces: the
 * eigenvalues are about 1 and 1/2), at most 1/lmin amplification where it is not
 * (a thin jet, a lone particle: eigenvalues near 0, where the exact inverse would
 * multiply particle noise without bound).  Returns the smallest eigenvalue. */
static double inverse_clamped(int dim, const double B[9], double lmin, double Bi[9])
{
    double e[3], V[3][3];
    sym_eigen(dim, B, e, V);
    memset(Bi, 0, 9 * sizeof *Bi);
    double emin = e[0];
    for (int k = 0; k < dim; k++) {
        emin = fmin(emin, e[k]);
        double inv = 1.0 / fmax(e[k], lmin);
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < dim; b++)
                Bi[3 * a + b] += V[a][k] * inv * V[b][k];
    }
    return emin;
}

/* Monaghan's artificial stress (Monaghan 2000; Gray, Monaghan and Swift 2001) for
 * the elastic stress: R_i = -eps sum_k max(t_k, 0) e_k e_k^T / rho_i^2 over the
 * principal tensions t_k of T_i.  The pair term m_j f_ij^4 (R_i + R_j) grad_i W_ij
 * with f_ij = W(r_ij) / W(D) repels particles that a tension has pulled closer
 * than the spacing, and is negligible at the spacing and beyond. */
static void artificial_stress(my_state *s, pfb_sim *sim)
{
    const pfb_particles *p = &sim->p;
    const double *restrict T = p->field[s->f_T].data;
    const double *restrict rho = p->field[s->f_rho].data;
#pragma omp parallel for schedule(dynamic, 2048) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
    for (size_t i = 0; i < p->n; i++) {
        double *R = s->rart + 9 * i, e[3], V[3][3];
        memset(R, 0, 9 * sizeof *R);
        sym_eigen(sim->dim, T + 9 * i, e, V);
        for (int k = 0; k < sim->dim; k++) {
            if (!(e[k] > 0))
                continue;
            double c = -s->eps_art * e[k] / (rho[i] * rho[i]);
            for (int a = 0; a < sim->dim; a++)
                for (int b = 0; b < sim->dim; b++)
                    R[3 * a + b] += c * V[a][k] * V[b][k];
        }
    }
}

/* Surface particles, held at air pressure: rho*_i < beta rho_0, the MPS
 * criterion (Koshizuka and Oka, used by Premoze et al.). */
static void surface_flags(my_state *s, pfb_sim *sim)
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
     * id is then held at 0, and assemble_pressure and solve_pressure make the
     * source consistent and the mean pressure 0 (s->pinned) */
    s->pinned = nsurf == 0 && p->n > 0;
    if (s->pinned)
        s->surface[pin] = 1;
}

/* eqs. 9-15 and 17: dT/dt = Omega + mu_e/2 D' - T'/lambda for one particle. */
static void stress_rate(const my_state *s, int dim, const double G[9], const double T[9], double mu_e,
                        double lambda, double rate[9])
{
    double w[9] = {0}, D[9] = {0};
    for (int a = 0; a < dim; a++)
        for (int b = 0; b < dim; b++) {
            w[3 * a + b] = G[3 * b + a] - G[3 * a + b]; /* eq. 12: dv^b/dr^a - dv^a/dr^b */
            D[3 * a + b] = G[3 * b + a] + G[3 * a + b]; /* eq. 15 */
        }
    double tr = 0.0;
    for (int a = 0; a < dim; a++)
        tr += D[4 * a];
    for (int a = 0; a < dim; a++)
        D[4 * a] -= tr / dim; /* eq. 13 (3D: /3; 2D: /2) */
    double nt = 0.0;
    for (int k = 0; k < 9; k++)
        nt += T[k] * T[k];
    nt = sqrt(nt);
    double yf = 1.0; /* eq. 17: T' = T max(0, |T| - gamma) / |T| */
    if (s->gamma > 0)
        yf = nt > 0 ? fmax(0.0, nt - s->gamma) / nt : 0.0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double om = 0.0;
            if (s->rot) /* eq. 10: Omega = (T w - w T) / 2 */
                for (int c = 0; c < 3; c++)
                    om += 0.5 * (T[3 * a + c] * w[3 * c + b] - w[3 * a + c] * T[3 * c + b]);
            rate[3 * a + b] = om + 0.5 * mu_e * D[3 * a + b] - yf * T[3 * a + b] / lambda; /* eq. 9 */
        }
}

/* Explicit Euler step of eq. 9 from the velocity gradients in s->gradv. */
static void update_stress(my_state *s, pfb_sim *sim, double dt)
{
    pfb_particles *p = &sim->p;
    const size_t n = p->n;
    double *restrict T = p->field[s->f_T].data;
#pragma omp parallel for schedule(dynamic, 2048) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t i = 0; i < n; i++) {
        double rate[9];
        double mu_e = material(sim, s->f_mue, i, s->mu_e), lam = material(sim, s->f_lam, i, s->lambda);
        if (s->detached[i]) { /* no continuum around it: no stress (see the header) */
            memset(T + 9 * i, 0, 9 * sizeof *T);
            continue;
        }
        stress_rate(s, sim->dim, s->gradv + 9 * i, T + 9 * i, mu_e, lam, rate);
        for (int k = 0; k < 9; k++)
            T[9 * i + k] += dt * rate[k];
    }
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
    double lap = kernel_lap(&s->visc, r);
    double cv = s->mu * mj * 2.0 / (rho[i] + rj) / s->rho0 * lap;
    for (int k = 0; k < dim; k++)
        a[k] += cv * (s->vc[k][j] - s->vc[k][i]);
    if (!(r > 0))
        return;
    tensor_of(s, n, p->field[s->f_T].data, j, Tj);
    tensor_of(s, n, s->binv, j, Bj);
    double f = kernel_dw(&s->cubic, r) / r;
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
        double fr = kernel_w(&s->cubic, r) / s->w_d, fn = mj * fr * fr * fr * fr;
        tensor_of(s, n, s->rart, j, Rj);
        for (int k = 0; k < dim; k++)
            for (int b = 0; b < dim; b++)
                a[k] += fn * (Ri[3 * k + b] + Rj[3 * k + b]) * gw[b];
    }
}

static void acc_zero(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    memset(s->acc + 3 * lo, 0, 3 * (hi - lo) * sizeof(double));
}

/* nonpressure_pair for a real pair, added to both: every term is m_j X for i
 * and -m_i X for j (X antisymmetric in i and j: the velocity difference, and
 * the symmetric stress and artificial-stress sums times grad_i W = -grad_j W). */
static void nonpressure_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const int dim = s->dim;
    const double *restrict rho = p->field[s->f_rho].data, *restrict T = p->field[s->f_T].data;
    double *restrict acc = s->acc;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++)
        for (size_t q = s->L.ls[i]; q < s->L.ls[i + 1]; q++) {
            const size_t j = s->L.lj[q];
            double r;
            if (!within(s, i, j, &r))
                continue;
            const double mi = p->m[i], mj = p->m[j];
            double X[3] = {0, 0, 0};
            const double cv = s->mu * 2.0 / (rho[i] + rho[j]) / s->rho0 * kernel_lap(&s->visc, r);
            for (int k = 0; k < dim; k++)
                X[k] = cv * (s->vc[k][j] - s->vc[k][i]);
            if (r > 0) {
                const double *Ti = T + 9 * i, *Tj = T + 9 * j, *Bi = s->binv + 9 * i, *Bj = s->binv + 9 * j;
                const double f = kernel_dw(&s->cubic, r) / r;
                double gw[3], gi[3] = {0, 0, 0}, gj[3] = {0, 0, 0};
                for (int e = 0; e < 3; e++)
                    gw[e] = e < dim ? f * pair_d(s, e, i, j) : 0.0;
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
                    const double fr = kernel_w(&s->cubic, r) / s->w_d, f4 = fr * fr * fr * fr;
                    const double *Ri = s->rart + 9 * i, *Rj = s->rart + 9 * j;
                    for (int k = 0; k < dim; k++)
                        for (int e = 0; e < dim; e++)
                            X[k] += f4 * (Ri[3 * k + e] + Rj[3 * k + e]) * gw[e];
                }
            }
            for (int k = 0; k < dim; k++) {
                acc[3 * i + (size_t)k] += mj * X[k];
                acc[3 * j + (size_t)k] -= mi * X[k];
            }
        }
}

/* The mirrors' terms (nonpressure_pair) and gravity. */
static void nonpressure_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const pfb_sim *sim = c->sim;
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        double *a = s->acc + 3 * i;
        if (s->ms[i + 1] > s->ms[i]) {
            double Ti[9], Ri[9] = {0};
            tensor_of(s, n, p->field[s->f_T].data, i, Ti);
            if (s->eps_art > 0)
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

static const pfb_stage nonpressure_stages[3] = {{0, acc_zero}, {1, nonpressure_pairs}, {0, nonpressure_finish}};

static int nonpressure_accel(my_state *s, pfb_sim *sim, pfb_err *err)
{
    my_pass c = {s, sim, 0, NULL};
    return run_pass(s, sim, nonpressure_stages, &c, err);
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
        double Ti[9], Ri[9] = {0};
        int have = 0;
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

/* ---- the pressure Poisson equation (eqs. 7-8) ----------------------------------- */

static int ensure_unknowns(my_state *s, size_t nu, size_t nz, pfb_err *err)
{
    if (nu + 1 > s->A.cap_n) {
        size_t nc = nu + nu / 4 + 64;
        size_t *st = realloc(s->A.start, (nc + 1) * sizeof *st);
        if (st)
            s->A.start = st;
        double *b = realloc(s->b, nc * sizeof *b);
        if (b)
            s->b = b;
        double *x = realloc(s->x, nc * sizeof *x);
        if (x)
            s->x = x;
        double *b1 = realloc(s->b1, nc * sizeof *b1);
        if (b1)
            s->b1 = b1;
        double *x1 = realloc(s->x1, nc * sizeof *x1);
        if (x1)
            s->x1 = x1;
        double *w = realloc(s->work, pcg_work(nc) * sizeof *w);
        if (w)
            s->work = w;
        size_t *rw = realloc(s->rows, nc * sizeof *rw);
        if (rw)
            s->rows = rw;
        double *ds = realloc(s->dsurf, nc * sizeof *ds);
        if (ds)
            s->dsurf = ds;
        if (!st || !b || !x || !b1 || !x1 || !w || !rw || !ds)
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu pressure unknowns", nu);
        s->A.cap_n = nc;
    }
    return csr_reserve(&s->A, nz, err);
}

/* The unknowns (non-surface particles) and the matrix kappa c_ij of eq. 8 with the source
 * term of eq. 7, from the densities in the density field.  A mirror j' of particle
 * j carries p_j, so its term (p_i - p_j) c_ij' adds to the (i, j) entry (and
 * vanishes for i's own mirror).  Mirrors across planes and box faces give a
 * symmetric matrix exactly (a reflection is an isometry and an involution:
 * |x_i - M x_j| = |M x_i - x_j|); tangent-plane mirrors of curved walls do so only
 * approximately, so the off-diagonal entries are symmetrised, and each diagonal
 * entry is the sum of its row's off-diagonal magnitudes plus its couplings to
 * surface particles: a symmetric, diagonally dominant M-matrix. */
/* The number of off-diagonal entries of particle i's row: its real neighbours
 * within h that are unknowns, and the unknown sources of its mirrors that are
 * neither i nor among them (mark: the thread's, all UINT32_MAX, left so). */
static size_t count_row(const my_state *s, size_t i, uint32_t *mark)
{
    const int mirrors = s->ms[i + 1] > s->ms[i];
    size_t c = 0;
    for (size_t q = s->F.fs[i]; q < s->F.fs[i + 1]; q++) {
        const size_t j = s->F.fj[q];
        if (s->unk[j] < 0 || !(period_dist2(&s->per, s->dim, (const double *const *)s->xc, i, j) < s->hh))
            continue;
        c++;
        if (mirrors)
            mark[j] = 0;
    }
    if (!mirrors)
        return c;
    for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
        const size_t js = s->g[s->mj[q]].src;
        if (js != i && s->unk[js] >= 0 && mark[js] == UINT32_MAX) {
            mark[js] = 0;
            c++;
        }
    }
    for (size_t q = s->F.fs[i]; q < s->F.fs[i + 1]; q++)
        mark[s->F.fj[q]] = UINT32_MAX;
    for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++)
        mark[s->g[s->mj[q]].src] = UINT32_MAX;
    return c;
}

/* Eq. 8's weight of the pair (i, j) at distance r, times kappa:
 * kappa (m_i + m_j) / (2 (rho_i + rho_j)^2) W(r); symmetric in i and j bit for bit. */
static inline double eq8_coeff(const my_state *s, const pfb_particles *p, const double *restrict rho, size_t i,
                               size_t j, double r)
{
    return s->kappa * (p->m[i] + p->m[j]) / (2.0 * (rho[i] + rho[j]) * (rho[i] + rho[j])) * kernel_w(&s->cubic, r);
}

/* Row u (particle i) of the matrix at A->start[u]: the diagonal slot first,
 * then the off-diagonal entries sorted by column; its couplings to surface
 * particles into s->dsurf[u]. */
static void fill_row(my_state *s, const pfb_particles *p, size_t u, size_t i, uint32_t *mark)
{
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    pfb_csr *A = &s->A;
    const size_t e0 = A->start[u];
    size_t e = e0;
    A->col[e] = u;
    A->val[e++] = 0.0;
    double dsurf = 0.0;
    MY_FOR_NEIGHBOURS(s, i, n, j, r, {
        const size_t js = src_of(s, n, j);
        if (js == i)
            continue; /* i's own mirror: p_mirror = p_i */
        double c = eq8_coeff(s, p, rho, i, js, r);
        if (s->unk[js] < 0) {
            dsurf += c; /* p_j = 0 (air pressure) */
            continue;
        }
        if (mark[js] == UINT32_MAX) {
            mark[js] = (uint32_t)(e - e0);
            A->col[e] = (size_t)s->unk[js];
            A->val[e++] = 0.0;
        }
        A->val[e0 + mark[js]] -= c;
    });
    /* sort the off-diagonal entries by column (mirrors come after the real
     * neighbours) and clear the marks */
    for (size_t a = e0 + 2; a < e; a++) {
        size_t c = A->col[a];
        double v = A->val[a];
        size_t k = a;
        for (; k > e0 + 1 && A->col[k - 1] > c; k--) {
            A->col[k] = A->col[k - 1];
            A->val[k] = A->val[k - 1];
        }
        A->col[k] = c;
        A->val[k] = v;
    }
    for (size_t q = s->F.fs[i]; q < s->F.fs[i + 1]; q++)
        mark[s->F.fj[q]] = UINT32_MAX;
    for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++)
        mark[s->g[s->mj[q]].src] = UINT32_MAX;
    s->dsurf[u] = dsurf;
}

static int assemble_pressure(my_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    const int nt = sim_threads(sim), par = sim_parallel_pairs(sim, n);
    size_t nu = 0, nsurf = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->surface[i]) {
            s->unk[i] = -1;
            nsurf++;
            continue;
        }
        s->unk[i] = (long)nu++;
    }
    s->n_surface = nsurf;
    int rc = halflist_full(&s->L, n, &s->F, err); /* the rows' neighbours */
    if (!rc)
        rc = ensure_unknowns(s, nu, 0, err);
    if (rc)
        return rc;
    if (s->mark_threads < nt) { /* each thread's marks, all clear */
        free(s->mark);
        if (!(s->mark = malloc((size_t)nt * s->cap_n * sizeof *s->mark))) {
            s->mark_threads = 0;
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for the matrix rows of %zu particles", n);
        }
        memset(s->mark, 0xff, (size_t)nt * s->cap_n * sizeof *s->mark);
        s->mark_threads = nt;
    }
    pfb_csr *A = &s->A;
    A->n = nu;
    for (size_t i = 0; i < n; i++)
        if (s->unk[i] >= 0)
            s->rows[s->unk[i]] = i;
    /* the rows' lengths, then their starts, then the rows, each row on one thread */
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt) if (par)
    for (size_t u = 0; u < nu; u++)
        A->start[u + 1] = 1 + count_row(s, s->rows[u], s->mark + (size_t)pfb_thread_num() * s->cap_n);
    A->start[0] = 0;
    for (size_t u = 0; u < nu; u++)
        A->start[u + 1] += A->start[u];
    rc = csr_reserve(A, A->start[nu], err);
    if (rc)
        return rc;
    const double src = 1.0 / (s->rho0 * dt * dt); /* eq. 7 */
    const double *pr = p->field[s->f_p].data;
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt) if (par)
    for (size_t u = 0; u < nu; u++) {
        const size_t i = s->rows[u];
        fill_row(s, p, u, i, s->mark + (size_t)pfb_thread_num() * s->cap_n);
        s->b[u] = (rho[i] - s->rho0) * src; /* eq. 7 */
        s->x[u] = pr[i];                   /* warm start */
    }
    if (s->pinned && nu > 0) {
        /* the singular system's source made consistent: the uniform part of the
         * density error is no pressure gradient's to remove (sum b = 0) */
        double mean = 0.0;
        for (size_t u = 0; u < nu; u++)
            mean += s->b[u];
        mean /= (double)nu;
        for (size_t u = 0; u < nu; u++)
            s->b[u] -= mean;
    }
    /* symmetrise the off-diagonal entries, then the diagonals (row u alone
     * writes the pairs (u, v) and (v, u) with v > u, and its own entries
     * without a partner in row v, whichever v: any threads) */
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt) if (par)
    for (size_t u = 0; u < nu; u++)
        for (size_t a = A->start[u] + 1; a < A->start[u + 1]; a++) {
            size_t v = A->col[a];
            size_t lo = A->start[v] + 1, hi = A->start[v + 1];
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (A->col[mid] < u)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < A->start[v + 1] && A->col[lo] == u) {
                if (v < u)
                    continue; /* the pair is row v's to average */
                double avg = 0.5 * (A->val[a] + A->val[lo]);
                A->val[a] = avg;
                A->val[lo] = avg;
            } else {
                s->dsurf[u] -= A->val[a]; /* no partner term: keep the coupling on the diagonal only */
                A->val[a] = 0.0;
            }
        }
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt) if (par)
    for (size_t u = 0; u < nu; u++) {
        double d = s->dsurf[u];
        for (size_t a = A->start[u] + 1; a < A->start[u + 1]; a++)
            d -= A->val[a];
        A->val[A->start[u]] = d;
    }
    return PFB_OK;
}

/* ---- eq. 8 applied over the pairs (pcg_operator = pairs) ----------------------- */

/* The same operator as assemble_pressure's matrix, in core/pairop.h's form:
 * the unknowns are all the particles, a surface particle's row the identity
 * with source 0 (its pressure stays 0, and it adds nothing to the stopping
 * rule's sums), and
 *   (A p)_i = sum_j c_ij (p_i - p_j) + mdiag_i p_i + sum_v w_iv (p_i - p_v)
 * over the real pairs within h (c_ij of eq. 8, eq8_weight), the mirrors'
 * couplings to surface particles and those without a partner (mdiag), and the
 * symmetrised mirror couplings w (as assemble_pressure: (M_iv + M_vi) / 2, or
 * on i's diagonal alone when neither v couples back nor is a real neighbour). */
typedef struct my_coupling {
    size_t i, j;
    double m;
} my_coupling;

static int coupling_cmp(const void *a, const void *b)
{
    const my_coupling *x = a, *y = b;
    return x->i != y->i ? (x->i > y->i) - (x->i < y->i) : (x->j > y->j) - (x->j < y->j);
}

/* mdiag and the symmetric couplings mcs/mcv/mcw of the mirrors (serial: the
 * mirrors' pairs are few, the particles within h of a wall). */
static int mirror_couplings(my_state *s, const pfb_particles *p, pfb_err *err)
{
    const size_t n = p->n, nm = s->ms[n];
    const double *restrict rho = p->field[s->f_rho].data;
    my_coupling *E = nm ? malloc(2 * nm * sizeof *E) : NULL, *P = E ? E + nm : NULL;
    if (nm && !E)
        return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror couplings", nm);
    memset(s->mdiag, 0, n * sizeof *s->mdiag);
    size_t ne = 0, np = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->unk[i] < 0)
            continue;
        const size_t e0 = ne;
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            const size_t js = s->g[s->mj[q]].src;
            if (js == i)
                continue; /* i's own mirror: p_mirror = p_i */
            const double c = eq8_coeff(s, p, rho, i, js, pair_r(s, s->dim, i, n + s->mj[q]));
            if (s->unk[js] < 0) {
                s->mdiag[i] += c; /* p_j = 0 (air pressure) */
                continue;
            }
            size_t k = e0;
            while (k < ne && E[k].j != js)
                k++;
            if (k == ne)
                E[ne++] = (my_coupling){i, js, 0.0};
            E[k].m += c;
        }
    }
    if (ne > 1)
        qsort(E, ne, sizeof *E, coupling_cmp);
    for (size_t t = 0; t < ne; t++) {
        const my_coupling key = {E[t].j, E[t].i, 0.0};
        const my_coupling *back = bsearch(&key, E, ne, sizeof *E, coupling_cmp);
        double r;
        if (back) {
            if (E[t].i < E[t].j)
                P[np++] = (my_coupling){E[t].i, E[t].j, 0.5 * (E[t].m + back->m)};
        } else if (within(s, E[t].i, E[t].j, &r)) {
            P[np++] = (my_coupling){E[t].i, E[t].j, 0.5 * E[t].m}; /* the real pair's entry is the partner */
        } else {
            s->mdiag[E[t].i] += E[t].m; /* no partner: on the diagonal only */
        }
    }
    if (2 * np > s->cap_mc) {
        size_t nc = 2 * np + np / 2 + 64;
        uint32_t *v = realloc(s->mcv, nc * sizeof *v);
        if (v)
            s->mcv = v;
        double *w = realloc(s->mcw, nc * sizeof *w);
        if (w)
            s->mcw = w;
        if (!v || !w) {
            free(E);
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror couplings", np);
        }
        s->cap_mc = nc;
    }
    memset(s->mcs, 0, (n + 1) * sizeof *s->mcs);
    for (size_t t = 0; t < np; t++) {
        s->mcs[P[t].i + 1]++;
        s->mcs[P[t].j + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        s->mcs[i + 1] += s->mcs[i];
    for (size_t t = 0; t < np; t++) { /* each row in the couplings' order, mcs[i] counting up as it fills */
        const size_t a = s->mcs[P[t].i]++, b = s->mcs[P[t].j]++;
        s->mcv[a] = (uint32_t)P[t].j;
        s->mcw[a] = P[t].m;
        s->mcv[b] = (uint32_t)P[t].i;
        s->mcw[b] = P[t].m;
    }
    for (size_t i = n; i > 0; i--) /* the starts again */
        s->mcs[i] = s->mcs[i - 1];
    s->mcs[0] = 0;
    free(E);
    return PFB_OK;
}

typedef struct my_weight_ctx {
    const my_state *s;
    const pfb_particles *p;
} my_weight_ctx;

/* pfb_pair_weight: eq. 8's weight of a listed pair within h, else 0 */
static double eq8_weight(void *ctx, size_t i, size_t j)
{
    const my_weight_ctx *c = ctx;
    double r;
    return within(c->s, i, j, &r) ? eq8_coeff(c->s, c->p, c->p->field[c->s->f_rho].data, i, j, r) : 0.0;
}

/* The operator of eqs. 7-8 at the current density and surface flags (the
 * surface particles' rows the identity), and the right-hand side and warm
 * start over the particles (pcg_operator = pairs). */
static int pressure_operator(my_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data, *restrict pr = p->field[s->f_p].data;
    size_t nsurf = 0;
    for (size_t i = 0; i < n; i++) {
        s->unk[i] = s->surface[i] ? -1 : (long)i;
        nsurf += s->surface[i];
    }
    s->n_surface = nsurf;
    int rc = ensure_unknowns(s, n, 0, err);
    if (rc)
        return rc;
    if (n + 1 > s->cap_pd) {
        size_t nc = n + n / 4 + 64;
        double *md = realloc(s->mdiag, nc * sizeof *md);
        if (md)
            s->mdiag = md;
        uint32_t *st = realloc(s->mcs, (nc + 1) * sizeof *st);
        if (st)
            s->mcs = st;
        if (!md || !st)
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for the operator of %zu particles", n);
        s->cap_pd = nc;
    }
    for (size_t i = 0; i < n; i++)
        s->rows[i] = i;
    rc = mirror_couplings(s, p, err);
    if (rc)
        return rc;
    pfb_pairop *op = &s->op;
    op->L = &s->L;
    op->T = &s->T;
    op->threads = pairtasks_threads(sim);
    op->parallel = sim_parallel_pairs(sim, n);
    op->fixed = s->surface;
    op->d = s->mdiag;
    op->xs = s->mcs;
    op->xv = s->mcv;
    op->xw = s->mcw;
    my_weight_ctx wc = {s, p};
    rc = pairop_build(op, n, eq8_weight, &wc, err);
    if (rc)
        return rc;
    const double src = 1.0 / (s->rho0 * dt * dt); /* eq. 7 */
    double mean = 0.0;
    for (size_t i = 0; i < n; i++) {
        s->b[i] = s->unk[i] >= 0 ? (rho[i] - s->rho0) * src : 0.0;
        s->x[i] = s->unk[i] >= 0 ? pr[i] : 0.0; /* warm start */
        mean += s->b[i];
    }
    if (s->pinned && n > nsurf) /* as assemble_pressure: the singular system's source made consistent */
        for (size_t i = 0; i < n; i++)
            if (s->unk[i] >= 0)
                s->b[i] -= mean / (double)(n - nsurf);
    return PFB_OK;
}

/* Solve for the pressure and store it in the pressure field (0 at the surface). */
static int solve_pressure(my_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    int rc;
    size_t nvec, count;
    if (s->matfree) {
        rc = pressure_operator(s, sim, dt, err);
        nvec = sim->p.n;
        count = sim->p.n - s->n_surface;
    } else {
        rc = assemble_pressure(s, sim, dt, err);
        if (!rc && s->precond == PFB_PRECOND_AMG)
            rc = amg_setup(&s->amg, &s->A, err);
        nvec = count = s->A.n;
    }
    if (rc)
        return rc;
    s->nvec = nvec;
    s->count = count;
    const pfb_linop op = {nvec, pairop_apply, &s->op, s->op.diag};
    /* the stopping rule: the relative residual, or the density error the solve
     * leaves.  Eq. 7 with its source b = (rho* - rho_0) / (rho_0 dt^2): the
     * pressure p changes the density by rho_0 dt^2 A p, so particle i is left
     * with rho_0 dt^2 r_i, r = b - A p, a relative error dt^2 r_i; the mean of
     * |r| over the unknowns at most eta / dt^2 is DFSPH's rule (mean density
     * error at most eta; maxError 0.01% in SPlisHSPlasH).  The divergence
     * solve's residual is likewise the density change per step it leaves. */
    const double dt2 = dt * dt;
    pfb_pcg_stop stop = {PFB_PCG_RELATIVE, s->tol, count};
    if (s->stop == MY_STOP_DENSITY)
        stop = (pfb_pcg_stop){PFB_PCG_MEAN_ABS, s->eta / dt2, count};
    int it = 0;
    double res = 0.0;
    rc = s->matfree ? pcg_solve_op(&op, s->b, s->x, &stop, s->max_iter, s->precond, sim_threads(sim), s->work, &it,
                                   &res, err)
                    : pcg_solve_stop(&s->A, s->b, s->x, &stop, s->max_iter, s->precond, &s->amg, sim_threads(sim),
                                     s->work, &it, &res, err);
    if (!rc && s->matfree && s->op.rc)
        rc = pfb_err_set(err, s->op.rc, "mao_yang: %s", s->op.err.msg);
    if (rc)
        return rc;
    double *pr = sim->p.field[s->f_p].data, *pd = sim->p.field[s->f_pd].data;
    const double *rho = sim->p.field[s->f_rho].data;
    if (s->pos_only) {
        /* the divergence part: the same operator, the density change of this
         * step's prediction as the source */
        const double src = 1.0 / (s->rho0 * dt * dt);
        for (size_t u = 0; u < nvec; u++) {
            size_t i = s->rows[u];
            s->b1[u] = s->unk[i] >= 0 ? (rho[i] - s->rho_n[i]) * src : 0.0;
            s->x1[u] = s->unk[i] >= 0 ? pd[i] : 0.0;
        }
        int it1 = 0;
        double res1 = 0.0;
        if (s->stop == MY_STOP_DENSITY)
            stop.tol = s->eta_div / dt2;
        rc = s->matfree ? pcg_solve_op(&op, s->b1, s->x1, &stop, s->max_iter, s->precond, sim_threads(sim), s->work,
                                       &it1, &res1, err)
                        : pcg_solve_stop(&s->A, s->b1, s->x1, &stop, s->max_iter, s->precond, &s->amg,
                                         sim_threads(sim), s->work, &it1, &res1, err);
        if (!rc && s->matfree && s->op.rc)
            rc = pfb_err_set(err, s->op.rc, "mao_yang: %s", s->op.err.msg);
        if (rc)
            return rc;
        it += it1;
        res = fmax(res, res1);
    }
    s->last_iters = it;
    s->last_resid = s->stop == MY_STOP_DENSITY ? res * dt2 : res; /* density rule: the relative density error */
    s->iters_total += it;
    s->steps++;
    double mp = 0.0, md = 0.0;
    for (size_t i = 0; i < sim->p.n; i++) {
        pr[i] = s->unk[i] >= 0 ? s->x[s->unk[i]] : 0.0;
        pd[i] = !s->pos_only ? pr[i] : s->unk[i] >= 0 ? s->x1[s->unk[i]] : 0.0;
        mp += pr[i];
        md += pd[i];
    }
    if (s->pinned) /* the pressure level of a box without a surface: mean 0 */
        for (size_t i = 0; i < sim->p.n; i++) {
            pr[i] -= mp / (double)sim->p.n;
            pd[i] -= md / (double)sim->p.n;
        }
    return PFB_OK;
}

/* eq. 5's pair term (with its minus sign, the spiky gradient of eq. 6) between
 * particle i and neighbour j (source js) at distance r > 0: particle i's
 * acceleration gains the returned coefficient times (x_i - x_j). */
static inline void pressure_coeffs(const my_state *s, const double *restrict rho, const double *restrict pr,
                                   size_t i, size_t js, double r, double *A, double *S)
{
    const double dw = kernel_dw(&s->spiky, r) / r;
    double a = 0.0, d = 0.0;
    if (s->eps_art > 0 && s->pform == MY_PFORM_SUM) { /* Monaghan 2000: negative pressures */
        double fr = kernel_w(&s->cubic, r) / s->w_d;
        double ra = s->eps_art * (fmax(-pr[i], 0.0) / (rho[i] * rho[i]) + fmax(-pr[js], 0.0) / (rho[js] * rho[js]));
        a = -fr * fr * fr * fr * ra * dw;
    }
    if (s->pform == MY_PFORM_DIFFERENCE)
        d = -(pr[js] - pr[i]) / (rho[i] * rho[js]) * dw;
    else if (s->pform == MY_PFORM_SUM)
        a -= (pr[i] / (rho[i] * rho[i]) + pr[js] / (rho[js] * rho[js])) * dw;
    else { /* split: eq. 5's sum of the positive parts, the difference of the negative parts */
        a -= (fmax(pr[i], 0.0) / (rho[i] * rho[i]) + fmax(pr[js], 0.0) / (rho[js] * rho[js])) * dw;
        d = -(fmin(pr[js], 0.0) - fmin(pr[i], 0.0)) / (rho[i] * rho[js]) * dw;
    }
    *A = a;
    *S = d;
}

/* eq. 5's pair term (with its minus sign, the spiky gradient of eq. 6) between
 * particle i and neighbour j (source js) at distance r > 0: particle i's
 * acceleration gains the returned coefficient times (x_i - x_j).  It is m_j (A
 * + D) with pressure_coeffs' A, the part symmetric in i and j (eq. 5's sum, the
 * artificial pressure) and D, the difference form's part, antisymmetric in the
 * pressures: for j the coefficient of x_j - x_i is m_i (A - D). */
static inline double pressure_pair(const my_state *s, const pfb_particles *p, const double *restrict rho,
                                   const double *restrict pr, size_t i, size_t js, double r)
{
    double A, D;
    pressure_coeffs(s, rho, pr, i, js, r, &A, &D);
    return p->m[js] * (A + D);
}

/* eq. 5 (with its minus sign) with the spiky gradient of eq. 6: a_i = -grad p / rho,
 * mirrors carrying p and rho of their particle; into s->acc. */
static void pressure_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const int dim = s->dim;
    const double *restrict rho = p->field[s->f_rho].data, *restrict pr = c->pr;
    double *restrict acc = s->acc;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++)
        for (size_t q = s->L.ls[i]; q < s->L.ls[i + 1]; q++) {
            const size_t j = s->L.lj[q];
            double r;
            if (!within(s, i, j, &r) || !(r > 0))
                continue;
            double A, D;
            pressure_coeffs(s, rho, pr, i, j, r, &A, &D);
            const double fi = p->m[j] * (A + D), fj = p->m[i] * (A - D);
            for (int k = 0; k < dim; k++) {
                const double d = pair_d(s, k, i, j);
                acc[3 * i + (size_t)k] += fi * d;
                acc[3 * j + (size_t)k] -= fj * d;
            }
        }
}

static void pressure_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++)
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            const size_t j = n + s->mj[q];
            const double r = pair_r(s, s->dim, i, j);
            if (!(r > 0))
                continue;
            const double f = pressure_pair(s, p, rho, c->pr, i, s->g[s->mj[q]].src, r);
            for (int k = 0; k < s->dim; k++)
                s->acc[3 * i + (size_t)k] += f * pair_d(s, k, i, j);
        }
}

static const pfb_stage pressure_stages[3] = {{0, acc_zero}, {1, pressure_pairs}, {0, pressure_finish}};

/* eq. 5 (with its minus sign) with the spiky gradient of eq. 6: a_i = -grad p / rho,
 * mirrors carrying p and rho of their particle; into s->acc. */
static int pressure_accel(my_state *s, pfb_sim *sim, const double *restrict pr, pfb_err *err)
{
    my_pass c = {s, sim, 0, pr};
    return run_pass(s, sim, pressure_stages, &c, err);
}

/* The pressure impulse on the rigid bodies: minus what every particle's
 * velocity received over dt from the mirrors across a body (pressure_accel's
 * terms with those mirrors, times m_i dt), applied at the surface point midway
 * between the particle and its mirror; the exchange is equal and opposite. */
static void body_pressure_impulse(my_state *s, pfb_sim *sim, const double *restrict pr, double dt)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const int dim = sim->dim;
    const double *restrict rho = p->field[s->f_rho].data;
    if (sim->bodies.n == 0)
        return;
    for (size_t i = 0; i < n; i++)
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            size_t j = n + s->mj[q];
            if (s->g[j - n].body < 0)
                continue;
            double r = pair_r(s, dim, i, j);
            if (!(r > 0))
                continue;
            double f = pressure_pair(s, p, rho, pr, i, s->g[j - n].src, r);
            double J[3] = {0, 0, 0}, at[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) {
                J[k] = -p->m[i] * dt * f * pair_d(s, k, i, j);
                at[k] = s->xc[k][i] - 0.5 * pair_d(s, k, i, j);
            }
            body_apply_impulse(&sim->bodies.b[s->g[j - n].body], dim, at, J);
        }
}

/* ---- the step ------------------------------------------------------------------- */

static int mao_yang_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    my_state *s = state;
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double t1 = sim->t + dt;
    /* 1. at x_n: density, velocity gradient, non-pressure accelerations */
    int rc = neighbours(s, sim, sim->t, err);
    if (!rc)
        rc = compute_density(s, sim, 1, err);
    if (rc)
        return rc;
    /* 2. stress, eq. 9, before the force it exerts: T_{n+1} from v_n, then v from
     * T_{n+1} (symplectic Euler; both from the old values is forward Euler on an
     * oscillator, whose amplitude grows by (1 + (c_s k dt)^2)^(1/2) per step) */
    update_stress(s, sim, dt);
    if (s->eps_art > 0)
        artificial_stress(s, sim);
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
    rc = neighbours(s, sim, t1, err);
    if (rc)
        return rc;
    memcpy(s->rho_n, p->field[s->f_rho].data, p->n * sizeof *s->rho_n);
    rc = compute_density(s, sim, 0, err);
    if (rc)
        return rc;
    surface_flags(s, sim);
    const double t_p = pfb_now();
    rc = solve_pressure(s, sim, dt, err);
    s->seconds_pressure += pfb_now() - t_p;
    if (rc)
        return rc;
    /* 5. correction: positions by the whole pressure, velocities by the whole
     * pressure (the paper) or by its divergence part only (density_correction =
     * position, see the header) */
    rc = pressure_accel(s, sim, p->field[s->f_p].data, err);
    if (rc)
        return rc;
    for (int k = 0; k < dim; k++)
        for (size_t i = 0; i < p->n; i++) {
            double du = dt * s->acc[3 * i + (size_t)k];
            p->x[k][i] += dt * du;
            if (!s->pos_only)
                p->v[k][i] += du;
        }
    if (s->pos_only) {
        rc = pressure_accel(s, sim, p->field[s->f_pd].data, err);
        if (rc)
            return rc;
        for (int k = 0; k < dim; k++)
            for (size_t i = 0; i < p->n; i++)
                p->v[k][i] += dt * s->acc[3 * i + (size_t)k];
    }
    /* the bodies get the reaction of the velocity correction's mirror terms */
    body_pressure_impulse(s, sim, p->field[s->pos_only ? s->f_pd : s->f_p].data, dt);
    sim_project_walls(sim, t1, s->margin, s->e, s->fric);
    /* the correction can move a particle into a body: the coupling again, the
     * bodies not advancing (dt = 0) */
    sim_bodies_couple(sim, 0.0, t1, s->margin, s->fric);
    sim_positions_changed(sim);
    return PFB_OK;
}

/* The test hooks' state of a pressure solve at the current positions, made as
 * a step makes it: the pairs, the density, the surface flags. */
static int pressure_state(my_state *s, pfb_sim *sim, pfb_err *err)
{
    int rc = neighbours(s, sim, sim->t, err);
    if (!rc)
        rc = compute_density(s, sim, 0, err);
    if (!rc)
        surface_flags(s, sim);
    return rc;
}

int my_pressure_system(void *state, pfb_sim *sim, double dt, const pfb_csr **A, const double **b,
                       const size_t **rows, pfb_err *err)
{
    my_state *s = state;
    int rc = pressure_state(s, sim, err);
    if (!rc)
        rc = assemble_pressure(s, sim, dt, err);
    if (rc)
        return rc;
    *A = &s->A;
    *b = s->b;
    *rows = s->rows;
    return PFB_OK;
}

int my_last_system(const void *state, size_t *nvec, size_t *count, const double **b, const double **b1,
                   const size_t **rows, double *eta, double *eta_div)
{
    const my_state *s = state;
    *nvec = s->nvec;
    *count = s->count;
    *b = s->b;
    *b1 = s->pos_only ? s->b1 : NULL;
    *rows = s->rows;
    *eta = s->stop == MY_STOP_DENSITY ? s->eta : 0.0;
    *eta_div = s->stop == MY_STOP_DENSITY ? s->eta_div : 0.0;
    return PFB_OK;
}

int my_last_apply(void *state, pfb_sim *sim, const double *x, double *y, pfb_err *err)
{
    my_state *s = state;
    if (!s->matfree) {
        for (size_t u = 0; u < s->A.n; u++) {
            double t = 0.0;
            for (size_t e = s->A.start[u]; e < s->A.start[u + 1]; e++)
                t += s->A.val[e] * x[s->A.col[e]];
            y[u] = t;
        }
        return PFB_OK;
    }
    (void)sim;
    pairop_apply(&s->op, x, y, 1);
    return s->op.rc ? pfb_err_set(err, s->op.rc, "mao_yang: %s", s->op.err.msg) : PFB_OK;
}

int my_pressure_operator(void *state, pfb_sim *sim, double dt, const double *x, double *y, pfb_err *err)
{
    my_state *s = state;
    int rc = pressure_state(s, sim, err);
    if (!rc)
        rc = pressure_operator(s, sim, dt, err);
    if (rc)
        return rc;
    pairop_apply(&s->op, x, y, 1);
    return s->op.rc ? pfb_err_set(err, s->op.rc, "mao_yang: %s", s->op.err.msg) : PFB_OK;
}

int my_stress_update(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    my_state *s = state;
    int rc = neighbours(s, sim, sim->t, err);
    if (rc)
        return rc;
    rc = compute_density(s, sim, 1, err);
    if (rc)
        return rc;
    update_stress(s, sim, dt);
    return PFB_OK;
}

int my_mirror_pairs(void *state, pfb_sim *sim, double *h, const uint32_t **ms, const uint32_t **mj, size_t *ng,
                    const double *const **x, pfb_err *err)
{
    my_state *s = state;
    int rc = neighbours(s, sim, sim->t, err);
    if (rc)
        return rc;
    *h = s->h;
    *ms = s->ms;
    *mj = s->mj;
    *ng = s->ng;
    *x = (const double *const *)s->xc;
    return PFB_OK;
}

/* §5: re-sampling at the end of every resample_every-th frame.  Eq. 7 keeps
 * rho_0 as every particle's rest density, also for the merged and inserted
 * particles (see the header). */
static int resample_frame(void *state, pfb_sim *sim, long frame, pfb_err *err)
{
    my_state *s = state;
    if (s->resample_every <= 0 || frame % s->resample_every != 0)
        return PFB_OK;
    /* densities for eq. 19 at the current positions */
    int rc = neighbours(s, sim, sim->t, err);
    if (!rc)
        rc = compute_density(s, sim, 0, err);
    if (rc)
        return rc;
    rc = my_downsample(sim, &s->rp, &s->rs, err);
    if (!rc)
        rc = my_upsample(sim, &s->rp, &s->rs, err);
    if (!rc)
        rc = ensure_particles(s, sim->p.n, err);
    /* a merged pair's centre of mass can lie inside a body (a chord across it) */
    sim_bodies_couple(sim, 0.0, sim->t, s->margin, s->fric);
    sim_positions_changed(sim);
    return rc;
}

static int mao_yang_frame(void *state, pfb_sim *sim, long frame, pfb_err *err)
{
    my_state *s = state;
    const double t0 = pfb_now();
    int rc = resample_frame(state, sim, frame, err);
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
    free(s->ms);
    free(s->mj);
    free(s->acc);
    free(s->gradv);
    free(s->binv);
    free(s->rart);
    free(s->surface);
    free(s->detached);
    free(s->unk);
    free(s->mark);
    free(s->dsurf);
    free(s->A.start);
    free(s->A.col);
    free(s->A.val);
    amg_free(&s->amg);
    pairop_free(&s->op);
    free(s->mdiag);
    free(s->mcw);
    free(s->mcs);
    free(s->mcv);
    free(s->b);
    free(s->x);
    free(s->b1);
    free(s->x1);
    free(s->rho_n);
    free(s->work);
    free(s->rows);
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
    s->eps_art = params_get(pp, "artificial_stress");
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
    s->e = params_get(pp, "wall_restitution");
    s->fric = params_get(pp, "wall_friction");
    s->cfl = params_get(pp, "cfl");
    s->pform = params_get_int(pp, "pressure_form");
    s->pos_only = params_get_int(pp, "density_correction");
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
    s->w0 = kernel_w(&s->cubic, 0.0);
    s->w_d = kernel_w(&s->cubic, D);
    if (params_get_int(pp, "calibrate_rest_density"))
        s->rho0 = lattice_density(&s->cubic, D, s->m0);
    else
        s->rho0 = params_get(pp, "rest_density");
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
        rc = ensure_particles(s, sim->p.n, err);
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

/* The pair virial (solver.h) of eq. 5's pressure force at the current state
 * (the density and pressure fields of the last step; the pressure whose
 * gradient changed the velocities): f_ij = m_i c_ij r_ij
 * with c_ij pressure_pair's coefficient, over the real neighbours (a free
 * drop has no mirrors).  The viscous and elastic pair terms are left out: at
 * rest the first vanishes, and the Maxwell stress relaxes in lambda.  In the
 * difference form (and the split form's negative part) the two terms of a pair
 * are not equal and opposite; each particle's own term is taken. */
static double mao_yang_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[3])
{
    const my_state *s = state;
    const pfb_particles *p = &sim->p;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    if (sim_neighbours_fresh(sim, s->h, &nl, &err)) {
        nlist_free(&nl);
        return NAN;
    }
    /* the pressure the velocities received (density_correction = position: its
     * divergence part), as body_pressure_impulse */
    const double *rho = p->field[s->f_rho].data, *pr = p->field[s->pos_only ? s->f_pd : s->f_p].data;
    double W = 0.0, D[3] = {0.0, 0.0, 0.0};
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            const double r2 = period_dist2(&sim->period, sim->dim, (const double *const *)p->x, i, j);
            const double r = sqrt(r2);
            if (!(r > 0))
                continue;
            const double c = 0.5 * p->m[i] * pressure_pair(s, p, rho, pr, i, j, r); /* f_ij = 2 c r_ij */
            W += c * r2;
            for (int k = 0; k < sim->dim; k++) {
                const double dk = period_delta(&sim->period, k, p->x[k][i] - p->x[k][j]);
                D[k] += c * dk * dk;
            }
        }
    }
    nlist_free(&nl);
    if (diag)
        memcpy(diag, D, sizeof D);
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
    {2200.0, 5600.0}};

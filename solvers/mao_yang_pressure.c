/* mao_yang_pressure.c — the projection of Mao & Yang (../shared/papers/
 * mao-yang-nonnewtonian.txt, §4.2): eq. 5's pressure acceleration, eq. 7's
 * pressure Poisson equation with eq. 8's SPH Laplacian, "solved by a
 * Preconditioned Conjugate Gradient method".  mao_yang.c has the step that
 * calls it; mao_yang_internal.h the state.
 *
 *   eq. 5   a_i = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2) grad_i W_ij, with
 *   eq. 6   the spiky kernel W = 15 / (pi h^6) (h - r)^3 ............. my_pressure_accel
 *   eq. 7   kappa sum_j (p_i - p_j) c_ij = (rho*_i - rho_0) / (rho_0 dt^2) .. assemble_pressure
 *   eq. 8   c_ij = (m_i + m_j) W_ij / (2 (rho_i + rho_j)^2) ... eq8_coeff; without a matrix,
 *           over the pairs ...................... pressure_operator (core/pairop.h)
 *   PCG ................................................ my_solve_pressure (core/pcg.h)
 *
 * Corrections to the printed equations, and why:
 *  - eq. 5's sum is printed without its minus sign; with it, positive pressure
 *    pushes particles apart (Monaghan 1992, which the paper cites for it).
 *    (The default, pressure_form = split, uses this sum for the positive part
 *    of the pressures only; see below.)
 *  - eq. 8 as printed, sum_j (p_i - p_j) (m_i + m_j) / (2 (rho_i + rho_j)^2) W_ij, is
 *    minus a Laplacian (for p_i a local maximum it is positive) and is short of a
 *    factor 1/length^2 (W has units 1/m^dim, so the sum has units of p / rho times
 *    m^2 / m^2 ... of p m^dim / kg, not p / (rho m^2)).  We keep the paper's weights
 *    and multiply by one constant kappa (1/m^2), calibrated so that on the initial
 *    lattice the sum equals -(1/rho) lap p exactly for a quadratic p; eq. 7's sign
 *    follows: kappa sum_j (p_i - p_j) c_ij = (rho*_i - rho_0) / (rho_0 dt^2).  The
 *    matrix A_ii = kappa sum_j c_ij, A_ij = -kappa c_ij is then symmetric, diagonally
 *    dominant and positive definite once a row touches a surface particle (p = 0).
 *
 * Choices where the paper is silent:
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
 *  - Eq. 8's operator.  pcg_operator = pairs (the default) stores no matrix:
 *    core/pairop.h keeps each pair's
 *    coefficient kappa c_ij (8 bytes per entry of the half list, against the
 *    matrix's 16 per entry of both rows; the density pass at x* leaves each
 *    pair's W_ij there, my_compute_density_w, so the coefficients take no
 *    second distance or kernel) and the diagonal, for Jacobi's
 *    preconditioner, and applies the operator as a pair pass on the blocked
 *    schedule, each row's sum in four lanes (core/pairop_rows.inc: the same
 *    bits at every solver.simd level; a row's sum as one chain of additions
 *    waited an addition's latency per entry); the mirrors' couplings are
 *    gathered and symmetrised per solve as the matrix's are, each row on one
 *    thread (mirror_couplings), and handed to it as extra couplings
 *    (pressure_operator).  Its unknowns are all the particles, a
 *    surface particle's row the identity with source 0.  The mirrors'
 *    couplings are found per row (the rows ascend, each sorted by column), not
 *    by a search over all of them.  The two are the same
 *    operator to round-off (test_mao_yang).  The operator's rows are the
 *    pairs within h that the density pass at x* listed as it found them (hj,
 *    hn; 4 bytes per entry of the list), not the list's rows: the list keeps
 *    every pair within h (1 + skin), and in the 3D dam break's flow 17% of its
 *    entries are beyond h at t = 0.1 s (none on the initial lattice, where no
 *    lattice distance falls between h and 1.1 h).  The coefficients, each
 *    product and the pressure pass after the solve skip them; the product's
 *    lanes then hold other pairs, so its bits are those of the listed rows
 *    (the same at every level and thread count).  The passes before the
 *    prediction (the viscosity) run over the pairs the density at x_n listed.
 *    pcg_operator = matrix stores the
 *    CSR matrix (assemble_pressure; its rows walk the list's full form,
 *    halflist_full, each row on one thread), which the multigrid needs; per
 *    step the pairs take 0.86 of its time at rest and 0.84 in the flow (3D dam
 *    break, 60k particles, the density rule and Jacobi; bench/README.md), and
 *    about 1,070 bytes per particle less.
 *  - PCG: warm-started from the previous step's pressure.  The paper names no
 *    stopping rule.  pcg_stop = density (the default) is DFSPH's rule, the
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
 *    is 0.2% above at 0.1 s, with 3e-5 and 1e-5 within 0.01%.  A pool at rest
 *    tells 3e-5 from 1e-5 (the validation's 2D pool, D/dx = 100, 2 s, eight
 *    seeds): with 3e-5 half the seeds keep 5 to 10 times the kinetic energy
 *    over the last third (0.02-0.04 J against 0.004-0.008, which a change of
 *    summation order alone leaves as it is); so 1e-5, though 3e-5 saves 45% of
 *    the divergence solve's iterations in the 3D dam break's flow
 *    (bench/README.md).  The pool's hydrostatic error does not tell the two
 *    apart: its spread over the seeds is as wide as their difference.  pcg_stop =
 *    residual stops at the relative residual |b - A p| <= pcg_tol |b| (1e-6).
 *    Both rules leave
 *    the same density error in the flow (0.29% mean at t = 0.1 s): eq. 8's
 *    Laplacian, which is not the density response of eq. 5's spiky-gradient
 *    correction, sets it, not the solve.  The settled pool of a square
 *    lattice (2D, 0.01 m, the calibrated fluid) leaves that lattice: alternate
 *    rows slide apart, first at the floor, where the pressure is highest (a
 *    square lattice under pressure is an unstable equilibrium of particles
 *    that repel), at a time its seed sets: 2.25 s with the residual rule, 1.2 s
 *    with the density rule, 0.25 s with no viscosity, earlier in a deeper pool;
 *    from a lattice displaced by up to 0.01 or 0.05 spacings both rules leave
 *    it at the same moment (0.5-0.75 s), their kinetic energies within 10% of
 *    each other to t = 2.5 s.  So the rule only seeds it, and the validation's
 *    hydrostatic case starts displaced; with that start the validation agrees
 *    between the rules within its resolution steps (bench/README.md).  The
 *    volume experiment's long 2D dam break (a/dx = 25, 2 s) had blown up under
 *    the density rule at every substep count, 1-16, and under the residual
 *    rule at 8 and 16: a set of unknowns without a path to the air makes eq.
 *    7 singular (hold_ungrounded, below).  With such sets held, the density
 *    rule completes every count and the residual rule every count but 16
 *    (energy growth at 1.24 s), and the volume errors of the two agree within
 *    the spread over the substep counts (bench/README.md).  Parallel, with
 *    every sum formed over fixed blocks in a fixed order, so the bits do not
 *    depend on the thread count.
 *  - Preconditioner: Jacobi by default; pcg_precond = amg is an aggregation
 *    multigrid W-cycle (core/amg.c, on the stored matrix), rebuilt for each
 *    step's matrix, whose iterations do not grow with N (3D
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
 *    larger final residual. */
#include "mao_yang.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "../core/timing.h"
#include "mao_yang_internal.h"

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
/* kappa c_ij / W_ij of eq. 8 */
static inline double eq8_factor(const my_state *s, const pfb_particles *p, const double *restrict rho, size_t i,
                                size_t j)
{
    return s->kappa * (p->m[i] + p->m[j]) / (2.0 * (rho[i] + rho[j]) * (rho[i] + rho[j]));
}

static inline double eq8_coeff(const my_state *s, const pfb_particles *p, const double *restrict rho, size_t i,
                               size_t j, double r)
{
    return eq8_factor(s, p, rho, i, j) * kernel_cubic_w(&s->cubic, r);
}

/* A box without a free surface (s->pinned) leaves eq. 8's system singular (p up
 * to a constant): its source b, over the nvec vector entries u (unknown when
 * unk[rows[u]] >= 0), is made consistent by taking the unknowns' mean off them.
 * The uniform part of a density error is no pressure gradient's to remove. */
static void consistent_source(const my_state *s, double *b, size_t nvec)
{
    if (!s->pinned)
        return;
    double sum = 0.0;
    size_t c = 0;
    for (size_t u = 0; u < nvec; u++) {
        sum += b[u];
        c += s->unk[s->rows[u]] >= 0;
    }
    if (c == 0)
        return;
    const double mean = sum / (double)c;
    for (size_t u = 0; u < nvec; u++)
        if (s->unk[s->rows[u]] >= 0)
            b[u] -= mean;
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
    consistent_source(s, s->b, nu);
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
    uint32_t i, j;
    double m;
} my_coupling;

/* The coupling (i, j) in row i, E[rs[i] .. re[i]) sorted by j, or NULL (a
 * bisection: rows near a wall hold tens of couplings). */
static const my_coupling *coupling_find(const my_coupling *E, const uint32_t *rs, const uint32_t *re, size_t i,
                                        size_t j)
{
    size_t lo = rs[i], hi = re[i];
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (E[mid].j < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < re[i] && E[lo].j == j ? &E[lo] : NULL;
}

/* Row i of the mirror couplings into E[ms[i] ..] (its room: one place per
 * mirror pair), *end past its last: each source js's couplings summed in the
 * mirrors' order, the row sorted by js; a coupling to a surface particle onto
 * mdiag_i (p_j = 0, air pressure). */
static void coupling_row(my_state *s, const pfb_particles *p, size_t i, my_coupling *restrict E, uint32_t *end)
{
    const size_t n = p->n, e0 = s->ms[i];
    const double *restrict rho = p->field[s->f_rho].data;
    size_t ne = e0;
    double md = 0.0; /* (local: a store through s->mdiag would make s's fields be read again) */
    if (s->unk[i] >= 0)
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            const size_t js = s->g[s->mj[q]].src;
            if (js == i)
                continue; /* i's own mirror: p_mirror = p_i */
            const double c = eq8_coeff(s, p, rho, i, js, pair_r(s, s->dim, i, n + s->mj[q]));
            if (s->unk[js] < 0) {
                md += c;
                continue;
            }
            /* into the row by js, after its equal ones (insertion: few entries) */
            size_t k = ne++;
            for (; k > e0 && E[k - 1].j > js; k--)
                E[k] = E[k - 1];
            E[k] = (my_coupling){(uint32_t)i, (uint32_t)js, c};
        }
    /* each js once: its couplings summed from 0 in the mirrors' order */
    size_t out = e0;
    for (size_t a = e0; a < ne;) {
        double m = 0.0;
        const uint32_t js = E[a].j;
        for (; a < ne && E[a].j == js; a++)
            m += E[a].m;
        E[out++] = (my_coupling){(uint32_t)i, js, m};
    }
    s->mdiag[i] = md;
    *end = (uint32_t)out;
}

/* mdiag and the symmetric couplings mcs/mcv/mcw of the mirrors: the rows in
 * parallel (each its own; the pairs of the mirrors are those of the particles
 * within h of a wall, a tenth of a pool's), then each coupling with its
 * partner's (M_iv + M_vi) / 2 (or, without one, on i's diagonal alone) in
 * parallel, and the symmetric rows laid out in the couplings' order. */
static int mirror_couplings(my_state *s, const pfb_sim *sim, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n, nm = s->ms[n];
    const int nt = sim_threads(sim), par = sim_parallel_pairs(sim, n);
    my_coupling *E = nm ? malloc(nm * sizeof *E) : NULL;
    double *w = nm ? malloc(nm * sizeof *w) : NULL;        /* each coupling's symmetric weight */
    unsigned char *kept = nm ? malloc(nm * sizeof *kept) : NULL; /* whether it has one */
    uint32_t *re = malloc((n + 1) * sizeof *re);           /* row i of E: ms[i] .. re[i] - 1 */
    if (!re || (nm && (!E || !w || !kept))) {
        free(E);
        free(w);
        free(kept);
        free(re);
        return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror couplings", nm);
    }
#pragma omp parallel for schedule(dynamic, 512) num_threads(nt) if (par)
    for (size_t i = 0; i < n; i++)
        coupling_row(s, p, i, E, re + i);
#pragma omp parallel for schedule(dynamic, 512) num_threads(nt) if (par)
    for (size_t i = 0; i < n; i++)
        for (size_t t = s->ms[i]; t < re[i]; t++) {
            const my_coupling *back = coupling_find(E, s->ms, re, E[t].j, i);
            double r;
            kept[t] = 0;
            if (back) {
                kept[t] = i < E[t].j; /* (else the pair is row j's) */
                w[t] = 0.5 * (E[t].m + back->m);
            } else if (within(s, i, E[t].j, &r)) {
                kept[t] = 1;
                w[t] = 0.5 * E[t].m; /* the real pair's entry is the partner */
            } else {
                s->mdiag[i] += E[t].m; /* no partner: on the diagonal only */
            }
        }
    size_t np = 0;
    memset(s->mcs, 0, (n + 1) * sizeof *s->mcs);
    for (size_t i = 0; i < n; i++)
        for (size_t t = s->ms[i]; t < re[i]; t++)
            if (kept[t]) {
                s->mcs[i + 1]++;
                s->mcs[E[t].j + 1]++;
                np++;
            }
    if (2 * np > s->cap_mc) {
        size_t nc = 2 * np + np / 2 + 64;
        uint32_t *v = realloc(s->mcv, nc * sizeof *v);
        if (v)
            s->mcv = v;
        double *wv = realloc(s->mcw, nc * sizeof *wv);
        if (wv)
            s->mcw = wv;
        if (!v || !wv) {
            free(E);
            free(w);
            free(kept);
            free(re);
            return pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror couplings", np);
        }
        s->cap_mc = nc;
    }
    for (size_t i = 0; i < n; i++)
        s->mcs[i + 1] += s->mcs[i];
    for (size_t i = 0; i < n; i++) /* each row in the couplings' order, mcs[i] counting up as it fills */
        for (size_t t = s->ms[i]; t < re[i]; t++) {
            if (!kept[t])
                continue;
            const size_t j = E[t].j, a = s->mcs[i]++, b = s->mcs[j]++;
            s->mcv[a] = (uint32_t)j;
            s->mcw[a] = w[t];
            s->mcv[b] = (uint32_t)i;
            s->mcw[b] = w[t];
        }
    for (size_t i = n; i > 0; i--) /* the starts again */
        s->mcs[i] = s->mcs[i - 1];
    s->mcs[0] = 0;
    free(E);
    free(w);
    free(kept);
    free(re);
    return PFB_OK;
}

typedef struct my_weight_ctx {
    const my_state *s;
    const pfb_particles *p;
} my_weight_ctx;

/* pfb_pair_weight: eq. 8's weight of a listed pair within h, else 0 */
static double eq8_weight(void *ctx, size_t i, size_t j, size_t q)
{
    const my_weight_ctx *c = ctx;
    double r;
    (void)q;
    return within(c->s, i, j, &r) ? eq8_coeff(c->s, c->p, c->p->field[c->s->f_rho].data, i, j, r) : 0.0;
}

/* eq8_weight from the W_ij the density pass left in the entry (s->op_w),
 * W_ij = 0 beyond h */
static double eq8_weight_kept(void *ctx, size_t i, size_t j, size_t q)
{
    const my_weight_ctx *c = ctx;
    const double w = c->s->op.c[q];
    return w != 0.0 ? eq8_factor(c->s, c->p, c->p->field[c->s->f_rho].data, i, j) * w : 0.0;
}

/* eq. 8's weights from the kept W_ij (eq8_weight_kept's bits) and the split
 * form's rows (pressure_rows' sums) in lanes (mao_yang_rows.inc), the same
 * bits at every level */
#define MY_ROWS_PRESSURE
#define LANES_ROWS "../solvers/mao_yang_rows.inc"
#include "../core/lanes_levels.inc"
#undef LANES_ROWS
#undef MY_ROWS_PRESSURE

/* pfb_pair_weight_row: eq8_weight_kept's weights for row i (on open axes, in
 * lanes) */
static void eq8_weights_kept_row(void *ctx, size_t i, double *c)
{
    const my_weight_ctx *wc = ctx;
    LANES_AT(wc->s->lanes, eq8_kept_row, wc->s, wc->p, i, c);
}

/* The operator of eqs. 7-8 at the current density and surface flags (the
 * surface particles' rows the identity), and the right-hand side and warm
 * start over the particles (pcg_operator = pairs). */
static int pressure_operator(my_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    double *restrict pr = p->field[s->f_p].data; /* the solve's iterate (my_solve_pressure) */
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
    rc = mirror_couplings(s, sim, err);
    if (rc)
        return rc;
    pfb_pairop *op = &s->op;
    op->L = &s->L;
    op->rj = s->compact ? s->hj : NULL; /* the pairs within h (my_compute_density) */
    op->rn = s->compact ? s->hn : NULL;
    op->T = &s->T;
    op->lanes = s->op_lanes; /* the product in lanes (core/pairop.h) */
    op->threads = pairtasks_threads(sim);
    op->parallel = sim_parallel_pairs(sim, n);
    op->fixed = s->surface;
    op->d = s->mdiag;
    op->xs = s->mcs;
    op->xv = s->mcv;
    op->xw = s->mcw;
    my_weight_ctx wc = {s, p};
    if (s->op_w && s->lanes >= 0) /* (eq8_kept_row does eq8_weight_kept's operations) */
        rc = pairop_build_rows(op, n, eq8_weights_kept_row, &wc, err);
    else
        rc = pairop_build(op, n, s->op_w ? eq8_weight_kept : eq8_weight, &wc, err);
    s->op_w = 0; /* op.c now holds the weights */
    if (rc)
        return rc;
    const double src = 1.0 / (s->rho0 * dt * dt); /* eq. 7 */
    for (size_t i = 0; i < n; i++) {
        s->b[i] = s->unk[i] >= 0 ? (rho[i] - s->rho0) * src : 0.0;
        pr[i] = s->unk[i] >= 0 ? pr[i] : 0.0; /* warm start */
    }
    consistent_source(s, s->b, n);
    return PFB_OK;
}

/* ---- every connected set of unknowns touches the air ---------------------------- */

/* A union-find over par (par[a] <= a: a set's root is its smallest index,
 * whichever order its pairs are joined in), shared by the threads: a root is
 * linked under the other by compare-and-swap, which fails if it stopped being
 * a root meanwhile, and a path is halved by swapping a link for its parent's
 * (both at most a).  The sets, and so their roots, do not depend on the
 * order. */
static inline uint32_t uf_find(_Atomic uint32_t *par, uint32_t a)
{
    for (;;) {
        uint32_t up = atomic_load_explicit(&par[a], memory_order_relaxed);
        if (up == a)
            return a;
        const uint32_t g = atomic_load_explicit(&par[up], memory_order_relaxed);
        if (g != up)
            atomic_compare_exchange_weak_explicit(&par[a], &up, g, memory_order_relaxed, memory_order_relaxed);
        a = g;
    }
}

static inline void uf_join(_Atomic uint32_t *par, uint32_t a, uint32_t b)
{
    if (atomic_load_explicit(&par[a], memory_order_relaxed) == atomic_load_explicit(&par[b], memory_order_relaxed))
        return; /* one set already (most pairs: the sets are the roots' stars) */
    for (;;) {
        a = uf_find(par, a);
        b = uf_find(par, b);
        if (a == b)
            return;
        uint32_t hi = a > b ? a : b;
        const uint32_t lo = a > b ? b : a, e = hi;
        if (atomic_compare_exchange_strong_explicit(&par[e], &hi, lo, memory_order_relaxed, memory_order_relaxed))
            return;
    }
}

/* Eq. 7 fixes the pressure of a connected set of unknowns only if the set
 * couples to a particle held at air pressure (a surface particle, directly or
 * through a mirror): otherwise its rows are a graph Laplacian with Neumann
 * walls, singular, and its source is not in the range.  The density criterion
 * can miss such a set's surface: a lone particle in a corner, or a few
 * squeezed against a wall, reach beta rho_0 with their own mirrors (which add
 * density but no coupling: p_mirror = p_i), and then form a row of zeros or a
 * block with no path to the air (the 2D dam break at a/dx = 25: a lone
 * particle at 969.5 kg/m^3, over beta rho_0 = 969.4, from t = 0.40 s; the
 * solve then stalled at a residual of 0.28 and the run went non-finite).
 * Such a set is a separate body of fluid, all of it at its free surface or
 * walls, so its least dense particle (the lowest index on a tie) is held at
 * air pressure, as the criterion would have held it.  The operator's pairs
 * are joined on its threads (uf_join; the stored matrix's serially), the
 * sets' candidates chosen in index order: the same sets and the same held
 * particles for any thread count.  *held is the number of particles held,
 * after which the operator must be built again. */
static void hold_ungrounded(my_state *s, const pfb_sim *sim, size_t *held)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    const size_t nu = s->matfree ? n : s->A.n;
    const double *restrict rho = p->field[s->f_rho].data;
    *held = 0;
    if (nu == 0)
        return;
    /* in PCG's workspace, not yet in use (pcg_work(nu) doubles, at least 5 nu) */
    _Atomic uint32_t *par = (_Atomic uint32_t *)(void *)s->work;
    _Atomic uint32_t *own = par + nu; /* own[root]: UINT32_MAX once grounded, else the set's candidate */
    const uint32_t grounded = UINT32_MAX, none = UINT32_MAX - 1;
    for (size_t u = 0; u < nu; u++) {
        atomic_init(&par[u], (uint32_t)u);
        atomic_init(&own[u], none);
    }
    /* the couplings between unknowns join sets; one to a held value grounds the row */
    if (s->matfree) {
        const int nt = pairtasks_threads(sim), parallel = sim_parallel_pairs(sim, n);
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt) if (parallel)
        for (size_t i = 0; i < n; i++) {
            if (s->unk[i] >= 0 && s->mdiag[i] > 0.0)
                atomic_store_explicit(&own[i], grounded, memory_order_relaxed);
            size_t q0, q1;
            const uint32_t *lj = pairop_row(&s->op, i, &q0, &q1);
            for (size_t q = q0; q < q1; q++) {
                const size_t j = lj[q];
                if (!(s->op.c[q] > 0.0))
                    continue;
                const int ui = s->unk[i] >= 0, uj = s->unk[j] >= 0;
                if (ui && uj)
                    uf_join(par, (uint32_t)i, (uint32_t)j);
                else if (ui)
                    atomic_store_explicit(&own[i], grounded, memory_order_relaxed);
                else if (uj)
                    atomic_store_explicit(&own[j], grounded, memory_order_relaxed);
            }
            for (size_t q = s->mcs[i]; q < s->mcs[i + 1]; q++)
                if (s->mcw[q] > 0.0)
                    uf_join(par, (uint32_t)i, s->mcv[q]);
        }
    } else {
        const pfb_csr *A = &s->A;
        for (size_t u = 0; u < nu; u++) {
            if (s->dsurf[u] > 0.0)
                atomic_store_explicit(&own[u], grounded, memory_order_relaxed);
            for (size_t a = A->start[u] + 1; a < A->start[u + 1]; a++) /* each pair once: A is symmetric */
                if (A->col[a] > u && A->val[a] != 0.0)
                    uf_join(par, (uint32_t)u, (uint32_t)A->col[a]);
        }
    }
    /* (serial from here: the atomics' loads are plain ones) */
    for (size_t u = 0; u < nu; u++)
        if (atomic_load_explicit(&own[u], memory_order_relaxed) == grounded)
            atomic_store_explicit(&own[uf_find(par, (uint32_t)u)], grounded, memory_order_relaxed);
    for (size_t u = 0; u < nu; u++) {
        const size_t i = s->rows[u];
        if (s->unk[i] < 0)
            continue; /* a surface particle (pairs: every particle is a vector entry) */
        const uint32_t r = uf_find(par, (uint32_t)u), o = atomic_load_explicit(&own[r], memory_order_relaxed);
        if (o == grounded)
            continue;
        if (o == none || rho[i] < rho[s->rows[o]])
            atomic_store_explicit(&own[r], (uint32_t)u, memory_order_relaxed);
    }
    for (size_t u = 0; u < nu; u++) {
        const uint32_t o = atomic_load_explicit(&own[u], memory_order_relaxed);
        if (atomic_load_explicit(&par[u], memory_order_relaxed) == u && o != grounded && o != none) {
            s->surface[s->rows[o]] = 1;
            (*held)++;
        }
    }
}

/* Frees the solve's scratch, which every solve builds again in full: the
 * operator's coefficients and diagonal, the pairs within h it runs over, the
 * right-hand sides, the matrix's iterates (the warm start is the pressure
 * field) and PCG's vectors, about 600 bytes a particle in 3D.  The frame's
 * re-sampling calls it after its density pass, so that the triangulation does
 * not add its memory to theirs (the run's peak). */
void my_pressure_release(my_state *s)
{
    pairop_free(&s->op);
    s->op_w = 0;
    s->op.rj = s->op.rn = NULL;
    free(s->hj);
    s->hj = NULL;
    s->cap_hj = 0;
    s->compact = 0;
    free(s->b);
    free(s->x);
    free(s->b1);
    free(s->x1);
    free(s->work);
    free(s->rows);
    free(s->dsurf);
    free(s->A.start);
    s->b = s->x = s->b1 = s->x1 = s->work = s->dsurf = NULL;
    s->rows = NULL;
    s->A.start = NULL;
    s->A.cap_n = 0;
    free(s->mdiag);
    free(s->mcs);
    s->mdiag = NULL;
    s->mcs = NULL;
    s->cap_pd = 0;
    s->nvec = s->count = 0; /* the last system is gone (my_last_system) */
}

/* Solve for the pressure and store it in the pressure field (0 at the surface). */
int my_solve_pressure(my_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    int rc;
    size_t nvec, count;
    for (int pass = 0;; pass++) { /* a second pass when hold_ungrounded held particles */
        rc = s->matfree ? pressure_operator(s, sim, dt, err) : assemble_pressure(s, sim, dt, err);
        if (rc)
            return rc;
        size_t held = 0;
        if (pass == 0)
            hold_ungrounded(s, sim, &held);
        if (held == 0)
            break;
    }
    if (s->matfree) {
        nvec = sim->p.n;
        count = sim->p.n - s->n_surface;
    } else {
        if (s->precond == PFB_PRECOND_AMG && (rc = amg_setup(&s->amg, &s->A, err)))
            return rc;
        nvec = count = s->A.n;
    }
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
    double *pr = sim->p.field[s->f_p].data, *pd = sim->p.field[s->f_pd].data;
    /* the iterates: with the pairs' operator, whose unknowns are the particles,
     * the pressure fields themselves (pressure_operator warm-starts p there) */
    double *x = s->matfree ? pr : s->x, *x1 = s->matfree ? pd : s->x1;
    const double dt2 = dt * dt;
    pfb_pcg_stop stop = {PFB_PCG_RELATIVE, s->tol, count};
    if (s->stop == MY_STOP_DENSITY)
        stop = (pfb_pcg_stop){PFB_PCG_MEAN_ABS, s->eta / dt2, count};
    int it = 0;
    double res = 0.0;
    rc = s->matfree ? pcg_solve_op(&op, s->b, x, &stop, s->max_iter, s->precond, sim_threads(sim), s->work, &it, &res,
                                   err)
                    : pcg_solve_stop(&s->A, s->b, x, &stop, s->max_iter, s->precond, &s->amg, sim_threads(sim),
                                     s->work, &it, &res, err);
    if (!rc && s->matfree && s->op.rc)
        rc = pfb_err_set(err, s->op.rc, "mao_yang: %s", s->op.err.msg);
    if (rc)
        return rc;
    const double *rho = sim->p.field[s->f_rho].data;
    if (s->pos_only) {
        /* the divergence part: the same operator, the density change of this
         * step's prediction as the source */
        const double src = 1.0 / (s->rho0 * dt * dt);
        for (size_t u = 0; u < nvec; u++) {
            size_t i = s->rows[u];
            s->b1[u] = s->unk[i] >= 0 ? (rho[i] - s->rho_n[i]) * src : 0.0;
            x1[u] = s->unk[i] >= 0 ? pd[i] : 0.0;
        }
        /* (a sheared periodic lattice changes its SPH density uniformly, to
         * second order in the strain: unremoved, that part made the singular
         * solve return a parabola across the box) */
        consistent_source(s, s->b1, nvec);
        int it1 = 0;
        double res1 = 0.0;
        if (s->stop == MY_STOP_DENSITY)
            stop.tol = s->eta_div / dt2;
        rc = s->matfree ? pcg_solve_op(&op, s->b1, x1, &stop, s->max_iter, s->precond, sim_threads(sim), s->work,
                                       &it1, &res1, err)
                        : pcg_solve_stop(&s->A, s->b1, x1, &stop, s->max_iter, s->precond, &s->amg,
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
        pr[i] = s->unk[i] >= 0 ? x[s->unk[i]] : 0.0;
        pd[i] = !s->pos_only ? pr[i] : s->unk[i] >= 0 ? x1[s->unk[i]] : 0.0;
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

/* eq. 5 (with its minus sign) with the spiky gradient of eq. 6: a_i = -grad p / rho,
 * mirrors carrying p and rho of their particle; into s->acc, and with a second
 * pressure pd (the position correction's p_div) its acceleration into s->acc2
 * in the same pass: each pair's distance and kernel values serve both sums,
 * each summed in the order it would be alone. */
static void pressure_zero(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    my_acc_zero(ctx, b);
    if (c->pd)
        memset(s->acc2 + 3 * lo, 0, 3 * (hi - lo) * sizeof(double));
}

/* The pair's eq. 5 coefficients for i and j, f[0] = m_j (A + D) and f[1] =
 * m_i (A - D) with pressure_coeffs_at's A and D, and f[2], f[3] the same for
 * the second pressure (0 without it): from the particles' parts (c->split)
 * or per pair. */
MY_INLINE void pressure_pair_coeffs(const my_pass *c, const pfb_kernel *spiky, const double *restrict rho, size_t i,
                                    size_t j, double r, double f[4])
{
    const my_state *s = c->s;
    const double *restrict m = c->sim->p.m;
    double A, D, A2 = 0.0, D2 = 0.0;
    if (c->split) {
        const double *restrict si = c->split + 4 * i, *restrict sj = c->split + 4 * j; /* (pressure_split) */
        const double dw = kernel_spiky_dw(spiky, r) / r, rr = rho[i] * rho[j];
        A = 0.0 - (si[0] + sj[0]) * dw;
        D = -(sj[1] - si[1]) / rr * dw;
        if (c->pd) {
            A2 = 0.0 - (si[2] + sj[2]) * dw;
            D2 = -(sj[3] - si[3]) / rr * dw;
        }
    } else {
        double dw, fr;
        pressure_kernels(s, r, &dw, &fr);
        pressure_coeffs_at(s, rho, c->pr, i, j, dw, fr, &A, &D);
        if (c->pd)
            pressure_coeffs_at(s, rho, c->pd, i, j, dw, fr, &A2, &D2);
    }
    f[0] = m[j] * (A + D);
    f[1] = m[i] * (A - D);
    f[2] = m[j] * (A2 + D2);
    f[3] = m[i] * (A2 - D2);
}

MY_INLINE void pressure_rows(const my_pass *c, size_t b, const int dim, const int per)
{
    my_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const double *const x[3] = {s->xc[0], s->xc[1], s->xc[2]};
    const double hh = s->hh;
    const pfb_kernel spiky = s->spiky;
    const double *restrict rho = p->field[s->f_rho].data, *restrict pd = c->pd;
    double *restrict acc = s->acc, *restrict acc2 = s->acc2;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        /* i's sums, local until the row ends (no entry of row i is i) */
        double ai[3] = {acc[3 * i], acc[3 * i + 1], acc[3 * i + 2]}, bi[3] = {0, 0, 0};
        if (pd)
            for (int k = 0; k < dim; k++)
                bi[k] = acc2[3 * i + (size_t)k];
        size_t len;
        const uint32_t *restrict row = my_row(s, i, &len);
        for (size_t q = 0; q < len; q++) {
            const size_t j = row[q];
            double r, f[4];
            if (!within_g(s, x, hh, i, j, &r, dim, per) || !(r > 0))
                continue;
            pressure_pair_coeffs(c, &spiky, rho, i, j, r, f);
            for (int k = 0; k < dim; k++) {
                const double d = pair_d_g(s, x, k, i, j, per);
                ai[k] += f[0] * d;
                acc[3 * j + (size_t)k] -= f[1] * d;
                if (pd) {
                    bi[k] += f[2] * d;
                    acc2[3 * j + (size_t)k] -= f[3] * d;
                }
            }
        }
        for (int k = 0; k < dim; k++) {
            acc[3 * i + (size_t)k] = ai[k];
            if (pd)
                acc2[3 * i + (size_t)k] = bi[k];
        }
    }
}

static void pressure_pairs(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    if (c->s->lanes >= 0 && c->split && !period_any(&c->s->per, c->s->dim)) { /* (pressure_rows' sums) */
        LANES_AT(c->s->lanes, pressure_split_block, c, b);
        return;
    }
    MY_GEOMETRY_DISPATCH(c->s, pressure_rows, c, b);
}

static void pressure_finish(void *ctx, size_t b)
{
    const my_pass *c = ctx;
    my_state *s = c->s;
    if (s->lanes >= 0 && c->split && !period_any(&s->per, s->dim)) { /* (this loop's sums, in lanes) */
        LANES_AT(s->lanes, pressure_mirrors_block, c, b);
        return;
    }
    const pfb_particles *p = &c->sim->p;
    const size_t n = p->n;
    const double *restrict rho = p->field[s->f_rho].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++)
        for (size_t q = s->ms[i]; q < s->ms[i + 1]; q++) {
            const size_t j = n + s->mj[q], js = s->g[s->mj[q]].src;
            const double r = pair_r(s, s->dim, i, j);
            if (!(r > 0))
                continue;
            double dw, fr, A, D, A2 = 0.0, D2 = 0.0;
            pressure_kernels(s, r, &dw, &fr);
            pressure_coeffs_at(s, rho, c->pr, i, js, dw, fr, &A, &D);
            if (c->pd)
                pressure_coeffs_at(s, rho, c->pd, i, js, dw, fr, &A2, &D2);
            const double f = p->m[js] * (A + D), f2 = p->m[js] * (A2 + D2);
            for (int k = 0; k < s->dim; k++) {
                const double d = pair_d(s, k, i, j);
                s->acc[3 * i + (size_t)k] += f * d;
                if (c->pd)
                    s->acc2[3 * i + (size_t)k] += f2 * d;
            }
        }
}

static const pfb_stage pressure_stages[3] = {{0, pressure_zero}, {1, pressure_pairs}, {0, pressure_finish}};

/* pressure_form = split: each pressure's parts, max(p_i, 0) / rho_i^2 and
 * min(p_i, 0), per particle (pressure_coeffs_at's operands, the same values),
 * into split[4 i .. 4 i + 3]: pr's two, then pd's (one cache line's half per
 * particle, which a pair's row reads at once).  Into the solve's scratch, free
 * after the solve; NULL (each pair computes them) when it is too small. */
static const double *pressure_split(my_state *s, const pfb_particles *p, const double *restrict pr,
                                    const double *restrict pd)
{
    const size_t n = p->n;
    if (s->pform != MY_PFORM_SPLIT || !s->work || pcg_work(s->A.cap_n) < 4 * n || 4 * n > UINT32_MAX)
        return NULL;
    const double *restrict rho = p->field[s->f_rho].data;
    double *restrict out = s->work;
    for (size_t i = 0; i < n; i++) {
        const double r2 = rho[i] * rho[i];
        out[4 * i] = fmax(pr[i], 0.0) / r2;
        out[4 * i + 1] = fmin(pr[i], 0.0);
        out[4 * i + 2] = pd ? fmax(pd[i], 0.0) / r2 : 0.0;
        out[4 * i + 3] = pd ? fmin(pd[i], 0.0) : 0.0;
    }
    return out;
}

int my_pressure_accel(my_state *s, pfb_sim *sim, const double *restrict pr, const double *restrict pd,
                      pfb_err *err)
{
    my_pass c = {s, sim, 0, pr, pd, pressure_split(s, &sim->p, pr, pd), NULL, 0};
    return my_run_pass(s, sim, pressure_stages, &c, err);
}

/* The pressure impulse on the rigid bodies: minus what every particle's
 * velocity received over dt from the mirrors across a body (my_pressure_accel's
 * terms with those mirrors, times m_i dt), applied at the surface point midway
 * between the particle and its mirror; the exchange is equal and opposite. */
void my_body_pressure_impulse(my_state *s, pfb_sim *sim, const double *restrict pr, double dt)
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

/* The test hooks' state of a pressure solve at the current positions, made as
 * a step makes it: the pairs, the density, the surface flags. */
static int pressure_state(my_state *s, pfb_sim *sim, pfb_err *err)
{
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (!rc)
        rc = my_compute_density(s, sim, 0, err);
    if (!rc)
        my_surface_flags(s, sim);
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

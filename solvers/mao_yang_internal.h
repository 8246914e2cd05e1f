/* mao_yang_internal.h — the Mao–Yang back end's state and what its files share:
 * mao_yang.c (the density, the non-pressure forces, the step), mao_yang_pressure.c
 * (eqs. 5-8), mao_yang_stress.c (eqs. 9-17) and mao_yang_mirrors.c (walls and
 * bodies).  Not an interface: the solver is the table pfb_solver_mao_yang, and
 * mao_yang.h has the tests' hooks. */
#ifndef PFB_MAO_YANG_INTERNAL_H
#define PFB_MAO_YANG_INTERNAL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/halflist.h"
#include "../core/kernels.h"
#include "../core/lanes.h"
#include "../core/pairop.h"
#include "../core/pairtasks.h"
#include "mao_yang.h"
#include "mao_yang_resample.h"

/* A mirror particle: image of real particle src across one to three planes. */
typedef struct my_ghost {
    size_t src;
    int body;              /* the rigid body it mirrors across, or -1 (a wall) */
    double M[9];           /* the reflection (row-major) applied to vectors and tensors */
    double x[3], v[3];     /* mirror position and velocity (the velocity: made by my_neighbours with vel) */
} my_ghost;

typedef struct my_state {
    int dim;
    double h, hh, rho0, m0, mu, mu_e, lambda, gamma, kappa, beta, tol, e, fric, margin, cfl;
    int rot, corr, no_slip, max_iter, precond, pform, pos_only, stop;
    int lanes;                 /* the pair rows' lane level (core/lanes.h; solver simd), -1: the scalar rows */
    int op_lanes;              /* eq. 8's product: 1 + its lane level (core/pairop.h) */
    int elastic;               /* this step carries an elastic stress (stress_active): else T = 0 stays 0 */
    double eta, eta_div;       /* pcg_stop = density: the mean density errors left */
    double corr_min, eps_art, w_d; /* w_d: W_cubic(D), the artificial stress's reference */
    long resample_every;       /* 0: never re-sample */
    double resample_interval;  /* s of simulated time between re-samplings (0: every resample_every-th frame) */
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
    /* the pairs within h at the current positions, listed by the last density
     * pass (pcg_operator = pairs; compact set): row i's hn[i] partners at hj[L.ls[i] ..], in
     * the list's order, so that the passes after it at the same positions and
     * eq. 8's product skip the list's skin (my_compute_density) */
    uint32_t *hj, *hn;
    size_t cap_hj;
    int compact;
    /* mirrors, and each real particle's mirrors within h (rows ms[i] .. ms[i+1]-1
     * of mj, mirror indices ascending) */
    my_ghost *g;
    size_t ng, cap_g;
    double *xc[3], *vc[3];     /* combined positions and velocities: real i at i, mirror q at n + q */
    pfb_period per;            /* the scene's periodic axes (sim->period), for the minimum image */
    int pinned;                /* no free surface: one particle held at p = 0 (surface_flags) */
    size_t cap_c;
    unsigned char *near;       /* real particles that can be within h of a mirror (build_ghosts) */
    unsigned char *wq;         /* flat_inside: a lower bound of each particle's distance to the nearest
                                * wall, in steps of h / 255, capped at 255 (build_ghosts) */
    double *cx[3];             /* the mirror search's points: the near particles, then the mirrors */
    uint32_t *cidx;            /* the near particles' indices */
    size_t cap_cx;
    pfb_grid grid;             /* the mirror search's grid and list */
    pfb_nlist nl;
    int flat_inside;           /* build_ghosts: every mirror is across a plane or a box face with every particle on its fluid side */
    uint32_t *gs;              /* n + 1: the mirrors of real particle i are g[gs[i] .. gs[i+1]-1] (build_ghosts) */
    uint64_t *me[PFB_MAX_THREADS]; /* per thread, the (particle, mirror) pairs within h it gathered
                                    * (mirror_rows_from_list) */
    size_t cap_me[PFB_MAX_THREADS];
    double *wbox;              /* per wall, a box container's faces lo[3], hi[3] at the mirrors' time (build_ghosts) */
    size_t cap_wbox;
    size_t *mseg, cap_mseg;        /* per chunk of rows: the thread that gathered it and its range in me[] */
    size_t cap_gs;
    uint32_t *ms, *mj;
    size_t cap_ms, cap_mj;
    /* per-particle workspace */
    double *acc;               /* 3 n */
    double *acc2;              /* 3 n: the divergence pressure's acceleration (my_pressure_accel) */
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
    int op_w;                   /* op.c holds each entry's W_ij at the current positions (my_compute_density_w) */
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

/* The context of a symmetric pass (my_run_pass). */
typedef struct my_pass {
    my_state *s;
    pfb_sim *sim;
    int grad;              /* the density pass also sums eq. 16's gradient and B */
    const double *pr;      /* the pressure pass's pressure */
    const double *pd;      /* the pressure pass's second pressure, or NULL (my_pressure_accel) */
    const double *split;   /* pressure_form = split: each pressure's parts per particle (pressure_split) */
    double *wq;            /* the density pass: the W_ij of each pair within h, at its place in hj, or NULL */
    int part;              /* the density pass lists the pairs within h (hj, hn) */
} my_pass;

/* A material field's value for particle i, or dflt where it has none or is not
 * positive. */
static inline double material(const pfb_sim *sim, int f, size_t i, double dflt)
{
    if (f < 0)
        return dflt;
    double v = sim->p.field[f].data[i];
    return v > 0 ? v : dflt;
}

/* x_i - x_j of the pair (i, j) (combined indices) on axis b, by the minimum
 * image on periodic axes. */
static inline double pair_d(const my_state *s, int b, size_t i, size_t j)
{
    const double d = s->xc[b][i] - s->xc[b][j];
    if (!(s->per.L[b] > 0))
        return d;
    if (b == 0 && s->per.le) { /* a sheared box: x's image follows y's */
        double v[3] = {d, s->xc[1][i] - s->xc[1][j], 0.0};
        period_vec(&s->per, 2, v);
        return v[0];
    }
    return d - s->per.L[b] * rint(d * s->per.inv[b]);
}

/* v_j - v_i of the pair (i, j) (combined indices) on axis a: on a sheared box
 * the image of j nearest i moves at v_j + k U e_x (core/periodic.h). */
static inline double pair_dv(const my_state *s, int a, size_t i, size_t j)
{
    const double dv = s->vc[a][j] - s->vc[a][i];
    if (a != 0 || !s->per.le)
        return dv;
    return dv + period_le_dv(&s->per, rint((s->xc[1][i] - s->xc[1][j]) * s->per.inv[1]));
}

/* The distance of the pair (i, j) (combined indices), from the combined
 * positions (the lists keep no distances). */
static inline double pair_r(const my_state *s, int dim, size_t i, size_t j)
{
    return sqrt(period_dist2(&s->per, dim, (const double *const *)s->xc, i, j));
}

/* The pair passes' geometry fixed at compile time (issue 47): dim 2 or 3 on
 * open axes (per = 0: the plain differences), or any periodic axis (per = 1:
 * the helpers above).  A pass writes its rows once as an always-inlined body
 * over these and dispatches on (dim, per) (MY_GEOMETRY_DISPATCH), so that the
 * open case has no per-pair tests of the axes and keeps its constants in
 * registers; each form does the operations of pair_d, pair_dv and within, in
 * their order, so the bits are the same. */
#define MY_INLINE static inline __attribute__((always_inline))
/* Row i's partners for a pass at the positions of the last density pass: the
 * pairs within h it listed (s->compact), else the list's row (*len of them). */
MY_INLINE const uint32_t *my_row(const my_state *s, size_t i, size_t *len)
{
    const size_t q0 = s->L.ls[i];
    if (s->compact) {
        *len = s->hn[i];
        return s->hj + q0;
    }
    *len = s->L.ls[i + 1] - q0;
    return s->L.lj + q0;
}
MY_INLINE int within_g(const my_state *s, const double *const x[3], double hh, size_t i, size_t j, double *r,
                       const int dim, const int per)
{
    double r2;
    if (per) {
        r2 = period_dist2(&s->per, dim, x, i, j);
    } else {
        const double dx = x[0][i] - x[0][j], dy = x[1][i] - x[1][j];
        r2 = dx * dx + dy * dy;
        if (dim == 3) {
            const double dz = x[2][i] - x[2][j];
            r2 += dz * dz;
        }
    }
    if (!(r2 < hh))
        return 0;
    *r = sqrt(r2);
    return 1;
}
/* Whether real particles i and j are within h (the kept list also holds the
 * pairs of its skin), with their distance in *r. */
static inline int within(const my_state *s, size_t i, size_t j, double *r)
{
    return within_g(s, (const double *const *)s->xc, s->hh, i, j, r, s->dim, 1);
}
MY_INLINE double pair_d_g(const my_state *s, const double *const x[3], int b, size_t i, size_t j, const int per)
{
    return per ? pair_d(s, b, i, j) : x[b][i] - x[b][j];
}
MY_INLINE double pair_dv_g(const my_state *s, const double *const v[3], int a, size_t i, size_t j, const int per)
{
    return per ? pair_dv(s, a, i, j) : v[a][j] - v[a][i];
}
/* rows(ctx, b, dim, per) for the pass's geometry */
#define MY_GEOMETRY_DISPATCH(s, rows, ctx, b)                                                                   \
    do {                                                                                                        \
        if (period_any(&(s)->per, (s)->dim))                                                                    \
            rows(ctx, b, (s)->dim, 1);                                                                          \
        else if ((s)->dim == 3)                                                                                 \
            rows(ctx, b, 3, 0);                                                                                 \
        else                                                                                                    \
            rows(ctx, b, 2, 0);                                                                                 \
    } while (0)

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
static inline void tensor_of(const my_state *s, size_t n, const double *X, size_t j, double out[9])
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


/* eq. 5's pair term (with its minus sign, the spiky gradient of eq. 6) between
 * particle i and neighbour j (source js), from the pair's kernel values: dw =
 * W_spiky'(r) / r and, for the artificial pressure (pressure_form = sum), fr =
 * W_cubic(r) / W_cubic(D).  Particle i's acceleration gains m_j (A + D) times
 * (x_i - x_j) (pressure_pair). */
static inline void pressure_coeffs_at(const my_state *s, const double *restrict rho, const double *restrict pr,
                                      size_t i, size_t js, double dw, double fr, double *A, double *S)
{
    double a = 0.0, d = 0.0;
    if (s->eps_art > 0 && s->pform == MY_PFORM_SUM) { /* Monaghan 2000: negative pressures */
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

/* The pair's kernel values of pressure_coeffs_at at distance r > 0. */
static inline void pressure_kernels(const my_state *s, double r, double *dw, double *fr)
{
    *dw = kernel_spiky_dw(&s->spiky, r) / r;
    *fr = s->eps_art > 0 && s->pform == MY_PFORM_SUM ? kernel_cubic_w(&s->cubic, r) / s->w_d : 0.0;
}

/* pressure_coeffs_at at distance r > 0. */
static inline void pressure_coeffs(const my_state *s, const double *restrict rho, const double *restrict pr,
                                   size_t i, size_t js, double r, double *A, double *S)
{
    double dw, fr;
    pressure_kernels(s, r, &dw, &fr);
    pressure_coeffs_at(s, rho, pr, i, js, dw, fr, A, S);
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

/* mao_yang.c */
int my_ensure_particles(my_state *s, size_t n, pfb_err *err);
int my_run_pass(my_state *s, pfb_sim *sim, const pfb_stage st[3], my_pass *c, pfb_err *err);
void my_acc_zero(void *ctx, size_t b);
int my_compute_density(my_state *s, pfb_sim *sim, int grad, pfb_err *err);

/* my_compute_density without the gradient, keeping each list entry's kernel
 * value W_ij in s->op.c (pcg_operator = pairs) for eq. 8's weights at the same
 * positions (s->op_w; any other density pass, or new lists, clear it). */
int my_compute_density_w(my_state *s, pfb_sim *sim, pfb_err *err);
void my_surface_flags(my_state *s, pfb_sim *sim);

/* mao_yang_mirrors.c: the pairs at the current positions (the kept list of the
 * real particles, then the mirrors and their rows); with vel, also the mirrors'
 * velocities and the combined velocities vc (read by the viscosity and eq. 16,
 * at x_n only: the step's call at x* leaves vc as it was) */
int my_neighbours(my_state *s, pfb_sim *sim, double t, int vel, pfb_err *err);
void my_mirrors_release(my_state *s, size_t n);

/* mao_yang_stress.c */
double my_inverse_clamped(int dim, const double B[9], double lmin, double Bi[9]);
void my_artificial_stress(my_state *s, pfb_sim *sim);
void my_update_stress(my_state *s, pfb_sim *sim, double dt);

/* mao_yang_pressure.c */
int my_solve_pressure(my_state *s, pfb_sim *sim, double dt, pfb_err *err);
void my_pressure_release(my_state *s);
int my_pressure_accel(my_state *s, pfb_sim *sim, const double *restrict pr, const double *restrict pd,
                      pfb_err *err);
void my_body_pressure_impulse(my_state *s, pfb_sim *sim, const double *restrict pr, double dt);

#endif

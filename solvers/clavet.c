/* clavet.c — Clavet, Beaudoin, Poulin 2005, "Particle-based Viscoelastic Fluid
 * Simulation" (SCA 2005); text in ../shared/papers/clavet2005-viscoelastic.txt.
 *
 * What the paper specifies and where it lives here:
 *   Algorithm 1  simulation step (prediction-relaxation) ........ clavet_step
 *   Algorithm 2  double density relaxation, eqs. 1-6 ............ double_density_relaxation
 *                (jacobi mode: double_density_relaxation_jacobi)
 *   Algorithm 3  spring displacements ........................... apply_spring_displacements
 *   Algorithm 4  spring adjustment, eqs. 7-8 .................... adjust_springs
 *   Algorithm 5  viscosity impulses ............................. apply_viscosity
 *   §6.1 eqs. 9-11 collisions (zero restitution, friction mu,
 *                extraction of particles still inside) .......... resolve_collisions
 *   §6.2 eq. 12  stickiness ..................................... resolve_collisions
 *   Algorithm 6  rigid bodies: issue 7 (the shared walls here are kinematic).
 *
 * Units.  The paper's typical values are given in its own units: time in frames
 * (Delta t = 1 means 1/30 s) and an unstated length unit L0 (length_unit).  By
 * default L0 = h (length_unit = 0), so behaviour depends on resolution only through
 * h.  Measured consequences, both recorded for the calibration still to do (issue 4):
 * with L0 = h the 2D pool and dam break at the default spacing (about 100 particle
 * layers deep) compress to half their volume within 0.27 s under SI gravity (the
 * stiffness k L0 / T0^2 is too soft for that depth); with L0 = 1 m they keep 65-75%
 * of their volume, but a 2D blob at spacing 0.01 explodes in the first frames (the
 * near-pressure displacement per step reaches several h).  With T0 = 1/30 s:
 *   k = k' L0 / T0^2,  k_near = k_near' L0 / T0^2   (displacement = dt^2 P ...),
 *   k_spring = k_spring' / T0^2,  alpha = alpha' / T0,
 *   sigma (linear viscosity) = sigma' / T0,  beta (quadratic) = beta' / L0,
 *   k_stick = k_stick' / T0^2 (d_stick is given in metres; the interaction radius h
 *   is set from the lattice, below, not from L0),
 * where primes are the parameters below, in the paper's units.  rho0 = 10 is a
 * dimensionless neighbour count (eq. 1) and needs no conversion.
 *
 * Choices where the paper is silent:
 *  - h: by default (h_factor = 0) the smallest h, in spacings, at which the initial
 *    lattice has density rho0 (eq. 1 summed over the lattice), so the initial state
 *    is at rest density; h_factor > 0 sets h = h_factor spacing instead.
 *  - Viscosity: sigma' = 0 and beta' = 0.1 (the paper recommends only beta for
 *    low-viscosity fluids and gives no values).
 *  - Stickiness: k_stick' = 0 (off) and d_stick = 0.05 m: under gravity a particle's
 *    predicted position drops g dt^2 = 1.1 cm per 1/30 s step (2.2 cm from rest
 *    after the first), so a thinner band cannot catch it; k_stick >= 4 g / d_stick
 *    holds a particle (the maximal impulse of
 *    eq. 12, dt k_stick d_stick / 4, beats g dt), and the discrete attraction stays
 *    stable while k_stick dt^2 (1 - 2 d / d_stick) < 4 at the balance point.
 *  - Relaxation order: a permutation of particle ids drawn once from the run's
 *    seed and kept (Algorithm 2's "randomized but not modified").  relaxation =
 *    jacobi instead computes every particle's displacement from the same positions
 *    in gather form (each particle sums -D/2 over its neighbours, using both
 *    particles' pressures), ordered by particle id: order-independent, parallel-
 *    friendly, and bit-identical for any storage order.  Viscosity impulses are
 *    then gathered the same way.  The sequential mode (the paper's) is the default.
 *  - Algorithm 4 as printed adjusts rest lengths only for neighbour pairs (q < 1); a
 *    spring's rest length then never exceeds h (it moves towards r < h), so no spring
 *    would ever be removed.  We add springs over neighbour pairs as printed but adjust
 *    every spring's rest length with its current length, so a spring stretched beyond
 *    h is removed once its rest length follows past h, as the text describes.
 *  - New springs rest at h (Algorithm 4), where the (1 - L/h) factor of Algorithm 3
 *    makes them exert nothing until plasticity shortens them; an elastic body with
 *    alpha = 0 therefore has no rest shape.  spring_init = distance gives the springs
 *    created in the first step their initial length as rest length (the initial
 *    shape is the rest shape), for the elastic-blob scenes; later springs rest at h.
 *  - Springs (springs = true) are keyed by particle ids in an open-addressing hash
 *    table (O(1) add, remove, lookup), so the framework's reordering of storage
 *    does not disturb them; separate alpha and gamma for stretch and compression.
 *  - Collisions with the shared boundaries: particles with phi < R (R =
 *    collision_radius spacings) get the eq. 11 impulse computed from their current
 *    velocity (x - x_prev) / dt relative to the wall; the normal part is cancelled
 *    only when moving into the wall; the impulse is applied as a displacement
 *    -I dt (velocities are recomputed from positions at the end of the step);
 *    particles still inside are then extracted to phi = R.  Stickiness (eq. 12)
 *    acts within d_stick of the collision surface phi = R.
 *  - Suggested step: the paper's frame 1/30 s, divided by sqrt(k / k_paper) when the
 *    stiffnesses are raised above the paper's values (keeping dt^2 k, the per-step
 *    displacement scale of eq. 6), and at most h / (2 v_ref) so that a particle at
 *    the scene's characteristic speed moves at most half an interaction radius.
 *  - Gravity and every parameter are per step; dt is the run's step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/diag.h"
#include "../core/kernels.h"
#include "../core/rng.h"
#include "solver.h"

#define T0 (1.0 / 30.0)

static const pfb_param_spec clavet_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 0.0, 0.0, 10.0, "1", "interaction radius h in spacings; 0 = lattice density equals rho0", NULL},
    {"length_unit", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e3, "m", "the paper's length unit L0; 0 = h", NULL},
    {"rho0", PFB_PARAM_DOUBLE, 10.0, 0.1, 1000.0, "1", "rest density (eq. 2), a neighbour count", NULL},
    {"k", PFB_PARAM_DOUBLE, 0.004, 0.0, 100.0, "L0/frame^2", "stiffness (eq. 2)", NULL},
    {"k_near", PFB_PARAM_DOUBLE, 0.01, 0.0, 100.0, "L0/frame^2", "near stiffness (eq. 5)", NULL},
    {"sigma", PFB_PARAM_DOUBLE, 0.0, 0.0, 100.0, "1/frame", "linear viscosity (Algorithm 5)", NULL},
    {"beta", PFB_PARAM_DOUBLE, 0.1, 0.0, 100.0, "1/L0", "quadratic viscosity (Algorithm 5)", NULL},
    {"springs", PFB_PARAM_BOOL, 0, 0, 1, "", "elastic springs (Algorithms 3, 4); false = pure fluid", NULL},
    {"spring_init", PFB_PARAM_CHOICE, 0, 0, 0, "", "new springs' rest length: h (Algorithm 4) or distance (the first step's pairs keep their initial distance: a rest shape)", "h|distance"},
    {"k_spring", PFB_PARAM_DOUBLE, 0.3, 0.0, 100.0, "1/frame^2", "spring stiffness (Algorithm 3)", NULL},
    {"alpha_stretch", PFB_PARAM_DOUBLE, 0.3, 0.0, 100.0, "1/frame", "plasticity when stretched (eq. 8)", NULL},
    {"alpha_compress", PFB_PARAM_DOUBLE, 0.3, 0.0, 100.0, "1/frame", "plasticity when compressed (eq. 8)", NULL},
    {"gamma_stretch", PFB_PARAM_DOUBLE, 0.1, 0.0, 1.0, "1", "yield ratio when stretched (eq. 8)", NULL},
    {"gamma_compress", PFB_PARAM_DOUBLE, 0.1, 0.0, 1.0, "1", "yield ratio when compressed (eq. 8)", NULL},
    {"friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "mu of eq. 11: 0 slip, 1 no-slip", NULL},
    {"collision_radius", PFB_PARAM_DOUBLE, 0.5, 0.0, 5.0, "spacing", "particle collision radius R", NULL},
    {"k_stick", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "1/frame^2", "stickiness (eq. 12); 0 = off", NULL},
    {"d_stick", PFB_PARAM_DOUBLE, 0.05, 0.0, 10.0, "m", "stickiness range (eq. 12)", NULL},
    {"relaxation", PFB_PARAM_CHOICE, 0, 0, 0, "", "sequential (the paper) or jacobi", "sequential|jacobi"},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

/* ---- springs keyed by particle ids ------------------------------------------------- */

typedef struct spring {
    uint64_t a, b;   /* particle ids, a < b */
    double L;        /* rest length */
} spring;

typedef struct spring_set {
    spring *s;
    size_t n, cap;
    int64_t *table;  /* open addressing: index into s, -1 empty, -2 deleted */
    size_t tcap;     /* power of two */
} spring_set;

static uint64_t pair_hash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

/* Slot of pair (a, b) in the table, or of the first free slot for it. */
static size_t springs_slot(const spring_set *ss, uint64_t a, uint64_t b, int *found)
{
    size_t mask = ss->tcap - 1, i = pair_hash(a, b) & mask, free_slot = (size_t)-1;
    for (;;) {
        int64_t v = ss->table[i];
        if (v == -1) {
            *found = 0;
            return free_slot != (size_t)-1 ? free_slot : i;
        }
        if (v == -2) {
            if (free_slot == (size_t)-1)
                free_slot = i;
        } else if (ss->s[v].a == a && ss->s[v].b == b) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static int springs_rehash(spring_set *ss, size_t tcap)
{
    int64_t *t = malloc(tcap * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < tcap; i++)
        t[i] = -1;
    free(ss->table);
    ss->table = t;
    ss->tcap = tcap;
    for (size_t k = 0; k < ss->n; k++) {
        int found;
        size_t slot = springs_slot(ss, ss->s[k].a, ss->s[k].b, &found);
        ss->table[slot] = (int64_t)k;
    }
    return 0;
}

/* Index of spring (a, b) (a < b), or -1. */
static int64_t springs_find(const spring_set *ss, uint64_t a, uint64_t b)
{
    if (!ss->tcap)
        return -1;
    int found;
    size_t slot = springs_slot(ss, a, b, &found);
    return found ? ss->table[slot] : -1;
}

/* Add spring (a, b) with rest length L; O(1) amortised. */
static int springs_add(spring_set *ss, uint64_t a, uint64_t b, double L)
{
    if (ss->n + 1 > ss->cap) {
        size_t nc = ss->cap ? 2 * ss->cap : 1024;
        spring *s = realloc(ss->s, nc * sizeof *s);
        if (!s)
            return -1;
        ss->s = s;
        ss->cap = nc;
    }
    if (2 * (ss->n + 1) > ss->tcap && springs_rehash(ss, ss->tcap ? 2 * ss->tcap : 2048))
        return -1;
    int found;
    size_t slot = springs_slot(ss, a, b, &found);
    if (found)
        return 0;
    ss->s[ss->n] = (spring){a, b, L};
    ss->table[slot] = (int64_t)ss->n++;
    return 0;
}

/* Remove spring k by moving the last spring into its place; O(1). */
static void springs_remove(spring_set *ss, size_t k)
{
    int found;
    size_t slot = springs_slot(ss, ss->s[k].a, ss->s[k].b, &found);
    ss->table[slot] = -2;
    size_t last = ss->n - 1;
    if (k != last) {
        size_t ls = springs_slot(ss, ss->s[last].a, ss->s[last].b, &found);
        ss->s[k] = ss->s[last];
        ss->table[ls] = (int64_t)k;
    }
    ss->n--;
}

static void springs_free(spring_set *ss)
{
    free(ss->s);
    free(ss->table);
    memset(ss, 0, sizeof *ss);
}

/* ---- state ---------------------------------------------------------------------------- */

typedef struct clavet_state {
    double h, rho0, k, k_near, sigma, beta, k_spring;
    double alpha_s, alpha_c, gamma_s, gamma_c, mu, R, k_stick, d_stick;
    double k_rel;         /* max(k'/0.004, k_near'/0.01): stiffness over the paper's */
    int springs, jacobi;
    int spring_init_distance; /* first step's springs rest at their distance */
    long steps;
    uint64_t *order;      /* relaxation order: particle ids, drawn once */
    size_t norder;
    size_t *index_of;     /* id -> storage index, rebuilt each step */
    size_t nindex;
    int f_prev;           /* particle field: previous position (3) */
    int f_rho, f_rho_near; /* particle fields: density and near-density (eqs. 1, 4) */
    double *dx;           /* jacobi workspace: 3 n */
    double *P, *Pn;       /* jacobi workspace: pressures */
    size_t *row;          /* jacobi workspace: one neighbour row sorted by id */
    size_t rowcap;
    size_t cap;
    spring_set sp;
} clavet_state;

static void clavet_destroy(void *state)
{
    clavet_state *s = state;
    if (!s)
        return;
    free(s->order);
    free(s->index_of);
    free(s->dx);
    free(s->P);
    free(s->Pn);
    free(s->row);
    springs_free(&s->sp);
    free(s);
}

/* Eq. 1 summed over an infinite lattice of spacing 1 for radius hs (in spacings):
 * the shared lattice sum of the (1 - q)^2 kernel without its normalisation and
 * without the particle itself (eq. 1 runs over neighbours only). */
static double lattice_rho(int dim, double hs)
{
    pfb_kernel w;
    pfb_err err;
    if (kernel_init(&w, PFB_KERNEL_CLAVET2, dim, hs, &err))
        return NAN;
    return (lattice_density(&w, 1.0, 1.0) - kernel_w(&w, 0.0)) / w.norm;
}

static int clavet_create(const pfb_params *p, pfb_sim *sim, void **out, pfb_err *err)
{
    *out = NULL;
    clavet_state *s = calloc(1, sizeof *s);
    if (!s)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory creating the clavet solver");
    s->rho0 = params_get(p, "rho0");
    double hf = params_get(p, "h_factor");
    if (hf == 0.0) {
        /* the lattice density grows monotonically with h: bisect for rho0 */
        double lo = 1.0, hi = 10.0;
        if (lattice_rho(sim->dim, hi) < s->rho0) {
            clavet_destroy(s);
            return pfb_err_set(err, PFB_EINVAL,
                               "clavet: rho0 = %g needs h beyond 10 spacings; valid: a smaller rho0 or set h_factor",
                               s->rho0);
        }
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (lo + hi);
            if (lattice_rho(sim->dim, mid) < s->rho0)
                lo = mid;
            else
                hi = mid;
        }
        hf = hi;
    }
    const double h = hf * sim->spacing;
    s->h = h;
    double L0 = params_get(p, "length_unit");
    if (L0 == 0.0)
        L0 = h;
    s->k = params_get(p, "k") * L0 / (T0 * T0);
    s->k_rel = fmax(params_get(p, "k") / 0.004, params_get(p, "k_near") / 0.01);
    s->k_near = params_get(p, "k_near") * L0 / (T0 * T0);
    s->sigma = params_get(p, "sigma") / T0;
    s->beta = params_get(p, "beta") / L0;
    s->springs = params_get_int(p, "springs");
    s->spring_init_distance = params_get_int(p, "spring_init") == 1;
    s->k_spring = params_get(p, "k_spring") / (T0 * T0);
    s->alpha_s = params_get(p, "alpha_stretch") / T0;
    s->alpha_c = params_get(p, "alpha_compress") / T0;
    s->gamma_s = params_get(p, "gamma_stretch");
    s->gamma_c = params_get(p, "gamma_compress");
    s->mu = params_get(p, "friction");
    s->R = params_get(p, "collision_radius") * sim->spacing;
    s->k_stick = params_get(p, "k_stick") / (T0 * T0);
    s->d_stick = params_get(p, "d_stick");
    s->jacobi = params_get_int(p, "relaxation") == 1;
    int rc = particles_add_field(&sim->p, "x_prev", 3, &s->f_prev, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "rho", 1, &s->f_rho, err);
    if (!rc)
        rc = particles_add_field(&sim->p, "rho_near", 1, &s->f_rho_near, err);
    if (rc) {
        clavet_destroy(s);
        return rc;
    }
    /* Algorithm 2: the relaxation order, a random permutation of ids kept for the run */
    s->norder = sim->p.n;
    s->order = malloc((s->norder + 1) * sizeof *s->order);
    if (!s->order) {
        clavet_destroy(s);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for the relaxation order");
    }
    for (size_t i = 0; i < s->norder; i++)
        s->order[i] = sim->p.id[i];
    for (size_t i = s->norder; i > 1; i--) {
        size_t j = (size_t)rng_below(&sim->rng, i);
        uint64_t t = s->order[i - 1];
        s->order[i - 1] = s->order[j];
        s->order[j] = t;
    }
    *out = s;
    return PFB_OK;
}

static int ensure_workspace(clavet_state *s, const pfb_particles *p, pfb_err *err)
{
    if (p->next_id > s->nindex) {
        size_t *ix = realloc(s->index_of, p->next_id * sizeof *ix);
        if (!ix)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu particle ids", (size_t)p->next_id);
        s->index_of = ix;
        s->nindex = p->next_id;
    }
    for (size_t i = 0; i < p->n; i++)
        s->index_of[p->id[i]] = i;
    if (p->n > s->cap) {
        double *dx = realloc(s->dx, 3 * p->n * sizeof *dx), *P = NULL, *Pn = NULL;
        if (dx)
            s->dx = dx;
        P = realloc(s->P, p->n * sizeof *P);
        if (P)
            s->P = P;
        Pn = realloc(s->Pn, p->n * sizeof *Pn);
        if (Pn)
            s->Pn = Pn;
        if (!dx || !P || !Pn)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu particles", p->n);
        s->cap = p->n;
    }
    return PFB_OK;
}

/* Row i of the neighbour list sorted by particle id (jacobi mode: sums in an order
 * that does not depend on storage order); returns its length. */
static size_t sorted_row(clavet_state *s, const pfb_particles *p, const pfb_nlist *nl, size_t i)
{
    size_t len = nl->start[i + 1] - nl->start[i];
    if (len > s->rowcap) {
        size_t *r = realloc(s->row, len * sizeof *r);
        if (!r)
            return (size_t)-1;
        s->row = r;
        s->rowcap = len;
    }
    for (size_t a = 0; a < len; a++) {
        size_t j = nl->idx[nl->start[i] + a], b = a;
        while (b > 0 && p->id[s->row[b - 1]] > p->id[j]) {
            s->row[b] = s->row[b - 1];
            b--;
        }
        s->row[b] = j;
    }
    return len;
}

/* r_ij = x_j - x_i, its length and unit vector; returns the length. */
static inline double pair_vec(const pfb_particles *p, int dim, size_t i, size_t j, double u[3])
{
    double r2 = 0.0;
    u[0] = u[1] = u[2] = 0.0;
    for (int k = 0; k < dim; k++) {
        u[k] = p->x[k][j] - p->x[k][i];
        r2 += u[k] * u[k];
    }
    double r = sqrt(r2);
    if (r > 0)
        for (int k = 0; k < dim; k++)
            u[k] /= r;
    return r;
}

/* Algorithm 5: radial viscosity impulses between approaching pairs (sequential, i < j). */
static void apply_viscosity(const clavet_state *s, pfb_sim *sim, const pfb_nlist *nl, double dt)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (size_t i = 0; i < p->n; i++)
        for (size_t q = nl->start[i]; q < nl->start[i + 1]; q++) {
            size_t j = nl->idx[q];
            if (j <= i)
                continue;
            double u[3], r = pair_vec(p, dim, i, j, u), qq = r / s->h;
            if (qq >= 1.0 || r == 0)
                continue;
            double w = 0.0;
            for (int k = 0; k < dim; k++)
                w += (p->v[k][i] - p->v[k][j]) * u[k]; /* inward radial velocity */
            if (w <= 0)
                continue;
            double I = dt * (1.0 - qq) * (s->sigma * w + s->beta * w * w);
            for (int k = 0; k < dim; k++) {
                p->v[k][i] -= 0.5 * I * u[k];
                p->v[k][j] += 0.5 * I * u[k];
            }
        }
}

/* Algorithm 5 in gather form (jacobi): every particle sums its own half impulses
 * from the same velocities, neighbours in id order. */
static int apply_viscosity_jacobi(clavet_state *s, pfb_sim *sim, const pfb_nlist *nl, double dt, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    double *dv = s->dx;
    for (size_t i = 0; i < p->n; i++) {
        double acc[3] = {0, 0, 0};
        size_t len = sorted_row(s, p, nl, i);
        if (len == (size_t)-1)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory sorting neighbours");
        for (size_t q = 0; q < len; q++) {
            size_t j = s->row[q];
            double u[3], r = pair_vec(p, dim, i, j, u), qq = r / s->h;
            if (qq >= 1.0 || r == 0)
                continue;
            double w = 0.0;
            for (int k = 0; k < dim; k++)
                w += (p->v[k][i] - p->v[k][j]) * u[k];
            if (w <= 0)
                continue;
            double I = dt * (1.0 - qq) * (s->sigma * w + s->beta * w * w);
            for (int k = 0; k < dim; k++)
                acc[k] -= 0.5 * I * u[k];
        }
        for (int k = 0; k < 3; k++)
            dv[3 * i + (size_t)k] = acc[k];
    }
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < dim; k++)
            p->v[k][i] += dv[3 * i + (size_t)k];
    return PFB_OK;
}

/* Algorithm 4 with eq. 8: add springs between neighbours closer than h (rest length
 * h), change every spring's rest length, remove springs whose rest length exceeds h. */
static int adjust_springs(clavet_state *s, pfb_sim *sim, const pfb_nlist *nl, double dt, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    for (size_t i = 0; i < p->n; i++)
        for (size_t q = nl->start[i]; q < nl->start[i + 1]; q++) {
            size_t j = nl->idx[q];
            uint64_t a = p->id[i], b = p->id[j];
            if (a > b || sqrt(nl->r2[q]) / s->h >= 1.0)
                continue;
            double L0 = (s->spring_init_distance && s->steps == 0) ? sqrt(nl->r2[q]) : s->h;
            if (springs_find(&s->sp, a, b) < 0 && springs_add(&s->sp, a, b, L0))
                return pfb_err_set(err, PFB_ENOMEM, "out of memory adding springs");
        }
    for (size_t k = 0; k < s->sp.n; k++) {
        double u[3], L = s->sp.s[k].L;
        double r = pair_vec(p, sim->dim, s->index_of[s->sp.s[k].a], s->index_of[s->sp.s[k].b], u);
        if (r > L + s->gamma_s * L) /* stretch */
            s->sp.s[k].L = L + dt * s->alpha_s * (r - L - s->gamma_s * L);
        else if (r < L - s->gamma_c * L) /* compress */
            s->sp.s[k].L = L - dt * s->alpha_c * (L - s->gamma_c * L - r);
    }
    for (size_t k = 0; k < s->sp.n;)
        if (s->sp.s[k].L > s->h)
            springs_remove(&s->sp, k);
        else
            k++;
    return PFB_OK;
}

/* Algorithm 3: spring displacements with the (1 - L/h) factor. */
static void apply_spring_displacements(const clavet_state *s, pfb_sim *sim, double dt)
{
    pfb_particles *p = &sim->p;
    for (size_t k = 0; k < s->sp.n; k++) {
        size_t i = s->index_of[s->sp.s[k].a], j = s->index_of[s->sp.s[k].b];
        double u[3], r = pair_vec(p, sim->dim, i, j, u), L = s->sp.s[k].L;
        double D = dt * dt * s->k_spring * (1.0 - L / s->h) * (L - r);
        for (int c = 0; c < sim->dim; c++) {
            p->x[c][i] -= 0.5 * D * u[c];
            p->x[c][j] += 0.5 * D * u[c];
        }
    }
}

/* Algorithm 2: eqs. 1, 4 (densities), 2, 5 (pressures), 6 (displacements); neighbours
 * moved at once, i's own displacement applied at the end, i in the fixed random order. */
static void double_density_relaxation(const clavet_state *s, pfb_sim *sim, const pfb_nlist *nl, double dt)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (size_t o = 0; o < s->norder; o++) {
        size_t i = s->index_of[s->order[o]];
        double rho = 0.0, rho_near = 0.0;
        for (size_t q = nl->start[i]; q < nl->start[i + 1]; q++) {
            double u[3], qq = pair_vec(p, dim, i, nl->idx[q], u) / s->h;
            if (qq < 1.0) {
                rho += (1.0 - qq) * (1.0 - qq);                   /* eq. 1 */
                rho_near += (1.0 - qq) * (1.0 - qq) * (1.0 - qq); /* eq. 4 */
            }
        }
        double P = s->k * (rho - s->rho0);  /* eq. 2 */
        double Pn = s->k_near * rho_near;    /* eq. 5 */
        p->field[s->f_rho].data[i] = rho;
        p->field[s->f_rho_near].data[i] = rho_near;
        double dx[3] = {0, 0, 0};
        for (size_t q = nl->start[i]; q < nl->start[i + 1]; q++) {
            size_t j = nl->idx[q];
            double u[3], qq = pair_vec(p, dim, i, j, u) / s->h;
            if (qq >= 1.0)
                continue;
            double D = dt * dt * (P * (1.0 - qq) + Pn * (1.0 - qq) * (1.0 - qq)); /* eq. 6 */
            for (int k = 0; k < dim; k++) {
                p->x[k][j] += 0.5 * D * u[k];
                dx[k] -= 0.5 * D * u[k];
            }
        }
        for (int k = 0; k < dim; k++)
            p->x[k][i] += dx[k];
    }
}

/* Jacobi variant: pressures from the same positions, each particle gathers
 * -D_ij/2 (its own pressure) and +D_ji/2 (its neighbour's) over its neighbours. */
static int double_density_relaxation_jacobi(clavet_state *s, pfb_sim *sim, const pfb_nlist *nl, double dt,
                                            pfb_err *err)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p->n; i++) {
            size_t len = sorted_row(s, p, nl, i);
            if (len == (size_t)-1)
                return pfb_err_set(err, PFB_ENOMEM, "out of memory sorting neighbours");
            double rho = 0.0, rho_near = 0.0, acc[3] = {0, 0, 0};
            for (size_t q = 0; q < len; q++) {
                size_t j = s->row[q];
                double u[3], qq = pair_vec(p, dim, i, j, u) / s->h;
                if (qq >= 1.0)
                    continue;
                double w = 1.0 - qq;
                if (pass == 0) { /* eqs. 1 and 4 */
                    rho += w * w;
                    rho_near += w * w * w;
                } else { /* eq. 6, both halves of the pair's exchange */
                    double D = dt * dt * ((s->P[i] + s->P[j]) * w + (s->Pn[i] + s->Pn[j]) * w * w);
                    for (int k = 0; k < dim; k++)
                        acc[k] -= 0.5 * D * u[k];
                }
            }
            if (pass == 0) {
                p->field[s->f_rho].data[i] = rho;
                p->field[s->f_rho_near].data[i] = rho_near;
                s->P[i] = s->k * (rho - s->rho0); /* eq. 2 */
                s->Pn[i] = s->k_near * rho_near;   /* eq. 5 */
            } else {
                for (int k = 0; k < 3; k++)
                    s->dx[3 * i + (size_t)k] = acc[k];
            }
        }
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < dim; k++)
            p->x[k][i] += s->dx[3 * i + (size_t)k];
    return PFB_OK;
}

/* §6.1 eqs. 9-11 and §6.2 eq. 12 against the shared boundaries, then extraction. */
static void resolve_collisions(const clavet_state *s, pfb_sim *sim, double dt, double t)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double *xp = p->field[s->f_prev].data;
    for (size_t i = 0; i < p->n; i++)
        for (size_t b = 0; b < sim->walls.n; b++) {
            const pfb_shape *sh = &sim->walls.s[b];
            double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, n[3], vw[3];
            double phi = shape_sdf(sh, dim, t, x, n);
            double d = phi - s->R; /* distance to the collision surface */
            int stick = s->k_stick > 0 && d < s->d_stick && d > 0;
            if (d >= 0 && !stick)
                continue;
            shape_velocity(sh, t, vw);
            double vb[3] = {0, 0, 0}, vn = 0.0;
            for (int k = 0; k < dim; k++) {
                vb[k] = (x[k] - xp[3 * i + (size_t)k]) / dt - vw[k]; /* relative velocity */
                vn += vb[k] * n[k];
            }
            double I[3] = {0, 0, 0};
            if (d < 0)
                for (int k = 0; k < dim; k++) {
                    double vnorm = vn < 0 ? vn * n[k] : 0.0; /* eq. 9, only into the wall */
                    double vtan = vb[k] - vn * n[k];          /* eq. 10 */
                    I[k] = vnorm - s->mu * vtan;              /* eq. 11 */
                }
            if (stick) /* eq. 12: attraction towards the surface, maximal at d_stick / 2 */
                for (int k = 0; k < dim; k++)
                    I[k] += dt * s->k_stick * d * (1.0 - d / s->d_stick) * n[k];
            for (int k = 0; k < dim; k++)
                p->x[k][i] -= I[k] * dt;
            /* extract particles still inside */
            double x2[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
            double phi2 = shape_sdf(sh, dim, t, x2, n);
            if (phi2 < s->R)
                for (int k = 0; k < dim; k++)
                    p->x[k][i] += (s->R - phi2) * n[k];
        }
}

/* Algorithm 1. */
static int clavet_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    clavet_state *s = state;
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    int rc = ensure_workspace(s, p, err);
    if (rc)
        return rc;
    for (int k = 0; k < dim; k++) /* lines 1-3: gravity */
        for (size_t i = 0; i < p->n; i++)
            p->v[k][i] += dt * sim->g[k];
    const pfb_nlist *nl;
    rc = sim_neighbours(sim, s->h, &nl, err);
    if (rc)
        return rc;
    if (s->jacobi) { /* lines 4-5 */
        rc = apply_viscosity_jacobi(s, sim, nl, dt, err);
        if (rc)
            return rc;
    } else
        apply_viscosity(s, sim, nl, dt);
    double *xp = p->field[s->f_prev].data;
    for (size_t i = 0; i < p->n; i++) /* lines 6-10: save and predict */
        for (int k = 0; k < 3; k++) {
            xp[3 * i + (size_t)k] = p->x[k][i];
            if (k < dim)
                p->x[k][i] += dt * p->v[k][i];
        }
    sim_positions_changed(sim);
    rc = sim_neighbours(sim, s->h, &nl, err); /* neighbours at the predicted positions */
    if (rc)
        return rc;
    if (s->springs) { /* lines 11-15 */
        rc = adjust_springs(s, sim, nl, dt, err);
        if (rc)
            return rc;
        apply_spring_displacements(s, sim, dt);
    }
    if (s->jacobi) { /* line 16 */
        rc = double_density_relaxation_jacobi(s, sim, nl, dt, err);
        if (rc)
            return rc;
    } else
        double_density_relaxation(s, sim, nl, dt);
    resolve_collisions(s, sim, dt, sim->t + dt); /* line 17 */
    for (size_t i = 0; i < p->n; i++) /* lines 18-20 */
        for (int k = 0; k < dim; k++)
            p->v[k][i] = (p->x[k][i] - xp[3 * i + (size_t)k]) / dt;
    sim_positions_changed(sim);
    s->steps++;
    return PFB_OK;
}

/* The paper's frame, 1/30 s, reduced (a) so that dt^2 k stays at the paper's
 * typical value when k is raised (dt = T0 sqrt(k_paper / k)), and (b) so that a
 * particle at the scene's speed v_ref moves at most h/2 per step. */
static double clavet_suggest_dt(const void *state, const pfb_sim *sim)
{
    const clavet_state *s = state;
    double dt = T0;
    if (s->k_rel > 1.0)
        dt /= sqrt(s->k_rel);
    if (sim->v_ref > 0)
        dt = fmin(dt, 0.5 * s->h / sim->v_ref);
    return dt;
}

static const char *const clavet_diag_names[] = {"h", "springs", "spring_rest_mean", NULL};

static void clavet_diag(const void *state, const pfb_sim *sim, double *values)
{
    (void)sim;
    const clavet_state *s = state;
    double L = 0.0;
    for (size_t k = 0; k < s->sp.n; k++)
        L += s->sp.s[k].L;
    values[0] = s->h;
    values[1] = (double)s->sp.n;
    values[2] = s->sp.n ? L / (double)s->sp.n : NAN;
}

const pfb_solver_ops pfb_solver_clavet = {
    "clavet",
    "S. Clavet, P. Beaudoin, P. Poulin. Particle-based viscoelastic fluid simulation. SCA 2005",
    clavet_params,
    clavet_create,
    clavet_step,
    clavet_destroy,
    clavet_suggest_dt,
    clavet_diag_names,
    clavet_diag,
    NULL};

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
 *   Algorithm 6  particle-body interactions ........................ body_interactions
 *
 * Units.  The paper's typical values are given in its own units: time in frames
 * (Delta t = 1 means T0 = 1/30 s) and an unstated length unit L0 (length_unit; by
 * default L0 = h, so behaviour depends on resolution only through h):
 *   k = k' L0 / T0^2,  k_near = k_near' L0 / T0^2   (displacement = dt^2 P ...),
 *   k_spring = k_spring' / T0^2,  alpha = alpha' / T0,
 *   sigma (linear viscosity) = sigma' / T0,  beta (quadratic) = beta' / L0,
 *   k_stick = k_stick' / T0^2 (d_stick is given in metres; the interaction radius h
 *   is set from the lattice, below, not from L0),
 * where primes are the parameters below, in the paper's units.  rho0 = 10 is a
 * dimensionless neighbour count (eq. 1) and needs no conversion.
 *
 * Sound speed and calibration (the paper is silent; derived here).  Eq. 6 exchanges
 * pair accelerations a_ij = P (1-q) + P_near (1-q)^2 along r_ij, so a uniform state
 * has the virial pressure p/m = n/(2 dim) sum_j a_ij r_ij (n: number density).  Its
 * zero fixes the rest state; its slope the bulk sound speed
 *   c^2 = d(p/m)/dn = (k rho S1 + k_near rho_near S2) / (2 dim),
 *   S1 = sum_j (1-q) r_j,  S2 = sum_j (1-q)^2 r_j   (lattice sums, continuum limit).
 * With the paper's values and L0 = h, c is about 8 h per second (0.3 m/s at h = 4 cm):
 * the hydrostatic compression g H / c^2 of a fluid H deep is then of order H/h, and
 * under SI gravity a pool 100 particles deep collapses.  The paper's remedy is more
 * steps per frame (§8: "up to 10 timesteps per frame ... when volume conservation was
 * critical"; low-viscosity liquids need "numerous timesteps per frame").  Hence
 * sound_speed > 0 scales k and k_near together (their ratio, which shapes the
 * surface, kept) to c = sound_speed v_ref, the weakly compressible criterion of the
 * SPH back ends (10 v_ref: density variations ~1%); and the suggested step keeps
 * the paper's per-step Courant number c dt / h (its k, k_near, L0 = h, dt = T0),
 * i.e. dt = T0 c_paper / c.
 *
 * Default stiffness: sound_speed = 10, not the paper's literal k, k_near.  The
 * paper's values (k = 0.004, k_near = 0.01 per frame^2, L0 = h) suit its scenes in
 * frame units, but here, in 2D at the scenes' default spacings, they let ten of
 * the thirteen scenes (all but drop, blob and fill) lose over half their volume
 * within a third of a second (SI gravity compresses them; the stretch column
 * tears), so the defaults would not describe a working fluid.  By default k and k_near therefore set only the
 * shape of the pressure (k_near / k, the paper's 2.5) and the sound speed is the
 * experiment presets' 10 v_ref.  The paper's values stay one setting away:
 * sound_speed = 0 uses k, k_near as given.  Since a k or k_near given with the
 * default sound speed would be rescaled without the user asking, clavet_create
 * refuses that combination and asks for sound_speed to be set as well.
 * sound_speed_si gives c in m/s instead: the same material in every scene, which
 * a sound speed relative to each scene's v_ref is not (the calibrated fluid of
 * scenes/calibrated.ini uses it; setting both is refused).
 *
 * Choices where the paper is silent:
 *  - Periodic axes (core/periodic.h; the paper has none): every pair's displacement
 *    is the minimum image (the list is the framework's minimum-image one).  On a
 *    sheared box (Lees-Edwards) the sequential relaxation, the springs and the
 *    viscosity impulses take the sliding images (period_vec; the impulse's
 *    approach speed adds the image's k U), the predicted positions meet the
 *    images at t + dt, and a particle wrapped across a sliding face has its
 *    previous position moved as the image was at t (x_prev - k s(t)), so that
 *    line 19's velocity is the image's; the jacobi rows refuse it.  The pair
 *    virial's shear term adds the springs' displacements and the viscosity
 *    impulses as forces (clavet_shear_extra).
 *  - h: by default (h_factor = 0) the h, in spacings, at which the initial lattice
 *    has zero virial pressure, k (rho - rho0) S1 + k_near rho_near S2 = 0: the
 *    initial state is at rest.  The near-pressure is always repulsive, so that
 *    lattice has rho < rho0 (2D: h = 3.75 spacings, rho = 6.3, against 4.56 spacings
 *    for rho = rho0); with rho = rho0 instead, the fluid expands until the pressure
 *    balances the near-pressure (measured: +30% area in 2D).  h_factor > 0 sets h
 *    = h_factor spacing.
 *  - Viscosity: sigma' = 0 and beta' = 0.1 (the paper recommends only beta for
 *    low-viscosity fluids and gives no values).
 *  - Stickiness: k_stick' = 0 (off) and d_stick = 0.05 m: under gravity a particle's
 *    predicted position drops g dt^2 = 1.1 cm per 1/30 s step (2.2 cm from rest
 *    after the first), so a thinner band cannot catch it; k_stick >= 4 g / d_stick
 *    holds a particle (the maximal impulse of
 *    eq. 12, dt k_stick d_stick / 4, beats g dt), and the discrete attraction stays
 *    stable while k_stick dt^2 (1 - 2 d / d_stick) < 4 at the balance point.
 *  - Relaxation order: a permutation of particle ids drawn once from the run's
 *    seed and kept (Algorithm 2's "randomized but not modified"); particles added
 *    during the run (an emitter, the fill scene) join it when they appear, each at
 *    a random place (extend_order), so every particle is relaxed.  relaxation =
 *    jacobi instead computes every particle's displacement from the same positions:
 *    order-independent and parallel.  What differs from the paper's sequential
 *    mode: a particle relaxed late in the sequence sees its neighbours already
 *    moved, so the sequential mode propagates a correction across many neighbours
 *    in one sweep (Gauss-Seidel), jacobi by one neighbourhood (stiffer fluids need
 *    smaller steps).  Springs stay sequential.
 *  - The pairs (issue 33): the framework's half list with a skin (core/halflist.h,
 *    radius h (1 + list_skin)), kept over steps and checked at the two points of
 *    the step that need neighbours (before the viscosity and at the predicted
 *    positions); a rebuild sorts the storage, so the ids' indices are renewed, and
 *    on periodic axes the previous positions follow the sort's wrap.  The
 *    sequential relaxation walks a full list made from it after each rebuild (each
 *    row ascending: the same rows as the framework's full list, plus the skin),
 *    so it allocates nothing per step; it skips pairs at h or beyond at their
 *    current distance, and a pair that the sweep's moves bring within h from the
 *    skin now takes part (the list at exactly h missed it).  The sequential
 *    viscosity walks the half list, i < j, in storage order.  Jacobi: each pair once
 *    over the blocked schedule (core/pairtasks.h), its exchange added to one
 *    particle and subtracted from the other (Algorithm 5's impulse and eq. 6's two
 *    halves are antisymmetric in the pair), in four lanes (core/lanes.h;
 *    clavet_rows.inc) from packed records; the same bits for any thread count and
 *    SIMD level.  Density sums leave out a pair at r = 0 (it has no direction for
 *    eq. 6 either); the viscosity first picks out the approaching pairs within h,
 *    the displacements reuse the density pass's pairs within h.
 *  - Collisions: a particle that shape_clear (core/boundary.h) finds beyond R (and
 *    beyond the stickiness range when it is on) of a plane or a containing box, by
 *    exactly shape_sdf's operations, skips that shape (collision_impulse would
 *    return nothing); particles are independent, so the loop runs in parallel.
 *  - Algorithm 4 as printed adjusts rest lengths only for neighbour pairs (q < 1); a
 *    spring's rest length then never exceeds h (it moves towards r < h), so no spring
 *    would ever be removed.  We add springs over neighbour pairs as printed but adjust
 *    every spring's rest length with its current length, so a spring stretched beyond
 *    h is removed once its rest length follows past h, as the text describes.
 *  - New springs rest at h (Algorithm 4), where the (1 - L/h) factor of Algorithm 3
 *    makes them exert nothing until plasticity shortens them; an elastic body with
 *    alpha = 0 therefore has no rest shape.  spring_init = distance gives the springs
 *    created in the first step their length at the start of that step (before the
 *    prediction) as rest length, so the initial shape is the rest shape (elastic
 *    blob scenes); later springs rest at h.
 *  - Springs (springs = true) are keyed by particle ids in an open-addressing hash
 *    table (O(1) add, remove, lookup; made again without its deleted slots once
 *    they and the springs fill 3/4 of it), so the framework's reordering of
 *    storage does not disturb them; separate alpha and gamma for stretch and
 *    compression.
 *  - Collisions with the shared boundaries: particles with phi < R (R =
 *    collision_radius spacings) get the eq. 11 impulse computed from their current
 *    velocity (x - x_prev) / dt relative to the wall; the normal part is cancelled
 *    only when moving into the wall; the impulse is applied as a displacement
 *    -I dt (velocities are recomputed from positions at the end of the step);
 *    particles still inside are then extracted to phi = R.  Stickiness (eq. 12)
 *    acts within d_stick of the collision surface phi = R.
 *  - Rigid bodies (Algorithm 6, body_interactions), after the wall collisions of
 *    line 17: gravity and the advance (lines 1-3) are the rigid-body simulator's
 *    step; "particles inside" are those within the collision radius R of the
 *    body (eq. 12's attraction range too); the eq. 11 velocity impulse I times the
 *    particle's mass is the momentum each gives the body (lines 6-7); line 11
 *    resolves body-wall and body-body contacts (core/body.c bodies_contact);
 *    lines 12-15 treat the body as infinitely heavy, so the particles then lose
 *    a momentum different from what the body gained in lines 5-7 (measured: 15%
 *    of the exchanged momentum when a disc of 5% of a block's mass hits it).
 *    body_momentum_closure (default on) gives each body, after line 15, the
 *    difference between what the particles lost in lines 12-15 (extraction
 *    included) and what it gained in lines 5-7: the exchange then sums to zero
 *    to round-off (test_body).  Off is the paper's algorithm as printed.
 *  - Eq. 11 is printed I = v_normal - mu v_tangent, but the impulse is removed
 *    from the particle's velocity (that is what cancels v_normal), so the printed
 *    sign would add mu v_tangent instead of removing it (mu = 1 would double the
 *    sliding speed every step, not stop it).  We use I = v_normal + mu v_tangent,
 *    which "cancels the normal velocity and removes a fraction of the tangential
 *    velocity" as the text says.
 *  - Suggested step: T0 c_paper / c when c exceeds the paper's c_paper (see above),
 *    else the paper's frame T0; and at most h / (2 v_ref) so that a particle at the
 *    scene's characteristic speed moves at most half an interaction radius.
 *  - Gravity and every parameter are per step; dt is the run's step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/diag.h"
#include "../core/checkpoint.h"
#include "../core/halflist.h"
#include "../core/kernels.h"
#include "../core/lanes.h"
#include "../core/pairtasks.h"
#include "../core/rng.h"
#include "../core/solver.h"

#define T0 (1.0 / 30.0)

static const pfb_param_spec clavet_params[] = {
    {"h_factor", PFB_PARAM_DOUBLE, 0.0, 0.0, 10.0, "1", "interaction radius h in spacings; 0 = lattice density equals rho0", NULL},
    {"length_unit", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e3, "m", "the paper's length unit L0; 0 = h", NULL},
    {"rho0", PFB_PARAM_DOUBLE, 10.0, 0.1, 1000.0, "1", "rest density (eq. 2), a neighbour count", NULL},
    {"k", PFB_PARAM_DOUBLE, 0.004, 0.0, 100.0, "L0/frame^2", "stiffness (eq. 2); as given only with sound_speed = 0, else only k_near / k counts", NULL},
    {"k_near", PFB_PARAM_DOUBLE, 0.01, 0.0, 100.0, "L0/frame^2", "near stiffness (eq. 5); as given only with sound_speed = 0", NULL},
    {"sigma", PFB_PARAM_DOUBLE, 0.0, 0.0, 100.0, "1/frame", "linear viscosity (Algorithm 5)", NULL},
    {"beta", PFB_PARAM_DOUBLE, 0.1, 0.0, 100.0, "1/L0", "quadratic viscosity (Algorithm 5)", NULL},
    {"springs", PFB_PARAM_BOOL, 0, 0, 1, "", "elastic springs (Algorithms 3, 4); false = pure fluid", NULL},
    {"spring_init", PFB_PARAM_CHOICE, 0, 0, 0, "", "new springs' rest length: h (Algorithm 4) or distance (the first step's pairs keep their initial distance: a rest shape)", "h|distance"},
    {"k_spring", PFB_PARAM_DOUBLE, 0.3, 0.0, 1e4, "1/frame^2", "spring stiffness (Algorithm 3); a fixed modulus needs it to grow as 1/spacing^2 (core/maxwell.h)", NULL},
    {"alpha_stretch", PFB_PARAM_DOUBLE, 0.3, 0.0, 100.0, "1/frame", "plasticity when stretched (eq. 8)", NULL},
    {"alpha_compress", PFB_PARAM_DOUBLE, 0.3, 0.0, 100.0, "1/frame", "plasticity when compressed (eq. 8)", NULL},
    {"gamma_stretch", PFB_PARAM_DOUBLE, 0.1, 0.0, 1.0, "1", "yield ratio when stretched (eq. 8)", NULL},
    {"gamma_compress", PFB_PARAM_DOUBLE, 0.1, 0.0, 1.0, "1", "yield ratio when compressed (eq. 8)", NULL},
    {"friction", PFB_PARAM_DOUBLE, 0.0, 0.0, 1.0, "1", "mu of eq. 11: 0 slip, 1 no-slip", NULL},
    {"collision_radius", PFB_PARAM_DOUBLE, 0.5, 0.0, 5.0, "spacing", "particle collision radius R", NULL},
    {"body_momentum_closure", PFB_PARAM_BOOL, 1, 0, 1, "", "Algorithm 6: give the bodies what lines 12-15 take from the particles beyond lines 5-7 (exact momentum exchange); false = the paper", NULL},
    {"k_stick", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "1/frame^2", "stickiness (eq. 12); 0 = off", NULL},
    {"d_stick", PFB_PARAM_DOUBLE, 0.05, 0.0, 10.0, "m", "stickiness range (eq. 12)", NULL},
    /* default 10, not 0 (the paper's k, k_near): those collapse the SI-gravity scenes (header) */
    {"sound_speed", PFB_PARAM_DOUBLE, 10.0, 0.0, 1e4, "v_ref", "bulk sound speed in v_ref: k, k_near scaled to it, ratio kept; 0 = k, k_near as given (the paper's values)", NULL},
    {"sound_speed_si", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "m/s", "bulk sound speed in m/s, the same in every scene (a calibrated fluid); > 0 replaces sound_speed; 0 = sound_speed v_ref", NULL},
    {"relaxation", PFB_PARAM_CHOICE, 0, 0, 0, "", "sequential (the paper) or jacobi", "sequential|jacobi"},
    {"simd", PFB_PARAM_INT, 2, 0, 2, "1", "jacobi: vector pair rows up to this level, where the CPU has it: 0 portable C, 1 AVX2, 2 AVX2 compiled for AVX-512VL; the same bits at every level", NULL},
    {"list_skin", PFB_PARAM_DOUBLE, 0.1, 0.01, 1.0, "1", "neighbour list radius h (1 + skin), kept until the moves since its build could bring a pair from beyond it within h (core/halflist.h)", NULL},
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
    size_t used;     /* slots not empty: the springs and the deleted */
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
    ss->used = ss->n;
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
    /* deleted slots end no search: where springs form and break all the
     * time (a sheared flow) they would fill the table, and every search for
     * a pair without a spring would run over them; so at 3/4 of the slots
     * not empty the table is made again without them (springs_rehash keeps
     * the springs' order: their loops, and so the bits, are unchanged) */
    if (4 * (ss->used + 1) > 3 * ss->tcap && springs_rehash(ss, ss->tcap))
        return -1;
    int found;
    size_t slot = springs_slot(ss, a, b, &found);
    if (found)
        return 0;
    ss->used += ss->table[slot] == -1;
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

/* A neighbour within h of the particle being relaxed (double_density_relaxation). */
typedef struct relax_pair {
    size_t j;
    double d0, d1, d2, w, r; /* d = x_j - x_i, w = 1 - r / h */
} relax_pair;

typedef struct clavet_state {
    double h, rho0, k, k_near, sigma, beta, k_spring;
    double last_dt;       /* the last step's dt (0 before the first): the pair virial's step */
    double alpha_s, alpha_c, gamma_s, gamma_c, mu, R, k_stick, d_stick;
    double c;             /* bulk sound speed of eqs. 2, 5, 6 (m/s) */
    double c_paper;       /* the same with the paper's k, k_near and L0 = h */
    int springs, jacobi, closure;
    int spring_init_distance; /* first step's springs rest at their distance */
    long steps;
    uint64_t *order;      /* relaxation order: particle ids, drawn once */
    size_t norder;
    uint64_t id_end;      /* ids below this are in the order (or gone) */
    size_t *index_of;     /* id -> storage index, rebuilt each step */
    size_t nindex;
    int f_prev;           /* particle field: previous position (3) */
    int f_rho, f_rho_near; /* particle fields: density and near-density (eqs. 1, 4) */
    double *dx;           /* jacobi workspace: 3 n */
    double *P, *Pn;       /* jacobi workspace: pressures */
    size_t cap;
    spring_set sp;
    pfb_halflist L;       /* pairs within h (1 + list_skin), core/halflist.h */
    pfb_pairtasks T;      /* the jacobi passes' schedule, core/pairtasks.h */
    pfb_fulllist F;       /* the sequential relaxation's full list (core/halflist.h) */
    relax_pair *rbuf;     /* a row's neighbours within h (the longest full row's room) */
    size_t cap_rbuf;
    uint32_t *cl, *cn;    /* jacobi: per particle its listed pairs within h (at ls[i], cn[i] of them) */
    size_t cap_cl, cap_cn;
    pfb_row_buffers cj;   /* jacobi: per thread, a row's pairs within h */
    double *pk;           /* jacobi: per particle a packed record, 8 doubles: x, y, z, P, v, P_near */
    size_t cap_pk;
    double per_L[3], per_I[3]; /* the periods and their inverses (0 on open axes) */
    int simd;             /* the highest lane level allowed (core/lanes.h) */
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
    springs_free(&s->sp);
    halflist_free(&s->L);
    pairtasks_free(&s->T);
    fulllist_free(&s->F);
    free(s->rbuf);
    free(s->pk);
    free(s->cl);
    free(s->cn);
    row_buffers_free(&s->cj);
    free(s);
}

/* The four sums over the neighbours of a lattice site (eq. 1's N(i): 0 < r < h) that
 * fix the rest state and the sound speed: rho = sum (1-q)^2 (eq. 1), rho_near =
 * sum (1-q)^3 (eq. 4), S1 = sum (1-q) r and S2 = sum (1-q)^2 r (r in spacings),
 * the virials of eq. 6's two kernels. */
typedef struct lattice_sums {
    double rho, rho_near, S1, S2;
} lattice_sums;

struct sum_term {
    double hs;
    int a, with_r;
};

static double sum_term_at(double r, void *ctx)
{
    const struct sum_term *t = ctx;
    double q = r / t->hs;
    if (r == 0.0 || q >= 1.0)
        return 0.0;
    double w = 1.0;
    for (int i = 0; i < t->a; i++)
        w *= 1.0 - q;
    return t->with_r ? w * r : w;
}

static lattice_sums lattice_sums_at(int dim, double hs)
{
    struct sum_term t[4] = {{hs, 2, 0}, {hs, 3, 0}, {hs, 1, 1}, {hs, 2, 1}};
    lattice_sums L;
    L.rho = lattice_sum(dim, hs, sum_term_at, &t[0]);
    L.rho_near = lattice_sum(dim, hs, sum_term_at, &t[1]);
    L.S1 = lattice_sum(dim, hs, sum_term_at, &t[2]);
    L.S2 = lattice_sum(dim, hs, sum_term_at, &t[3]);
    return L;
}

/* The virial of eq. 6 per particle of a uniform lattice, sum_j |D_ij| r_ij / dt^2
 * (in spacings): zero when the lattice is in equilibrium (no bulk pressure). */
static double lattice_virial(const lattice_sums *L, double rho0, double k, double k_near)
{
    return k * (L->rho - rho0) * L->S1 + k_near * L->rho_near * L->S2;
}

/* Bulk sound speed squared (m^2/s^2) of eqs. 2, 5, 6 about a uniform state in
 * equilibrium at spacing s: the pair accelerations a_ij = P (1-q) + P_near (1-q)^2
 * give the virial pressure p/m = n/(2 dim) sum_j a_ij r_ij; at zero virial,
 * c^2 = d(p/m)/dn = (k rho S1 + k_near rho_near S2) s / (2 dim), taking the sums
 * proportional to the number density n (the continuum limit); k in m/s^2. */
static double sound_speed2(const lattice_sums *L, int dim, double s, double k, double k_near)
{
    return (k * L->rho * L->S1 + k_near * L->rho_near * L->S2) * s / (2.0 * dim);
}

/* h in spacings at which the lattice is in equilibrium (zero virial); with k_near = 0
 * that is eq. 1's lattice density equal to rho0.  The virial is negative for h just
 * above one spacing (rho << rho0) and grows with h: bisect.  Returns 0 when no root
 * lies below 10 spacings. */
static double equilibrium_h(int dim, double rho0, double k, double k_near)
{
    double lo = 1.0, hi = 10.0;
    lattice_sums L = lattice_sums_at(dim, hi);
    if (!(lattice_virial(&L, rho0, k, k_near) > 0.0))
        return 0.0;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        L = lattice_sums_at(dim, mid);
        if (lattice_virial(&L, rho0, k, k_near) < 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static int clavet_create(const pfb_params *p, pfb_sim *sim, void **out, pfb_err *err)
{
    *out = NULL;
    const double c_si = params_get(p, "sound_speed_si");
    if (c_si > 0.0 && params_is_set(p, "sound_speed"))
        return pfb_err_set(err, PFB_EINVAL,
                           "clavet: sound_speed = %g and sound_speed_si = %g are both given; valid: one of them "
                           "(sound_speed in v_ref, sound_speed_si in m/s)",
                           params_get(p, "sound_speed"), c_si);
    if (c_si == 0.0 && params_get(p, "sound_speed") > 0.0 && !params_is_set(p, "sound_speed") &&
        (params_is_set(p, "k") || params_is_set(p, "k_near")))
        return pfb_err_set(err, PFB_EINVAL,
                           "clavet: k or k_near is given, but the default sound_speed = %g would rescale both "
                           "(only k_near / k would count); valid: also set sound_speed (0: k, k_near as given)",
                           params_get(p, "sound_speed"));
    clavet_state *s = calloc(1, sizeof *s);
    if (!s)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory creating the clavet solver");
    s->rho0 = params_get(p, "rho0");
    const double kp = params_get(p, "k"), knp = params_get(p, "k_near");
    double hf = params_get(p, "h_factor");
    if (hf == 0.0) {
        hf = equilibrium_h(sim->dim, s->rho0, kp, knp);
        if (hf == 0.0) {
            const double rho0 = s->rho0;
            clavet_destroy(s);
            return pfb_err_set(err, PFB_EINVAL,
                               "clavet: no h up to 10 spacings puts the lattice at rest with rho0 = %g, k = %g, "
                               "k_near = %g; valid: k > 0 and a smaller rho0, or h_factor > 0",
                               rho0, kp, knp);
        }
    }
    const double h = hf * sim->spacing;
    s->h = h;
    halflist_init(&s->L, sim, h, halflist_skin(sim, h, params_get(p, "list_skin"), params_is_set(p, "list_skin"))); /* the run's sorts on the list's grid */
    s->F = (pfb_fulllist)PFB_FULLLIST_EMPTY;
    s->simd = params_get_int(p, "simd");
    for (int k = 0; k < 3; k++) {
        s->per_L[k] = sim->period.L[k];
        s->per_I[k] = sim->period.inv[k];
    }
    double L0 = params_get(p, "length_unit");
    if (L0 == 0.0)
        L0 = h;
    s->k = kp * L0 / (T0 * T0);
    s->k_near = knp * L0 / (T0 * T0);
    const lattice_sums L = lattice_sums_at(sim->dim, hf);
    double c2 = sound_speed2(&L, sim->dim, sim->spacing, s->k, s->k_near);
    const double cfac = params_get(p, "sound_speed");
    if (c_si > 0.0 || cfac > 0.0) { /* scale both stiffnesses, their ratio kept, to c */
        double c_target = c_si > 0.0 ? c_si : cfac * sim->v_ref;
        if (!(c2 > 0.0) || !(c_target > 0.0)) {
            clavet_destroy(s);
            return pfb_err_set(err, PFB_EINVAL,
                               "clavet: sound_speed = %g needs k or k_near > 0 and a scene speed v_ref > 0 "
                               "(v_ref = %g m/s); valid: sound_speed = 0 or nonzero stiffness",
                               cfac, sim->v_ref);
        }
        s->k *= c_target * c_target / c2;
        s->k_near *= c_target * c_target / c2;
        c2 = c_target * c_target;
    }
    s->c = sqrt(c2);
    /* the paper's per-step Courant number c dt / h: its k, k_near with L0 = h at dt = T0 */
    s->c_paper = sqrt(sound_speed2(&L, sim->dim, sim->spacing, 0.004 * h / (T0 * T0), 0.01 * h / (T0 * T0)));
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
    s->closure = params_get_int(p, "body_momentum_closure");
    s->d_stick = params_get(p, "d_stick");
    s->jacobi = params_get_int(p, "relaxation") == 1;
    if (s->jacobi && sim_sheared(sim)) { /* its SIMD rows take the minimum image axis by axis */
        clavet_destroy(s);
        return pfb_err_set(err, PFB_EINVAL, "clavet: relaxation = jacobi does not take a sheared box (Lees-Edwards "
                           "faces sliding at %g m/s); valid: relaxation = sequential, or scene shear_rate = 0",
                           sim->period.le_U);
    }
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
    s->id_end = sim->p.next_id;
    *out = s;
    return PFB_OK;
}

/* id -> storage index of every particle (after each sort of the storage). */
static void index_ids(clavet_state *s, const pfb_particles *p)
{
    for (size_t i = 0; i < p->n; i++)
        s->index_of[p->id[i]] = i;
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
    index_ids(s, p);
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
        double *pk = dx && P && Pn ? aligned_alloc(64, 8 * p->n * sizeof *pk) : NULL;
        if (!pk)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu particles", p->n);
        free(s->pk);
        s->pk = pk;
        s->cap = p->n;
    }
    return PFB_OK;
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Particles added since the order was drawn (ids from id_end on) join it, in id
 * order, each at a uniformly random place (the inside-out shuffle: the particle
 * there moves to the end), so the order stays a random permutation of every id. */
static int extend_order(clavet_state *s, pfb_sim *sim, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    if (p->next_id <= s->id_end)
        return PFB_OK;
    size_t nnew = 0;
    for (size_t i = 0; i < p->n; i++)
        nnew += p->id[i] >= s->id_end;
    uint64_t *o = realloc(s->order, (s->norder + nnew + 1) * sizeof *o);
    if (!o)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for the relaxation order of %zu particles",
                           s->norder + nnew);
    s->order = o;
    uint64_t *fresh = o + s->norder; /* the new ids, sorted, then inserted one by one */
    size_t m = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->id[i] >= s->id_end)
            fresh[m++] = p->id[i];
    qsort(fresh, m, sizeof *fresh, by_id);
    for (size_t k = 0; k < m; k++) {
        const size_t at = s->norder + k, j = (size_t)rng_below(&sim->rng, at + 1);
        const uint64_t id = o[at];
        o[at] = o[j];
        o[j] = id;
    }
    s->norder += m;
    s->id_end = p->next_id;
    return PFB_OK;
}

/* d = x_j - x_i (the minimum image on periodic axes); returns its length. */
static inline double pair_dist(const pfb_period *pp, const pfb_particles *p, int dim, size_t i, size_t j, double d[3])
{
    double r2 = 0.0;
    d[0] = d[1] = d[2] = 0.0;
    if (pp->le) { /* a sheared box: x's image follows y's (core/periodic.h) */
        for (int k = 0; k < dim; k++)
            d[k] = p->x[k][j] - p->x[k][i];
        period_vec(pp, dim, d);
        for (int k = 0; k < dim; k++)
            r2 += d[k] * d[k];
        return sqrt(r2);
    }
    for (int k = 0; k < dim; k++) {
        d[k] = period_delta(pp, k, p->x[k][j] - p->x[k][i]);
        r2 += d[k] * d[k];
    }
    return sqrt(r2);
}

/* u = d / r, the unit vector of a pair at distance r (u = d = 0 when r = 0). */
static inline void pair_normalise(int dim, double r, double u[3])
{
    if (r > 0)
        for (int k = 0; k < dim; k++)
            u[k] /= r;
}

/* r_ij = x_j - x_i, its length and unit vector; returns the length. */
static inline double pair_vec(const pfb_period *pp, const pfb_particles *p, int dim, size_t i, size_t j, double u[3])
{
    double r = pair_dist(pp, p, dim, i, j, u);
    pair_normalise(dim, r, u);
    return r;
}

/* Algorithm 5: radial viscosity impulses between approaching pairs, sequential,
 * each pair i < j once: the half list's rows in storage order. */
static void apply_viscosity(const clavet_state *s, pfb_sim *sim, double dt)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim, per = sim_periodic(sim), dim3 = dim == 3;
    const double *const x0 = p->x[0], *const x1 = p->x[1], *const x2 = p->x[2];
    double *restrict v0 = p->v[0], *restrict v1 = p->v[1], *restrict v2 = p->v[2];
    const double h2 = s->h * s->h, ih = 1.0 / s->h;
    for (size_t i = 0; i < p->n; i++)
        for (size_t q = s->L.ls[i]; q < s->L.ls[i + 1]; q++) {
            const size_t j = s->L.lj[q];
            double d0 = x0[j] - x0[i], d1 = x1[j] - x1[i], d2 = dim3 ? x2[j] - x2[i] : 0.0; /* r_ij */
            double dvle = 0.0; /* a sheared box: i's image nearest j moves k U faster on x */
            if (per && sim->period.le) {
                double d[3] = {d0, d1, d2};
                dvle = period_le_dv(&sim->period, period_vec(&sim->period, dim, d));
                d0 = d[0];
                d1 = d[1];
                d2 = d[2];
            } else if (per) {
                d0 = period_delta(&sim->period, 0, d0);
                d1 = period_delta(&sim->period, 1, d1);
                d2 = period_delta(&sim->period, 2, d2);
            }
            const double r2 = d0 * d0 + d1 * d1 + d2 * d2;
            if (r2 >= h2 || r2 == 0)
                continue;
            /* the inward radial velocity w = (v_i - v_j) . u, u = r_ij / r */
            const double wr = (v0[i] + dvle - v0[j]) * d0 + (v1[i] - v1[j]) * d1 + (dim3 ? (v2[i] - v2[j]) * d2 : 0.0);
            if (wr <= 0)
                continue;
            const double r = sqrt(r2), ir = 1.0 / r, w = wr * ir;
            const double c = 0.5 * dt * (1.0 - r * ih) * (s->sigma * w + s->beta * w * w) * ir; /* I/2 per unit r_ij */
            v0[i] -= c * d0;
            v1[i] -= c * d1;
            v0[j] += c * d0;
            v1[j] += c * d1;
            if (dim3) {
                v2[i] -= c * d2;
                v2[j] += c * d2;
            }
        }
}

/* The jacobi passes over the half list's blocks (core/pairtasks.h orders the
 * stages; the rows in lanes, clavet_rows.inc): every pair once, its exchange
 * added to one particle and subtracted from the other, so each particle's sum
 * receives its terms in one order whatever the threads and the SIMD level. */
typedef struct {
    clavet_state *s;
    pfb_sim *sim;
    double dt;
    int level; /* the rows' lane level (core/lanes.h) */
} jacobi_ctx;

#define LANES_ROWS "../solvers/clavet_rows.inc"
#include "../core/lanes_levels.inc"
#undef LANES_ROWS
#define CL_LEVEL(c, fn, ...) LANES_AT((c)->level, fn, __VA_ARGS__)

/* Block b's records (positions and velocities; P and P_near 0 until
 * stage_pressures) and its sums zeroed: dx (the velocity changes or the
 * displacements) and, for the relaxation, rho and rho_near. */
static void pack_block(const jacobi_ctx *c, size_t b, int relax)
{
    const clavet_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const int dim3 = c->sim->dim == 3;
    const size_t lo = s->L.blk[b], hi = s->L.blk[b + 1];
    for (size_t i = lo; i < hi; i++) {
        double *r = s->pk + 8 * i;
        r[0] = p->x[0][i];
        r[1] = p->x[1][i];
        r[2] = dim3 ? p->x[2][i] : 0.0;
        r[3] = 0.0;
        r[4] = p->v[0][i];
        r[5] = p->v[1][i];
        r[6] = dim3 ? p->v[2][i] : 0.0;
        r[7] = 0.0;
    }
    memset(s->dx + 3 * lo, 0, 3 * (hi - lo) * sizeof(double));
    if (relax) {
        memset(p->field[s->f_rho].data + lo, 0, (hi - lo) * sizeof(double));
        memset(p->field[s->f_rho_near].data + lo, 0, (hi - lo) * sizeof(double));
    }
}

static void stage_pack_viscosity(void *ctx, size_t b)
{
    pack_block(ctx, b, 0);
}

static void stage_viscosity_rows(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    CL_LEVEL(c, viscosity_rows, c->s, c->s->L.blk[b], c->s->L.blk[b + 1], sim_periodic(c->sim), c->dt, c->s->dx);
}

static void stage_apply_dv(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    pfb_particles *p = &c->sim->p;
    for (size_t i = c->s->L.blk[b]; i < c->s->L.blk[b + 1]; i++)
        for (int k = 0; k < c->sim->dim; k++)
            p->v[k][i] += c->s->dx[3 * i + (size_t)k];
}

static const pfb_stage viscosity_stages[] = {
    {0, stage_pack_viscosity}, {1, stage_viscosity_rows}, {0, stage_apply_dv}};

/* The rows' lane level for a run of n particles (32-bit signed indices in V_INDEX). */
static int rows_level(const clavet_state *s, size_t n)
{
    return n <= INT32_MAX ? lanes_level(s->simd) : 0;
}

/* Algorithm 5 in jacobi form: the impulses from the same velocities. */
static int apply_viscosity_jacobi(clavet_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    jacobi_ctx c = {s, sim, dt, rows_level(s, sim->p.n)};
    return pairtasks_run(&s->T, &s->L, viscosity_stages, 3, &c,
                         pairtasks_threads(sim),
                         sim_parallel_pairs(sim, sim->p.n), err);
}

/* Algorithm 4 with eq. 8: add springs between neighbours closer than h (rest length
 * h), change every spring's rest length, remove springs whose rest length exceeds h. */
static int adjust_springs(clavet_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    pfb_particles *p = &sim->p;
    for (size_t i0 = 0; i0 < p->n; i0++)
        for (size_t q = s->L.ls[i0]; q < s->L.ls[i0 + 1]; q++) {
            const size_t j0 = s->L.lj[q];
            if (sqrt(period_dist2(&sim->period, sim->dim, (const double *const *)p->x, i0, j0)) / s->h >= 1.0)
                continue;
            /* the spring from the smaller id a to the larger b */
            const size_t i = p->id[i0] < p->id[j0] ? i0 : j0, j = i == i0 ? j0 : i0;
            uint64_t a = p->id[i], b = p->id[j];
            double L0 = s->h;
            if (s->spring_init_distance && s->steps == 0) { /* the initial shape, before the prediction */
                const double *xp = p->field[s->f_prev].data;
                pfb_period p0 = sim->period; /* (a sheared box's images where they were: at t) */
                period_le_at(&p0, sim->t);
                double d[3] = {0.0, 0.0, 0.0}, r2 = 0.0;
                for (int k = 0; k < sim->dim; k++)
                    d[k] = xp[3 * j + (size_t)k] - xp[3 * i + (size_t)k];
                period_vec(&p0, sim->dim, d);
                for (int k = 0; k < sim->dim; k++)
                    r2 += d[k] * d[k];
                L0 = sqrt(r2);
            }
            if (springs_find(&s->sp, a, b) < 0 && springs_add(&s->sp, a, b, L0))
                return pfb_err_set(err, PFB_ENOMEM, "out of memory adding springs");
        }
    for (size_t k = 0; k < s->sp.n; k++) {
        double u[3], L = s->sp.s[k].L;
        double r = pair_vec(&sim->period, p, sim->dim, s->index_of[s->sp.s[k].a], s->index_of[s->sp.s[k].b], u);
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
        double u[3], r = pair_vec(&sim->period, p, sim->dim, i, j, u), L = s->sp.s[k].L;
        double D = dt * dt * s->k_spring * (1.0 - L / s->h) * (L - r);
        for (int c = 0; c < sim->dim; c++) {
            p->x[c][i] -= 0.5 * D * u[c];
            p->x[c][j] += 0.5 * D * u[c];
        }
    }
}

/* The relaxation visits particles in a random order, so at 10^5-10^6 particles
 * nearly every particle's index, row and neighbours come from memory, not cache
 * (bench/README.md has the figures).  The order is known ahead, so the loads
 * are requested ahead, in stages: the storage index of the particle 2
 * RELAX_AHEAD places on, the row offsets and position of the one RELAX_AHEAD
 * on, the row of the one RELAX_AHEAD / 2 on, the neighbours' positions of the
 * one RELAX_AHEAD / 4 on.  Prefetches change no value: the run's bits are those
 * of the plain loop. */
#define RELAX_AHEAD 16
static void relax_prefetch(const clavet_state *s, const uint32_t *fs, const uint32_t *fj, const pfb_particles *p,
                           int dim, size_t o)
{
    const size_t n = s->norder;
    if (o + 2 * RELAX_AHEAD < n)
        __builtin_prefetch(&s->index_of[s->order[o + 2 * RELAX_AHEAD]]);
    if (o + RELAX_AHEAD < n) {
        const size_t i = s->index_of[s->order[o + RELAX_AHEAD]];
        __builtin_prefetch(&fs[i]);
        for (int k = 0; k < dim; k++)
            __builtin_prefetch(&p->x[k][i], 1);
    }
    if (o + RELAX_AHEAD / 2 < n) {
        const size_t i = s->index_of[s->order[o + RELAX_AHEAD / 2]];
        for (size_t q = fs[i]; q < fs[i + 1]; q += 16)
            __builtin_prefetch(&fj[q]);
    }
    if (o + RELAX_AHEAD / 4 < n) {
        const size_t i = s->index_of[s->order[o + RELAX_AHEAD / 4]];
        size_t line = (size_t)-1;
        for (size_t q = fs[i]; q < fs[i + 1]; q++) {
            const size_t j = fj[q];
            if (j / 8 == line)
                continue;
            line = j / 8;
            for (int k = 0; k < dim; k++)
                __builtin_prefetch(&p->x[k][j], 1);
        }
    }
}

/* The virial of the displacements a sweep applies (relax_sweep with vir): per
 * exchange, m d_k^2 c / dt^2 / 2 for each end that is marked, per axis k (the
 * pair virial's diagonal, solver.h; its trace is the sum). */
typedef struct relax_virial {
    const unsigned char *in;
    const double *m;
    double idt2, D[3], S; /* S: the shear term, the same sum of d_y d_x */
} relax_virial;

/* Algorithm 2: eqs. 1, 4 (densities), 2, 5 (pressures), 6 (displacements); neighbours
 * moved at once, i's own displacement applied at the end, i in the fixed random order,
 * over the full list's rows fs, fj (pairs beyond h skipped at their current
 * distance), nb room for the longest row.  The step stores the densities
 * (rho_f, rho_near_f); the pair virial (vir) passes NULL for them and sums the
 * virial of every exchange instead.  Inlined at both calls, so the step's copy
 * has no trace of the virial (its tests fold away). */
static inline __attribute__((always_inline)) void relax_sweep(const clavet_state *s, const pfb_period *period, pfb_particles *p, int dim,
                        const uint32_t *fs, const uint32_t *fj, relax_pair *restrict nb, double dt, double *rho_f,
                        double *rho_near_f, relax_virial *vir, int le)
{
    const int per = period_any(period, dim), dim3 = dim == 3;
    double *restrict x0 = p->x[0], *restrict x1 = p->x[1], *restrict x2 = p->x[2];
    const double h2 = s->h * s->h, ih = 1.0 / s->h, hdt2 = 0.5 * dt * dt;
    for (size_t o = 0; o < s->norder; o++) {
        relax_prefetch(s, fs, fj, p, dim, o);
        const size_t i = s->index_of[s->order[o]];
        const double a0 = x0[i], a1 = x1[i], a2 = dim3 ? x2[i] : 0.0;
        double rho = 0.0, rho_near = 0.0;
        size_t m = 0;
        /* the neighbours within h, with d = x_j - x_i and 1 - q: the second
         * pass moves each j once, after its d was taken, and x_i only at the
         * end, so the first pass's d serve it */
        for (size_t q = fs[i]; q < fs[i + 1]; q++) {
            const size_t j = fj[q];
            double d0 = x0[j] - a0, d1 = x1[j] - a1, d2 = dim3 ? x2[j] - a2 : 0.0;
            if (le) { /* a sheared box: x's image follows y's (le: a constant at each call) */
                double d[3] = {d0, d1, d2};
                period_vec(period, dim, d);
                d0 = d[0];
                d1 = d[1];
                d2 = d[2];
            } else if (per) {
                d0 = period_delta(period, 0, d0);
                d1 = period_delta(period, 1, d1);
                d2 = period_delta(period, 2, d2);
            }
            const double r2 = d0 * d0 + d1 * d1 + d2 * d2;
            if (r2 >= h2)
                continue;
            const double r = sqrt(r2), w = 1.0 - r * ih;
            rho += w * w;          /* eq. 1 */
            rho_near += w * w * w; /* eq. 4 */
            nb[m++] = (relax_pair){j, d0, d1, d2, w, r};
        }
        const double P = s->k * (rho - s->rho0); /* eq. 2 */
        const double Pn = s->k_near * rho_near;   /* eq. 5 */
        if (rho_f) {
            rho_f[i] = rho;
            rho_near_f[i] = rho_near;
        }
        double dx0 = 0.0, dx1 = 0.0, dx2 = 0.0;
        for (size_t b = 0; b < m; b++) { /* eq. 6: D/2 u to j, -D/2 u to i (u = d / r; none at r = 0) */
            const double w = nb[b].w, c = nb[b].r > 0 ? hdt2 * (P * w + Pn * w * w) / nb[b].r : 0.0;
            const size_t j = nb[b].j;
            x0[j] += c * nb[b].d0;
            x1[j] += c * nb[b].d1;
            dx0 -= c * nb[b].d0;
            dx1 -= c * nb[b].d1;
            if (dim3) {
                x2[j] += c * nb[b].d2;
                dx2 -= c * nb[b].d2;
            }
            if (vir) {
                const double e = 0.5 * c * vir->idt2 * ((vir->in[i] ? vir->m[i] : 0.0) + (vir->in[j] ? vir->m[j] : 0.0));
                vir->D[0] += e * nb[b].d0 * nb[b].d0;
                vir->D[1] += e * nb[b].d1 * nb[b].d1;
                vir->D[2] += e * nb[b].d2 * nb[b].d2; /* (0 in 2D) */
                vir->S += e * nb[b].d1 * nb[b].d0;
            }
        }
        x0[i] += dx0;
        x1[i] += dx1;
        if (dim3)
            x2[i] += dx2;
    }
}

static void double_density_relaxation(const clavet_state *s, pfb_sim *sim, double dt)
{
    pfb_particles *p = &sim->p;
    if (sim->period.le) /* two copies: the open and periodic one as without a sheared box */
        relax_sweep(s, &sim->period, p, sim->dim, s->F.fs, s->F.fj, s->rbuf, dt, p->field[s->f_rho].data,
                    p->field[s->f_rho_near].data, NULL, 1);
    else
        relax_sweep(s, &sim->period, p, sim->dim, s->F.fs, s->F.fj, s->rbuf, dt, p->field[s->f_rho].data,
                    p->field[s->f_rho_near].data, NULL, 0);
}

/* Jacobi variant: pressures from the same positions, each pair's exchange
 * D_ij/2 + D_ji/2 (both particles' pressures) added to one particle and
 * subtracted from the other: the records packed and the sums zeroed, the
 * density rows (eqs. 1, 4), the pressures (eqs. 2, 5), the displacement rows
 * (eq. 6), the displacements applied. */
static void stage_pack_relaxation(void *ctx, size_t b)
{
    pack_block(ctx, b, 1);
}

static void stage_density_rows(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    const pfb_particles *p = &c->sim->p;
    CL_LEVEL(c, density_rows, c->s, c->s->L.blk[b], c->s->L.blk[b + 1], sim_periodic(c->sim),
             p->field[c->s->f_rho].data, p->field[c->s->f_rho_near].data);
}

static void stage_pressures(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    clavet_state *s = c->s;
    const pfb_particles *p = &c->sim->p;
    const double *rho = p->field[s->f_rho].data, *rho_near = p->field[s->f_rho_near].data;
    for (size_t i = s->L.blk[b]; i < s->L.blk[b + 1]; i++) {
        s->P[i] = s->k * (rho[i] - s->rho0); /* eq. 2 */
        s->Pn[i] = s->k_near * rho_near[i];  /* eq. 5 */
        s->pk[8 * i + 3] = s->P[i];
        s->pk[8 * i + 7] = s->Pn[i];
    }
}

static void stage_displacement_rows(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    CL_LEVEL(c, displacement_rows, c->s, c->s->L.blk[b], c->s->L.blk[b + 1], sim_periodic(c->sim), c->dt, c->s->dx);
}

static void stage_apply_dx(void *ctx, size_t b)
{
    const jacobi_ctx *c = ctx;
    pfb_particles *p = &c->sim->p;
    for (size_t i = c->s->L.blk[b]; i < c->s->L.blk[b + 1]; i++)
        for (int k = 0; k < c->sim->dim; k++)
            p->x[k][i] += c->s->dx[3 * i + (size_t)k];
}

static const pfb_stage relaxation_stages[] = {{0, stage_pack_relaxation},
                                              {1, stage_density_rows},
                                              {0, stage_pressures},
                                              {1, stage_displacement_rows},
                                              {0, stage_apply_dx}};

static int double_density_relaxation_jacobi(clavet_state *s, pfb_sim *sim, double dt, pfb_err *err)
{
    jacobi_ctx c = {s, sim, dt, rows_level(s, sim->p.n)};
    return pairtasks_run(&s->T, &s->L, relaxation_stages, 5, &c,
                         pairtasks_threads(sim),
                         sim_parallel_pairs(sim, sim->p.n), err);
}

/* The half list valid for the current positions (core/halflist.h; a rebuild
 * sorts the storage, so the ids' indices are renewed), and for the sequential
 * relaxation its full form: row i holds every listed j, those below i (the
 * half rows that hold i, in order) then those above (i's half row), so each
 * row ascends.  Made again only after a rebuild. */
static int ensure_list(clavet_state *s, pfb_sim *sim, int full, pfb_err *err)
{
    int built;
    int rc = halflist_ensure(&s->L, sim, -1.0, 0, &built, err);
    if (rc)
        return rc;
    if (built)
        index_ids(s, &sim->p);
    if (s->jacobi) { /* the rows' buffers (V_COMPACT4 writes up to 4 past, V_ROW_QUAD reads 3 past) */
        const size_t n = sim->p.n, pairs = s->L.ls[n];
        if (pairs + 4 > s->cap_cl) {
            free(s->cl);
            s->cap_cl = pairs + pairs / 4 + 4;
            if (!(s->cl = malloc(s->cap_cl * sizeof *s->cl))) {
                s->cap_cl = 0;
                return pfb_err_set(err, PFB_ENOMEM, "clavet: out of memory for %zu pairs", pairs);
            }
        }
        if (n > s->cap_cn) {
            uint32_t *cn = realloc(s->cn, n * sizeof *cn);
            if (!cn)
                return pfb_err_set(err, PFB_ENOMEM, "clavet: out of memory for %zu particles", n);
            s->cn = cn;
            s->cap_cn = n;
        }
        rc = row_buffers_ensure(&s->cj, s->L.maxrow, pairtasks_threads(sim), err);
        if (rc)
            return rc;
    }
    if (!full || s->F.builds == s->L.builds)
        return PFB_OK;
    rc = halflist_full(&s->L, sim->p.n, &s->F, err);
    if (rc)
        return rc;
    const size_t longest = s->F.longest;
    if (longest > s->cap_rbuf) {
        free(s->rbuf);
        s->cap_rbuf = longest + longest / 4 + 8;
        if (!(s->rbuf = malloc(s->cap_rbuf * sizeof *s->rbuf))) {
            s->cap_rbuf = 0;
            return pfb_err_set(err, PFB_ENOMEM, "clavet: out of memory for a row of %zu pairs", longest);
        }
    }
    return PFB_OK;
}

/* Eqs. 9-12 for particle i at x, x_prev, at distance d from the collision surface
 * of a wall or body with unit normal n (out of the solid) and surface velocity vs:
 * the velocity impulse I (the particle's velocity changes by -I).  Returns 0 when
 * the particle is neither inside nor in the attraction range. */
static int collision_impulse(const clavet_state *s, int dim, const double x[3], const double *xprev, double d,
                             const double n[3], const double vs[3], double dt, double I[3])
{
    int stick = s->k_stick > 0 && d < s->d_stick && d > 0;
    if (d >= 0 && !stick)
        return 0;
    double vb[3] = {0, 0, 0}, vn = 0.0;
    for (int k = 0; k < dim; k++) {
        vb[k] = (x[k] - xprev[k]) / dt - vs[k]; /* relative velocity */
        vn += vb[k] * n[k];
    }
    I[0] = I[1] = I[2] = 0.0;
    if (d < 0)
        for (int k = 0; k < dim; k++) {
            double vnorm = vn < 0 ? vn * n[k] : 0.0; /* eq. 9, only into the solid */
            double vtan = vb[k] - vn * n[k];          /* eq. 10 */
            I[k] = vnorm + s->mu * vtan;              /* eq. 11, sign corrected (header) */
        }
    if (stick) /* eq. 12: attraction towards the surface, maximal at d_stick / 2 */
        for (int k = 0; k < dim; k++)
            I[k] += dt * s->k_stick * d * (1.0 - d / s->d_stick) * n[k];
    return 1;
}

/* §6.1 eqs. 9-11 and §6.2 eq. 12 against the shared boundaries, then extraction. */
static void resolve_collisions(const clavet_state *s, pfb_sim *sim, double dt, double t)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double *xp = p->field[s->f_prev].data;
    /* the shapes' centres, for shape_clear: a particle surely at phi >= R (and
     * beyond the stickiness range, when on) of a shape gets nothing from it,
     * exactly as collision_impulse would decide */
    pfb_wall_step ws;
    sim_wall_step(sim, t, s->R + (s->k_stick > 0 ? s->d_stick : 0.0), 0.0, 0.0, &ws);
    const long np = (long)p->n;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
    for (long i = 0; i < np; i++)
        for (size_t b = 0; b < sim->walls.n; b++) {
            const pfb_shape *sh = &sim->walls.s[b];
            if (shape_clear(sh, dim, ws.c[b], p->x[0][i], p->x[1][i], p->x[2][i], ws.margin))
                continue;
            double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, n[3], vw[3], I[3];
            double d = shape_sdf(sh, dim, t, x, n) - s->R; /* distance to the collision surface */
            shape_velocity(sh, t, vw);
            if (!collision_impulse(s, dim, x, xp + 3 * i, d, n, vw, dt, I))
                continue;
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

/* Eqs. 9-12 of particle i against body b (see collision_impulse). */
static int body_impulse(const clavet_state *s, const pfb_sim *sim, const pfb_body *b, size_t i, double dt,
                        double I[3])
{
    const pfb_particles *p = &sim->p;
    double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, n[3], vp[3];
    double d = body_sdf(b, sim->dim, x, n) - s->R; /* distance to the collision surface */
    body_velocity_at(b, sim->dim, x, vp);
    return collision_impulse(s, sim->dim, x, p->field[s->f_prev].data + 3 * i, d, n, vp, dt, I);
}

/* Algorithm 6: particle-body interactions, for the bodies in sim->bodies (gravity
 * acts on the bodies here: the rigid-body simulator's step).  t is the end of
 * the step.  Particle masses turn eq. 11's velocity impulses into momentum. */
static void body_interactions(const clavet_state *s, pfb_sim *sim, double dt, double t)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    pfb_bodies *bs = &sim->bodies;
    pfb_body saved[PFB_MAX_BODIES];
    for (size_t b = 0; b < bs->n; b++) { /* lines 1-7 */
        pfb_body *B = &bs->b[b];
        for (int k = 0; k < dim; k++)
            B->v[k] += dt * sim->g[k];
        saved[b] = *B; /* line 2 */
        body_advance(B, dim, dt); /* line 3 */
        memset(B->imp, 0, sizeof B->imp); /* line 4 */
        memset(B->aimp, 0, sizeof B->aimp);
        for (size_t i = 0; i < p->n; i++) { /* lines 5-7 */
            double I[3];
            if (!body_impulse(s, sim, B, i, dt, I))
                continue;
            double r[3] = {0, 0, 0}, J[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) {
                r[k] = p->x[k][i] - B->x[k];
                J[k] = p->m[i] * I[k];
                B->imp[k] += J[k];
            }
            B->aimp[0] += r[1] * J[2] - r[2] * J[1];
            B->aimp[1] += r[2] * J[0] - r[0] * J[2];
            B->aimp[2] += r[0] * J[1] - r[1] * J[0];
        }
    }
    for (size_t b = 0; b < bs->n; b++) { /* lines 8-10 */
        pfb_body *B = &bs->b[b];
        double Iinv[9];
        body_inv_inertia(B, dim, Iinv);
        double V[3], W[3];
        for (int k = 0; k < 3; k++) {
            V[k] = B->v[k] + (k < dim ? B->imp[k] / B->mass : 0.0);
            W[k] = B->w[k] + Iinv[3 * k] * B->aimp[0] + Iinv[3 * k + 1] * B->aimp[1] + Iinv[3 * k + 2] * B->aimp[2];
        }
        double imp[3], aimp[3];
        memcpy(imp, B->imp, sizeof imp);
        memcpy(aimp, B->aimp, sizeof aimp);
        *B = saved[b];
        memcpy(B->v, V, sizeof V);
        memcpy(B->w, W, sizeof W);
        if (dim == 2)
            B->w[0] = B->w[1] = 0.0;
        memcpy(B->imp, imp, sizeof imp);
        memcpy(B->aimp, aimp, sizeof aimp);
        body_advance(B, dim, dt);
    }
    bodies_contact(bs, dim, &sim->walls, t); /* line 11: body-wall and body-body */
    for (size_t b = 0; b < bs->n; b++) { /* lines 12-15, bodies of infinite inertia */
        pfb_body *B = &bs->b[b];
        double J[3] = {0, 0, 0}, L[3] = {0, 0, 0}; /* momentum and angular momentum taken from the particles */
        for (size_t i = 0; i < p->n; i++) {
            double I[3];
            if (!body_impulse(s, sim, B, i, dt, I))
                continue;
            double x0[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
            for (int k = 0; k < dim; k++)
                p->x[k][i] -= I[k] * dt;
            double x2[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, n[3];
            double phi = body_sdf(B, dim, x2, n);
            if (phi < s->R) /* line 15: extract */
                for (int k = 0; k < dim; k++)
                    p->x[k][i] += (s->R - phi) * n[k];
            double dp[3] = {0, 0, 0}, r[3] = {0, 0, 0};
            for (int k = 0; k < dim; k++) {
                dp[k] = -p->m[i] * (p->x[k][i] - x0[k]) / dt; /* minus the particle's momentum change */
                r[k] = x0[k] - B->x[k];
                J[k] += dp[k];
            }
            L[0] += r[1] * dp[2] - r[2] * dp[1];
            L[1] += r[2] * dp[0] - r[0] * dp[2];
            L[2] += r[0] * dp[1] - r[1] * dp[0];
        }
        if (s->closure) { /* the bodies get exactly what the particles lost: J minus lines 5-7's share */
            double dJ[3] = {0, 0, 0}, dL[3], Iinv[9];
            for (int k = 0; k < dim; k++) {
                dJ[k] = J[k] - B->imp[k];
                B->v[k] += dJ[k] / B->mass;
            }
            for (int k = 0; k < 3; k++)
                dL[k] = L[k] - B->aimp[k];
            body_inv_inertia(B, dim, Iinv);
            for (int a = 0; a < 3; a++)
                B->w[a] += Iinv[3 * a] * dL[0] + Iinv[3 * a + 1] * dL[1] + Iinv[3 * a + 2] * dL[2];
            if (dim == 2)
                B->w[0] = B->w[1] = 0.0;
        }
    }
}

/* Algorithm 1. */
static int clavet_step(void *state, pfb_sim *sim, double dt, pfb_err *err)
{
    clavet_state *s = state;
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    int rc = ensure_workspace(s, p, err);
    if (!rc)
        rc = extend_order(s, sim, err);
    if (rc)
        return rc;
    const long n = (long)p->n;
    for (int k = 0; k < dim; k++) { /* lines 1-3: gravity */
        double *vk = p->v[k];
        const double dv = dt * sim->g[k];
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
        for (long i = 0; i < n; i++)
            vk[i] += dv;
    }
    rc = ensure_list(s, sim, 0, err);
    if (rc)
        return rc;
    if (s->jacobi) /* lines 4-5 */
        rc = apply_viscosity_jacobi(s, sim, dt, err);
    else
        apply_viscosity(s, sim, dt);
    if (rc)
        return rc;
    double *xp = p->field[s->f_prev].data;
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
    for (long i = 0; i < n; i++) /* lines 6-10: save and predict */
        for (int k = 0; k < 3; k++) {
            xp[3 * i + k] = p->x[k][i];
            if (k < dim)
                p->x[k][i] += dt * p->v[k][i];
        }
    sim_positions_changed(sim);
    const long builds = s->L.builds;
    period_le_at(&sim->period, sim->t + dt); /* a sheared box's images where the predicted positions are */
    rc = ensure_list(s, sim, !s->jacobi, err); /* neighbours at the predicted positions */
    if (rc)
        return rc;
    xp = p->field[s->f_prev].data; /* (a rebuild's sort moved the fields) */
    if (s->L.builds != builds && sim_sheared(sim)) {
        /* the sort wrapped x into the box as the image it has become (x - k s,
         * v_x - k U): xp follows as that image was at t, k s(t) = k (s - U dt),
         * so that line 19's v = (x - xp) / dt is the image's velocity */
        for (size_t i = 0; i < p->n; i++) {
            double d[3] = {0.0, 0.0, 0.0};
            for (int k = 0; k < dim; k++)
                d[k] = p->x[k][i] - xp[3 * i + (size_t)k];
            const double kk = period_vec(&sim->period, dim, d);
            for (int k = 0; k < dim; k++)
                xp[3 * i + (size_t)k] = p->x[k][i] - d[k];
            xp[3 * i] -= kk * sim->period.le_U * dt;
        }
    } else if (s->L.builds != builds && sim_periodic(sim)) { /* the sort wrapped x into the box: xp follows */
        for (size_t i = 0; i < p->n; i++)
            for (int k = 0; k < dim; k++)
                xp[3 * i + (size_t)k] = p->x[k][i] - period_delta(&sim->period, k, p->x[k][i] - xp[3 * i + (size_t)k]);
    }
    if (s->springs) { /* lines 11-15 */
        rc = adjust_springs(s, sim, dt, err);
        if (rc)
            return rc;
        apply_spring_displacements(s, sim, dt);
    }
    if (s->jacobi) /* line 16 */
        rc = double_density_relaxation_jacobi(s, sim, dt, err);
    else
        double_density_relaxation(s, sim, dt);
    if (rc)
        return rc;
    resolve_collisions(s, sim, dt, sim->t + dt); /* line 17 */
    if (sim->bodies.n)
        body_interactions(s, sim, dt, sim->t + dt);
#pragma omp parallel for schedule(static) num_threads(sim_threads(sim)) if (sim_parallel(sim, p->n))
    for (long i = 0; i < n; i++) /* lines 18-20 */
        for (int k = 0; k < dim; k++)
            p->v[k][i] = (p->x[k][i] - xp[3 * i + k]) / dt;
    sim_positions_changed(sim);
    s->steps++;
    s->last_dt = dt;
    return PFB_OK;
}

/* The paper's frame, 1/30 s, reduced (a) so that dt^2 k stays at the paper's
 * typical value when k is raised (dt = T0 sqrt(k_paper / k)), and (b) so that a
 * particle at the scene's speed v_ref moves at most h/2 per step. */
static double clavet_suggest_dt(const void *state, const pfb_sim *sim)
{
    const clavet_state *s = state;
    double dt = T0;
    if (s->c > s->c_paper)
        dt *= s->c_paper / s->c;
    if (sim->v_ref > 0)
        dt = fmin(dt, 0.5 * s->h / sim->v_ref);
    return dt;
}

/* The id -> storage index map for the springs' ends outside a step.  The run
 * sorts the storage between the last step and a frame's diagnostics, so
 * s->index_of (renewed in each step) may be stale there: then a map of the
 * current storage is made into *tmp (freed by the caller); NULL if that fails. */
static const size_t *current_index(const clavet_state *s, const pfb_particles *p, size_t **tmp)
{
    *tmp = NULL;
    int stale = p->next_id > s->nindex;
    for (size_t i = 0; i < p->n && !stale; i++)
        stale = s->index_of[p->id[i]] != i;
    if (!stale)
        return s->index_of;
    if (!(*tmp = malloc((p->next_id ? p->next_id : 1) * sizeof **tmp)))
        return NULL;
    for (size_t i = 0; i < p->n; i++)
        (*tmp)[p->id[i]] = i;
    return *tmp;
}

/* spring_virial_xy: the springs' part of the shear term diag[3] of pair_virial
 * (clavet_shear_extra's first sum) over every particle, in N m: the stress the
 * springs carry, -spring_virial_xy / V in a box of volume V, which the
 * rheometer measures apart from the fluid's (experiments/rheology.c). */
static const char *const clavet_diag_names[] = {"h", "c", "springs", "spring_rest_mean", "list_builds",
                                                "spring_virial_xy", NULL};

static void clavet_diag(const void *state, const pfb_sim *sim, double *values)
{
    const clavet_state *s = state;
    const pfb_particles *p = &sim->p;
    size_t *tmp;
    const size_t *ix = s->sp.n ? current_index(s, p, &tmp) : (tmp = NULL, s->index_of);
    double L = 0.0, W = ix ? 0.0 : NAN;
    for (size_t k = 0; ix && k < s->sp.n; k++) {
        const size_t i = ix[s->sp.s[k].a], j = ix[s->sp.s[k].b];
        double u[3];
        const double Lk = s->sp.s[k].L, r = pair_vec(&sim->period, p, sim->dim, i, j, u);
        L += Lk;
        W += (p->m[i] + p->m[j]) * s->k_spring * (1.0 - Lk / s->h) * (Lk - r) * r * u[0] * u[1] / 4.0;
    }
    values[0] = s->h;
    values[1] = s->c;
    values[2] = (double)s->sp.n;
    values[3] = s->sp.n ? L / (double)s->sp.n : NAN;
    values[4] = (double)s->L.builds;
    values[5] = W;
    free(tmp);
}

/* The shear term (solver.h, diag[3]) of the springs' displacements (Algorithm
 * 3) and the viscosity impulses (Algorithm 5) at the current state, as forces:
 * a displacement e of particle i per step is the force m_i e / dt^2, an
 * impulse the force m_i I / dt.  A spring (i, j) at distance r along u moves j
 * by D/2 u and i by -D/2 u, D = dt^2 k_spring (1 - L/h) (L - r): each marked
 * end adds m D r u_x u_y / (4 dt^2); an approaching pair's impulse c d (v_i -=
 * c d, v_j += c d, d = x_j - x_i) adds m c d_x d_y / (2 dt).  Over a fresh
 * list, each pair once. */
static double clavet_shear_extra(const clavet_state *s, const pfb_sim *sim, const unsigned char *in, double dt)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    double S = 0.0;
    if (!(dt > 0))
        return NAN;
    if (s->springs && s->sp.n) {
        size_t *tmp;
        const size_t *ix = current_index(s, p, &tmp);
        if (!ix)
            return NAN;
        for (size_t k = 0; k < s->sp.n; k++) {
            const size_t i = ix[s->sp.s[k].a], j = ix[s->sp.s[k].b];
            double u[3];
            const double r = pair_vec(&sim->period, p, dim, i, j, u), L = s->sp.s[k].L;
            const double D = dt * dt * s->k_spring * (1.0 - L / s->h) * (L - r);
            S += ((in[i] ? p->m[i] : 0.0) + (in[j] ? p->m[j] : 0.0)) * D * r * u[0] * u[1] / (4.0 * dt * dt);
        }
        free(tmp);
    }
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    if (sim_neighbours_fresh(sim, s->h, &nl, &err)) {
        nlist_free(&nl);
        return NAN;
    }
    for (size_t i = 0; i < p->n; i++)
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            if (j <= i || !(in[i] || in[j]))
                continue;
            double d[3] = {0.0, 0.0, 0.0};
            for (int k = 0; k < dim; k++)
                d[k] = p->x[k][j] - p->x[k][i];
            const double kk = period_vec(&sim->period, dim, d);
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (!(r2 < s->h * s->h) || r2 == 0)
                continue;
            double wr = (p->v[0][i] + period_le_dv(&sim->period, kk) - p->v[0][j]) * d[0];
            for (int k = 1; k < dim; k++)
                wr += (p->v[k][i] - p->v[k][j]) * d[k];
            if (wr <= 0)
                continue;
            const double r = sqrt(r2), w = wr / r;
            const double c = 0.5 * dt * (1.0 - r / s->h) * (s->sigma * w + s->beta * w * w) / r;
            S += ((in[i] ? p->m[i] : 0.0) + (in[j] ? p->m[j] : 0.0)) * c * d[0] * d[1] / (2.0 * dt);
        }
    nlist_free(&nl);
    return S;
}

/* The pair virial (solver.h) of the double density relaxation.  Sequential
 * relaxation (the default), after a step: the virial of the displacements the
 * next step's sweep applies, the sweep run in its order on a copy of the
 * positions predicted as that step predicts them, x + dt (v + g dt) (lines 1-10;
 * the viscosity impulses of lines 4-5, which act only between approaching
 * particles, are left out), each exchange's m c d / dt^2 counted at each
 * marked end (relax_sweep's vir).  Gauss-Seidel sweeps move the pairs by the
 * same laws as the Jacobi reading below but not by the same amounts: in the
 * settled 2D pool (D/dx 25) the sweep's displacements lift the particles of a
 * slab by 9.9 m/s^2 on average (the weight), while the Jacobi reading at the
 * same positions gives about 4.
 * Jacobi relaxation, and before the first step: the pair's displacements,
 * (D_i + D_j) / 2 each way with D = dt^2 (P (1 - q) + P_near (1 - q)^2) (eq. 6,
 * from each end's eqs. 1-5) at the current positions, change the velocity (x -
 * x_prev) / dt by (D_i + D_j) / (2 dt), a force f = m_i ((P_i + P_j)(1 - q) +
 * (P_near,i + P_near,j)(1 - q)^2) / 2 along r_ij (what the Jacobi relaxation
 * applies).  Springs are not counted. */
static double sweep_virial(const clavet_state *s, const pfb_sim *sim, const unsigned char *in, double diag[4])
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const size_t n = p->n;
    const double dt = s->last_dt;
    pfb_particles c = *p; /* the copy: its positions, the rest shared and untouched */
    double *xs = malloc(3 * (n + 1) * sizeof *xs);
    uint32_t *fs = malloc((n + 1) * sizeof *fs);
    relax_pair *nb = NULL;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    double W = NAN, move2 = 0.0;
    if (!xs || !fs)
        goto out;
    for (int k = 0; k < 3; k++)
        c.x[k] = xs + (size_t)k * n;
    for (size_t i = 0; i < n; i++) {
        double d2 = 0.0;
        for (int k = 0; k < 3; k++) {
            const double mv = k < dim ? dt * (p->v[k][i] + dt * sim->g[k]) : 0.0;
            c.x[k][i] = p->x[k][i] + mv;
            d2 += mv * mv;
        }
        move2 = fmax(move2, d2);
    }
    /* every pair within h at the predicted positions is within h + 2 max move now */
    if (sim_neighbours_fresh(sim, s->h + 2.0 * sqrt(move2) * (1.0 + 1e-9), &nl, &err) || nl.start[n] > UINT32_MAX)
        goto out;
    size_t longest = 0;
    for (size_t i = 0; i <= n; i++) {
        fs[i] = (uint32_t)nl.start[i];
        if (i < n)
            longest = longest > nl.start[i + 1] - nl.start[i] ? longest : nl.start[i + 1] - nl.start[i];
    }
    if (!(nb = malloc((longest + 1) * sizeof *nb)))
        goto out;
    relax_virial vir = {in, p->m, 1.0 / (dt * dt), {0.0, 0.0, 0.0}, 0.0};
    relax_sweep(s, &sim->period, &c, dim, fs, nl.idx, nb, dt, NULL, NULL, &vir, sim->period.le);
    W = vir.D[0] + vir.D[1] + vir.D[2];
    if (diag) {
        memcpy(diag, vir.D, sizeof vir.D);
        diag[3] = vir.S + clavet_shear_extra(s, sim, in, dt);
    }
out:
    free(xs);
    free(fs);
    free(nb);
    nlist_free(&nl);
    return W;
}

static double clavet_pair_virial(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[4])
{
    const clavet_state *s = state;
    if (!s->jacobi && s->last_dt > 0.0 && s->norder == sim->p.n)
        return sweep_virial(s, sim, in, diag);
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    pfb_err err;
    double *P = malloc(2 * (p->n + 1) * sizeof *P);
    if (!P || sim_neighbours_fresh(sim, s->h, &nl, &err)) {
        free(P);
        nlist_free(&nl);
        return NAN;
    }
    double *Pn = P + p->n + 1;
    for (size_t i = 0; i < p->n; i++) {
        double rho = 0.0, rho_near = 0.0;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            double d[3], qq = pair_dist(&sim->period, p, dim, i, nl.idx[q], d) / s->h;
            if (qq < 1.0) {
                rho += (1.0 - qq) * (1.0 - qq);                   /* eq. 1 */
                rho_near += (1.0 - qq) * (1.0 - qq) * (1.0 - qq); /* eq. 4 */
            }
        }
        P[i] = s->k * (rho - s->rho0); /* eq. 2 */
        Pn[i] = s->k_near * rho_near;   /* eq. 5 */
    }
    double W = 0.0, D[3] = {0.0, 0.0, 0.0}, S = 0.0;
    for (size_t i = 0; i < p->n; i++) {
        if (!in[i])
            continue;
        for (size_t q = nl.start[i]; q < nl.start[i + 1]; q++) {
            const size_t j = nl.idx[q];
            double d[3];
            const double r = pair_dist(&sim->period, p, dim, i, j, d), w = 1.0 - r / s->h;
            if (w <= 0.0 || !(r > 0.0))
                continue;
            const double g = (P[i] + P[j]) * w + (Pn[i] + Pn[j]) * w * w; /* f_ij = m_i g / 2 along e_ij */
            W += 0.5 * r * 0.5 * p->m[i] * g;
            for (int k = 0; k < dim; k++)
                D[k] += 0.5 * (d[k] * d[k] / r) * 0.5 * p->m[i] * g;
            S += 0.5 * (d[0] * d[1] / r) * 0.5 * p->m[i] * g;
        }
    }
    free(P);
    nlist_free(&nl);
    if (diag) {
        memcpy(diag, D, sizeof D);
        diag[3] = S + clavet_shear_extra(s, sim, in, s->last_dt);
    }
    return W;
}

/* Checkpoints: the counters, the relaxation order, the springs (in their
 * order: the table is made again by adding them), and the list's builds. */
static int clavet_save(const void *state, const pfb_sim *sim, pfb_ckpt_w *w, pfb_err *err)
{
    (void)err;
    const clavet_state *s = state;
    ckpt_put_many(w, "CLAV", &s->last_dt, sizeof s->last_dt, &s->steps, sizeof s->steps, &s->id_end, sizeof s->id_end,
                  &s->spring_init_distance, sizeof s->spring_init_distance, (void *)NULL);
    ckpt_put(w, "CLOR", s->order, s->norder * sizeof *s->order);
    ckpt_put(w, "CLSP", s->sp.s, s->sp.n * sizeof *s->sp.s);
    halflist_save(&s->L, sim, w);
    return PFB_OK;
}

static int clavet_load(void *state, pfb_sim *sim, pfb_ckpt_r *r, pfb_err *err)
{
    clavet_state *s = state;
    char buf[sizeof s->last_dt + sizeof s->steps + sizeof s->id_end + sizeof s->spring_init_distance];
    int rc = ckpt_get_exact(r, "CLAV", buf, sizeof buf, err);
    if (rc)
        return rc;
    const char *b = buf;
    memcpy(&s->last_dt, b, sizeof s->last_dt);
    b += sizeof s->last_dt;
    memcpy(&s->steps, b, sizeof s->steps);
    b += sizeof s->steps;
    memcpy(&s->id_end, b, sizeof s->id_end);
    b += sizeof s->id_end;
    memcpy(&s->spring_init_distance, b, sizeof s->spring_init_distance);
    const void *q;
    size_t n;
    rc = ckpt_get(r, "CLOR", &q, &n, err);
    if (rc)
        return rc;
    uint64_t *o = realloc(s->order, n + sizeof *o);
    if (!o)
        return pfb_err_set(err, PFB_ENOMEM, "clavet: out of memory restoring its order");
    s->order = o;
    s->norder = n / sizeof *o;
    memcpy(s->order, q, n);
    rc = ckpt_get(r, "CLSP", &q, &n, err);
    if (rc)
        return rc;
    springs_free(&s->sp);
    for (size_t k = 0; k < n / sizeof(spring); k++) {
        spring sp; /* (the section's bytes need not be aligned) */
        memcpy(&sp, (const char *)q + k * sizeof sp, sizeof sp);
        if (springs_add(&s->sp, sp.a, sp.b, sp.L))
            return pfb_err_set(err, PFB_ENOMEM, "clavet: out of memory restoring its springs");
    }
    int rebuilt;
    return halflist_load(&s->L, sim, r, &rebuilt, err);
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
    NULL,
    NULL,
    NULL,
    NULL,
    clavet_pair_virial,
    clavet_save,
    clavet_load,
    {700.0, 950.0},
    PFB_STRESS_NONE};

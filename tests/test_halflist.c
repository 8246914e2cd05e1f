/* test_halflist.c — the framework's pair engine (issue 33): the half list with a
 * skin (core/halflist.h) against brute force, across reuse and rebuilds and in
 * periodic boxes, the blocked schedule (core/pairtasks.h): the same bits for
 * any thread count, and the operator over the pairs (core/pairop.h) against
 * its definition. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/halflist.h"
#include "../core/lanes.h"
#include "../core/pairop.h"
#include "../core/pairtasks.h"
#include "../core/rng.h"
#include "../core/sim.h"

/* n random particles in [0, L)^dim (open box [-1, L + 1] unless periodic, then
 * every axis periodic over [0, L)). */
static void make_cloud(pfb_sim *sim, int dim, size_t n, double L, int periodic, uint64_t seed)
{
    pfb_err err;
    ck_assert(sim_init(sim, dim, 1, &err) == 0);
    sim->spacing = L / pow((double)n, 1.0 / dim);
    for (int k = 0; k < 3; k++) {
        sim->domain_lo[k] = periodic ? 0.0 : -1.0;
        sim->domain_hi[k] = periodic ? L : L + 1.0;
    }
    pfb_rng r;
    rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double x[3] = {0, 0, 0}, v[3] = {0, 0, 0};
        for (int k = 0; k < dim; k++)
            x[k] = L * rng_uniform(&r);
        ck_assert(particles_add(&sim->p, x, v, 1.0, &err) == 0);
    }
    for (int k = 0; periodic && k < dim; k++)
        ck_assert_msg(sim_set_periodic(sim, k, &err) == 0, "%s", err.msg);
}

/* Whether the pair of i < j is listed: in row i, or on a ring (halflist.h)
 * in row j when j - i is more than half the storage.  Each part of a row
 * ascends: binary search. */
static int listed(const pfb_halflist *L, size_t n, size_t i, size_t j)
{
    if (L->ring && 2 * (j - i) > n) {
        const size_t t = i;
        i = j;
        j = t;
    }
    size_t lo = L->ls[i], hi = L->ls[i + 1], e = lo;
    while (e < hi && L->lj[e] > i) /* the partners around the end follow those ahead */
        e++;
    if (j > i)
        hi = e;
    else
        lo = e;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (L->lj[mid] == j)
            return 1;
        if (L->lj[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Squared distance of a and b, by the minimum image on periodic axes. */
static double dist2(const pfb_sim *sim, size_t a, size_t b)
{
    double d[3];
    sim_pair_diff(sim, a, b, d);
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* Every row ascends with j > i (on a ring: then its partners around the end,
 * j < i with i - j more than half the storage, ascending), and holds every
 * pair within r (brute force); with exact = 1 nothing else (just built: the
 * list is the pairs within hl).  Returns the pairs within r. */
static size_t check_rows(const pfb_halflist *L, const pfb_sim *sim, double r, int exact)
{
    const size_t n = sim->p.n;
    size_t within = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t q = L->ls[i]; q < L->ls[i + 1]; q++) {
            const size_t j = L->lj[q];
            ck_assert_msg(j < n && (j > i ? 2 * (j - i) <= n || !L->ring : L->ring && 2 * (i - j) > n),
                          "row %zu holds %zu", i, j);
            if (q > L->ls[i]) /* ascending, but for the step from those ahead to those around the end */
                ck_assert_msg(L->lj[q] > L->lj[q - 1] || (L->lj[q] < i && L->lj[q - 1] > i),
                              "row %zu does not ascend", i);
            if (exact)
                ck_assert_msg(dist2(sim, i, L->lj[q]) < r * r, "pair %zu %u listed at %g > %g", i, L->lj[q],
                              sqrt(dist2(sim, i, L->lj[q])), r);
        }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (dist2(sim, i, j) < r * r) {
                within++;
                ck_assert_msg(listed(L, n, i, j), "pair %zu %zu at %g < %g is not listed", i, j, sqrt(dist2(sim, i, j)), r);
            }
    if (exact)
        ck_assert_uint_eq(L->ls[n], within);
    return within;
}

/* The blocks: consecutive ranges covering the storage, and the rows of block b
 * reach no farther than block b + 1, around the ring for the last block of a
 * ring, whose count is then even (what the schedule relies on). */
static void check_blocks(const pfb_halflist *L, size_t n)
{
    ck_assert_uint_eq(L->blk[0], 0);
    ck_assert_uint_eq(L->blk[L->nblk], n);
    if (L->ring)
        ck_assert_msg(L->nblk == 1 || L->nblk % 2 == 0, "a ring of %zu blocks", L->nblk);
    for (size_t b = 0; b < L->nblk; b++) {
        ck_assert(L->blk[b + 1] > L->blk[b]);
        const size_t end = L->blk[b + 2 <= L->nblk ? b + 2 : L->nblk];
        const int around = L->ring && b + 1 == L->nblk;
        for (size_t i = L->blk[b]; i < L->blk[b + 1]; i++)
            for (size_t q = L->ls[i]; q < L->ls[i + 1]; q++) {
                const size_t j = L->lj[q];
                ck_assert_msg((j >= L->blk[b] && j < end) || (around && j < L->blk[1]),
                              "block %zu of %zu: row %zu reaches %zu outside [%zu, %zu)", b, L->nblk, i, j, L->blk[b],
                              end);
            }
    }
}

/* The full form (halflist_full) of a just-built list is the brute-force full
 * list within hl: row i holds every j != i within hl exactly once, ascending
 * but on a ring; and it is made again only after a rebuild. */
static void check_full(const pfb_halflist *L, const pfb_sim *sim)
{
    const size_t n = sim->p.n;
    pfb_fulllist F = PFB_FULLLIST_EMPTY;
    pfb_err err;
    ck_assert_msg(halflist_full(L, n, &F, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(F.fs[n], 2 * L->ls[n]);
    unsigned char *seen = calloc(n, 1);
    ck_assert_ptr_nonnull(seen);
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        size_t want = 0;
        for (size_t j = 0; j < n; j++)
            want += j != i && dist2(sim, i, j) < L->hl * L->hl;
        ck_assert_uint_eq(F.fs[i + 1] - F.fs[i], want);
        longest = want > longest ? want : longest;
        for (size_t q = F.fs[i]; q < F.fs[i + 1]; q++) {
            const size_t j = F.fj[q];
            ck_assert_msg(j != i && !seen[j] && dist2(sim, i, j) < L->hl * L->hl, "row %zu holds %zu", i, j);
            seen[j] = 1;
            if (q > F.fs[i] && !L->ring)
                ck_assert_msg(j > F.fj[q - 1], "full row %zu does not ascend", i);
        }
        for (size_t q = F.fs[i]; q < F.fs[i + 1]; q++)
            seen[F.fj[q]] = 0;
    }
    ck_assert_uint_eq(F.longest, longest);
    const uint32_t first = F.fj[0];
    F.fj[0] = UINT32_MAX; /* the same builds: not made again */
    ck_assert_msg(halflist_full(L, n, &F, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(F.fj[0], UINT32_MAX);
    F.fj[0] = first;
    free(seen);
    fulllist_free(&F);
}

/* Just built, the list is exactly the pairs within hl = h (1 + skin), in 2D
 * and 3D, open and periodic (the minimum image across faces and corners), for
 * 1 and 2 threads alike; and its full form. */
START_TEST(test_built_list_is_brute_force)
{
    const int dim = 2 + _i % 2, periodic = _i / 2;
    const size_t n = dim == 3 ? 1500 : 1000;
    const double L = 1.0, h = dim == 3 ? 0.12 : 0.08;
    uint32_t *first = NULL;
    size_t first_pairs = 0;
    for (int threads = 1; threads <= 2; threads++) {
        pfb_sim sim;
        make_cloud(&sim, dim, n, L, periodic, 3);
        sim.threads = threads;
        pfb_halflist hl;
        halflist_init(&hl, &sim, h, 0.1);
        ck_assert(sim.sort_h == hl.hl);
        pfb_err err;
        int built;
        ck_assert_msg(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(built, 1);
        const size_t within = check_rows(&hl, &sim, hl.hl, 1);
        ck_assert_msg(within > 5 * n, "%zu pairs: too few to test anything", within);
        check_blocks(&hl, n);
        check_full(&hl, &sim);
        if (threads == 1) {
            first_pairs = hl.ls[n];
            first = malloc(first_pairs * sizeof *first);
            ck_assert_ptr_nonnull(first);
            memcpy(first, hl.lj, first_pairs * sizeof *first);
        } else {
            ck_assert_uint_eq(hl.ls[n], first_pairs);
            ck_assert_int_eq(memcmp(first, hl.lj, first_pairs * sizeof *first), 0);
        }
        halflist_free(&hl);
        sim_free(&sim);
    }
    free(first);
}
END_TEST

/* Across moves the list always holds every pair within h: moves of up to 0.1
 * (hl - h) per axis keep it (no rebuild while the moves' box is narrow), and
 * their accumulation rebuilds it, exactly the pairs within hl again; a caller's
 * box2 gives the same decisions.  Open and periodic boxes (particles leave
 * through faces and are wrapped at the rebuild's sort). */
START_TEST(test_reuse_and_rebuild)
{
    const int dim = 2 + _i % 2, periodic = _i / 2;
    const size_t n = dim == 3 ? 1200 : 800;
    const double L = 1.0, h = dim == 3 ? 0.12 : 0.08, skin = 0.2;
    pfb_sim sim;
    make_cloud(&sim, dim, n, L, periodic, 9);
    pfb_halflist hl;
    halflist_init(&hl, &sim, h, skin);
    pfb_err err;
    int built, reused = 0, rebuilt = 0;
    ck_assert(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0);
    pfb_rng r;
    rng_seed(&r, 4);
    const double step = 0.1 * (hl.hl - hl.h);
    for (int round = 0; round < 16; round++) {
        for (size_t i = 0; i < sim.p.n; i++)
            for (int k = 0; k < dim; k++)
                sim.p.x[k][i] += step * (2.0 * rng_uniform(&r) - 1.0);
        sim_positions_changed(&sim);
        ck_assert_msg(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0, "%s", err.msg);
        reused += !built;
        rebuilt += built;
        check_rows(&hl, &sim, built ? hl.hl : h, built);
        if (built)
            check_blocks(&hl, sim.p.n);
    }
    ck_assert_msg(reused >= 3 && rebuilt >= 2, "%d reused, %d rebuilt of 16", reused, rebuilt);
    ck_assert_int_eq(hl.builds, 1 + rebuilt);
    halflist_free(&hl);
    sim_free(&sim);
}
END_TEST

/* The rebuild threshold is the one the skin allows: a pair just outside hl
 * moving together by 0.44 (hl - h) each keeps the list (still farther than
 * h), by 0.54 each it must be rebuilt (0.08 (hl - h) inside h). */
START_TEST(test_threshold)
{
    const double h = 0.02, skin = 0.2, hl_ = h * (1.0 + skin), d0 = hl_ * (1.0 + 1e-9);
    pfb_sim sim;
    pfb_err err;
    ck_assert(sim_init(&sim, 3, 1, &err) == 0);
    sim.spacing = 0.01;
    for (int k = 0; k < 3; k++) {
        sim.domain_lo[k] = -1.0;
        sim.domain_hi[k] = 1.0;
    }
    const double x0[3] = {0, 0, 0}, x1[3] = {d0, 0, 0}, v[3] = {0, 0, 0};
    ck_assert(particles_add(&sim.p, x0, v, 1.0, &err) == 0);
    ck_assert(particles_add(&sim.p, x1, v, 1.0, &err) == 0);
    pfb_halflist hl;
    halflist_init(&hl, &sim, h, skin);
    int built;
    ck_assert(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0);
    ck_assert_uint_eq(hl.ls[2], 0);
    const double moves[2] = {0.44, 0.54};
    for (int c = 0; c < 2; c++) {
        for (size_t i = 0; i < 2; i++) {
            const double dir = sim.p.x[0][i] < sim.p.x[0][1 - i] ? 1.0 : -1.0;
            sim.p.x[0][i] = (dir > 0 ? 0.0 : d0) + dir * moves[c] * (hl_ - h);
        }
        sim_positions_changed(&sim);
        ck_assert(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0);
        ck_assert_msg(built == c, "moves of %g (hl - h): built %d", moves[c], built);
        ck_assert_uint_eq(hl.ls[2], (size_t)c); /* the pair is listed once it is within h */
    }
    halflist_free(&hl);
    sim_free(&sim);
}
END_TEST

/* ---- the schedule ---- */

/* Two pair stages with a particle stage between and after: the first adds a
 * term of each pair to both particles' sums a (terms chosen so that their
 * order changes the rounding), the particle stage turns a into b, the second
 * pair stage adds terms that read b of both particles into c, and the last
 * particle stage copies c to out. */
typedef struct {
    const pfb_sim *sim;
    const pfb_halflist *L;
    double *a, *b, *c, *out;
    double h;
} sched_ctx;

static double term(const sched_ctx *s, size_t i, size_t j)
{
    const double r2 = dist2(s->sim, i, j);
    return r2 < s->h * s->h ? 1.0 / (1e-3 + r2) + 1e-7 * (double)(i * 7 + j * 13 % 17) : 0.0;
}

/* A pair's roles by index, i < j, as brute force takes them (a ring's row
 * around the end holds j < i). */
#define PAIR_ROLES(r, q, i, j)                                       \
    const size_t i = (r) < s->L->lj[q] ? (r) : s->L->lj[q];          \
    const size_t j = (r) < s->L->lj[q] ? s->L->lj[q] : (r)

static void st_pairs_a(void *ctx, size_t blk)
{
    sched_ctx *s = ctx;
    for (size_t r = s->L->blk[blk]; r < s->L->blk[blk + 1]; r++)
        for (size_t q = s->L->ls[r]; q < s->L->ls[r + 1]; q++) {
            PAIR_ROLES(r, q, i, j);
            const double t = term(s, i, j);
            s->a[i] += t;
            s->a[j] += 0.5 * t;
        }
}

static void st_particles_b(void *ctx, size_t blk)
{
    sched_ctx *s = ctx;
    for (size_t i = s->L->blk[blk]; i < s->L->blk[blk + 1]; i++) {
        s->b[i] = sqrt(s->a[i]);
        s->c[i] = 0.0;
    }
}

static void st_pairs_c(void *ctx, size_t blk)
{
    sched_ctx *s = ctx;
    for (size_t r = s->L->blk[blk]; r < s->L->blk[blk + 1]; r++)
        for (size_t q = s->L->ls[r]; q < s->L->ls[r + 1]; q++) {
            PAIR_ROLES(r, q, i, j);
            const double t = term(s, i, j) * (s->b[i] - 0.3 * s->b[j]);
            s->c[i] += t;
            s->c[j] -= t;
        }
}

static void st_particles_out(void *ctx, size_t blk)
{
    sched_ctx *s = ctx;
    for (size_t i = s->L->blk[blk]; i < s->L->blk[blk + 1]; i++)
        s->out[i] = s->c[i];
}

/* The same bits for 1, 2 and 3 threads, and the sums those of brute force up
 * to the rounding of their terms in another order (relative 1e-12: about 60
 * terms each, eps 1.1e-16, their magnitudes within a factor 1e3).  Open and
 * periodic boxes: a periodic list is a ring whose last block adds to block 0,
 * and keeps about as many blocks as the open one (each row reaching about a
 * layer of cells ahead, not across the box). */
START_TEST(test_schedule_same_bits)
{
    const int dim = 2 + _i % 2, periodic = _i / 2;
    const size_t n = dim == 3 ? 6000 : 4000;
    const double L = 1.0, h = dim == 3 ? 0.06 : 0.035;
    pfb_sim sim;
    make_cloud(&sim, dim, n, L, periodic, 21);
    pfb_halflist hl;
    halflist_init(&hl, &sim, h, 0.1);
    pfb_err err;
    int built;
    ck_assert(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0);
    ck_assert_msg(hl.nblk >= 8, "%zu blocks: too few to schedule", hl.nblk);
    ck_assert_int_eq(hl.ring, periodic);
    check_blocks(&hl, n);
    const pfb_stage stages[] = {{1, st_pairs_a}, {0, st_particles_b}, {1, st_pairs_c}, {0, st_particles_out}};
    double *ref = malloc(n * sizeof *ref);
    ck_assert_ptr_nonnull(ref);
    pfb_pairtasks T;
    memset(&T, 0, sizeof T);
    for (int threads = 1; threads <= 3; threads++) {
        sched_ctx s = {&sim, &hl, calloc(n, sizeof(double)), calloc(n, sizeof(double)), calloc(n, sizeof(double)),
                       calloc(n, sizeof(double)), h};
        ck_assert(s.a && s.b && s.c && s.out);
        ck_assert_msg(pairtasks_run(&T, &hl, stages, 4, &s, threads, 1, &err) == 0, "%s", err.msg);
        if (threads == 1) {
            memcpy(ref, s.out, n * sizeof *ref);
            /* brute force */
            double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c);
            ck_assert(a && b && c);
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++) {
                    const double t = term(&s, i, j);
                    a[i] += t;
                    a[j] += 0.5 * t;
                }
            for (size_t i = 0; i < n; i++)
                b[i] = sqrt(a[i]);
            double scale = 0.0;
            for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++) {
                    const double t = term(&s, i, j) * (b[i] - 0.3 * b[j]);
                    c[i] += t;
                    c[j] -= t;
                    scale = fmax(scale, fabs(t));
                }
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(fabs(c[i] - ref[i]) <= 1e-12 * 64.0 * scale, "particle %zu: %.17g against %.17g", i,
                              ref[i], c[i]);
            free(a);
            free(b);
            free(c);
        } else {
            ck_assert_msg(memcmp(ref, s.out, n * sizeof *ref) == 0, "%d threads: other bits than 1", threads);
        }
        free(s.a);
        free(s.b);
        free(s.c);
        free(s.out);
    }
    /* two stages of one kind in a row are refused */
    const pfb_stage bad[] = {{1, st_pairs_a}, {1, st_pairs_c}};
    ck_assert_int_eq(pairtasks_run(&T, &hl, bad, 2, NULL, 1, 0, &err), PFB_EINVAL);
    ck_assert_msg(strstr(err.msg, "pair and particle stages in turn") != NULL, "%s", err.msg);
    pairtasks_free(&T);
    free(ref);
    halflist_free(&hl);
    sim_free(&sim);
}
END_TEST

/* The skin a solver asks for: kept in an open box and when the user set it;
 * in a periodic box of period 0.1 with h = 0.0468 (clavet's calibrated 2D
 * shear wave) the default 0.1 would give a radius 0.0515 over half the
 * period, so it becomes 0.98 of the largest that fits (radius below 0.05). */
START_TEST(test_skin_fits_period)
{
    pfb_sim sim;
    make_cloud(&sim, 2, 100, 0.1, 0, 1);
    ck_assert(halflist_skin(&sim, 0.0468, 0.1, 0) == 0.1);
    sim_free(&sim);
    make_cloud(&sim, 2, 100, 0.1, 1, 1);
    ck_assert(halflist_skin(&sim, 0.0468, 0.1, 1) == 0.1);
    const double skin = halflist_skin(&sim, 0.0468, 0.1, 0);
    ck_assert_msg(skin > 0.0 && 0.0468 * (1.0 + skin) < 0.05 && 0.0468 * (1.0 + skin / 0.98) <= 0.05 * (1 + 1e-12),
                  "skin %g", skin);
    ck_assert(halflist_skin(&sim, 0.06, 0.1, 0) == 0.0); /* h itself too long: no skin (the list reports it) */
    sim_free(&sim);
}
END_TEST

/* core/pairop.h's operator on a random cloud against its definition summed
 * brute force over all pairs: weight w(r) = (h - r)^2 within h, every fifth
 * particle fixed (an identity row, its value 0 in x as a solve keeps it),
 * an extra diagonal d_i = i mod 3, and extra symmetric couplings (i, i + 7)
 * of weight 0.5 for every tenth particle; open and periodic, 2D and 3D, on 1
 * to 3 threads with the same bits.  The brute-force sum adds the same terms
 * in another order: at most 64 roundings of the largest term's size.  The
 * same three ways: the list's rows; the rows cut to the pairs within h (rj,
 * rn, as a solver's density pass lists them), one pair at a time, whose
 * products equal the whole rows' (a pair left out adds a zero); and those
 * rows in four lanes at the best level. */
typedef struct pw_ctx {
    const pfb_sim *sim;
    double h;
} pw_ctx;

static double pw_weight(void *ctx, size_t i, size_t j, size_t q)
{
    (void)q;
    const pw_ctx *c = ctx;
    const double r = sqrt(dist2(c->sim, i, j));
    return r < c->h ? (c->h - r) * (c->h - r) : 0.0;
}

START_TEST(test_pairop_is_its_definition)
{
    const int dim = 2 + _i % 2, periodic = _i / 2;
    const size_t n = dim == 3 ? 3000 : 2000;
    const double L = 1.0, h = dim == 3 ? 0.08 : 0.05;
    pfb_sim sim;
    make_cloud(&sim, dim, n, L, periodic, 31);
    pfb_halflist hl;
    halflist_init(&hl, &sim, h, 0.1);
    pfb_err err;
    int built;
    ck_assert(halflist_ensure(&hl, &sim, -1.0, 0, &built, &err) == 0);
    unsigned char *fixed = calloc(n, 1);
    double *d = calloc(n, sizeof *d), *x = calloc(n, sizeof *x), *ref = calloc(n, sizeof *ref),
           *scale = calloc(n, sizeof *scale);
    uint32_t *xs = calloc(n + 1, sizeof *xs), *xv = calloc(n, sizeof *xv);
    double *xw = calloc(n, sizeof *xw);
    ck_assert(fixed && d && x && ref && scale && xs && xv && xw);
    pfb_rng rng;
    rng_seed(&rng, 37);
    for (size_t i = 0; i < n; i++) {
        fixed[i] = i % 5 == 0;
        d[i] = (double)(i % 3);
        x[i] = fixed[i] ? 0.0 : rng_uniform(&rng) - 0.5;
    }
    /* the extra couplings (i, i + 7), i = 1, 11, 21, ...: both rows list them */
    for (size_t i = 1; i + 7 < n; i += 10) {
        xs[i + 1]++;
        xs[i + 8]++;
    }
    for (size_t i = 0; i < n; i++)
        xs[i + 1] += xs[i];
    for (size_t i = 1; i + 7 < n; i += 10) {
        xv[xs[i]] = (uint32_t)(i + 7);
        xw[xs[i]] = 0.5;
        xv[xs[i + 7]] = (uint32_t)i;
        xw[xs[i + 7]] = 0.5;
    }
    /* the definition, brute force */
    pw_ctx wc = {&sim, h};
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const double t = pw_weight(&wc, i, j, 0) * (x[i] - x[j]);
            ref[i] += t;
            ref[j] -= t;
            scale[i] = fmax(scale[i], fabs(t));
            scale[j] = fmax(scale[j], fabs(t));
        }
    for (size_t i = 0; i < n; i++) {
        ref[i] += d[i] * x[i];
        for (size_t e = xs[i]; e < xs[i + 1]; e++)
            ref[i] += xw[e] * (x[i] - x[xv[e]]);
        if (fixed[i])
            ref[i] = x[i];
    }
    /* the rows cut to the pairs within h, each at its row's place */
    uint32_t *rj = calloc((size_t)hl.ls[n] + 4, sizeof *rj), *rn = calloc(n, sizeof *rn);
    ck_assert(rj && rn);
    size_t cut = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t q = hl.ls[i]; q < hl.ls[i + 1]; q++)
            if (pw_weight(&wc, i, hl.lj[q], q) > 0.0)
                rj[hl.ls[i] + rn[i]++] = hl.lj[q];
        cut += hl.ls[i + 1] - hl.ls[i] - rn[i];
    }
    ck_assert_msg(cut > hl.ls[n] / 10, "%zu of %u entries beyond h: too few to test the cut rows", cut, hl.ls[n]);
    pfb_pairtasks T;
    memset(&T, 0, sizeof T);
    double *whole = NULL;
    size_t ncoupled = 0;
    for (int way = 0; way < 3; way++) {
        double *first = NULL;
        for (int threads = 1; threads <= 3; threads++) {
            pfb_pairop op;
            memset(&op, 0, sizeof op);
            op.L = &hl;
            op.T = &T;
            op.threads = threads;
            op.parallel = 1;
            op.fixed = fixed;
            op.d = d;
            op.xs = xs;
            op.xv = xv;
            op.xw = xw;
            if (way > 0) {
                op.rj = rj;
                op.rn = rn;
            }
            op.lanes = way == 2 ? 1 + lanes_level(2) : 0;
            ck_assert_msg(pairop_build(&op, n, pw_weight, &wc, &err) == 0, "%s", err.msg);
            double *y = calloc(n, sizeof *y);
            ck_assert_ptr_nonnull(y);
            pairop_apply(&op, x, y, threads);
            ck_assert_int_eq(op.rc, 0);
            for (size_t i = 0; i < n; i++) {
                ck_assert_msg(fabs(y[i] - ref[i]) <= 64.0 * DBL_EPSILON * (scale[i] + 1.0),
                              "way %d, particle %zu: %.17g, %.17g", way, i, y[i], ref[i]);
                ncoupled += way == 0 && threads == 1 && !fixed[i] && op.diag[i] > d[i];
                if (way == 1)
                    ck_assert_msg(y[i] == whole[i], "particle %zu: cut rows %.17g, whole rows %.17g", i, y[i],
                                  whole[i]);
            }
            if (threads == 1)
                first = y;
            else {
                ck_assert_msg(memcmp(first, y, n * sizeof *y) == 0, "way %d, %d threads: other bits than 1", way,
                              threads);
                free(y);
            }
            pairop_free(&op);
        }
        if (way == 0)
            whole = first;
        else
            free(first);
    }
    ck_assert_msg(ncoupled > n / 2, "%zu coupled rows: too few to test anything", ncoupled);
    free(whole);
    free(rj);
    free(rn);
    pairtasks_free(&T);
    halflist_free(&hl);
    sim_free(&sim);
    free(fixed);
    free(d);
    free(x);
    free(ref);
    free(scale);
    free(xs);
    free(xv);
    free(xw);
}
END_TEST

static Suite *halflist_suite(void)
{
    Suite *s = suite_create("halflist");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_built_list_is_brute_force, 0, 4);
    tcase_add_loop_test(tc, test_reuse_and_rebuild, 0, 4);
    tcase_add_test(tc, test_threshold);
    tcase_add_loop_test(tc, test_schedule_same_bits, 0, 4);
    tcase_add_loop_test(tc, test_pairop_is_its_definition, 0, 4);
    tcase_add_test(tc, test_skin_fits_period);
    suite_add_tcase(s, tc);
    return s;
}



int main(void)
{
    SRunner *sr = srunner_create(halflist_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

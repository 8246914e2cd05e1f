/* mao_yang_resample.c — particle re-sampling of H. Mao, Y.-H. Yang, "A particle-based
 * model for non-Newtonian fluid animation" (text in
 * ../shared/papers/mao-yang-nonnewtonian.txt), §5.
 *
 * What the paper specifies and where it lives here:
 *   §5           down-sampling: two particles closer than eps_d are replaced by one at
 *                their centre of mass with their total mass; velocity and stress
 *                "linearly interpolated" ........................ my_downsample, merge_pair_into
 *   §5           down-sampling runs before up-sampling (the caller's order)
 *   §5.1         Delaunay triangulation of the particles; a simplex whose empty
 *                circum-circle (-sphere) has radius > R_min gets a new particle at its
 *                centre .............................................. delaunay_candidates
 *   §5.2         the new particle is cancelled if it lies outside the convex hull of
 *                its neighbours (QuickHull, as the paper: libqhull_r) ....... inside_hull
 *   §5.3 eq. 18  A(r) = sum_j A_j W_j / W_total ................................ insert_at
 *        eq. 19  W_j = m_j / rho_j W(r - r_j, h), the cubic spline of eq. 3 ..... insert_at
 *        eq. 20  m_j -= m_j W_j / W_total (mass conservation) .................. insert_at
 *        eps_m   no insertion when the eq.-18 mass is below eps_m ............... insert_at
 *
 * Choices where the paper is silent (or loose):
 *  - Merge order.  Per pass every pair closer than eps_d is collected (framework
 *    neighbour list of radius eps_d) and sorted by (distance^2, smaller id, larger
 *    id); pairs are merged greedily when neither member was touched in this pass.
 *    Passes repeat until no pair is closer than eps_d (a merged particle can land
 *    within eps_d of a third).  The result depends only on positions and ids, not
 *    on storage order.  The merged particle takes a new id.
 *  - Merged attributes.  Velocity is the mass-weighted mean (linear momentum is
 *    conserved to round-off); every registered field (density, stress, material
 *    fields) is the mass-weighted mean too ("linearly interpolated" in §5).
 *  - Candidate order.  Candidates are processed by circumradius, largest first,
 *    then by circumcentre, then by the sorted ids of the simplex's vertices.  The
 *    radius and the centre are compared after rounding to 1e-9 r_min, so that the
 *    ulp-level differences between different triangulations of one cospherical cell
 *    (the triangulation qhull picks depends on input order) do not change the order.
 *  - Duplicates.  A candidate closer than eps_d to a particle inserted earlier in
 *    the same pass is rejected: the simplices of one cospherical cell (a square or
 *    octahedral hole) share one circumcentre.  Against the particles that existed
 *    before the pass no test is needed: a Delaunay circle (sphere) is empty, so
 *    every old particle is at least R > r_min from the inserted point, and
 *    eps_d < r_min (which the paper requires, and my_upsample checks) gives
 *    no new pair closer than eps_d.
 *  - Neighbourhood.  The hull of §5.2 and the sums of eqs. 18-19 run over the
 *    particles closer than h (the kernel support) to the candidate, including those
 *    inserted earlier in the pass, in id order.  Fewer than dim + 1 neighbours or a
 *    degenerate (flat) neighbourhood counts as outside the hull; so a void wider
 *    than h (R >= h: no particle within h, eq. 18 would be 0/0) is not filled.
 *  - Rigid bodies (issue 7).  A body is a hole that the fluid surrounds, so its
 *    circumcentres pass the hull test; a candidate closer than eps_d / 2 to a body
 *    is rejected first (rejected_solid).
 *  - Order of the tests.  Each candidate is counted once: first a body
 *    (rejected_solid), then the duplicate test (rejected_close), then the hull
 *    (rejected_hull), then eps_m (rejected_mass); candidates = inserted + the
 *    four rejections.
 *  - Hull test tolerance.  The hull is computed on the neighbours' coordinates
 *    relative to the candidate divided by h; the candidate is inside iff every
 *    facet's offset (its signed distance from the candidate) is <= 1e-12, i.e.
 *    points on the hull (within 1e-12 h, far above the round-off of coordinates of
 *    size h) count as inside, as the paper's Fig. 7(b) says.
 *  - Momentum-consistent velocity.  Eq. 18 applied to v itself would not conserve
 *    momentum once eq. 20 removes mass from the neighbours (who keep their
 *    velocities).  We apply eq. 18 to the momentum m_j v_j and divide by the
 *    interpolated mass: v = sum_j (m_j W_j / W_total) v_j / m.  This equals eq. 18
 *    for v when the neighbour masses are equal, and conserves momentum exactly up
 *    to round-off.  Mass is eq. 18 with A = m; density, stress and every other
 *    registered field are eq. 18 as written.
 *  - Degenerate simplices.  Option 'Qt' may give flat simplices (qhull manual);
 *    those with |det| <= 1e-10 L^dim (L the longest edge from the first vertex)
 *    are skipped: their circumcentre is undefined or meaningless.
 *  - Degenerate input.  Fewer than dim + 2 particles, or input that qhull reports
 *    singular (all collinear / coplanar): no up-sampling, PFB_OK.
 *  - Candidates are the simplices with r_min < R < h.  A larger empty circle
 *    (sphere) has no particle within h of its centre, so it never gets one (no
 *    neighbours for eq. 18; and no particle is inserted before it, candidates
 *    going largest first), and it is not counted.
 *  - What is triangulated (whole = 0; the solver's delaunay_whole = false, its
 *    default): only the particles that can be a vertex of a candidate
 *    (may_border_hole).  Such a vertex v
 *    lies on an empty sphere of radius R > r_min, which contains the empty ball
 *    of radius r_min tangent to it at v; a particle whose neighbours within
 *    2 r_min leave no such ball in any direction is left out.  Every
 *    simplex of all particles' triangulation whose vertices are all kept is a
 *    simplex of the kept particles' one (its circumsphere is empty of all);
 *    the kept particles' triangulation has others too, whose circumspheres hold
 *    a particle left out, and those are dropped by a look at the particles
 *    within R of the centre.  The candidates, and so the insertions, are those
 *    of the whole triangulation (test_mao_yang_resample: the same particles to
 *    the bit on scattered discs and balls and on 2D and 3D dam breaks).  On
 *    the 3D dam break at 60k particles, at bench step's frame (the column
 *    still at rest), it cut the triangulation from 3.7 to 2.1 s and the run's
 *    peak memory by 1,600 B per particle (bench/README.md).  The directions
 *    are tested by groups first (may_border_hole), and a neighbour query whose
 *    answer is a yes or no skips the sort by id, so that on 2,000 particles,
 *    most of them near the surface, the selection costs less than the
 *    triangulation it saves too (bench/cost.tsv's cases: 0.97 of the whole
 *    triangulation's instructions in 3D, 0.90 in 2D).  Each particle's answer
 *    is its own, so the selection runs on the run's threads (select_border):
 *    on one it was 0.43 s of a 0.62 s up-sampling in the 3D dam break's flow
 *    at 60k particles. */
#include "mao_yang_resample.h"

#include <libqhull_r/qhull_ra.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/kernels.h"
#include "../core/sim.h"
#include "../core/timing.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- parameters ------------------------------------------------------------ */

static int check_params(const pfb_sim *sim, const my_resample_params *rp, int up, pfb_err *err)
{
    if (!sim || !rp)
        return pfb_err_set(err, PFB_EINVAL, "re-sampling needs a simulation and parameters; got NULL");
    if (!(rp->eps_d > 0.0) || !isfinite(rp->eps_d))
        return pfb_err_set(err, PFB_EINVAL, "re-sampling eps_d = %g m is invalid; valid: finite and > 0", rp->eps_d);
    if (!up)
        return PFB_OK;
    if (!(rp->r_min > rp->eps_d) || !isfinite(rp->r_min))
        return pfb_err_set(err, PFB_EINVAL,
                           "re-sampling r_min = %g m is invalid; valid: finite and > eps_d = %g m (§5.1)",
                           rp->r_min, rp->eps_d);
    if (!(rp->h > 0.0) || !isfinite(rp->h))
        return pfb_err_set(err, PFB_EINVAL, "re-sampling h = %g m is invalid; valid: finite and > 0", rp->h);
    if (!(rp->eps_m >= 0.0) || !isfinite(rp->eps_m))
        return pfb_err_set(err, PFB_EINVAL, "re-sampling eps_m = %g kg is invalid; valid: finite and >= 0",
                           rp->eps_m);
    if (rp->f_rho < 0 || (size_t)rp->f_rho >= sim->p.nfields)
        return pfb_err_set(err, PFB_EINVAL,
                           "re-sampling density field index %d is invalid; valid: a registered 1-component "
                           "field (%zu fields registered)",
                           rp->f_rho, sim->p.nfields);
    if (sim->p.field[rp->f_rho].ncomp != 1)
        return pfb_err_set(err, PFB_EINVAL,
                           "re-sampling density field %d ('%s') has %d components; valid: a 1-component field",
                           rp->f_rho, sim->p.field[rp->f_rho].name, sim->p.field[rp->f_rho].ncomp);
    return PFB_OK;
}

/* ---- down-sampling (§5) ------------------------------------------------------ */

typedef struct close_pair {
    double d2;
    uint64_t lo, hi;   /* ids, smaller first */
    size_t i, j;       /* storage indices, i < j */
} close_pair;

static int close_pair_cmp(const void *pa, const void *pb)
{
    const close_pair *a = pa, *b = pb;
    if (a->d2 != b->d2)
        return a->d2 < b->d2 ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return 0;
}

/* Replace particle a by the merger of a and b (centre of mass, total mass, and the
 * mass-weighted mean of velocity and of every field); b is left for the caller to
 * remove.  Symmetric in a and b bit for bit (sums of two products commute). */
static void merge_pair_into(const pfb_period *pp, pfb_particles *p, size_t a, size_t b)
{
    const double ma = p->m[a], mb = p->m[b], M = ma + mb;
    const double wa = M > 0.0 ? ma / M : 0.5, wb = M > 0.0 ? mb / M : 0.5;
    /* b's image nearest a (x_b itself on an open axis), moving with its image's
     * velocity on a sheared box (core/periodic.h) */
    double dab[3];
    const double k = period_diff(pp, p->dim, (const double *const *)p->x, a, b, dab);
    for (int d = 0; d < p->dim; d++) {
        const double xb = p->x[d][a] - dab[d];
        const double vb = d == 0 && k != 0.0 ? p->v[d][b] + period_le_dv(pp, k) : p->v[d][b];
        p->x[d][a] = wa * p->x[d][a] + wb * (pp->L[d] > 0 ? xb : p->x[d][b]);
        p->v[d][a] = wa * p->v[d][a] + wb * vb;
    }
    p->m[a] = M;
    for (size_t f = 0; f < p->nfields; f++) {
        const size_t nc = (size_t)p->field[f].ncomp;
        double *fa = p->field[f].data + a * nc;
        const double *fb = p->field[f].data + b * nc;
        for (size_t c = 0; c < nc; c++)
            fa[c] = wa * fa[c] + wb * fb[c];
    }
    p->id[a] = p->next_id++;
}

int my_downsample(pfb_sim *sim, const my_resample_params *rp, my_resample_stats *st, pfb_err *err)
{
    int rc = check_params(sim, rp, 0, err);
    if (rc)
        return rc;
    pfb_particles *p = &sim->p;
    close_pair *pairs = NULL;
    unsigned char *mark = NULL;   /* 1: touched in this pass, 2: merged away (to remove) */
    size_t cap_pairs = 0, total = 0;
    for (;;) {
        const size_t n = p->n;
        if (n < 2)
            break;
        const pfb_nlist *nl = NULL;
        rc = sim_neighbours(sim, rp->eps_d, &nl, err);
        if (rc)
            break;
        size_t np = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t k = nl->start[i]; k < nl->start[i + 1]; k++) {
                const size_t j = nl->idx[k];
                if (j <= i)
                    continue;
                if (np == cap_pairs) {
                    size_t nc = cap_pairs ? 2 * cap_pairs : 256;
                    close_pair *q = realloc(pairs, nc * sizeof *q);
                    if (!q) {
                        rc = pfb_err_set(err, PFB_ENOMEM, "out of memory collecting %zu close pairs", nc);
                        goto done;
                    }
                    pairs = q;
                    cap_pairs = nc;
                }
                const uint64_t a = p->id[i], b = p->id[j];
                pairs[np++] = (close_pair){period_dist2(&sim->period, sim->dim, (const double *const *)p->x, i, j), a < b ? a : b,
                                           a < b ? b : a, i, j};
            }
        if (np == 0)
            break;
        qsort(pairs, np, sizeof *pairs, close_pair_cmp);
        unsigned char *mk = realloc(mark, n);
        if (!mk) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory merging %zu particles", n);
            goto done;
        }
        mark = mk;
        memset(mark, 0, n);
        size_t merged = 0;
        for (size_t k = 0; k < np; k++) {
            const size_t i = pairs[k].i, j = pairs[k].j;
            if (mark[i] || mark[j])
                continue;
            merge_pair_into(&sim->period, p, i, j);
            mark[i] = 1;
            mark[j] = 2;
            merged++;
        }
        /* remove in descending index order: particles_remove moves the last particle
         * into the freed slot, and every slot above the one removed is unmarked */
        for (size_t i = n; i-- > 0;)
            if (mark[i] == 2)
                particles_remove(p, i);
        total += merged;
        sim_positions_changed(sim);
    }
done:
    free(pairs);
    free(mark);
    if (st)
        st->merged += total;
    if (total)
        sim_positions_changed(sim);
    return rc;
}

/* ---- cell binning of the particles for point queries (cell size >= radius) ---- */

typedef struct bins {
    int dim;
    double inv;              /* 1 / cell size */
    size_t mask;             /* buckets - 1 (power of two) */
    size_t count;            /* particles binned */
    size_t *head;            /* first particle of each bucket, SIZE_MAX if none */
    size_t *next;            /* next particle in the same bucket */
    size_t cap_next;
} bins;

static void bins_cell(const bins *b, const double x[3], int64_t c[3])
{
    for (int d = 0; d < 3; d++) {
        double t = d < b->dim ? floor(x[d] * b->inv) : 0.0;
        t = fmax(-4.0e15, fmin(4.0e15, t)); /* far-escaped particles share a cell, never overflow */
        c[d] = (int64_t)t;
    }
}

static size_t bins_bucket(const bins *b, const int64_t c[3])
{
    uint64_t k = (uint64_t)c[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)c[1] * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)c[2] * 0x165667B19E3779F9ull;
    k ^= k >> 29;
    k *= 0xBF58476D1CE4E5B9ull;
    k ^= k >> 32;
    return (size_t)k & b->mask;
}

static void particle_pos(const pfb_particles *p, size_t i, double x[3])
{
    x[0] = p->x[0][i];
    x[1] = p->x[1][i];
    x[2] = p->dim == 3 ? p->x[2][i] : 0.0;
}

static void bins_link(bins *b, const pfb_particles *p, size_t i)
{
    double x[3];
    int64_t c[3];
    particle_pos(p, i, x);
    bins_cell(b, x, c);
    const size_t k = bins_bucket(b, c);
    b->next[i] = b->head[k];
    b->head[k] = i;
}

/* (Re)bin particles 0 .. n-1 into at least 2n buckets. */
static int bins_build(bins *b, const pfb_particles *p, size_t n, pfb_err *err)
{
    size_t nb = 64;
    while (nb < 2 * n)
        nb *= 2;
    if (nb - 1 != b->mask || !b->head) {
        size_t *q = realloc(b->head, nb * sizeof *q);
        if (!q)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory binning %zu particles", n);
        b->head = q;
        b->mask = nb - 1;
    }
    if (n > b->cap_next) {
        size_t nc = n + n / 2 + 16;
        size_t *q = realloc(b->next, nc * sizeof *q);
        if (!q)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory binning %zu particles", n);
        b->next = q;
        b->cap_next = nc;
    }
    for (size_t k = 0; k < nb; k++)
        b->head[k] = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        bins_link(b, p, i);
    b->count = n;
    return PFB_OK;
}

/* Bin particle i = b->count (just appended). */
static int bins_append(bins *b, const pfb_particles *p, pfb_err *err)
{
    const size_t n = b->count + 1;
    if (n > b->mask + 1)
        return bins_build(b, p, n, err);
    if (n > b->cap_next) {
        size_t nc = 2 * n + 16;
        size_t *q = realloc(b->next, nc * sizeof *q);
        if (!q)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory binning %zu particles", n);
        b->next = q;
        b->cap_next = nc;
    }
    bins_link(b, p, b->count);
    b->count = n;
    return PFB_OK;
}

static void bins_free(bins *b)
{
    free(b->head);
    free(b->next);
    memset(b, 0, sizeof *b);
}

typedef struct hit {
    size_t i;
    double d2;
    uint64_t id;
} hit;

typedef struct hits {
    hit *h;
    size_t n, cap;
} hits;

static int hit_id_cmp(const void *pa, const void *pb)
{
    const hit *a = pa, *b = pb;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Particles closer than r (r <= cell size) to point x, sorted by id if sorted
 * (else in the bins' order, for a test whose answer does not depend on it). */
static int bins_query(const bins *b, const pfb_particles *p, const double x[3], double r, int sorted, hits *out,
                      pfb_err *err)
{
    int64_t c0[3];
    bins_cell(b, x, c0);
    const double r2 = r * r;
    out->n = 0;
    const int zr = b->dim == 3 ? 1 : 0;
    for (int dz = -zr; dz <= zr; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                const int64_t c[3] = {c0[0] + dx, c0[1] + dy, c0[2] + dz};
                for (size_t j = b->head[bins_bucket(b, c)]; j != SIZE_MAX; j = b->next[j]) {
                    double y[3];
                    int64_t cj[3];
                    particle_pos(p, j, y);
                    const double ex = y[0] - x[0], ey = y[1] - x[1], ez = y[2] - x[2];
                    const double d2 = ex * ex + ey * ey + ez * ez;
                    if (!(d2 < r2))
                        continue;
                    bins_cell(b, y, cj);
                    if (cj[0] != c[0] || cj[1] != c[1] || cj[2] != c[2])
                        continue; /* another cell in the same bucket (visited as its own) */
                    if (out->n == out->cap) {
                        size_t nc = out->cap ? 2 * out->cap : 64;
                        hit *q = realloc(out->h, nc * sizeof *q);
                        if (!q)
                            return pfb_err_set(err, PFB_ENOMEM, "out of memory gathering %zu neighbours", nc);
                        out->h = q;
                        out->cap = nc;
                    }
                    out->h[out->n++] = (hit){j, d2, p->id[j]};
                }
            }
    if (sorted && out->n > 1)
        qsort(out->h, out->n, sizeof *out->h, hit_id_cmp);
    return PFB_OK;
}

/* ---- qhull ------------------------------------------------------------------ */

/* Copy the first qhull message line ("QH....") written to sink into msg. */
static void qhull_message(FILE *sink, char *const *sbuf, const size_t *len, char *msg, size_t cap)
{
    msg[0] = '\0';
    if (!sink || fflush(sink) != 0 || !*sbuf)
        return; /* fflush updates *sbuf and *len */
    const char *buf = *sbuf;
    const char *s = NULL;
    for (size_t k = 0; k + 1 < *len; k++)
        if (buf[k] == 'Q' && buf[k + 1] == 'H') {
            s = buf + k;
            break;
        }
    if (!s)
        return;
    size_t m = 0;
    while (m + 1 < cap && s + m < buf + *len && s[m] != '\n' && s[m] != '\0') {
        msg[m] = s[m];
        m++;
    }
    msg[m] = '\0';
}

/* Free a qhull run; a non-zero remainder of long memory means qhull leaked. */
static int qhull_release(qhT *qh, pfb_err *err)
{
    int curlong = 0, totlong = 0;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &curlong, &totlong);
    if (curlong || totlong)
        return pfb_err_set(err, PFB_ENOMEM, "qhull did not free %d long blocks (%d bytes)", curlong, totlong);
    return PFB_OK;
}

/* ---- up-sampling (§5.1-5.3) -------------------------------------------------- */

typedef struct candidate {
    double r;          /* circumradius */
    double c[3];       /* circumcentre (z = 0 in 2D) */
    int64_t qr;        /* r and c rounded to 1e-9 r_min, for the order */
    int64_t qc[3];
    uint64_t vid[4];   /* ids of the simplex's vertices, ascending (unused = 0) */
} candidate;

typedef struct cands {
    candidate *c;
    size_t n, cap;
} cands;

static int candidate_cmp(const void *pa, const void *pb)
{
    const candidate *a = pa, *b = pb;
    if (a->qr != b->qr)
        return a->qr > b->qr ? -1 : 1; /* largest circle first */
    for (int d = 0; d < 3; d++)
        if (a->qc[d] != b->qc[d])
            return a->qc[d] < b->qc[d] ? -1 : 1;
    for (int k = 0; k < 4; k++)
        if (a->vid[k] != b->vid[k])
            return a->vid[k] < b->vid[k] ? -1 : 1;
    return 0;
}

static int64_t quantise(double v, double q)
{
    return (int64_t)llround(fmax(-4.0e15, fmin(4.0e15, v / q)));
}

/* Circumcentre and circumradius of the simplex with vertices v[0..dim] (§5.1).
 * Returns 0 for a degenerate (flat) simplex. */
static int circumsphere(const pfb_particles *p, const size_t *v, double c[3], double *r)
{
    double o[3], e[3][3] = {{0}};
    particle_pos(p, v[0], o);
    double l2max = 0.0, s[3];
    const int dim = p->dim;
    for (int k = 0; k < dim; k++) {
        double y[3];
        particle_pos(p, v[k + 1], y);
        for (int d = 0; d < 3; d++)
            e[k][d] = y[d] - o[d];
        s[k] = e[k][0] * e[k][0] + e[k][1] * e[k][1] + e[k][2] * e[k][2];
        l2max = fmax(l2max, s[k]);
    }
    /* centre relative to o solves e_k . u = |e_k|^2 / 2, k < dim (Cramer's rule) */
    double u[3] = {0.0, 0.0, 0.0};
    if (dim == 2) {
        const double det = e[0][0] * e[1][1] - e[0][1] * e[1][0];
        if (!(fabs(det) > 1e-10 * l2max))
            return 0;
        u[0] = (e[1][1] * s[0] - e[0][1] * s[1]) / (2.0 * det);
        u[1] = (e[0][0] * s[1] - e[1][0] * s[0]) / (2.0 * det);
    } else {
        double bc[3], ca[3], ab[3];
        const double *a = e[0], *b = e[1], *cc = e[2];
        bc[0] = b[1] * cc[2] - b[2] * cc[1];
        bc[1] = b[2] * cc[0] - b[0] * cc[2];
        bc[2] = b[0] * cc[1] - b[1] * cc[0];
        ca[0] = cc[1] * a[2] - cc[2] * a[1];
        ca[1] = cc[2] * a[0] - cc[0] * a[2];
        ca[2] = cc[0] * a[1] - cc[1] * a[0];
        ab[0] = a[1] * b[2] - a[2] * b[1];
        ab[1] = a[2] * b[0] - a[0] * b[2];
        ab[2] = a[0] * b[1] - a[1] * b[0];
        const double det = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
        if (!(fabs(det) > 1e-10 * l2max * sqrt(l2max)))
            return 0;
        for (int d = 0; d < 3; d++)
            u[d] = (s[0] * bc[d] + s[1] * ca[d] + s[2] * ab[d]) / (2.0 * det);
    }
    for (int d = 0; d < 3; d++)
        c[d] = o[d] + u[d];
    *r = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    return 1;
}

static int cands_push(cands *cl, const candidate *c, pfb_err *err)
{
    if (cl->n == cl->cap) {
        size_t nc = cl->cap ? 2 * cl->cap : 64;
        candidate *q = realloc(cl->c, nc * sizeof *q);
        if (!q)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory collecting %zu up-sampling candidates", nc);
        cl->c = q;
        cl->cap = nc;
    }
    cl->c[cl->n++] = *c;
    return PFB_OK;
}

/* §5.1: Delaunay triangulation of the particles sel[0 .. nsel-1] (sel NULL: all;
 * qhull "d Qt Qbb Qz": triangulated output, paraboloid scaled for precision, a
 * point at infinity for cospherical input); every lower-hull simplex whose
 * circumradius lies between r_min and r_max is a candidate.  *singular is set
 * when the input is degenerate (qhull: singular). */
static int delaunay_candidates(const pfb_particles *p, const size_t *sel, size_t nsel, double r_min, double r_max,
                               FILE *sink, char *const *sbuf, const size_t *slen, cands *cl, int *singular,
                               pfb_err *err)
{
    const int dim = p->dim;
    const size_t n = sel ? nsel : p->n;
    *singular = 0;
    if (n > (size_t)INT_MAX / 4)
        return pfb_err_set(err, PFB_EINVAL, "%zu particles are too many for qhull; valid: < %d", n, INT_MAX / 4);
    coordT *pts = malloc(n * (size_t)dim * sizeof *pts);
    if (!pts)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory copying %zu particles for qhull", n);
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < dim; d++)
            pts[i * (size_t)dim + (size_t)d] = p->x[d][sel ? sel[i] : i];
    qhT qh_qh;
    qhT *qh = &qh_qh;
    QHULL_LIB_CHECK
    qh_zero(qh, sink);
    char cmd[] = "qhull d Qt Qbb Qz";
    rewind(sink);
    int code = qh_new_qhull(qh, dim, (int)n, pts, False, cmd, sink, sink);
    if (code == qh_ERRwide || code == qh_ERRprec) {
        /* a perfect lattice (a periodic box's start) is cospherical everywhere,
         * and its 3D triangulation can need merges qhull calls wide: allowed
         * with Q12, as its message says, for this input only (the lattice's
         * simplices have circumradius sqrt(3) / 2 spacings, below r_min) */
        const int rr = qhull_release(qh, err);
        if (rr) {
            free(pts);
            return rr;
        }
        qh_zero(qh, sink);
        char cmd12[] = "qhull d Qt Qbb Qz Q12";
        rewind(sink);
        code = qh_new_qhull(qh, dim, (int)n, pts, False, cmd12, sink, sink);
    }
    int rc = PFB_OK;
    if (code == qh_ERRsingular) {
        *singular = 1;
    } else if (code != 0) {
        char msg[200];
        qhull_message(sink, sbuf, slen, msg, sizeof msg);
        rc = pfb_err_set(err, code == qh_ERRmem ? PFB_ENOMEM : PFB_EINVAL,
                         "Delaunay triangulation of %zu particles failed (qhull exit code %d: %s)", n, code,
                         msg[0] ? msg : "no message");
    } else {
        const double q = 1e-9 * r_min;
        for (facetT *f = qh->facet_list; f && f->next && !rc; f = f->next) {
            if (f->upperdelaunay)
                continue;
            setT *vs = f->vertices;
            if (qh_setsize(qh, vs) != dim + 1)
                continue; /* 'Qt' gives simplices only; never taken */
            size_t v[4];
            int ok = 1;
            for (int k = 0; k <= dim; k++) {
                const vertexT *vx = SETelem_(vs, k);
                const int id = qh_pointid(qh, vx->point);
                if (id < 0 || (size_t)id >= n)
                    ok = 0; /* the point at infinity, or not an input point */
                else
                    v[k] = sel ? sel[id] : (size_t)id;
            }
            if (!ok)
                continue;
            /* vertices in id order, so the circumcentre's round-off does not depend on
             * storage order or on the order qhull lists them */
            for (int a = 1; a <= dim; a++)
                for (int k = a; k > 0 && p->id[v[k - 1]] > p->id[v[k]]; k--) {
                    const size_t t = v[k];
                    v[k] = v[k - 1];
                    v[k - 1] = t;
                }
            candidate c = {0};
            if (!circumsphere(p, v, c.c, &c.r) || !(c.r > r_min) || !(c.r < r_max))
                continue;
            c.qr = quantise(c.r, q);
            for (int d = 0; d < 3; d++)
                c.qc[d] = quantise(c.c[d], q);
            for (int k = 0; k <= dim; k++)
                c.vid[k] = p->id[v[k]];
            rc = cands_push(cl, &c, err);
        }
    }
    const int rc2 = qhull_release(qh, err);
    free(pts);
    return rc ? rc : rc2;
}

/* §5.2: whether point x lies on or inside the convex hull of the neighbours nb
 * (coordinates taken relative to x over h).  Degenerate neighbourhoods: outside. */
static int inside_hull(const pfb_particles *p, const double x[3], double h, const hits *nb, coordT *buf,
                       FILE *sink, int *inside, pfb_err *err)
{
    const int dim = p->dim;
    *inside = 0;
    if (nb->n < (size_t)dim + 1)
        return PFB_OK;
    for (size_t k = 0; k < nb->n; k++) {
        double y[3];
        particle_pos(p, nb->h[k].i, y);
        for (int d = 0; d < dim; d++)
            buf[k * (size_t)dim + (size_t)d] = (y[d] - x[d]) / h;
    }
    qhT qh_qh;
    qhT *qh = &qh_qh;
    qh_zero(qh, sink);
    char cmd[] = "qhull";
    rewind(sink);
    const int code = qh_new_qhull(qh, dim, (int)nb->n, buf, False, cmd, sink, sink);
    int rc = PFB_OK;
    if (code == qh_ERRmem) {
        rc = pfb_err_set(err, PFB_ENOMEM, "out of memory in qhull (convex hull of %zu neighbours)", nb->n);
    } else if (code == 0) {
        /* x is the origin: its signed distance to a facet's plane is the offset */
        const double tol = 1e-12;
        int in = 1;
        for (const facetT *f = qh->facet_list; f && f->next; f = f->next)
            if (f->offset > tol) {
                in = 0;
                break;
            }
        *inside = in;
    }
    const int rc2 = qhull_release(qh, err);
    return rc ? rc : rc2;
}

/* §5.3: interpolate a particle at x from its neighbours nb (eqs. 18-19), reject it
 * below eps_m, otherwise insert it and take its mass from the neighbours (eq. 20).
 * Sets *added. */
static int insert_at(pfb_particles *p, const my_resample_params *rp, const pfb_kernel *w, const double x[3],
                     const hits *nb, double *wbuf, int *added, pfb_err *err)
{
    *added = 0;
    const double *rho = p->field[rp->f_rho].data;
    double wtot = 0.0;
    for (size_t k = 0; k < nb->n; k++) {
        const size_t j = nb->h[k].i;
        if (!(rho[j] > 0.0))
            return pfb_err_set(err, PFB_EINVAL,
                               "particle id %llu has density %g in field '%s'; eq. 19 needs rho_j > 0",
                               (unsigned long long)p->id[j], rho[j], p->field[rp->f_rho].name);
        wbuf[k] = p->m[j] / rho[j] * kernel_w(w, sqrt(nb->h[k].d2)); /* eq. 19 */
        wtot += wbuf[k];
    }
    if (!(wtot > 0.0))
        return PFB_OK; /* no weight: mass 0 < eps_m (caller counts) */
    /* eq. 18 with A = m: the share each neighbour gives, and the new mass */
    double m = 0.0, mv[3] = {0.0, 0.0, 0.0};
    double fval[PFB_MAX_FIELDS * 9] = {0.0};
    for (size_t k = 0; k < nb->n; k++) {
        const size_t j = nb->h[k].i;
        const double share = p->m[j] * wbuf[k] / wtot;
        m += share;
        for (int d = 0; d < p->dim; d++)
            mv[d] += share * p->v[d][j];
        /* eq. 18 for every registered field (density, stress, ...) */
        size_t off = 0;
        for (size_t f = 0; f < p->nfields; f++) {
            const size_t nc = (size_t)p->field[f].ncomp;
            const double *a = p->field[f].data + j * nc;
            for (size_t c = 0; c < nc; c++)
                fval[off + c] += a[c] * wbuf[k] / wtot;
            off += nc;
        }
    }
    if (!(m >= rp->eps_m) || !(m > 0.0))
        return PFB_OK; /* §5.3: too light to insert */
    double v[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < p->dim; d++)
        v[d] = mv[d] / m; /* momentum-consistent eq. 18 (see header) */
    int rc = particles_add(p, x, v, m, err);
    if (rc)
        return rc;
    const size_t i = p->n - 1;
    size_t off = 0;
    for (size_t f = 0; f < p->nfields; f++) {
        const size_t nc = (size_t)p->field[f].ncomp;
        memcpy(p->field[f].data + i * nc, fval + off, nc * sizeof(double));
        off += nc;
    }
    for (size_t k = 0; k < nb->n; k++) {
        const size_t j = nb->h[k].i;
        p->m[j] -= p->m[j] * wbuf[k] / wtot; /* eq. 20 */
    }
    *added = 1;
    return PFB_OK;
}

/* The directions whose caps of angle delta cover the sphere (2D: the circle),
 * for may_border_hole: 2D, 72 equally spaced angles (delta = pi / 72); 3D, the
 * centres of a 12 x 12 grid on each face of the cube [-1, 1]^3, normalised.
 * Every point of a face lies within sqrt(2) / 12 of a cell centre, and two
 * points at least 1 from the origin subtend an angle of at most 1.0472 times
 * their distance (|p/|p| - q/|q|| <= |p - q| and 2 asin(c / 2) <= 1.0472 c for
 * c <= 1): delta = 1.05 sqrt(2) / 12.
 * They come in groups (hole_dirs): 2D, 12 of 6 consecutive angles; 3D, 216 of
 * the 2 x 2 cells of a 6 x 6 grid on each face; each group has its centre
 * direction (2D the middle angle, 3D the normalised centre of its 6 x 6 cell)
 * and, for the whole set, gap = the largest angle between a direction and its
 * group's centre, computed. */
#define HOLE_DIRS_2D 72
#define HOLE_GRID 12
#define HOLE_DIRS_3D (6 * HOLE_GRID * HOLE_GRID)
#define HOLE_SUB 2 /* 3D: fine cells per coarse cell along an axis; 2D: HOLE_SUB_2D angles a group */
#define HOLE_SUB_2D 6
#define HOLE_GROUPS_3D (6 * (HOLE_GRID / HOLE_SUB) * (HOLE_GRID / HOLE_SUB))

typedef struct hole_dirs {
    double (*u)[3];   /* the directions, each group's consecutive */
    double (*c)[3];   /* the groups' centres */
    size_t nu, nc, per; /* directions, groups, directions per group */
    double delta, gap;
} hole_dirs;

static void unit(double q[3], double u[3])
{
    const double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    for (int d = 0; d < 3; d++)
        u[d] = q[d] / l;
}

static int hole_directions(int dim, hole_dirs *H, pfb_err *err)
{
    H->u = malloc(HOLE_DIRS_3D * sizeof *H->u);
    H->c = malloc(HOLE_GROUPS_3D * sizeof *H->c);
    if (!H->u || !H->c)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for the hole directions");
    if (dim == 2) {
        for (int k = 0; k < HOLE_DIRS_2D; k++) {
            const double a = 2.0 * M_PI * (k + 0.5) / HOLE_DIRS_2D;
            H->u[k][0] = cos(a);
            H->u[k][1] = sin(a);
            H->u[k][2] = 0.0;
        }
        for (int g = 0; g < HOLE_DIRS_2D / HOLE_SUB_2D; g++) {
            const double a = 2.0 * M_PI * (g + 0.5) / (HOLE_DIRS_2D / HOLE_SUB_2D);
            H->c[g][0] = cos(a);
            H->c[g][1] = sin(a);
            H->c[g][2] = 0.0;
        }
        H->nu = HOLE_DIRS_2D;
        H->nc = HOLE_DIRS_2D / HOLE_SUB_2D;
        H->per = HOLE_SUB_2D;
        H->delta = M_PI / HOLE_DIRS_2D;
    } else {
        const int G = HOLE_GRID / HOLE_SUB;
        size_t k = 0, g = 0;
        for (int f = 0; f < 6; f++)
            for (int A = 0; A < G; A++)
                for (int B = 0; B < G; B++, g++) {
                    double q[3];
                    q[f / 2] = f % 2 ? -1.0 : 1.0;
                    q[(f / 2 + 1) % 3] = -1.0 + (2.0 * A + 1.0) / G;
                    q[(f / 2 + 2) % 3] = -1.0 + (2.0 * B + 1.0) / G;
                    unit(q, H->c[g]);
                    for (int a = A * HOLE_SUB; a < (A + 1) * HOLE_SUB; a++)
                        for (int b = B * HOLE_SUB; b < (B + 1) * HOLE_SUB; b++, k++) {
                            q[(f / 2 + 1) % 3] = -1.0 + (2.0 * a + 1.0) / HOLE_GRID;
                            q[(f / 2 + 2) % 3] = -1.0 + (2.0 * b + 1.0) / HOLE_GRID;
                            unit(q, H->u[k]);
                        }
                }
        H->nu = k;
        H->nc = g;
        H->per = HOLE_SUB * HOLE_SUB;
        H->delta = 1.05 * sqrt(2.0) / HOLE_GRID;
    }
    H->gap = 0.0;
    for (size_t k = 0; k < H->nu; k++) {
        const double *c = H->c[k / H->per], *u = H->u[k];
        const double dot = fmin(1.0, c[0] * u[0] + c[1] * u[1] + c[2] * u[2]);
        H->gap = fmax(H->gap, acos(dot));
    }
    return PFB_OK;
}

/* Whether particle v can be a vertex of a Delaunay simplex whose empty
 * circumsphere has a radius R > r_min (a candidate's vertex), from its
 * neighbours nb closer than 2 r_min.  Such a sphere has v on its boundary and
 * contains the ball of radius r_min tangent to it at v, B(v + r_min u, r_min)
 * for its direction u, which is therefore empty.  A neighbour w at d = w - v
 * lies inside that ball iff the angle between d and u is below
 * alpha = acos(|d| / (2 r_min)).  So v can be excluded when every direction u
 * has such a neighbour; it is tested on the directions U whose caps of angle
 * delta cover the sphere, each needing a neighbour within alpha - delta, so
 * that every direction within delta of it has one within alpha.  A test that
 * may keep a particle it could exclude, never the converse.
 * A group's directions are within gap of its centre, so a neighbour within
 * alpha - delta - gap of the centre is within alpha - delta of each of them:
 * the group is covered without testing them (the same answer, with 1e-9 rad
 * to spare for the round-off of the two tests; a neighbour whose alpha - delta
 * - gap is below 1e-6 is not used for it).  In the interior a group's test
 * settles 4 (2D: 6) directions at once. */
static int may_border_hole(const pfb_particles *p, size_t v, const hits *nb, double r_min, const hole_dirs *H,
                           double (*dn)[5])
{
    double x[3];
    particle_pos(p, v, x);
    size_t m = 0;
    const double cd = cos(H->delta), sd = sin(H->delta), margin = H->delta + H->gap + 1e-9;
    for (size_t a = 0; a < nb->n; a++) {
        const size_t j = nb->h[a].i;
        if (j == v)
            continue;
        const double r = sqrt(nb->h[a].d2), ca = r / (2.0 * r_min); /* cos alpha */
        if (!(ca < cd) || !(r > 0))
            continue; /* alpha <= delta: no margin */
        double y[3];
        particle_pos(p, j, y);
        for (int d = 0; d < 3; d++)
            dn[m][d] = (y[d] - x[d]) / r;
        dn[m][3] = ca * cd + sqrt(1.0 - ca * ca) * sd; /* cos(alpha - delta) */
        const double wide = acos(ca) - margin;
        dn[m][4] = wide > 1e-6 ? cos(wide) : 2.0; /* cos(alpha - delta - gap), or never */
        m++;
    }
    /* the groups in a spread order (a stride coprime to their number), so
     * that a particle at a surface, open over a half-space, is found in a few */
    const size_t stride = H->nc == HOLE_DIRS_2D / HOLE_SUB_2D ? 5 : 91;
    for (size_t k = 0, g = 0; k < H->nc; k++, g = (g + stride) % H->nc) {
        const double *c = H->c[g];
        int covered = 0;
        for (size_t a = 0; a < m && !covered; a++)
            covered = dn[a][0] * c[0] + dn[a][1] * c[1] + dn[a][2] * c[2] > dn[a][4];
        for (size_t q = g * H->per; q < (g + 1) * H->per && !covered; q++) {
            const double *u = H->u[q];
            int one = 0;
            for (size_t a = 0; a < m && !one; a++)
                one = dn[a][0] * u[0] + dn[a][1] * u[1] + dn[a][2] * u[2] > dn[a][3];
            if (!one)
                return 1;
        }
    }
    return 0;
}

/* keep[i] = may_border_hole for particles 0 .. n - 1, on `threads` threads
 * when parallel (sim_parallel's answer):
 * each particle's answer depends on it alone, so the same for any count.  A
 * failure (out of memory) is the one at the smallest particle. */
static int select_border(const pfb_particles *p, size_t n, const bins *b, double r_min, const hole_dirs *H,
                         unsigned char *keep, int threads, int parallel, pfb_err *err)
{
    int rc = PFB_OK;
    size_t first = SIZE_MAX;
#pragma omp parallel num_threads(threads) if (parallel)
    {
        hits nb = {0};
        double(*dn)[5] = NULL;
        size_t cap_dn = 0, at = SIZE_MAX;
        int trc = PFB_OK;
        pfb_err e;
#pragma omp for schedule(static)
        for (size_t i = 0; i < n; i++) {
            if (trc)
                continue;
            double x[3];
            particle_pos(p, i, x);
            trc = bins_query(b, p, x, 2.0 * r_min, 0, &nb, &e); /* (any order: a yes or no) */
            if (!trc && nb.n > cap_dn) {
                double(*q)[5] = realloc(dn, 2 * nb.n * sizeof *q);
                if (!q)
                    trc = pfb_err_set(&e, PFB_ENOMEM, "out of memory for %zu neighbours", nb.n);
                else {
                    dn = q;
                    cap_dn = 2 * nb.n;
                }
            }
            if (trc)
                at = i;
            else
                keep[i] = (unsigned char)may_border_hole(p, i, &nb, r_min, H, dn);
        }
        free(nb.h);
        free(dn);
#pragma omp critical(my_select_border)
        if (trc && at < first) {
            first = at;
            rc = trc;
            *err = e;
        }
    }
    return rc;
}

int my_upsample(pfb_sim *sim, const my_resample_params *rp, my_resample_stats *st, pfb_err *err)
{
    int rc = check_params(sim, rp, 1, err);
    if (rc)
        return rc;
    pfb_particles *p = &sim->p;
    const int dim = p->dim;
    const size_t n0 = p->n;
    if (n0 < (size_t)dim + 2)
        return PFB_OK; /* too few points for a Delaunay triangulation */
    pfb_kernel w;
    rc = kernel_init(&w, PFB_KERNEL_CUBIC, dim, rp->h, err); /* eq. 3 */
    if (rc)
        return rc;

    char *sbuf = NULL;
    size_t slen = 0;
    FILE *sink = open_memstream(&sbuf, &slen); /* qhull's output and messages, never printed */
    if (!sink)
        return pfb_err_set(err, PFB_ENOMEM, "cannot open a memory stream for qhull's messages");
    cands cl = {0};
    bins b = {0};
    hits nb = {0};
    coordT *hbuf = NULL;
    double *wbuf = NULL;
    size_t cap_buf = 0, inserted = 0, rej_hull = 0, rej_mass = 0, rej_close = 0, rej_solid = 0;
    int singular = 0;

    const double reach = fmax(fmax(rp->h, rp->eps_d), rp->whole ? 0.0 : 2.0 * rp->r_min);
    b.dim = dim;
    b.inv = 1.0 / reach;
    rc = bins_build(&b, p, n0, err);
    if (rc)
        goto done;
    const double t0 = pfb_now();
    size_t *sel = NULL, nsel = 0;
    if (!rp->whole) {
        /* the particles that can be a candidate's vertex (may_border_hole) */
        hole_dirs H = {0};
        sel = malloc(n0 * sizeof *sel);
        unsigned char *keep = sel ? malloc(n0) : NULL;
        if (!keep)
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory selecting among %zu particles", n0);
        if (!rc)
            rc = hole_directions(dim, &H, err);
        if (!rc)
            rc = select_border(p, n0, &b, rp->r_min, &H, keep, sim_threads(sim), sim_parallel(sim, n0), err);
        for (size_t i = 0; i < n0 && !rc; i++)
            if (keep[i])
                sel[nsel++] = i;
        free(keep);
        free(H.u);
        free(H.c);
    }
    if (st)
        st->triangulated += rp->whole ? n0 : nsel;
    if (!rc && (rp->whole || nsel >= (size_t)dim + 2))
        rc = delaunay_candidates(p, sel, nsel, rp->r_min, rp->h, sink, &sbuf, &slen, &cl, &singular, err);
    if (!rc && !rp->whole) {
        /* a simplex of the selection's triangulation is one of all particles'
         * iff its circumsphere holds no particle left out (a sphere through
         * its vertices: 1e-9 of R for their round-off) */
        size_t k = 0;
        for (size_t a = 0; a < cl.n && !rc; a++) {
            rc = bins_query(&b, p, cl.c[a].c, cl.c[a].r, 0, &nb, err);
            int empty = 1;
            for (size_t e = 0; e < nb.n && empty; e++)
                empty = !(nb.h[e].d2 < cl.c[a].r * cl.c[a].r * (1.0 - 1e-9));
            if (empty)
                cl.c[k++] = cl.c[a];
        }
        cl.n = k;
    }
    free(sel);
    st->seconds_delaunay += pfb_now() - t0;
    if (rc || singular || cl.n == 0)
        goto done;
    qsort(cl.c, cl.n, sizeof *cl.c, candidate_cmp);

    const double eps2 = rp->eps_d * rp->eps_d, h2 = rp->h * rp->h;
    for (size_t k = 0; k < cl.n && !rc; k++) {
        const candidate *c = &cl.c[k];
        /* a rigid body is a hole the fluid surrounds (inside the hull): no
         * particle within eps_d / 2 of one */
        int solid = 0;
        for (size_t bb = 0; bb < sim->bodies.n && !solid; bb++) {
            double g[3], cx[3] = {c->c[0], c->c[1], dim == 3 ? c->c[2] : 0.0};
            solid = body_sdf(&sim->bodies.b[bb], dim, cx, g) < 0.5 * rp->eps_d;
        }
        if (solid) {
            rej_solid++;
            continue;
        }
        rc = bins_query(&b, p, c->c, reach, 1, &nb, err);
        if (rc)
            break;
        /* duplicate of a particle inserted earlier in this pass (see header) */
        int close = 0;
        for (size_t a = 0; a < nb.n && !close; a++)
            close = nb.h[a].i >= n0 && nb.h[a].d2 < eps2;
        if (close) {
            rej_close++;
            continue;
        }
        /* keep the neighbours within the kernel support h (still in id order) */
        size_t m = 0;
        for (size_t a = 0; a < nb.n; a++)
            if (nb.h[a].d2 < h2)
                nb.h[m++] = nb.h[a];
        nb.n = m;
        if (nb.n > cap_buf) {
            size_t ncap = 2 * nb.n;
            coordT *q1 = realloc(hbuf, ncap * (size_t)dim * sizeof *q1);
            if (q1)
                hbuf = q1;
            double *q2 = realloc(wbuf, ncap * sizeof *q2);
            if (q2)
                wbuf = q2;
            if (!q1 || !q2) {
                rc = pfb_err_set(err, PFB_ENOMEM, "out of memory for %zu up-sampling neighbours", ncap);
                break;
            }
            cap_buf = ncap;
        }
        int inside = 0;
        rc = inside_hull(p, c->c, rp->h, &nb, hbuf, sink, &inside, err); /* §5.2 */
        if (rc)
            break;
        if (!inside) {
            rej_hull++;
            continue;
        }
        int added = 0;
        rc = insert_at(p, rp, &w, c->c, &nb, wbuf, &added, err); /* §5.3 */
        if (rc)
            break;
        if (!added) {
            rej_mass++;
            continue;
        }
        inserted++;
        rc = bins_append(&b, p, err);
    }
done:
    if (st) {
        st->candidates += cl.n;
        st->inserted += inserted;
        st->rejected_hull += rej_hull;
        st->rejected_mass += rej_mass;
        st->rejected_close += rej_close;
        st->rejected_solid += rej_solid;
    }
    if (inserted)
        sim_positions_changed(sim);
    fclose(sink);
    free(sbuf);
    free(cl.c);
    bins_free(&b);
    free(nb.h);
    free(hbuf);
    free(wbuf);
    return rc;
}

/* mao_yang_mirrors.c — the walls and rigid bodies of the Mao–Yang back end as
 * mirror particles.  The paper says only that walls follow "the method in
 * [Muller et al. 2004]" (§3) and gives no method for its Fig. 12's bodies; these
 * are the choices, and the pairs the mirrors make with the real particles (the
 * real pairs are the framework's kept list, core/halflist.h).
 *
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
 *  - Rigid bodies (issue 7; the paper's Fig. 12 gives no method): a body is a
 *    moving wall.  Particles within h of it get mirrors across its tangent
 *    plane at the nearest surface point, moving with the body's material point
 *    there (free slip, or no slip with wall_no_slip), so the fluid next to it
 *    has its full density and pressure; every force a mirror exerts on a
 *    particle (viscosity, stress and artificial stress before the prediction,
 *    the pressure of the velocity correction after it) acts back on the body,
 *    equal and opposite, at the surface point midway between the two
 *    (body_nonpressure_impulse, my_body_pressure_impulse).  Right after the
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
 *  - The mirrors' pairs, at every call (twice a step: at x_n and at x*), from
 *    the kept list of the real pairs (mirror_rows_from_list, below), on the
 *    run's threads.  Not kept from one list build to the next with a skin as
 *    the real pairs are: the list stays valid while the particles' moves
 *    relative to each other stay within 0.45 (hl - h) (core/halflist.h), and
 *    a uniform flow along a floor keeps it, but a mirror depends on each
 *    particle's own distance to the wall.  A skin for that would bound every
 *    particle's absolute move: 0.9 mm at the list's skin of 0.1 h (h = 20 mm
 *    at 60k particles), while at t = 0.1 s the 3D dam break's particles on the
 *    floor move at up to 1.6 m/s (spacing 0.01 m), 1.0 mm in the 60k run's
 *    step of 0.63 ms. */
#include "mao_yang.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mao_yang_internal.h"

/* ---- wall mirrors -------------------------------------------------------------- */

static void mat_reflect(double M[9], const double n[3])
{
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            M[3 * a + b] = (a == b ? 1.0 : 0.0) - 2.0 * n[a] * n[b];
}

static void put_ghost(my_ghost *g, size_t src, int body, const double M[9], const double x[3], const double v[3])
{
    g->src = src;
    g->body = body;
    memcpy(g->M, M, sizeof g->M);
    for (int k = 0; k < 3; k++) {
        g->x[k] = x[k];
        g->v[k] = v[k];
    }
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

/* The mirrors of particle i if it is within h of a wall (across its tangent
 * plane; across each near face of a box container and each combination of them
 * at corners): their count, and with out, the mirrors written to out[0 ..]
 * (the count pass and the writing pass run this same code, so they agree).
 * Clears *flat when i is outside a wall.  Marks, in s->near, every
 * particle that can be within h of a mirror: a mirror across a box face lies
 * within h beyond it, so such a particle is within h of the face (its distance
 * below h, of either sign); a mirror across the tangent plane of a wall or body
 * at distance phi < h from it has sdf at most 3 phi (the sdf changes by at most
 * the distance moved, 2 phi), so such a particle has sdf below 4 h. */
static inline __attribute__((always_inline)) size_t ghosts_of(const my_state *s, const pfb_sim *sim,
                                                              const double *box, double t, size_t i, my_ghost *out,
                                                              int vel, int *flat)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
    const double v[3] = {p->v[0][i], p->v[1][i], p->v[2][i]};
    unsigned char near = 0;
    size_t c = 0;
    double dmin = s->h; /* (the distance to the nearest wall, up to h) */
    for (size_t w = 0; w < sim->walls.n; w++) {
        const pfb_shape *sh = &sim->walls.s[w];
        double vw[3];
        if (sh->type == PFB_SHAPE_BOX && sh->inside) {
            double face[3] = {0, 0, 0};
            int axes[3], na = 0;
            for (int k = 0; k < dim; k++) {
                const double lo = box[6 * w + k], hi = box[6 * w + 3 + k];
                double dlo = x[k] - lo, dhi = hi - x[k];
                double d = dlo <= dhi ? dlo : dhi;
                near |= d < s->h;
                *flat &= d >= 0;
                dmin = d < dmin ? d : dmin;
                if (d >= 0 && d < s->h) {
                    face[k] = dlo <= dhi ? lo : hi;
                    axes[na++] = k;
                }
            }
            if (!out) {
                c += ((size_t)1 << na) - 1;
                continue;
            }
            if (na > 0 && vel) /* (the wall's velocity at the particle: for its mirrors only) */
                shape_velocity_at(sh, dim, t, x, vw);
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
                    if (vel)
                        mirror_velocity(s, dim, n, vw, vg);
                }
                put_ghost(out + c++, i, -1, M, xg, vg);
            }
        } else {
            double gr[3] = {0, 0, 0};
            double phi = shape_sdf(sh, dim, t, x, gr);
            near |= phi < 4.0 * s->h;
            *flat &= phi >= 0;
            dmin = phi < dmin ? phi : dmin;
            if (!(phi >= 0 && phi < s->h))
                continue;
            if (!out) {
                c++;
                continue;
            }
            double M[9], xg[3] = {0, 0, 0}, vg[3] = {v[0], v[1], v[2]};
            mat_reflect(M, gr);
            for (int k = 0; k < dim; k++)
                xg[k] = x[k] - 2.0 * phi * gr[k];
            double xw[3] = {x[0] - phi * gr[0], x[1] - phi * gr[1], x[2] - phi * gr[2]};
            if (vel) {
                shape_velocity_at(sh, dim, t, xw, vw);
                mirror_velocity(s, dim, gr, vw, vg);
            }
            put_ghost(out + c++, i, -1, M, xg, vg);
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
        if (!out) {
            c++;
            continue;
        }
        double M[9], xg[3] = {0, 0, 0}, vg[3] = {v[0], v[1], v[2]}, vb[3];
        mat_reflect(M, gr);
        for (int k = 0; k < dim; k++)
            xg[k] = x[k] - 2.0 * phi * gr[k];
        double xs[3] = {x[0] - phi * gr[0], x[1] - phi * gr[1], x[2] - phi * gr[2]};
        if (vel) {
            body_velocity_at(B, dim, xs, vb);
            mirror_velocity(s, dim, gr, vb, vg);
        }
        put_ghost(out + c++, i, (int)b, M, xg, vg);
    }
    s->near[i] = near;
    /* floor(255 dmin / h) (a dmin below 0 leaves flat_inside, which alone reads
     * wq) */
    s->wq[i] = dmin > 0 ? (unsigned char)(255.0 * (dmin / s->h)) : 0;
    return c;
}

/* The mirrors of all particles on the run's threads, each taking one
 * contiguous range of particles: first each particle's count (and s->near,
 * flat_inside), into gs[i + 1]; then gs as offsets, the ranges' totals
 * summed in thread order; then each particle's mirrors written at gs[i], so
 * that they come in their sources' order whatever the threads; then the
 * combined arrays, each thread copying its own share. */
static int build_ghosts(my_state *s, pfb_sim *sim, double t, int vel, pfb_err *err)
{
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    int rc = pfb_grow((void **)&s->gs, &s->cap_gs, n + 1, sizeof *s->gs, err);
    if (rc)
        return rc;
    int flat = sim->bodies.n == 0 && !sim_periodic(sim);
    for (size_t w = 0; w < sim->walls.n; w++)
        flat &= sim->walls.s[w].type == PFB_SHAPE_PLANE ||
                (sim->walls.s[w].type == PFB_SHAPE_BOX && sim->walls.s[w].inside);
    /* the box containers' faces at t, once: c_k -+ half_k */
    if ((rc = pfb_grow((void **)&s->wbox, &s->cap_wbox, 6 * sim->walls.n, sizeof *s->wbox, err)))
        return rc;
    for (size_t w = 0; w < sim->walls.n; w++) {
        const pfb_shape *sh = &sim->walls.s[w];
        if (sh->type != PFB_SHAPE_BOX || !sh->inside)
            continue;
        double c[3];
        shape_centre(sh, t, c);
        for (int k = 0; k < 3; k++) {
            s->wbox[6 * w + k] = c[k] - sh->half[k];
            s->wbox[6 * w + 3 + k] = c[k] + sh->half[k];
        }
    }
    const double *box = s->wbox;
    const int nt = pairtasks_threads(sim), par = sim_parallel_pairs(sim, n);
    size_t off[PFB_MAX_THREADS + 1] = {0};
    s->gs[0] = 0;
#pragma omp parallel num_threads(nt) if (par)
    {
        const int u = pfb_thread_num(), nr = pfb_team_size();
        const size_t lo = n * (size_t)u / (size_t)nr, hi = n * (size_t)(u + 1) / (size_t)nr;
        int tflat = 1;
        size_t c = 0;
        for (size_t i = lo; i < hi; i++) {
            const size_t ci = ghosts_of(s, sim, box, t, i, NULL, 0, &tflat);
            s->gs[i + 1] = (uint32_t)ci;
            c += ci;
        }
        off[u + 1] = c;
#pragma omp critical(my_build_ghosts)
        flat &= tflat;
#pragma omp barrier
#pragma omp single
        {
            for (int v = 0; v < nr; v++)
                off[v + 1] += off[v];
            s->ng = off[nr];
            const size_t ntot = n + s->ng;
            rc = pfb_grow((void **)&s->g, &s->cap_g, s->ng, sizeof *s->g, err);
            if (!rc && ntot > s->cap_c) {
                size_t nc = ntot + ntot / 4 + 64;
                for (int k = 0; k < 3; k++) {
                    double *a = realloc(s->xc[k], nc * sizeof *a);
                    if (a)
                        s->xc[k] = a;
                    double *b = realloc(s->vc[k], nc * sizeof *b);
                    if (b)
                        s->vc[k] = b;
                    if (!a || !b)
                        rc = pfb_err_set(err, PFB_ENOMEM, "mao_yang: out of memory for %zu mirror particles", s->ng);
                }
                if (!rc)
                    s->cap_c = nc;
            }
        }
        if (!rc) {
            size_t at = off[u];
            for (size_t i = lo; i < hi; i++) {
                const uint32_t ci = s->gs[i + 1];
                s->gs[i + 1] = (uint32_t)(at + ci);
                if (ci) {
                    int dummy = 1;
                    ghosts_of(s, sim, box, t, i, s->g + at, vel, &dummy);
                }
                at += ci;
            }
            for (int k = 0; k < 3; k++) {
                memcpy(s->xc[k] + lo, p->x[k] + lo, (hi - lo) * sizeof(double));
                for (size_t q = off[u]; q < off[u + 1]; q++)
                    s->xc[k][n + q] = s->g[q].x[k];
                if (!vel)
                    continue;
                memcpy(s->vc[k] + lo, p->v[k] + lo, (hi - lo) * sizeof(double));
                for (size_t q = off[u]; q < off[u + 1]; q++)
                    s->vc[k][n + q] = s->g[q].v[k];
            }
        }
    }
    s->flat_inside = flat;
    return rc;
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

/* Each real particle's mirrors within h, from the kept list of the real pairs
 * (s->flat_inside: every mirror across a plane wall or a face of a box
 * container, singly or at a corner, and every particle on the fluid's side of
 * each).  A reflection is an isometry, and for two points on the same side of
 * a plane it moves one away from the other: |x_i - M x_j| >= |x_i - x_j| (at a
 * box corner, per axis: |(x_i - f) + (x_j - f)| >= |x_i - x_j| when both
 * offsets from the face f share their sign).  So mirror j' is within h of i
 * only if j = i or (i, j) is within h, a pair of the kept list; its distance is
 * tested as mirror_rows's search tests it (dx^2 + dy^2 (+ dz^2) < h^2 on the
 * combined coordinates), and each row sorted ascending: the same rows, bit for
 * bit.  Its work is the listed pairs of particles with mirrors, where the
 * search built a grid and a full list of every particle near a wall and every
 * mirror, most of whose pairs it then dropped. */
static inline int mirror_within(const double *const x[3], int dim, double hh, size_t i, size_t gq)
{
    const double dx = x[0][i] - x[0][gq], dy = x[1][i] - x[1][gq];
    double r2 = dx * dx + dy * dy;
    if (dim == 3) {
        const double dz = x[2][i] - x[2][gq];
        r2 += dz * dz;
    }
    return r2 < hh;
}

/* The (particle, mirror) pairs within h that row i finds, appended to the
 * running thread's buffer me[t] (*m entries so far, counted in the thread: a
 * count in the state would share a cache line with the other threads'), as
 * (row << 32 | mirror): the row's own mirrors, and for each of its list's
 * pairs (i, j) j's mirrors near i and i's near j.  Returns 0 or PFB_ENOMEM
 * (the buffer's growth). */
static int mirror_gather(my_state *s, size_t n, int t, size_t i, size_t *mt, pfb_err *err)
{
    const uint32_t *gs = s->gs;
    const pfb_halflist *L = &s->L;
    const double *const x[3] = {s->xc[0], s->xc[1], s->xc[2]}; /* (read once: the pushes store through s) */
    const int dim = s->dim;
    const double hh = s->hh;
    size_t m = *mt;
    int rc;
#define MY_PUSH(row, q)                                                                                         \
    do {                                                                                                        \
        if (m == s->cap_me[t] && (rc = pfb_grow((void **)&s->me[t], &s->cap_me[t], m + 1, sizeof **s->me, err))) \
            return rc;                                                                                          \
        s->me[t][m++] = (uint64_t)(row) << 32 | (q);                                                            \
    } while (0)
    const size_t gi0 = gs[i], gi1 = gs[i + 1];
    for (size_t q = gi0; q < gi1; q++)
        if (mirror_within(x, dim, hh, i, n + q))
            MY_PUSH(i, q);
    /* a pair's mirror is within h of i only if i is near (build_ghosts), and
     * of j only if i has mirrors: most rows, away from the walls, have
     * neither.  Nor is it when the two particles' distances to their nearest
     * walls add to h or more: across any face the mirror's offset from the
     * other particle is the sum of their distances to that face (wq's sum at
     * 256 or more: the distances add to h (1 + 1/255) or more, the quantum
     * covering the rounding of wq and of the positions) */
    if (s->near[i] || gi0 != gi1) {
        const unsigned wi = s->wq[i];
        for (size_t e = L->ls[i]; e < L->ls[i + 1]; e++) {
            const size_t j = L->lj[e];
            if (wi + s->wq[j] >= 256u)
                continue;
            const size_t gj0 = gs[j], gj1 = gs[j + 1];
            for (size_t q = gj0; q < gj1; q++)
                if (mirror_within(x, dim, hh, i, n + q))
                    MY_PUSH(i, q);
            for (size_t q = gi0; q < gi1; q++)
                if (mirror_within(x, dim, hh, j, n + q))
                    MY_PUSH(j, q);
        }
    }
#undef MY_PUSH
    *mt = m;
    return PFB_OK;
}

/* The mirrors' rows from the kept list: the pairs within h gathered on the
 * run's threads, chunk by chunk of MY_ROW_CHUNK rows (each pair once: a list
 * pair is one row's), then laid out by rows, the chunks in order.  That order
 * is each row's ascending order, with no sort: a row r gets entries only from
 * rows i <= r (a half row's partners are above it), from row i < r the mirrors
 * of i, and from r itself its own mirrors and then its partners' in increasing
 * j; a chunk's rows are gathered in order, and an earlier chunk's sources are
 * all below a later one's.  (Not on a ring, where a row's partners wrap:
 * flat_inside excludes periodic axes.)  The rows do not depend on which thread
 * gathered which chunk. */
#define MY_ROW_CHUNK 512

static int mirror_rows_from_list(my_state *s, pfb_sim *sim, pfb_err *err)
{
    const size_t n = sim->p.n, nch = (n + MY_ROW_CHUNK - 1) / MY_ROW_CHUNK;
    int rc = pfb_grow((void **)&s->mseg, &s->cap_mseg, 3 * nch, sizeof *s->mseg, err);
    if (rc)
        return rc;
    const int nt = pairtasks_threads(sim), par = sim_parallel_pairs(sim, n);
    size_t first = SIZE_MAX; /* the row of the first failure (out of memory) */
#pragma omp parallel num_threads(nt) if (par)
    {
        const int t = pfb_thread_num();
        pfb_err e;
        int trc = PFB_OK;
        size_t at = SIZE_MAX, mt = 0;
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < nch; c++) {
            const size_t lo = c * MY_ROW_CHUNK, hi = lo + MY_ROW_CHUNK < n ? lo + MY_ROW_CHUNK : n;
            s->mseg[3 * c] = (size_t)t; /* chunk c's entries: me[t][mseg[3c+1] .. mseg[3c+2]) */
            s->mseg[3 * c + 1] = mt;
            for (size_t i = lo; i < hi; i++)
                if (!trc && (trc = mirror_gather(s, n, t, i, &mt, &e)))
                    at = i;
            s->mseg[3 * c + 2] = mt;
        }
#pragma omp critical(my_mirror_rows)
        if (trc && at < first) {
            first = at;
            rc = trc;
            *err = e;
        }
    }
    if (rc)
        return rc;
    size_t m = 0;
    for (size_t c = 0; c < nch; c++)
        m += s->mseg[3 * c + 2] - s->mseg[3 * c + 1];
    if ((rc = pfb_grow((void **)&s->mj, &s->cap_mj, m, sizeof *s->mj, err)))
        return rc;
    /* rows by a count, then the entries chunk by chunk */
    memset(s->ms, 0, (n + 1) * sizeof *s->ms);
    for (size_t c = 0; c < nch; c++) {
        const uint64_t *me = s->me[s->mseg[3 * c]];
        for (size_t e = s->mseg[3 * c + 1]; e < s->mseg[3 * c + 2]; e++)
            s->ms[(me[e] >> 32) + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        s->ms[i + 1] += s->ms[i];
    for (size_t c = 0; c < nch; c++) {
        const uint64_t *me = s->me[s->mseg[3 * c]];
        for (size_t e = s->mseg[3 * c + 1]; e < s->mseg[3 * c + 2]; e++) {
            const size_t i = (size_t)(me[e] >> 32);
            s->mj[s->ms[i]++] = (uint32_t)me[e];
        }
    }
    for (size_t i = n; i > 0; i--)
        s->ms[i] = s->ms[i - 1];
    s->ms[0] = 0;
    return PFB_OK;
}

/* The pairs at the current positions: the kept list of the real particles (a
 * rebuild sorts the storage, so it comes first), then the mirrors and their
 * rows. */
int my_neighbours(my_state *s, pfb_sim *sim, double t, int vel, pfb_err *err)
{
    int built;
    if (sim_sheared(sim)) { /* the sliding images where the positions are: at t */
        period_le_at(&sim->period, t);
        s->per = sim->period;
    }
    s->op_w = 0;
    s->compact = 0; /* (the positions have moved since the density pass listed the pairs) */
    int rc = halflist_ensure(&s->L, sim, -1.0, 0, &built, err);
    if (!rc)
        rc = my_ensure_particles(s, sim->p.n, err);
    if (!rc)
        rc = build_ghosts(s, sim, t, vel, err);
    if (!rc)
        rc = s->flat_inside ? mirror_rows_from_list(s, sim, err) : mirror_rows(s, sim, err);
    return rc;
}

/* The mirrors and the gather's buffers, made again by the next my_neighbours:
 * not beside the re-sampling's triangulation (which sets the run's peak).
 * The rows are left empty, so no pass reads a freed mirror. */
void my_mirrors_release(my_state *s, size_t n)
{
    for (int t = 0; t < PFB_MAX_THREADS; t++) {
        free(s->me[t]);
        s->me[t] = NULL;
        s->cap_me[t] = 0;
    }
    free(s->g);
    s->g = NULL;
    s->cap_g = s->ng = 0;
    if (s->ms)
        memset(s->ms, 0, (n + 1) * sizeof *s->ms);
}

int my_mirror_pairs(void *state, pfb_sim *sim, double *h, const uint32_t **ms, const uint32_t **mj, size_t *ng,
                    const double *const **x, pfb_err *err)
{
    my_state *s = state;
    int rc = my_neighbours(s, sim, sim->t, 1, err);
    if (rc)
        return rc;
    *h = s->h;
    *ms = s->ms;
    *mj = s->mj;
    *ng = s->ng;
    *x = (const double *const *)s->xc;
    return PFB_OK;
}

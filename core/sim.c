/* sim.c — simulation state and the cached neighbour list handed to solvers. */
#include "sim.h"

#include <math.h>

#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

int sim_init(pfb_sim *sim, int dim, uint64_t seed, pfb_err *err)
{
    memset(sim, 0, sizeof *sim);
    sim->dim = dim;
    sim->f_image = -1;
    rng_seed(&sim->rng, seed);
    return particles_init(&sim->p, dim, err);
}

void sim_free(pfb_sim *sim)
{
    if (!sim)
        return;
    particles_free(&sim->p);
    grid_free(&sim->grid);
    nlist_free(&sim->nl);
    periodic_ws_free(sim->pws);
    free(sim->pws);
    memset(sim, 0, sizeof *sim);
}

/* sim->grid of cell size h built on the points x (the particles' positions,
 * or a checkpoint's sort positions). */
static int sim_grid_build_on(pfb_sim *sim, double h, const double *const x[3], pfb_err *err)
{
    if (sim->grid.h != h || sim->grid.dim != sim->dim) {
        grid_free(&sim->grid);
        int rc = grid_init(&sim->grid, sim->dim, h, err);
        if (rc)
            return rc;
    }
    sim->grid.threads = sim->threads;
    sim->grid_gen++;
    return grid_build(&sim->grid, x, sim->p.n, err);
}

static int sim_grid_build(pfb_sim *sim, double h, pfb_err *err)
{
    return sim_grid_build_on(sim, h, (const double *const *)sim->p.x, err);
}

double sim_sort_h(const pfb_sim *sim)
{
    return sim->sort_h > 0 ? sim->sort_h : 2.0 * sim->spacing;
}

int sim_set_periodic(pfb_sim *sim, int d, pfb_err *err)
{
    period_set(&sim->period, d, sim->domain_lo[d], sim->domain_hi[d] - sim->domain_lo[d]);
    sim->f_image = particles_find_field(&sim->p, "image");
    if (sim->f_image >= 0)
        return PFB_OK;
    return particles_add_field(&sim->p, "image", 3, &sim->f_image, err);
}

int sim_set_shear(pfb_sim *sim, double shear_rate, pfb_err *err)
{
    int rc = period_set_le(&sim->period, shear_rate * sim->period.L[1], err);
    if (!rc)
        period_le_at(&sim->period, sim->t);
    return rc;
}

int sim_periodic_list(pfb_sim *sim, double h, const double *const x[3], size_t n, pfb_nlist *out, pfb_err *err)
{
    if (!sim->pws && !(sim->pws = calloc(1, sizeof *sim->pws)))
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for the periodic list's workspace");
    return periodic_neighbours(sim->pws, &sim->period, sim->dim, h, sim_parallel_pairs(sim, n) ? sim_threads(sim) : 1,
                               x, n, out, err);
}

int sim_neighbours_fresh(const pfb_sim *sim, double h, pfb_nlist *out, pfb_err *err)
{
    const double *const *x = (const double *const *)sim->p.x;
    int rc;
    if (sim_periodic(sim)) {
        pfb_periodic_ws w;
        memset(&w, 0, sizeof w);
        rc = periodic_neighbours(&w, &sim->period, sim->dim, h, 1, x, sim->p.n, out, err);
        periodic_ws_free(&w);
        return rc;
    }
    pfb_grid g;
    memset(&g, 0, sizeof g);
    rc = grid_init(&g, sim->dim, h, err);
    if (!rc)
        rc = grid_build(&g, x, sim->p.n, err);
    if (!rc)
        rc = grid_neighbours(&g, x, out, err);
    grid_free(&g);
    return rc;
}

int sim_neighbours(pfb_sim *sim, double h, const pfb_nlist **out, pfb_err *err)
{
    if (!(sim->nl_h == h) && sim_periodic(sim)) {
        /* its own grid (the workspace's): sim->grid stays the last sort's */
        int rc = sim_periodic_list(sim, h, (const double *const *)sim->p.x, sim->p.n, &sim->nl, err);
        if (rc) {
            sim->nl_h = 0.0;
            return rc;
        }
        sim->nl_h = h;
    }
    if (!(sim->nl_h == h)) {
        int rc = sim_grid_build(sim, h, err);
        if (!rc)
            rc = grid_neighbours(&sim->grid, (const double *const *)sim->p.x, &sim->nl, err);
        if (rc) {
            sim->nl_h = 0.0;
            return rc;
        }
        sim->nl_h = h;
    }
    *out = &sim->nl;
    return PFB_OK;
}

int sim_threads(const pfb_sim *sim)
{
    if (sim->threads > 0)
        return sim->threads;
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int sim_parallel(const pfb_sim *sim, size_t n)
{
    return sim->threads > 1 || n >= PFB_PARALLEL_MIN;
}

int sim_parallel_pairs(const pfb_sim *sim, size_t n)
{
    return sim->threads > 1 || n >= PFB_PARALLEL_MIN_PAIRS;
}

void sim_positions_changed(pfb_sim *sim)
{
    sim->nl_h = 0.0;
}

int sim_sort_particles(pfb_sim *sim, double h, pfb_err *err)
{
    return sim_sort_particles_except(sim, h, 0, err);
}

int sim_sort_particles_except(pfb_sim *sim, double h, uint64_t skip, pfb_err *err)
{
    if (sim_periodic(sim))
        period_wrap_le(&sim->period, sim->dim, sim->p.x, sim->p.v, sim->p.n,
                       sim->f_image >= 0 ? sim->p.field[sim->f_image].data : NULL);
    sim->t_sort = sim->period.le ? sim->period.le_t : sim->t;
    int rc = sim_grid_build(sim, h, err);
    if (rc)
        return rc;
    sim_positions_changed(sim);
    /* cell order, and by id within a cell, so the storage order after a sort
     * depends only on positions and ids.  The permutation is the grid's order
     * re-sorted by id within each cell in place, so afterwards the grid describes
     * the new storage (same cells): sorted position k is storage index k, and
     * xs[k] (refilled) its position */
    pfb_grid *g = &sim->grid;
    const uint64_t *id = sim->p.id;
    const size_t n = sim->p.n;
    uint32_t *perm = g->order;
    for (size_t c = 0; c < g->ntable; c++)
        for (size_t a = g->cell_start[c] + 1; a < g->cell_start[c + 1]; a++) {
            uint32_t v = perm[a];
            size_t b = a;
            while (b > g->cell_start[c] && id[perm[b - 1]] > id[v]) {
                perm[b] = perm[b - 1];
                b--;
            }
            perm[b] = v;
        }
    /* the grid's coordinate copy, dim columns of cap_points >= n words, is the
     * permutation's scratch (an allocated one would stay in the resident set);
     * in 3D the last group moved is the positions, which leaves the copy filled */
    particles_permute_with(&sim->p, perm, (uint64_t *)(void *)g->xs, (size_t)sim->dim, g->cap_points, skip);
    if (sim->dim != 3)
        for (int d = 0; d < sim->dim; d++)
            memcpy(g->xs + (size_t)d * g->cap_points, sim->p.x[d], n * sizeof(double));
    sim->sort_gen = sim->grid_gen;
    return PFB_OK;
}

void sim_wall_step(const pfb_sim *sim, double t, double margin, double e, double f, pfb_wall_step *w)
{
    w->t = t;
    w->margin = margin;
    w->e = e;
    w->f = f;
    for (size_t k = 0; k < sim->walls.n; k++) {
        shape_centre(&sim->walls.s[k], t, w->c[k]);
        shape_velocity(&sim->walls.s[k], t, w->vel[k]);
    }
}

int sim_project_particle(pfb_sim *sim, const pfb_wall_step *w, size_t i)
{
    pfb_particles *p = &sim->p;
    const pfb_boundaries *b = &sim->walls;
    const int dim = sim->dim;
    double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]};
    /* a particle clear of every wall (exact) is not projected, as
     * boundaries_project's first sweep would find nothing to do */
    if (sim_walls_clear(sim, w, x[0], x[1], x[2]))
        return 0;
    double v[3] = {p->v[0][i], p->v[1][i], p->v[2][i]};
    if (!boundaries_project_at(b, dim, (const double(*)[3])w->c, (const double(*)[3])w->vel, w->margin, w->e, w->f,
                               x, v))
        return 0;
    for (int d = 0; d < dim; d++) {
        p->x[d][i] = x[d];
        p->v[d][i] = v[d];
    }
    return 1;
}

void sim_project_walls(pfb_sim *sim, double t, double margin, double e, double f)
{
    if (sim->walls.n == 0)
        return;
    const size_t n = sim->p.n;
    pfb_wall_step w;
    sim_wall_step(sim, t, margin, e, f, &w);
#pragma omp parallel for schedule(dynamic, 2048) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t i = 0; i < n; i++)
        sim_project_particle(sim, &w, i);
}

void sim_bodies_couple(pfb_sim *sim, double dt, double t, double margin, double friction)
{
    pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    for (size_t b = 0; b < sim->bodies.n; b++) {
        pfb_body *B = &sim->bodies.b[b];
        for (int k = 0; k < dim; k++)
            B->v[k] += dt * sim->g[k];
        body_advance(B, dim, dt);
    }
    bodies_contact(&sim->bodies, dim, &sim->walls, t);
    for (size_t b = 0; b < sim->bodies.n; b++) {
        pfb_body *B = &sim->bodies.b[b];
        for (size_t i = 0; i < p->n; i++) {
            double x[3] = {p->x[0][i], p->x[1][i], p->x[2][i]}, n[3], vb[3];
            double phi = body_sdf(B, dim, x, n);
            if (phi >= margin)
                continue;
            body_velocity_at(B, dim, x, vb);
            double vr[3] = {0, 0, 0}, J[3];
            for (int k = 0; k < dim; k++)
                vr[k] = p->v[k][i] - vb[k];
            /* inelastic normal impulse between the two, then Coulomb friction */
            body_contact_impulse(B, dim, x, n, vr, 1.0 / p->m[i], 0.0, friction, J);
            if (J[0] != 0.0 || J[1] != 0.0 || J[2] != 0.0) {
                double Jb[3];
                for (int k = 0; k < 3; k++) {
                    if (k < dim)
                        p->v[k][i] += J[k] / p->m[i];
                    Jb[k] = -J[k];
                }
                body_apply_impulse(B, dim, x, Jb);
            }
            for (int k = 0; k < dim; k++) /* position only: onto phi = margin */
                p->x[k][i] += (margin - phi) * n[k];
        }
    }
}

/* ---- the emitter --------------------------------------------------------------- */

/* A layer on the exit's plane at height y: lattice points (i + 1/2) spacing from
 * the centre, within the segment (2D) or the disc (3D).  With add, each becomes
 * a particle of mass m moving down at the stream's speed; returns the points
 * (or 0 with err set when an add fails). */
static size_t emitter_layer(pfb_sim *sim, int add, double y, double m, pfb_err *err)
{
    const pfb_emitter *e = &sim->emit;
    const double s = sim->spacing, R = 0.5 * e->width;
    const long q = (long)floor(R / s + 0.5);
    size_t n = 0;
    for (long kz = sim->dim == 3 ? -q : 0; kz < (sim->dim == 3 ? q : 1); kz++)
        for (long kx = -q; kx < q; kx++) {
            double dx = ((double)kx + 0.5) * s, dz = sim->dim == 3 ? ((double)kz + 0.5) * s : 0.0;
            if (sim->dim == 3 && dx * dx + dz * dz > R * R)
                continue;
            double x[3] = {e->centre[0] + dx, y, e->centre[2] + dz}, v[3] = {0, -e->speed, 0};
            if (add && particles_add(&sim->p, x, v, m, err))
                return 0;
            n++;
        }
    return n;
}

int sim_emitter_init(pfb_sim *sim, const double centre[3], double width, double speed, double density,
                     double t_stop, pfb_err *err)
{
    pfb_emitter *e = &sim->emit;
    memset(e, 0, sizeof *e);
    if (!(speed > 0) || !isfinite(speed))
        return pfb_err_set(err, PFB_EINVAL, "emitter speed %g is invalid; valid: positive and finite", speed);
    if (!(width >= sim->spacing) || !isfinite(width))
        return pfb_err_set(err, PFB_EINVAL, "emitter width %g is invalid; valid: at least the spacing %g", width,
                           sim->spacing);
    for (int k = 0; k < 3; k++)
        e->centre[k] = k < sim->dim ? centre[k] : 0.0;
    e->width = width;
    e->speed = speed;
    e->density = density;
    e->t_stop = t_stop;
    e->layer_n = emitter_layer(sim, 0, 0.0, 0.0, err);
    e->on = 1;
    return PFB_OK;
}

int sim_emit_start(pfb_sim *sim, int layers, pfb_err *err)
{
    pfb_emitter *e = &sim->emit;
    if (!e->on || layers <= 0)
        return PFB_OK;
    e->layers0 = layers;
    e->travel = (double)layers * sim->spacing;
    int rc = sim_emit(sim, 0.0, 0.0, err);
    e->travel = 0.0;
    return rc;
}

double sim_emitter_mass(const pfb_sim *sim)
{
    const pfb_emitter *e = &sim->emit;
    if (!e->on)
        return 0.0;
    double layers = floor(e->speed * e->t_stop / sim->spacing * (1.0 + 1e-9));
    return layers * (double)e->layer_n * e->density * pow(sim->spacing, sim->dim);
}

/* 1 if a particle lies where a layer at height y would go: over the exit (its
 * width plus half a spacing) and within EMIT_CLEAR spacings of y. */
#define EMIT_CLEAR 0.9
static int emitter_blocked(const pfb_sim *sim, double y)
{
    const pfb_emitter *e = &sim->emit;
    const pfb_particles *p = &sim->p;
    const double s = sim->spacing, R = 0.5 * e->width + 0.5 * s, dy = EMIT_CLEAR * s;
    for (size_t i = 0; i < p->n; i++) {
        if (fabs(p->x[1][i] - y) >= dy)
            continue;
        const double dx = p->x[0][i] - e->centre[0], dz = sim->dim == 3 ? p->x[2][i] - e->centre[2] : 0.0;
        if (sim->dim == 3 ? dx * dx + dz * dz < R * R : fabs(dx) < R)
            return 1;
    }
    return 0;
}

int sim_emit(pfb_sim *sim, double dt, double t, pfb_err *err)
{
    pfb_emitter *e = &sim->emit;
    if (!e->on || (dt > 0 && t - dt >= e->t_stop))
        return PFB_OK;
    const double s = sim->spacing, m = e->density * pow(s, sim->dim);
    /* only the part of the step before t_stop pours */
    if (dt > 0)
        e->travel += e->speed * (fmin(t, e->t_stop) - (t - dt));
    while (e->travel >= s * (1.0 - 1e-9)) { /* a layer per spacing, sums of steps rounding short */
        /* a nozzle cannot pour into fluid standing at its exit: while the layer's
         * place is taken (a slow, viscous stream piled up to the nozzle) the layer
         * waits at the exit, and the stream pours less than speed x t_stop */
        if (emitter_blocked(sim, e->centre[1] - (e->travel - s))) {
            e->held++;
            e->travel = s;
            break;
        }
        e->travel -= s;
        /* the layer left the exit travel / speed ago (gravity over that time is
         * below a spacing's worth of the stream's own speed and is left out) */
        sim_positions_changed(sim);
        if (emitter_layer(sim, 1, e->centre[1] - e->travel, m, err) != e->layer_n)
            return PFB_ENOMEM;
        e->emitted += e->layer_n;
    }
    return PFB_OK;
}

int sim_sort_current(const pfb_sim *sim)
{
    return sim->sort_gen == sim->grid_gen && sim->grid_gen > 0 && sim->grid.ready && sim->grid.n == sim->p.n;
}

int sim_restore_sort(pfb_sim *sim, double h, const double *const xs[3], pfb_err *err)
{
    int rc = sim_grid_build_on(sim, h, xs, err);
    if (rc)
        return rc;
    for (size_t k = 0; k < sim->p.n; k++)
        if (sim->grid.order[k] != k)
            return pfb_err_set(err, PFB_EINVAL, "a checkpoint's sort does not describe its particles (position %zu "
                               "holds particle %u); valid: a checkpoint as written", k, sim->grid.order[k]);
    sim->sort_gen = sim->grid_gen;
    sim_positions_changed(sim);
    return PFB_OK;
}

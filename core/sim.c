/* sim.c — simulation state and the cached neighbour list handed to solvers. */
#include "sim.h"

#include <string.h>

int sim_init(pfb_sim *sim, int dim, uint64_t seed, pfb_err *err)
{
    memset(sim, 0, sizeof *sim);
    sim->dim = dim;
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
    memset(sim, 0, sizeof *sim);
}

static int sim_grid_build(pfb_sim *sim, double h, pfb_err *err)
{
    if (sim->grid.h != h || sim->grid.dim != sim->dim) {
        grid_free(&sim->grid);
        int rc = grid_init(&sim->grid, sim->dim, h, err);
        if (rc)
            return rc;
    }
    return grid_build(&sim->grid, (const double *const *)sim->p.x, sim->p.n, err);
}

int sim_neighbours(pfb_sim *sim, double h, const pfb_nlist **out, pfb_err *err)
{
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

void sim_positions_changed(pfb_sim *sim)
{
    sim->nl_h = 0.0;
}

int sim_sort_particles(pfb_sim *sim, double h, pfb_err *err)
{
    int rc = sim_grid_build(sim, h, err);
    if (rc)
        return rc;
    sim_positions_changed(sim);
    return particles_permute(&sim->p, grid_sort_permutation(&sim->grid), err);
}

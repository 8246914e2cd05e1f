/* sim.h — the simulation state the framework owns and hands to a solver.
 *
 * A solver reads and updates particles through sim->p, asks for neighbours with
 * sim_neighbours (a full list, 4 bytes per pair), and collides with sim->walls.
 * A solver may instead build its own list from the grid of a sort (muller: a
 * half list with a skin, from sim_sort_particles' grid; see sim->sort_h), or
 * search an extended point set (mao_yang, real particles and mirrors); the
 * search code is always core/grid.
 * The run loop advances sim->t and sim->step after each solver step. */
#ifndef PFB_SIM_H
#define PFB_SIM_H

#include "body.h"
#include "boundary.h"
#include "error.h"
#include "grid.h"
#include "particles.h"
#include "periodic.h"
#include "rng.h"

/* A nozzle pouring a stream downwards (along -y): every time the stream has
 * advanced by one spacing it adds a layer of particles on the nozzle's cross
 * section (a segment of the given width in 2D, a disc of that diameter in 3D),
 * on the scene's lattice, at the stream's speed, until t_stop (a layer whose
 * place is still taken by fluid waits at the exit: see sim_emit).  Particles it
 * adds have every registered field zeroed; solvers initialise their own
 * material fields for particles they have not seen (see solver.h). */
typedef struct pfb_emitter {
    int on;
    double centre[3];        /* centre of the nozzle's exit (m) */
    double width;            /* width (2D) or diameter (3D) of the exit (m) */
    double speed;            /* stream speed (m/s), downwards */
    double density;          /* particle mass = density * spacing^dim */
    double t_stop;           /* pours during [0, t_stop) (s) */
    double travel;           /* distance the stream advanced since the last layer (m) */
    size_t layer_n;          /* particles per layer */
    size_t emitted;          /* particles added so far */
    size_t held;             /* times a due layer waited because its place was taken */
    int layers0;             /* layers already out of the exit at t = 0 */
} pfb_emitter;

typedef struct pfb_sim {
    int dim;
    double spacing;          /* initial particle spacing of the scene (m) */
    double rho_ref;          /* material density the scene used for particle masses (kg/m^dim) */
    double g[3];             /* gravitational acceleration (m/s^2) */
    double t;                /* simulated time (s) */
    long step;               /* steps taken */
    double domain_lo[3];     /* particles outside [lo, hi] have escaped (open axes) */
    double domain_hi[3];
    pfb_period period;       /* periodic axes (core/periodic.h; L = 0: open), over
                                [domain_lo, domain_hi) where set */
    pfb_periodic_ws *pws;    /* the periodic list's extended set, made on demand */
    int f_image;             /* periodic: the particle field "image" (3 per particle), the
                                periods each particle was wrapped by; -1 without */
    double length_ref;       /* characteristic length of the scene (m), e.g. fluid height */
    double v_ref;            /* characteristic speed of the scene (m/s) */
    int threads;             /* threads for a solver's parallel loops; 0 = the OpenMP default */
    /* A scene's lattice beyond memory is refused before it is allocated
     * (issue 35): run_build_scene sets the solver's peak bytes per particle and
     * the bytes a run may use (0: no check). */
    double mem_per_particle;
    double mem_limit;
    pfb_particles p;
    pfb_boundaries walls;
    pfb_bodies bodies;       /* rigid bodies (issue 7), advanced by the solver */
    pfb_emitter emit;        /* a pouring stream, if emit.on */
    pfb_rng rng;
    /* neighbour cache, rebuilt on request */
    pfb_grid grid;
    pfb_nlist nl;
    double nl_h;             /* radius of the cached list, 0 if none */
    long nl_step;            /* step at which it was built */
    double nl_t;
    unsigned long grid_gen;  /* builds of sim->grid so far (any later build changes it) */
    unsigned long sort_gen;  /* grid_gen of the last sim_sort_particles */
    double t_sort;           /* the time of the last sim_sort_particles (a sheared box's
                                images have slid U (period.le_t - t_sort) since:
                                core/halflist.c) */
    double sort_h;           /* cell size of the run's re-sorting; 0: 2 spacings.  A solver
                                may set it in create (muller: its list radius), so that
                                the run's sorts and its own share one grid */
} pfb_sim;

/* Initialise an empty simulation of dimension dim with the given seed. */
int sim_init(pfb_sim *sim, int dim, uint64_t seed, pfb_err *err);

/* Free everything the simulation owns (accepts a zeroed struct). */
void sim_free(pfb_sim *sim);

/* Full neighbour list of radius h for the current positions.  The list is cached
 * and reused while positions have not been declared changed (sim_positions_changed).
 * With periodic axes it is the minimum-image list (periodic_neighbours), and a
 * solver takes a pair's displacement from sim_pair_diff. */
int sim_neighbours(pfb_sim *sim, double h, const pfb_nlist **out, pfb_err *err);

/* 1 if the simulation has a periodic axis. */
static inline int sim_periodic(const pfb_sim *sim)
{
    return period_any(&sim->period, sim->dim);
}

/* x_a - x_b of particles a and b, by the minimum image on periodic axes. */
static inline void sim_pair_diff(const pfb_sim *sim, size_t a, size_t b, double out[3])
{
    period_diff(&sim->period, sim->dim, (const double *const *)sim->p.x, a, b, out);
}

/* The box a particle must stay in, on every axis: the domain, widened by a
 * quarter period on each side of a periodic axis (positions are wrapped only at
 * sorts, so they may leave the box between them; a quarter period in one frame
 * is an escape, and keeps the spread within periodic_neighbours' 1.5 periods). */
static inline void sim_escape_bounds(const pfb_sim *sim, double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        const double w = 0.25 * sim->period.L[k];
        lo[k] = sim->domain_lo[k] - w;
        hi[k] = sim->domain_hi[k] + w;
    }
}

/* Make axis d periodic over the domain's [domain_lo[d], domain_hi[d]), and
 * register the particle field "image" that counts each particle's wraps (the
 * diagnostics unwrap positions with it). */
int sim_set_periodic(pfb_sim *sim, int d, pfb_err *err);

/* Lees-Edwards boundaries on the periodic x and y axes (core/periodic.h): the
 * images one period up in y slide along x at shear_rate L_y; the run sets their
 * offset from sim->t before every step (period_le_at). */
int sim_set_shear(pfb_sim *sim, double shear_rate, pfb_err *err);

/* 1 if the box is sheared (Lees-Edwards). */
static inline int sim_sheared(const pfb_sim *sim)
{
    return sim->period.le;
}

/* The minimum-image list of radius h for any point set (a solver's own
 * extended set, as mao_yang's), through the simulation's periodic workspace. */
int sim_periodic_list(pfb_sim *sim, double h, const double *const x[3], size_t n, pfb_nlist *out, pfb_err *err);

/* A fresh full list of radius h for the current positions (the minimum-image
 * one with periodic axes), into out (free with nlist_free), leaving the
 * simulation's cache alone: for observers that hold a const simulation. */
int sim_neighbours_fresh(const pfb_sim *sim, double h, pfb_nlist *out, pfb_err *err);

/* Whether a loop over n particles should run in parallel: when threads were asked
 * for explicitly (sim->threads > 1), or when n >= PFB_PARALLEL_MIN (shorter loops
 * cost less than the fork/join and the idle threads' spinning).  Results do not
 * depend on it. */
#define PFB_PARALLEL_MIN 4096
int sim_parallel(const pfb_sim *sim, size_t n);

/* The same for a loop over every particle's neighbours: at hundreds of ns per
 * particle it pays for the fork/join from PFB_PARALLEL_MIN_PAIRS particles (the
 * 3D dam break at 3,456 particles: muller 1.6x, miller_pearce 1.6x faster on 2
 * threads than serial); light loops keep PFB_PARALLEL_MIN. */
#define PFB_PARALLEL_MIN_PAIRS 512
int sim_parallel_pairs(const pfb_sim *sim, size_t n);

/* Threads a parallel loop should use: sim->threads, or the OpenMP default when 0
 * (1 without OpenMP). */
int sim_threads(const pfb_sim *sim);

/* boundaries_project applied to every particle at time t (the SPH back ends' walls). */
void sim_project_walls(pfb_sim *sim, double t, double margin, double e, double f);

/* The same one particle at a time, for a solver that fuses it into a loop of
 * its own: the walls' centres at t once (sim_wall_step), then
 * sim_project_particle for each particle (1 if it moved). */
typedef struct pfb_wall_step {
    double t, margin, e, f;
    double c[PFB_MAX_SHAPES][3], vel[PFB_MAX_SHAPES][3]; /* each wall's shape_centre and shape_velocity at t */
} pfb_wall_step;
void sim_wall_step(const pfb_sim *sim, double t, double margin, double e, double f, pfb_wall_step *w);
int sim_project_particle(pfb_sim *sim, const pfb_wall_step *w, size_t i);

/* 1 if x is surely clear of every wall (shape_clear), so that
 * sim_project_particle would leave it alone: a caller's loop may test this
 * inline first. */
static inline int sim_walls_clear(const pfb_sim *sim, const pfb_wall_step *w, double x0, double x1, double x2)
{
    for (size_t k = 0; k < sim->walls.n; k++)
        if (!shape_clear(&sim->walls.s[k], sim->dim, w->c[k], x0, x1, x2, w->margin))
            return 0;
    return 1;
}

/* Whether sim_walls_clear4 decides every wall (shape_clear4_decides). */
static inline int sim_walls_clear4_decides(const pfb_sim *sim)
{
    for (size_t k = 0; k < sim->walls.n; k++)
        if (!shape_clear4_decides(&sim->walls.s[k]))
            return 0;
    return 1;
}

#ifdef PFB_HAVE_CLEAR4
/* sim_walls_clear for four points of a 3D run at once (AVX2; the walls must be
 * ones sim_walls_clear4_decides): bit l of the result set where point l is
 * clear, the same answers as sim_walls_clear. */
__attribute__((target("avx2"))) static inline int sim_walls_clear4(const pfb_sim *sim, const pfb_wall_step *w,
                                                                  __m256d x0, __m256d x1, __m256d x2)
{
    __m256d clear = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (size_t k = 0; k < sim->walls.n; k++)
        clear = _mm256_and_pd(clear, shape_clear4(&sim->walls.s[k], w->c[k], x0, x1, x2, w->margin));
    return _mm256_movemask_pd(clear);
}
#endif

/* Two-way rigid-body coupling by projection, for back ends whose particles carry
 * velocities (the SPH ones): each body gets gravity, advances by dt and resolves
 * its contacts with walls and other bodies (bodies_contact); then every
 * particle closer than margin to a body,
 * in storage order, exchanges with it the impulse of an inelastic two-body
 * contact (the normal relative velocity removed, j = -v_n / (1/m_i + 1/m_eff);
 * Coulomb friction up to friction x j), equal and opposite, so the exchange
 * conserves momentum exactly; the particle is then moved onto phi = margin
 * (position only).  t is the end of the step. */
void sim_bodies_couple(pfb_sim *sim, double dt, double t, double margin, double friction);

/* Set up the emitter (spacing and dim already set): counts a layer's
 * particles; names a bad width or speed. */
int sim_emitter_init(pfb_sim *sim, const double centre[3], double width, double speed, double density,
                     double t_stop, pfb_err *err);

/* The stream's first layers are already out of the exit at t = 0, the newest
 * at the exit, the others a spacing apart below it (a closed scene starts
 * with particles, and the diagnostics take their mass and lattice from them). */
int sim_emit_start(pfb_sim *sim, int layers, pfb_err *err);

/* Advance the stream by dt ending at time t (the run loop calls it after each
 * step): adds the layers due, each at its distance below the exit; a layer
 * whose place is taken (a particle over the exit within 0.9 spacing of it)
 * waits at the exit until it is free.  Declares positions changed when it adds any. */
int sim_emit(pfb_sim *sim, double dt, double t, pfb_err *err);

/* Mass the emitter adds during (0, t_stop) when no layer waits, its first layers
 * not included (kg, or kg/m in 2D): an upper bound. */
double sim_emitter_mass(const pfb_sim *sim);

/* Declare that positions changed, invalidating the cached neighbour list. */
void sim_positions_changed(pfb_sim *sim);

/* Reorder particle storage into grid-cell order (locality), by id within a cell,
 * so the order after a sort depends only on positions and ids; invalidates the
 * list.  The run sorts before the solver is created and then every sort_every
 * frames (cell size sim_sort_h), so every neighbour row is in a canonical order.
 * Afterwards, until the next build of sim->grid (sim->grid_gen == sim->sort_gen),
 * sim->grid describes the new storage: its sorted positions are storage indices
 * and its copy xs holds the positions at the sort.  Positions are first wrapped
 * into the box on periodic axes (the only place they are; see core/periodic.h). */
int sim_sort_particles(pfb_sim *sim, double h, pfb_err *err);

/* The same, leaving the fields with bit f of skip in their old order: for a
 * solver that recomputes them from positions before anything reads them (muller
 * after its own sorts); they are meaningless until then. */
int sim_sort_particles_except(pfb_sim *sim, double h, uint64_t skip, pfb_err *err);

/* The cell size of the run's sorts: sim->sort_h, or 2 spacings when 0. */
double sim_sort_h(const pfb_sim *sim);

/* Whether sim->grid is the grid of the last sort of the current storage (its
 * positions at that sort in the grid's copy: grid_xs). */
int sim_sort_current(const pfb_sim *sim);

/* A checkpoint's sort made current again (issue 34): the grid of cell size h
 * built from xs, the positions at that sort, of the storage as the sort left
 * it (cell order, ids ascending in each cell), so that the grid is the one the
 * sort made and a solver's list built from it is the one it had.  Fails when
 * the storage is not in that order. */
int sim_restore_sort(pfb_sim *sim, double h, const double *const xs[3], pfb_err *err);

#endif

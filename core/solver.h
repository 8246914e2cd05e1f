/* solver.h — the interface every back end implements (after GSL's step types).
 *
 * A back end is one const table of function pointers plus a private state.  The
 * framework owns particles, neighbours, boundaries and output; a solver owns only
 * its own state.  The interface belongs to the framework (as LAMMPS's pair style
 * base class belongs to its core): the run loop (run.h) drives it and the back
 * ends in solvers/ implement it, so no file of core/ includes one above it.  The
 * registry, the list of back ends, is the one thing defined above
 * (solvers/registry.c) and only declared here.  All functions return 0 on success or a PFB_E* status with a
 * one-line message in err.
 *
 * Differences from the sketch in DESIGN.md, and why:
 *  - create receives the simulation non-const: a solver registers its per-particle
 *    fields (pressure, density, stress) in the framework's storage, so they are
 *    reordered and written out with the particles;
 *  - create and step take a pfb_err, so a failure says what went wrong;
 *  - suggest_dt returns the solver's own stability-limited time step (CFL and
 *    force criteria) used when the user gives no --dt;
 *  - an optional diag hook appends solver-specific columns to series.csv;
 *  - an optional surface_tension hook reports an explicit sigma, for the drop
 *    experiment's comparison with Rayleigh's frequency;
 *  - an optional frame hook runs once per frame, for work a paper does per frame
 *    rather than per step (Mao-Yang's particle re-sampling);
 *  - optional phase timers (cumulative wall seconds of named phases, such as the
 *    PCG solve or the Delaunay triangulation) let the benchmarks and the scaling
 *    experiment say where a step's time goes; they only observe and never change
 *    a result;
 *  - an optional pair_virial hook gives the virial of the method's own pair
 *    forces, from which the properties experiment takes one mechanical pressure
 *    for every method (clavet and miller_pearce have no pressure field). */
#ifndef PFB_SOLVER_H
#define PFB_SOLVER_H

#include "error.h"
#include "params.h"
#include "sim.h"

struct pfb_ckpt_w;
struct pfb_ckpt_r;

typedef struct pfb_solver_ops {
    const char *name;                     /* "muller", "clavet", ... */
    const char *citation;                 /* the paper */
    const pfb_param_spec *params;         /* NULL-terminated */
    /* Allocate state for this simulation; may register particle fields. */
    int (*create)(const pfb_params *p, pfb_sim *sim, void **state, pfb_err *err);
    /* Advance by dt: update sim->p (positions, velocities); must not change sim->t. */
    int (*step)(void *state, pfb_sim *sim, double dt, pfb_err *err);
    /* Free state (accepts NULL). */
    void (*destroy)(void *state);
    /* Largest stable dt the solver suggests for this simulation (may be NULL). */
    double (*suggest_dt)(const void *state, const pfb_sim *sim);
    /* Names of extra series.csv columns, NULL-terminated (may be NULL). */
    const char *const *diag_names;
    /* Values of those columns for the current state (may be NULL). */
    void (*diag)(const void *state, const pfb_sim *sim, double *values);
    /* The explicit surface tension coefficient sigma (N/m) the method uses, or NaN
     * when it has none (used to compare drop frequencies with Rayleigh's; may be NULL). */
    double (*surface_tension)(const void *state);
    /* Called by the run loop after the steps of every frame (frame = 1, 2, ...),
     * before diagnostics; may add and remove particles (re-sampling).  frame = 0
     * is the benchmarks' timed call (core/timing.c): the whole of a frame's work,
     * as at a frame that every cadence of the hook reaches.  May be NULL. */
    int (*frame)(void *state, pfb_sim *sim, long frame, pfb_err *err);
    /* Names of phase timers, NULL-terminated (may be NULL), and their cumulative
     * wall seconds since create, in that order (may be NULL). */
    const char *const *timer_names;
    void (*timers)(const void *state, double *seconds);
    /* The pair virial of the particles marked in[i]: sum over them of
     * sum_j (1/2) r_ij . f_ij (J), and, when diag is not NULL, its axis terms
     * diag[k], k < 3, = the same sum of (1/2) r_ij,k f_ij,k (the diagonal of the
     * virial tensor, whose terms sum to the first; zero beyond dim), in the
     * same pass, r_ij = x_i - x_j by the minimum image and
     * f_ij the method's force on i from j at the current state (for a
     * position-based method, m times the velocity change its pair displacement
     * makes per step, over dt); with the particles' kinetic term it gives the
     * mechanical pressure of a region (pfb_virial_pressure, the properties
     * experiment), the one pressure every method has.  Pair forces only: a force
     * that is not pairwise (muller's colour-field surface force) is left out, so
     * a region must keep clear of where it acts.  diag[3] is the shear term,
     * the same sum of (1/2) r_ij,y f_ij,x: minus the volume times the shear
     * stress sigma_xy, the force along x across a plane normal to y, which a
     * rheometer measures (the rheology experiment's start-up and steady shear on
     * a sheared box; NaN from a method that does not give it yet).  May be NULL. */
    double (*pair_virial)(const void *state, const pfb_sim *sim, const unsigned char *in, double diag[4]);
    /* Checkpoints (issue 34, core/checkpoint.h): save writes as sections of w the
     * state that outlives a step and is not in the particle fields (counters,
     * springs, the builds of a list); load reads them back into a state just
     * created for the same run, sim already holding the checkpoint's particles
     * and sort, so that the run goes on with the same bits.  NULL: nothing. */
    int (*save)(const void *state, const pfb_sim *sim, struct pfb_ckpt_w *w, pfb_err *err);
    int (*load)(void *state, pfb_sim *sim, struct pfb_ckpt_r *r, pfb_err *err);
    /* Peak bytes per particle in 2D and 3D (the peak resident set of `pfbench
     * bench step --n 20000 --steps 2 --warmup 1` over its particles, one
     * thread, rounded up to 50 B), with which a run refuses a scene beyond
     * memory before allocating it (0: no check). */
    double bytes_per_particle[2];
    /* The continuum form of the method's Newtonian viscous stress, which sets
     * the traction at a free surface (the validation's drop compares the
     * method with the linear drop of that continuum, core/maxwell.h):
     * PFB_STRESS_GRADIENT for a Laplacian viscosity mu lap v (stress mu grad
     * v, Müller's eq. 14), PFB_STRESS_SYMMETRIC for the fluid's mu (grad v +
     * grad v^T), PFB_STRESS_NONE where the method states no such stress. */
    int viscous_stress;
} pfb_solver_ops;

enum { PFB_STRESS_NONE = 0, PFB_STRESS_SYMMETRIC = 1, PFB_STRESS_GRADIENT = 2 };

/* Look up a solver by name; NULL if unknown. */
const pfb_solver_ops *solver_find(const char *name);

/* Look up a solver by name, or fail with the list of valid names and the nearest one. */
int solver_lookup(const char *name, const pfb_solver_ops **out, pfb_err *err);

/* The registry: NULL-terminated list of every back end. */
extern const pfb_solver_ops *const pfb_solvers[];

#endif

/* timing.h — timed solver steps: what `pfbench bench step` and the scaling
 * experiment measure (issue 8).
 *
 * run_time_steps builds the run's simulation, takes `warmup` untimed steps and then
 * `steps` steps timed one by one (wall clock, CLOCK_MONOTONIC), and, when the solver
 * has a once-per-frame hook (Mao-Yang's re-sampling), times one call of it after the
 * steps.  The step time is the median over the timed steps (robust to a step
 * disturbed by the machine); the cost per step including the frame hook is
 * t_step + t_frame / substeps, with substeps the steps per frame of the run's
 * timing (run_timing: 30 frames per simulated second).  Solvers that report phase
 * timers (pfb_solver_ops.timers) have them read before and after, so the time a
 * phase takes (the PCG solve, the Delaunay triangulation) comes out per step and
 * per frame-hook call.  Memory is the growth of the resident set from before the
 * set-up to after the steps, per particle. */
#ifndef PFB_TIMING_H
#define PFB_TIMING_H

#include <stddef.h>

#include "error.h"
#include "params.h"
#include "run.h"

#define PFB_TIMING_MAX 8     /* phase timers and diagnostics kept per solver */

typedef struct pfb_step_timing {
    size_t n;                /* particles after the set-up */
    double spacing, dt;      /* the run's spacing and step */
    long substeps;           /* steps per frame (the frame hook runs once per frame) */
    long warmup, steps;      /* untimed and timed steps taken */
    int threads;             /* OpenMP threads (1 without OpenMP) */
    double t_step;           /* median wall seconds of one step */
    double t_step_min;       /* fastest step */
    double t_step_mean;      /* mean step (the phase timers are means too) */
    double t_frame;          /* wall seconds of one frame-hook call (0 without a hook) */
    double t_total;          /* t_step + t_frame / substeps */
    double bytes_per_particle;
    int unstable;            /* a step blew up (non-finite, escaped); nothing else is valid */
    char reason[256];
    size_t ntimers;          /* the solver's phase timers, per timed step and per hook call */
    const char *timer_names[PFB_TIMING_MAX];
    double timer_step[PFB_TIMING_MAX], timer_frame[PFB_TIMING_MAX];
    size_t ndiag;            /* the solver's diagnostics after the steps (pcg_iters_mean, ...) */
    const char *diag_names[PFB_TIMING_MAX];
    double diag[PFB_TIMING_MAX];
} pfb_step_timing;

/* Monotonic wall clock in seconds. */
double pfb_now(void);

/* Resident set size of this process in bytes (0 where /proc is unavailable). */
double pfb_rss_bytes(void);

/* Median of v[0..n-1] (sorts v; NaN for n = 0). */
double pfb_median(double *v, size_t n);

/* OpenMP's thread count for a parallel region (1 without OpenMP). */
int pfb_max_threads(void);

/* The spacing at which cfg's scene has about n particles: one set-up at the
 * configured (or default) spacing s0 with n0 particles gives s0 (n0 / n)^(1/dim). */
int run_spacing_for(const pfb_run_config *cfg, double n, double *spacing, pfb_err *err);

/* Set up cfg's run and time it as described above; a blow-up sets out->unstable
 * and returns 0. */
int run_time_steps(const pfb_run_config *cfg, long warmup, long steps, pfb_step_timing *out, pfb_err *err);

/* Lockstep: two processes timing two builds or settings take turns, step by
 * step, so that both meet the same phases of a shared machine (whose speed here
 * moves by up to 3x within minutes: process-level alternation cannot separate a
 * few percent from that, turn-taking can; bench/lockstep.sh).  Before each step,
 * warm-up steps included, a process waits for one byte on fd_in; after it, and
 * after the step's untimed blow-up check, it writes one byte 'g' to fd_out, so
 * its own work never overlaps the other's.  A process that stops early (an
 * error, a blow-up) writes 'x' instead, and the other stops with an error
 * naming the step.  Waiting longer than timeout seconds for a turn is an error.
 * With every = K > 1 a turn is K steps (the run's last turn what is left): two
 * solvers whose steps differ K-fold in cost and in length (mao_yang's and
 * muller's) then take turns of like length and reach the same simulated time
 * in the same number of turns. */
typedef struct pfb_step_gate {
    int fd_in, fd_out;
    double timeout;
    long every; /* steps per turn (0 or 1: each step a turn): the last turn may be shorter */
} pfb_step_gate;

/* run_time_steps with every step a turn of gate (NULL: no gate). */
int run_time_steps_gated(const pfb_run_config *cfg, long warmup, long steps, const pfb_step_gate *gate,
                         pfb_step_timing *out, pfb_err *err);

/* The value of timer or diagnostic `name` in t, or NaN when the solver has none. */
double timing_timer_step(const pfb_step_timing *t, const char *name);
double timing_timer_frame(const pfb_step_timing *t, const char *name);
double timing_diag(const pfb_step_timing *t, const char *name);

#endif

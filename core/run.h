/* run.h — one simulation run: set-up, the fixed-step loop, blow-up detection, output.
 *
 * A run advances frames 1..F, each of `substeps` solver steps of fixed dt; frame 0
 * is the initial state.  After every step it checks for a blow-up — a non-finite
 * position or velocity, or a particle outside the scene's domain — and at the end
 * of every frame (its last step) for kinetic energy beyond energy_limit times the
 * scene's energy scale E = KE_0 + M |g| L_ref + M v_ref^2 / 2 (+ sigma dim V /
 * L_ref, the surface energy of a disc or ball of radius L_ref, when the solver has
 * an explicit surface tension sigma) and for a volume collapse (volume_rel below
 * volume_limit, 0.5 by default, or not a number), and stops cleanly, recording
 * the reason.  The frame that shows a collapse is written.
 *
 * The energy is held to its limit at frame ends, not after every step, because an
 * initial state can hold energy the scale does not count and release it in its
 * first steps: a free surface snapping to an emergent cohesion (clavet's, whose
 * sigma_eff is ~800 N/m in the calibrated fluid), globules of spread radii
 * overlapping (miller_pearce).  Such a spike (measured: clavet's 3D drop at 12x
 * the scale after its first step, 0.5x by the first frame) is dissipated
 * within the frame; a blow-up grows, and is still above the limit at the frame's
 * end, or is caught earlier as non-finite or escaped.  A step that fails after
 * its state went non-finite or left the domain (a later phase of the step, such
 * as the neighbour search, refusing a NaN) is that blow-up too: the run stops as
 * unstable, the reason naming the particle and the step's message.
 *
 * A start at rest (run.settle = T > 0): before frame 0 the solver steps for T
 * with every velocity zeroed after each step, at t = 0, and the scene's initial
 * velocities are given back after it, particle by particle (by id).  It lets a
 * measurement start from where the method's own forces balance rather than
 * from the scene's lattice, which a method whose rest state is not the lattice
 * (clavet's double density relaxation) leaves with energy it releases into the
 * flow (issue 49's known-answer flows).  Frame 0, the energy scale and t = 0
 * follow it; a checkpoint's resume does not repeat it. */
#ifndef PFB_RUN_H
#define PFB_RUN_H

#include <stdio.h>

#include "solver.h"
#include "diag.h"
#include "error.h"
#include "params.h"
#include "scene.h"
#include "sim.h"

/* The run-level parameters ([run] section; --dim, --dt, ... are shortcuts). */
extern const pfb_param_spec pfb_run_params[];

/* Limits on a run's steps (issue 35).  A step must fit a frame at most
 * PFB_RUN_MAX_SUBSTEPS times (the substeps parameter's own range), else it is
 * refused: a step of 1e-300 s is a typing error, not a request for 1e298 steps.
 * A run of more than PFB_RUN_MAX_STEPS steps in all is refused unless forced
 * (pfbench run --force): the longest run of every experiment takes under 4e5,
 * and 1e7 steps of a thousand particles is a day of mao_yang. */
#define PFB_RUN_MAX_SUBSTEPS 1000000000L
#define PFB_RUN_MAX_STEPS 10000000L

typedef struct pfb_run_config {
    const pfb_solver_ops *solver;
    const pfb_scene_def *scene;
    const pfb_params *run;            /* values for pfb_run_params */
    const pfb_params *scene_params;
    const pfb_params *solver_params;
    const char *out_dir;              /* NULL: no files (tests) */
    const char *command_line;         /* recorded in run.meta, may be NULL */
    /* called after every frame with the fraction done (may be NULL) */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
    /* called with the state of every frame, 0 included (may be NULL; tests use it);
     * a non-zero return stops the run with that status */
    int (*on_frame)(void *ctx, const pfb_sim *sim, const void *state, long frame, const pfb_diag *d,
                    pfb_err *err);
    void *frame_ctx;
    const char *meta_extra;           /* extra "key = value" lines for run.meta (may be NULL) */
    /* Checkpoints (issue 34; out_dir needed): the complete state is written to
     * out_dir/checkpoint.pfb every checkpoint_every frames (0: never), and, with
     * catch_signals, when SIGINT or SIGTERM comes: the run finishes the step it
     * is in, writes the checkpoint, series.partial.csv (the frames so far) and
     * run.meta (status = interrupted), and returns PFB_EINTR.  With resume it
     * goes on from out_dir/checkpoint.pfb, which must be of this commit and these
     * parameters (else it is refused, naming what differs, before any file is
     * touched); its outputs are then the uninterrupted run's, bit for bit. */
    long checkpoint_every;
    int catch_signals;
    int resume;
    long stop_after_steps;            /* tests: stop as on a signal after this many steps (0: never) */
    int force;                        /* allow more than PFB_RUN_MAX_STEPS steps */
    /* on_frame's state in a checkpoint (may be NULL): its own sections */
    int (*frame_save)(void *ctx, struct pfb_ckpt_w *w, pfb_err *err);
    int (*frame_load)(void *ctx, struct pfb_ckpt_r *r, pfb_err *err);
} pfb_run_config;

typedef struct pfb_run_result {
    int unstable;                     /* 1 if a blow-up stopped the run */
    int interrupted;                  /* 1 if a signal (or stop_after_steps) stopped it: PFB_EINTR */
    char reason[256];                 /* why, if unstable */
    double dt;                        /* effective fixed step */
    long substeps;                    /* steps per frame */
    long frames;                      /* frames requested (after frame 0) */
    long frames_done;                 /* frames completed */
    long steps;                       /* solver steps taken */
    size_t n0;                        /* initial particle count */
    double wall_seconds;              /* wall time of the stepping loop */
    double energy_scale;              /* E used by the energy check (J per unit length^(3-dim)) */
    pfb_diag last;                    /* diagnostics of the last frame written */
} pfb_run_result;

/* Apply one "KEY=VALUE" setting: a run., scene. or solver. prefix picks the table;
 * a bare key must name exactly one parameter (else: ambiguous, or unknown with the
 * nearest valid name). */
int run_apply_setting(pfb_params *run, pfb_params *scene, pfb_params *solver, const char *setting, pfb_err *err);

/* SIGINT and SIGTERM set the stop flag for the rest of the process (pfbench
 * exp: a signal between two runs stops the next at its first step, with its
 * checkpoint), instead of for each run_execute with catch_signals only. */
void run_catch_signals(void);

/* The bytes a run may use: the environment's PFB_MEMORY (bytes; for shared
 * machines and tests) if set, else the kernel's MemAvailable, else the physical
 * memory; 0 if none is known (no check). */
int run_memory_limit(double *bytes, pfb_err *err);

/* Build the simulation of cfg (scene, jitter, storage in cell order) without a
 * solver; a lattice whose particles would need more than run_memory_limit at
 * the solver's bytes_per_particle is refused before it is allocated. */
int run_build_scene(const pfb_run_config *cfg, pfb_sim *sim, pfb_err *err);

/* run_build_scene, then create the solver state. */
int run_setup(const pfb_run_config *cfg, pfb_sim *sim, void **state, pfb_err *err);

/* Check the current state for a blow-up; returns 1 and writes the cause into reason. */
int run_check_blowup(const pfb_sim *sim, double energy_scale, double energy_limit, char *reason,
                     size_t len);

/* Check a frame's volume: returns 1 and writes the cause if volume_rel < volume_limit (or NaN). */
int run_check_volume(const pfb_diag *d, double volume_limit, char *reason, size_t len);

/* Resolve dt and substeps from the run parameters and the solver's suggestion. */
int run_timing(const pfb_run_config *cfg, const pfb_sim *sim, const void *state, double *dt,
               long *substeps, long *frames, double *t_end, pfb_err *err);

/* run.meta's provenance lines (version, commit, compiler, cflags, date, machine)
 * and its parameter lines (run.KEY, scene.KEY, solver.KEY = value), for other
 * writers of metadata (the scaling experiment's timings). */
void run_meta_provenance(FILE *f);
void run_meta_params(FILE *f, const pfb_run_config *cfg);

/* The checkpoint's file in a run directory. */
#define PFB_CHECKPOINT_FILE "checkpoint.pfb"

/* The solver, scene and parameter lines a checkpoint was written with
 * ("solver = S\nscene = SC\n" then run_meta_params's lines): *text (free it). */
int run_checkpoint_params(const char *path, char **text, pfb_err *err);
/* The same from a checkpoint just opened (ckpt_open or ckpt_open_mem: the fuzz target). */
int run_checkpoint_params_read(struct pfb_ckpt_r *r, char **text, pfb_err *err);

/* Execute the whole run; an unstable run still returns 0 with res->unstable set,
 * an interrupted one PFB_EINTR with res->interrupted set (its files written). */
int run_execute(const pfb_run_config *cfg, pfb_run_result *res, pfb_err *err);

#endif

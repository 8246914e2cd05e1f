/* experiment.h — experiment drivers and the helpers they share.
 *
 * An experiment runs every selected solver through the same setups (geometry,
 * spacing, gravity, duration), each solver's parameters coming from the material
 * preset (presets.h: the calibrated reference fluid by default) and then from the
 * experiment's optional overrides scenes/<experiment>.ini ([<solver>] sections that
 * say why the measurement needs them), and writes tidy CSVs (one header row, one
 * observation per row) plus <experiment>_summary.csv into the output directory.
 *
 * Each run lives in OUT/runs/<id>/ with its series.csv and run.meta.  run.meta
 * records `inputs = <hash>` of everything that determines the run (solver, scene,
 * every effective parameter, the code's commit); a rerun skips a run whose run.meta
 * has the same hash and whose files are all there (make-style), so an interrupted
 * experiment resumes where it stopped.
 *
 * Plan, run, collect (issue 34).  With ctx->plan, nothing runs and nothing is
 * written: each run that is not current is handed to ctx->on_pending and
 * returns as pending (exp_run_out.pending, status "pending", no series; the
 * drivers treat it as a run that gave nothing, and a chain of runs that
 * depends on its result stops there).  With ctx->only, the run of that id runs
 * (when not current) and every other run that is not current is pending; no
 * experiment file is written.  So `pfbench exp NAME --only ID` runs one run of
 * the plan, in its own directory, exactly as the whole experiment would (the
 * same code and inputs: the same bits), and running the experiment again when
 * every run is current collects: nothing reruns and the CSVs are written.  A
 * driver whose later runs depend on earlier results (the calibration's
 * iterations) plans one step of the chain at a time: plan again after the
 * planned runs are done. */
#ifndef PFB_EXPERIMENT_H
#define PFB_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/error.h"
#include "../core/run.h"
#include "../core/solver.h"

typedef struct pfb_exp_ctx {
    const char *out_dir;                    /* experiment output directory */
    const char *preset_dir;                 /* where <experiment>.ini presets live ("scenes") */
    const struct pfb_fluid *fluid;          /* the reference fluid (calibrate, validation, reference), or NULL */
    const char *reference_dir;              /* the continuum reference's CSVs (validation; NULL:
                                               data/reference) */
    const struct pfb_preset *preset;        /* the material preset under <experiment>.ini (NULL: none) */
    int quick;                              /* reduced version (tests, CI) */
    int seeds;                              /* validation's hydrostatic case: runs per resolution,
                                               each its own run.seed (0 or 1: one) */
    int force;                              /* rerun even when current */
    const pfb_solver_ops *const *solvers;   /* selected solvers */
    size_t nsolvers;
    void (*log)(void *ctx, const char *line); /* progress lines (may be NULL) */
    void *log_ctx;
    int plan;                               /* run nothing, write nothing: hand the runs that are
                                               not current to on_pending */
    const char *only;                       /* run only the run of this id (NULL: all) */
    int *only_seen;                         /* set to 1 when the run of id `only` is met (may be NULL) */
    /* a run that is not current and was not run: its id, and whether it is a
     * timing (to run alone: its figure depends on the machine's load) */
    void (*on_pending)(void *ctx, const char *id, int timing);
    void *pending_ctx;
    long stop_after_steps;                  /* tests: each run stops as on a signal after this many
                                               steps (core/run.h; 0: never) */
    FILE *manifest;                         /* may be NULL: else exp_run and exp_time_steps
                                               append each run's id, one per line (the CLI
                                               writes them to OUT/manifest.csv, so the paper's
                                               appendix counts exactly the runs the CSVs used,
                                               not stale directories under OUT/runs) */
} pfb_exp_ctx;

typedef struct pfb_experiment {
    const char *name;
    const char *help;
    int (*run)(const pfb_exp_ctx *ctx, pfb_err *err);
} pfb_experiment;

/* The registry, NULL-terminated. */
extern const pfb_experiment *const pfb_experiments[];

/* Look up an experiment by name, or fail naming the valid ones. */
int experiment_lookup(const char *name, const pfb_experiment **out, pfb_err *err);

/* ---- numeric CSV tables ------------------------------------------------------ */

typedef struct csv_table {
    size_t ncol, nrow, cap;
    char **names;
    double *data;              /* row-major nrow x ncol */
} csv_table;

/* Read a numeric CSV with one header row (non-numeric cells read as NaN). */
int csv_table_load(csv_table *t, const char *path, pfb_err *err);

/* The same for len bytes of CSV text, named name in messages (csv_table_load
 * reads the file whole into it; the fuzz target calls it directly). */
int csv_table_parse(csv_table *t, const char *text, size_t len, const char *name, pfb_err *err);

/* Index of a column, or -1. */
int csv_table_col(const csv_table *t, const char *name);

/* Value at row r of column c. */
double csv_table_get(const csv_table *t, size_t r, int c);

/* Free a table (accepts a zeroed struct). */
void csv_table_free(csv_table *t);

/* ---- runs -------------------------------------------------------------------- */

/* Per-frame extra values an experiment records (e.g. a deformation signal); they are
 * written to extra.csv in the run directory so a skipped run can reload them. */
typedef struct exp_extra {
    const char *const *names;  /* column names, NULL-terminated (NULL: none) */
    /* fill one row for this frame */
    void (*row)(void *ctx, const pfb_sim *sim, double *values);
    void *ctx;
    /* instead of row (NULL), a row that also reads the solver's state (the
     * properties experiment's virial pressure) */
    void (*row_state)(void *ctx, const pfb_sim *sim, const pfb_solver_ops *so, const void *state, double *values);
} exp_extra;

typedef struct exp_run_spec {
    const char *experiment;    /* preset file name and hash salt */
    const char *id;            /* run directory name under OUT/runs */
    const pfb_solver_ops *solver;
    const char *scene;
    const char *const *sets;   /* "run.key=value", "scene.key=value", "solver.key=value"; NULL-terminated */
    const exp_extra *extra;    /* may be NULL */
    int snapshots;             /* 1: keep frames/frame_NNNNN.csv (run.snapshots=csv); the run
                                  is current only while its last frame's file is there */
} exp_run_spec;

typedef struct exp_run_out {
    int skipped;               /* 1 if the run was current and not rerun */
    int pending;               /* 1 if it is not current and was not run (plan, only); unstable is
                                  then 1 too, and the tables are empty */
    int unstable;
    char status[320];          /* "ok" or "unstable: REASON" */
    double dt, wall_seconds, t_end, length_ref, v_ref, gravity;
    long steps, substeps;
    size_t n;
    csv_table series;          /* series.csv */
    csv_table extra;           /* extra.csv (empty without extras) */
} exp_run_out;

/* Run spec (or reuse its current outputs) and load its series and extras. */
int exp_run(const pfb_exp_ctx *ctx, const exp_run_spec *spec, exp_run_out *out, pfb_err *err);

/* Whether a run that is not current is left pending (ctx->plan, or ctx->only
 * naming another run); hands it to ctx->on_pending and marks the `only` run as
 * met.  For drivers whose runs are not pfbench runs (the Gerris reference). */
int exp_left_pending(const pfb_exp_ctx *ctx, const char *id, int current, int timing);

/* FNV-1a over n bytes, continuing from h: the hash in every run.meta's inputs
 * line (the runs' parameters, a Gerris input file). */
uint64_t exp_fnv1a(uint64_t h, const void *data, size_t n);

/* Free what exp_run loaded. */
void exp_run_out_free(exp_run_out *out);

/* The solver's suggested time step for spec's setup (creates and destroys it once). */
int exp_suggest_dt(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double *dt, pfb_err *err);

/* The solver's explicit surface tension for spec's setup, or NaN. */
int exp_surface_tension(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double *sigma, pfb_err *err);

/* A timing (the scaling experiment): spec's setup at the spacing giving about n
 * particles, timed by run_time_steps (core/timing.h) with warmup + steps steps.
 * OUT/runs/<id>/timing.csv holds its one row (n, spacing, dt, substeps, warmup,
 * steps, threads, unstable, t_step, t_step_min, t_frame, t_total,
 * bytes_per_particle, step_<timer>, frame_<timer> for the solver's phase timers,
 * diag_<name> for its diagnostics) and run.meta its provenance; a rerun with the
 * same inputs and thread count reloads them instead of timing again. */
typedef struct exp_timing_out {
    int skipped, unstable;
    int pending;               /* as exp_run_out's */
    char status[320];
    csv_table timing;          /* timing.csv (free with csv_table_free) */
} exp_timing_out;

int exp_time_steps(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double n, long warmup, long steps,
                   exp_timing_out *out, pfb_err *err);

/* ---- output ------------------------------------------------------------------ */

/* A tidy CSV being built in memory; written atomically by exp_csv_close. */
typedef struct exp_csv {
    FILE *f;
    int dry;                   /* planning or running one run: exp_csv_close writes nothing */
    char *buf;
    size_t len;
    char path[4096];
} exp_csv;

/* Start OUT/name with the given header line (no newline). */
int exp_csv_open(exp_csv *c, const pfb_exp_ctx *ctx, const char *name, const char *header, pfb_err *err);

/* Write the file atomically and free the buffer. */
int exp_csv_close(exp_csv *c, pfb_err *err);

/* Free the buffer without writing anything (accepts a closed or zeroed one). */
void exp_csv_abort(exp_csv *c);

/* An experiment's end: with rc == 0 write the n files, else (or once one write
 * fails) write none of the rest and keep the first error; returns that status.
 * An experiment that failed leaves its previous CSVs untouched. */
int exp_csv_finish(exp_csv *const *cs, size_t n, int rc, pfb_err *err);

/* "ok" or "unstable" and, for CSV cells, the reason with commas replaced by ';' ("" if ok). */
const char *exp_status_word(const exp_run_out *out);
void exp_reason(const exp_run_out *out, char *buf, size_t len);
/* The same for a run.meta status line ("ok" or "unstable: REASON"). */
void exp_status_reason(const char *status, char *buf, size_t len);

/* Value of key in run.meta text (len bytes; the first line "key = value"),
 * cut to outlen - 1 bytes, or "" if absent; as a number (NaN if absent). */
void meta_text_get(const char *text, size_t len, const char *key, char *out, size_t outlen);
double meta_text_double(const char *text, size_t len, const char *key);

/* Least-squares slope b of y against x (gsl_fit_linear) and its standard error
 * from the scatter about the line; NAN for fewer than 3 points.  Log-log
 * exponents: the drop's omega ~ R^b, the scaling experiment's time ~ N^b. */
void exp_line_slope(const double *x, const double *y, size_t n, double *b, double *berr);

/* Print a progress line through ctx->log. */
void exp_log(const pfb_exp_ctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif

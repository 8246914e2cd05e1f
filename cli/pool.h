/* pool.h — an experiment's plan (the runs that are not current) and the local
 * pool that runs it as independent processes (issue 34; experiments/experiment.h
 * says what planning and `--only` mean). */
#ifndef PFB_POOL_H
#define PFB_POOL_H

#include <stddef.h>
#include <stdio.h>

#include "../core/error.h"
#include "../experiments/experiment.h"

/* The runs of a plan: ids in the order the experiment meets them, each once. */
typedef struct pfb_plan {
    char **id;
    int *timing; /* 1: a timing, to run alone with every thread */
    size_t n, cap;
    int oom;     /* a run could not be recorded (out of memory) */
} pfb_plan;

void plan_free(pfb_plan *p);

/* Plan experiment ex with ctx (copied; plan mode set, logging off): the runs
 * that are not current, into *p. */
int plan_make(const pfb_experiment *ex, const pfb_exp_ctx *ctx, pfb_plan *p, pfb_err *err);

/* Print one self-contained command per run of p to f: prog and args (the
 * invocation's options, NAME first, without --plan and --jobs) and --only ID,
 * quoted for the shell; a timing gets the comment "# timing: alone". */
void plan_print(FILE *f, const pfb_plan *p, const char *prog, char *const *args, int nargs);

/* The local pool: plan, run every planned run as `SELF exp ARGS --only ID`
 * (SELF this executable), up to `jobs` at once with 1/jobs of the threads each
 * and the timings alone with all of them, and plan again until nothing is left
 * (a chain of runs that depends on earlier results is planned one step at a
 * time).  A run that fails (its process exits non-zero or dies) is recorded and
 * the others go on; then every failure is listed on stderr and the pool fails.
 * args are the invocation's options (NAME first, without --jobs); `force` is
 * passed to the first round only.  On success every run is current: the
 * caller's serial pass collects. */
int pool_run(const pfb_experiment *ex, const pfb_exp_ctx *ctx, int jobs, char *const *args, int nargs, int force,
             pfb_err *err);

#endif

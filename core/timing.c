/* timing.c — timed solver steps (see timing.h). */
#include "timing.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

double pfb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double pfb_rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0.0;
    long size = 0, res = 0;
    int ok = fscanf(f, "%ld %ld", &size, &res) == 2;
    fclose(f);
    return ok ? (double)res * (double)sysconf(_SC_PAGESIZE) : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pfb_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int pfb_max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

int run_spacing_for(const pfb_run_config *cfg, double n, double *spacing, pfb_err *err)
{
    if (!(n >= 1.0) || !isfinite(n))
        return pfb_err_set(err, PFB_EINVAL, "particle count %g is invalid; valid: at least 1", n);
    /* two corrections: a scene's count is not exactly proportional to spacing^-dim
     * (whole lattice rows, walls), and the second one brings it within a few % */
    pfb_run_config c = *cfg;
    pfb_params run;
    int rc = params_copy(&run, cfg->run, err);
    c.run = &run;
    for (int it = 0; it < 2 && !rc; it++) {
        pfb_sim sim;
        memset(&sim, 0, sizeof sim);
        rc = run_build_scene(&c, &sim, err); /* the count needs no solver */
        if (!rc) {
            *spacing = sim.spacing * pow((double)sim.p.n / n, 1.0 / (double)sim.dim);
            rc = params_set_double(&run, "spacing", *spacing, err);
        }
        sim_free(&sim);
    }
    params_free(&run);
    return rc;
}

/* The first ntimers of the solver's timers into v (all: room for every one). */
static void read_timers(const pfb_solver_ops *so, const void *st, size_t ntimers, double *all, double *v)
{
    if (ntimers && so->timers) {
        so->timers(st, all);
        memcpy(v, all, ntimers * sizeof *v);
    }
}

/* Wait for the turn before step k (see timing.h). */
static int gate_wait(const pfb_step_gate *g, long k, pfb_err *err)
{
    struct pollfd pf = {.fd = g->fd_in, .events = POLLIN, .revents = 0};
    const double ms = g->timeout * 1e3;
    int r;
    do
        r = poll(&pf, 1, ms < 2147483647.0 ? (int)ms : 2147483647);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return pfb_err_set(err, PFB_EIO, "lockstep: waiting for step %ld's turn failed: %s", k, strerror(errno));
    if (r == 0)
        return pfb_err_set(err, PFB_EIO, "lockstep: no turn for step %ld within %g s; valid: a partner "
                           "process taking turns on the same FIFOs (bench/lockstep.sh)", k, g->timeout);
    char c = 0;
    ssize_t got;
    do
        got = read(g->fd_in, &c, 1);
    while (got < 0 && errno == EINTR);
    if (got != 1)
        return pfb_err_set(err, PFB_EIO, "lockstep: the turn for step %ld could not be read (%s)", k,
                           got == 0 ? "end of file" : strerror(errno));
    if (c != 'g')
        return pfb_err_set(err, PFB_EIO, "lockstep: the partner process stopped before step %ld", k);
    return PFB_OK;
}

/* Hand the turn over ('g') or tell the partner that this process stops ('x'). */
static int gate_pass(const pfb_step_gate *g, char c, pfb_err *err)
{
    ssize_t put;
    do
        put = write(g->fd_out, &c, 1);
    while (put < 0 && errno == EINTR);
    if (put != 1 && err)
        return pfb_err_set(err, PFB_EIO, "lockstep: the turn could not be handed over: %s",
                           put < 0 ? strerror(errno) : "short write");
    return PFB_OK;
}

int run_time_steps(const pfb_run_config *cfg, long warmup, long steps, pfb_step_timing *out, pfb_err *err)
{
    return run_time_steps_gated(cfg, warmup, steps, NULL, out, err);
}

int run_time_steps_gated(const pfb_run_config *cfg, long warmup, long steps, const pfb_step_gate *gate,
                         pfb_step_timing *out, pfb_err *err)
{
    memset(out, 0, sizeof *out);
    if (warmup < 0 || steps < 1)
        return pfb_err_set(err, PFB_EINVAL, "%ld warm-up and %ld timed steps are invalid; valid: >= 0 and >= 1",
                           warmup, steps);
    const pfb_solver_ops *so = cfg->solver;
    out->warmup = warmup;
    out->steps = steps;
    out->threads = pfb_max_threads();
    size_t ntimers_all = 0;
    if (so->timer_names && so->timers)
        while (so->timer_names[ntimers_all])
            ntimers_all++;
    out->ntimers = ntimers_all < PFB_TIMING_MAX ? ntimers_all : PFB_TIMING_MAX;
    for (size_t k = 0; k < out->ntimers; k++)
        out->timer_names[k] = so->timer_names[k];
    size_t ndiag_all = 0;
    if (so->diag_names)
        while (so->diag_names[ndiag_all])
            ndiag_all++;
    out->ndiag = ndiag_all < PFB_TIMING_MAX ? ndiag_all : PFB_TIMING_MAX;
    for (size_t k = 0; k < out->ndiag; k++)
        out->diag_names[k] = so->diag_names[k];

    pfb_sim sim;
    memset(&sim, 0, sizeof sim);
    void *st = NULL;
    double *t = malloc((size_t)steps * sizeof *t), *dv = calloc(ndiag_all + ntimers_all + 1, sizeof *dv);
    double *tall = dv + ndiag_all;
    /* memory freed by earlier work in this process goes back to the system first,
     * so the resident set's growth is what this run allocated (glibc) */
    malloc_trim(0);
    const double base = pfb_rss_bytes();
    int rc = (t && dv) ? run_setup(cfg, &sim, &st, err) : pfb_err_set(err, PFB_ENOMEM, "out of memory");
    double dt = 0.0, t_end = 0.0;
    long frames = 0;
    if (!rc)
        rc = run_timing(cfg, &sim, st, &dt, &out->substeps, &frames, &t_end, err);
    out->n = sim.p.n;
    out->spacing = sim.spacing;
    out->dt = dt;
    double tm0[PFB_TIMING_MAX] = {0}, tm1[PFB_TIMING_MAX] = {0};
    const long every = gate && gate->every > 1 ? gate->every : 1;
    for (long k = -warmup; !rc && k < steps && !out->unstable; k++) {
        const int opens = (k + warmup) % every == 0, closes = (k + warmup + 1) % every == 0 || k == steps - 1;
        if (gate && opens && (rc = gate_wait(gate, k, err)) != 0)
            break;
        if (k == 0)
            read_timers(so, st, out->ntimers, tall, tm0);
        double t0 = pfb_now();
        rc = so->step(st, &sim, dt, err);
        if (!rc)
            rc = sim_emit(&sim, dt, sim.t + dt, err);
        if (k >= 0)
            t[k] = pfb_now() - t0;
        sim.step++;
        sim.t += dt;
        sim_positions_changed(&sim);
        /* no energy scale here: only a non-finite state or an escape is a blow-up */
        if (!rc)
            out->unstable = run_check_blowup(&sim, INFINITY, 1.0, out->reason, sizeof out->reason);
        if (gate && closes && !rc && !out->unstable)
            rc = gate_pass(gate, 'g', err);
    }
    if (gate && (rc || out->unstable))
        gate_pass(gate, 'x', NULL); /* the partner stops too (best effort: this run's error stands) */
    if (!rc && !out->unstable) {
        read_timers(so, st, out->ntimers, tall, tm1);
        for (size_t k = 0; k < out->ntimers; k++)
            out->timer_step[k] = (tm1[k] - tm0[k]) / (double)steps;
        if (so->diag) {
            so->diag(st, &sim, dv);
            memcpy(out->diag, dv, out->ndiag * sizeof *dv);
        }
        if (so->frame) {
            double t0 = pfb_now();
            rc = so->frame(st, &sim, 0, err); /* 0: the timed call, every cadence reached (solver.h) */
            out->t_frame = pfb_now() - t0;
            read_timers(so, st, out->ntimers, tall, tm0);
            for (size_t k = 0; k < out->ntimers; k++)
                out->timer_frame[k] = tm0[k] - tm1[k];
        }
    }
    if (!rc && !out->unstable) {
        out->bytes_per_particle = (pfb_rss_bytes() - base) / (double)out->n;
        double sum = 0.0;
        for (long k = 0; k < steps; k++)
            sum += t[k];
        out->t_step_mean = sum / (double)steps;
        out->t_step = pfb_median(t, (size_t)steps); /* sorts t */
        out->t_step_min = t[0];
        out->t_total = out->t_step + out->t_frame / (double)out->substeps;
    }
    free(t);
    free(dv);
    so->destroy(st);
    sim_free(&sim);
    return rc;
}

static double lookup(const char *const *names, const double *v, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(names[k], name))
            return v[k];
    return NAN;
}

double timing_timer_step(const pfb_step_timing *t, const char *name)
{
    return lookup(t->timer_names, t->timer_step, t->ntimers, name);
}

double timing_timer_frame(const pfb_step_timing *t, const char *name)
{
    return lookup(t->timer_names, t->timer_frame, t->ntimers, name);
}

double timing_diag(const pfb_step_timing *t, const char *name)
{
    return lookup(t->diag_names, t->diag, t->ndiag, name);
}

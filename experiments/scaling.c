/* scaling.c — time per step against the particle count, 10^3 to 10^6 (issue 8).
 *
 * Every solver runs the 3D dam break at the spacing that gives about N particles,
 * N = 10^3, 10^3.5, ..., 10^6 (--quick: 10^3, 10^3.5, 10^4), with the material
 * preset (the calibrated fluid by default).  Each size is timed by run_time_steps (core/timing.h): two
 * untimed warm-up steps, then K timed steps, K = 20 up to 10^4 particles and
 * fewer above (K = clamp(3 10^5 / N, 3, 20); --quick: 5), the step time being
 * the median.  A solver with a once-per-frame hook (Mao-Yang's re-sampling) has
 * one call of it timed after the steps, and its cost per step is
 *   t_total = t_step + t_frame / substeps,
 * substeps being the steps in a frame (1/30 s) at the solver's suggested dt.
 * Phase timers break the time down where the solver has them (Mao-Yang: the
 * pressure solve per step; the whole re-sampling and its Delaunay triangulation
 * per call).  The threads are OpenMP's default (OMP_NUM_THREADS), recorded.
 *
 * The scaling exponent b of t ~ N^b is the least-squares slope of log t against
 * log N over the sizes that ran (gsl_fit_linear, with its standard error from the
 * scatter): linear scaling is b = 1; a fixed cost per step (thread start-up, a
 * sequential pass over the cells) pulls b below 1 at small N, work per particle
 * that grows with N (PCG iterations of a Poisson solve to a fixed relative
 * residual grow like N^(1/3) in 3D with a Jacobi preconditioner) pushes it above.  slope_large fits N >= 10^4 only,
 * where fixed costs are negligible.
 *
 * A solver with an iterative implicit solve (Mao-Yang's PCG: the parameters
 * pcg_stop, pcg_tol, pcg_max_iter) also runs every size at a fixed count of
 * iterations, SCALING_FIXED_ITERS per solve (pcg_stop = residual, pcg_tol =
 * 1e-14, which none of them reaches in that count).  Its own stopping rule
 * iterates as the state asks: from the lattice at rest the solves take 7.5,
 * 28.6 and 0.6 iterations a step at 10^3, 3 10^5 and 10^6 particles, so the
 * slope of its time measures those counts as much as the code.  With the
 * iterations fixed every size does the same work per particle, and its slope
 * (slope_fixed, slope_fixed_large for N >= 10^4) is the implementation's.
 * 10 iterations: about the density solve's count in the 3D dam break's flow.
 *
 * Outputs:
 *   scaling_runs.csv     solver,dim,n_target,n,spacing,dt,substeps,threads,steps,status,reason,t_step,
 *                        t_step_min,t_frame,t_total,ns_per_particle_step,bytes_per_particle,t_pressure,
 *                        t_resample,t_delaunay,pcg_iters_mean
 *   scaling_fixed_runs.csv  the same columns, the runs at fixed iterations (only such solvers)
 *   scaling_summary.csv  solver,dim,n_min,n_max,sizes,slope_total,slope_total_err,slope_step,slope_step_err,
 *                        slope_large,slope_large_err,slope_delaunay,slope_delaunay_err,ns_per_particle_step_max,
 *                        bytes_per_particle_max,delaunay_share_max,fixed_iters,slope_fixed,slope_fixed_err,
 *                        slope_fixed_large,slope_fixed_large_err
 * (fixed_iters 0 and the slope_fixed columns nan for a solver without such a
 * solve).
 * t_pressure is seconds per step; t_resample and t_delaunay are seconds per
 * frame-hook call; the *_max columns are at the largest N, delaunay_share_max the
 * Delaunay triangulation's share of t_total there.  Timings are not bit-
 * reproducible (they are measurements); run.meta records the commit, compiler,
 * flags, machine and threads of each. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"

#define SCALING_MAX_SIZES 16
#define SCALING_FIXED_ITERS 10

#define SCALING_RUNS_HEADER                                                                                          \
    "solver,dim,n_target,n,spacing,dt,substeps,threads,steps,status,reason,t_step,t_step_min,t_frame,t_total,"       \
    "ns_per_particle_step,bytes_per_particle,t_pressure,t_resample,t_delaunay,pcg_iters_mean"

/* The iterations per solve of the solver's fixed pass: SCALING_FIXED_ITERS
 * for a solver with a PCG solve (its parameters pcg_max_iter and pcg_tol),
 * else 0 (no fixed pass). */
static int fixed_iters_of(const pfb_solver_ops *so)
{
    int n = 0;
    for (const pfb_param_spec *p = so->params; p && p->name; p++)
        n += !strcmp(p->name, "pcg_max_iter") || !strcmp(p->name, "pcg_tol");
    return n == 2 ? SCALING_FIXED_ITERS : 0;
}

/* The slopes of one pass over the sizes. */
typedef struct scaling_fit {
    size_t nok;
    double b_total, e_total, b_step, e_step, b_l, e_l, b_d, e_d;
    double n_min, n_max, ns_max, bytes_max, share_max;
} scaling_fit;

static double col_or_nan(const csv_table *t, const char *name)
{
    int c = csv_table_col(t, name);
    return c < 0 || t->nrow == 0 ? NAN : csv_table_get(t, 0, c);
}

/* Every size for solver so, the rows into runs (fixed > 0: at that many
 * iterations per solve, ids suffixed _itK) and the fits into *fit. */
static int scaling_pass(const pfb_exp_ctx *ctx, const pfb_solver_ops *so, int fixed, exp_csv *runs,
                        scaling_fit *fit, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const int dim = 3;
    const int nsizes = q ? 3 : 7;
    double logn[SCALING_MAX_SIZES], lt_step[SCALING_MAX_SIZES], lt_total[SCALING_MAX_SIZES];
    double logn_d[SCALING_MAX_SIZES], lt_d[SCALING_MAX_SIZES], logn_l[SCALING_MAX_SIZES], lt_l[SCALING_MAX_SIZES];
    size_t nok = 0, nd = 0, nl = 0;
    int rc = PFB_OK;
    fit->n_min = fit->n_max = fit->ns_max = fit->bytes_max = fit->share_max = NAN;
    for (int k = 0; k < nsizes && !rc; k++) {
        const double n_target = pow(10.0, 3.0 + 0.5 * k);
        const long steps = q ? 5 : lround(fmin(20.0, fmax(3.0, 3e5 / n_target)));
        char id[128], dimset[32], itset[64];
        if (fixed > 0)
            snprintf(id, sizeof id, "%s_%dd_n%.0f_it%d", so->name, dim, n_target, fixed);
        else
            snprintf(id, sizeof id, "%s_%dd_n%.0f", so->name, dim, n_target);
        snprintf(dimset, sizeof dimset, "run.dim=%d", dim);
        snprintf(itset, sizeof itset, "solver.pcg_max_iter=%d", fixed);
        const char *sets[] = {dimset, NULL};
        const char *sets_fixed[] = {dimset, "solver.pcg_stop=residual", "solver.pcg_tol=1e-14", itset, NULL};
        exp_run_spec spec = {"scaling", id, so, "dam_break", fixed > 0 ? sets_fixed : sets, NULL, 0};
        exp_timing_out o;
        rc = exp_time_steps(ctx, &spec, n_target, 2, steps, &o, err);
        if (rc)
            break;
        const csv_table *t = &o.timing;
        const double n = col_or_nan(t, "n"), t_step = col_or_nan(t, "t_step"), t_total = col_or_nan(t, "t_total"),
                     t_del = col_or_nan(t, "frame_delaunay"), sub = col_or_nan(t, "substeps");
        char reason[sizeof o.status];
        exp_status_reason(o.status, reason, sizeof reason);
        fprintf(runs->f, "%s,%d,%.0f,%.0f,%.10g,%.10g,%.0f,%.0f,%.0f,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                "%.6g\n",
                so->name, dim, n_target, n, col_or_nan(t, "spacing"), col_or_nan(t, "dt"), sub,
                col_or_nan(t, "threads"), col_or_nan(t, "steps"), o.unstable ? "unstable" : "ok", reason, t_step,
                col_or_nan(t, "t_step_min"), col_or_nan(t, "t_frame"), t_total, 1e9 * t_total / n,
                col_or_nan(t, "bytes_per_particle"), col_or_nan(t, "step_pressure"), col_or_nan(t, "frame_resample"),
                t_del, col_or_nan(t, "diag_pcg_iters_mean"));
        if (!o.unstable && n > 0 && t_total > 0) {
            logn[nok] = log(n);
            lt_step[nok] = log(t_step);
            lt_total[nok] = log(t_total);
            nok++;
            if (n_target >= 1e4 - 1.0) {
                logn_l[nl] = log(n);
                lt_l[nl++] = log(t_total);
            }
            if (t_del > 0) {
                logn_d[nd] = log(n);
                lt_d[nd++] = log(t_del);
            }
            if (!(fit->n_min <= n))
                fit->n_min = n;
            if (!(fit->n_max >= n)) {
                fit->n_max = n;
                fit->ns_max = 1e9 * t_total / n;
                fit->bytes_max = col_or_nan(t, "bytes_per_particle");
                fit->share_max = t_del > 0 ? t_del / sub / t_total : NAN;
            }
        }
        csv_table_free(&o.timing);
    }
    fit->nok = nok;
    exp_line_slope(logn, lt_total, nok, &fit->b_total, &fit->e_total);
    exp_line_slope(logn, lt_step, nok, &fit->b_step, &fit->e_step);
    exp_line_slope(logn_l, lt_l, nl, &fit->b_l, &fit->e_l);
    exp_line_slope(logn_d, lt_d, nd, &fit->b_d, &fit->e_d);
    return rc;
}

static int scaling_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int dim = 3;
    exp_csv runs, fixed_runs, summary;
    memset(&runs, 0, sizeof runs);
    memset(&fixed_runs, 0, sizeof fixed_runs);
    memset(&summary, 0, sizeof summary);
    int any_fixed = 0;
    for (size_t si = 0; si < ctx->nsolvers; si++)
        any_fixed |= fixed_iters_of(ctx->solvers[si]) > 0;
    int rc = exp_csv_open(&runs, ctx, "scaling_runs.csv", SCALING_RUNS_HEADER, err);
    if (!rc && any_fixed)
        rc = exp_csv_open(&fixed_runs, ctx, "scaling_fixed_runs.csv", SCALING_RUNS_HEADER, err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "scaling_summary.csv",
                          "solver,dim,n_min,n_max,sizes,slope_total,slope_total_err,slope_step,slope_step_err,"
                          "slope_large,slope_large_err,slope_delaunay,slope_delaunay_err,ns_per_particle_step_max,"
                          "bytes_per_particle_max,delaunay_share_max,fixed_iters,slope_fixed,slope_fixed_err,"
                          "slope_fixed_large,slope_fixed_large_err",
                          err);
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        scaling_fit f, g = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
        rc = scaling_pass(ctx, so, 0, &runs, &f, err);
        const int fixed = fixed_iters_of(so);
        if (!rc && fixed)
            rc = scaling_pass(ctx, so, fixed, &fixed_runs, &g, err);
        if (rc)
            break;
        fprintf(summary.f, "%s,%d,%.0f,%.0f,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6g,%.6g,%.4g,%d,%.4f,%.4f,%.4f,"
                "%.4f\n",
                so->name, dim, f.n_min, f.n_max, f.nok, f.b_total, f.e_total, f.b_step, f.e_step, f.b_l, f.e_l, f.b_d,
                f.e_d, f.ns_max, f.bytes_max, f.share_max, fixed, g.b_total, g.e_total, g.b_l, g.e_l);
    }
    exp_csv *const cs[] = {&runs, &summary, &fixed_runs};
    return exp_csv_finish(cs, any_fixed ? 3 : 2, rc, err);
}

const pfb_experiment pfb_exp_scaling = {"scaling", "time per step against the particle count, 10^3 to 10^6 (3D dam break)",
                                        scaling_run};

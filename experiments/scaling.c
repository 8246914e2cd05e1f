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
 * Outputs:
 *   scaling_runs.csv     solver,dim,n_target,n,spacing,dt,substeps,threads,steps,status,reason,t_step,
 *                        t_step_min,t_frame,t_total,ns_per_particle_step,bytes_per_particle,t_pressure,
 *                        t_resample,t_delaunay,pcg_iters_mean
 *   scaling_summary.csv  solver,dim,n_min,n_max,sizes,slope_total,slope_total_err,slope_step,slope_step_err,
 *                        slope_large,slope_large_err,slope_delaunay,slope_delaunay_err,ns_per_particle_step_max,
 *                        bytes_per_particle_max,delaunay_share_max
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

static double col_or_nan(const csv_table *t, const char *name)
{
    int c = csv_table_col(t, name);
    return c < 0 || t->nrow == 0 ? NAN : csv_table_get(t, 0, c);
}

static int scaling_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const int dim = 3;
    const int nsizes = q ? 3 : 7;
    exp_csv runs, summary;
    memset(&runs, 0, sizeof runs);
    memset(&summary, 0, sizeof summary);
    int rc = exp_csv_open(&runs, ctx, "scaling_runs.csv",
                          "solver,dim,n_target,n,spacing,dt,substeps,threads,steps,status,reason,t_step,t_step_min,"
                          "t_frame,t_total,ns_per_particle_step,bytes_per_particle,t_pressure,t_resample,t_delaunay,"
                          "pcg_iters_mean",
                          err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "scaling_summary.csv",
                          "solver,dim,n_min,n_max,sizes,slope_total,slope_total_err,slope_step,slope_step_err,"
                          "slope_large,slope_large_err,slope_delaunay,slope_delaunay_err,ns_per_particle_step_max,"
                          "bytes_per_particle_max,delaunay_share_max",
                          err);
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        double logn[SCALING_MAX_SIZES], lt_step[SCALING_MAX_SIZES], lt_total[SCALING_MAX_SIZES];
        double logn_d[SCALING_MAX_SIZES], lt_d[SCALING_MAX_SIZES], logn_l[SCALING_MAX_SIZES],
            lt_l[SCALING_MAX_SIZES];
        size_t nok = 0, nd = 0, nl = 0;
        double n_min = NAN, n_max = NAN, ns_max = NAN, bytes_max = NAN, share_max = NAN;
        for (int k = 0; k < nsizes && !rc; k++) {
            const double n_target = pow(10.0, 3.0 + 0.5 * k);
            const long steps = q ? 5 : lround(fmin(20.0, fmax(3.0, 3e5 / n_target)));
            char id[128], dimset[32];
            snprintf(id, sizeof id, "%s_%dd_n%.0f", so->name, dim, n_target);
            snprintf(dimset, sizeof dimset, "run.dim=%d", dim);
            const char *sets[] = {dimset, NULL};
            exp_run_spec spec = {"scaling", id, so, "dam_break", sets, NULL, 0};
            exp_timing_out o;
            rc = exp_time_steps(ctx, &spec, n_target, 2, steps, &o, err);
            if (rc)
                break;
            const csv_table *t = &o.timing;
            const double n = col_or_nan(t, "n"), t_step = col_or_nan(t, "t_step"),
                         t_total = col_or_nan(t, "t_total"), t_del = col_or_nan(t, "frame_delaunay"),
                         sub = col_or_nan(t, "substeps");
            char reason[sizeof o.status];
            exp_status_reason(o.status, reason, sizeof reason);
            fprintf(runs.f, "%s,%d,%.0f,%.0f,%.10g,%.10g,%.0f,%.0f,%.0f,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                    "%.6g\n",
                    so->name, dim, n_target, n, col_or_nan(t, "spacing"), col_or_nan(t, "dt"), sub,
                    col_or_nan(t, "threads"), col_or_nan(t, "steps"), o.unstable ? "unstable" : "ok", reason, t_step,
                    col_or_nan(t, "t_step_min"), col_or_nan(t, "t_frame"), t_total, 1e9 * t_total / n,
                    col_or_nan(t, "bytes_per_particle"), col_or_nan(t, "step_pressure"),
                    col_or_nan(t, "frame_resample"), t_del, col_or_nan(t, "diag_pcg_iters_mean"));
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
                if (!(n_min <= n))
                    n_min = n;
                if (!(n_max >= n)) {
                    n_max = n;
                    ns_max = 1e9 * t_total / n;
                    bytes_max = col_or_nan(t, "bytes_per_particle");
                    share_max = t_del > 0 ? t_del / sub / t_total : NAN;
                }
            }
            csv_table_free(&o.timing);
        }
        if (rc)
            break;
        double b_total, e_total, b_step, e_step, b_l, e_l, b_d, e_d;
        exp_line_slope(logn, lt_total, nok, &b_total, &e_total);
        exp_line_slope(logn, lt_step, nok, &b_step, &e_step);
        exp_line_slope(logn_l, lt_l, nl, &b_l, &e_l);
        exp_line_slope(logn_d, lt_d, nd, &b_d, &e_d);
        fprintf(summary.f, "%s,%d,%.0f,%.0f,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.6g,%.6g,%.4g\n", so->name, dim,
                n_min, n_max, nok, b_total, e_total, b_step, e_step, b_l, e_l, b_d, e_d, ns_max, bytes_max,
                share_max);
    }
    exp_csv *const cs[] = {&runs, &summary};
    return exp_csv_finish(cs, 2, rc, err);
}

const pfb_experiment pfb_exp_scaling = {"scaling", "time per step against the particle count, 10^3 to 10^6 (3D dam break)",
                                        scaling_run};

/* stability.c — stability against the time step on dam_break and drop.
 *
 * For each solver and setup, dt = dt_s * 2^k with dt_s the solver's own suggested
 * step, k = kmax-10..kmax (11 runs, 3.0 decades; every other one with --quick), where
 * kmax = min(7, floor(log2(T / (4 dt_s)))) so that the largest step still leaves four
 * steps in the run's duration T.  A frame is the largest whole number of steps not
 * longer than 1/30 s (one step when dt > 1/30 s), the duration the whole number of
 * frames closest below T, so every dt is exactly dt_s 2^k.  Each run is stable, or
 * unstable with the run loop's reason:
 *   non-finite   a position or velocity is NaN or infinite;
 *   escaped      a particle left the scene's domain (the tank plus 10% per side;
 *                10 R around the drop);
 *   energy growth  kinetic energy above 10 x (KE_0 + M |g| L + M v_ref^2 / 2) at
 *                the end of a frame;
 *   volume collapse  volume_rel below 0.5 at a frame.
 * Against the smallest-dt run (the reference): com_err = max over the run's frames
 * of |com(t) - com_ref(t)| / L (the reference interpolated linearly in t) and
 * shape_err = max over the final extents |x_min, x_max, ... - reference| / L, with
 * L the scene's length (column height 2a; drop radius R).
 *
 * Outputs:
 *   stability_runs.csv     solver,scene,dim,k,dt,dt_rel,dt_nd,status,reason,t_end_reached,com_err,shape_err,
 *                          wall_seconds,steps
 *   stability_summary.csv  solver,scene,dim,dt_suggested,dt_max_stable,dt_max_stable_nd,dt_max_stable_rel,
 *                          first_unstable_reason
 * dt_nd is dt sqrt(g/L) where the scene has gravity (dam break), and dt / t_c with
 * the capillary time t_c = sqrt(rho R^3 / sigma) where the solver has an explicit
 * sigma (drop), else empty.  dt_max_stable is the largest dt below which every run
 * of the sweep is stable. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

typedef struct stab_setup {
    const char *scene;
    int dim;
    double spacing[2];
    double t_end[2];
} stab_setup;

static const stab_setup setups[] = {
    {"dam_break", 2, {0.01, 0.025}, {1.0, 0.5}},
    {"dam_break", 3, {0.025, 0.05}, {1.0, 0.3}},
    {"drop", 2, {0.01, 0.02}, {1.0, 0.5}},
    {"drop", 3, {0.02, 0.04}, {1.0, 0.3}},
};

/* Linear interpolation of column c of s at time t (clamped to the ends). */
static double interp(const csv_table *s, int ct, int c, double t)
{
    if (s->nrow == 0)
        return NAN;
    if (t <= csv_table_get(s, 0, ct))
        return csv_table_get(s, 0, c);
    for (size_t r = 1; r < s->nrow; r++) {
        double t1 = csv_table_get(s, r, ct);
        if (t <= t1) {
            double t0 = csv_table_get(s, r - 1, ct), w = (t - t0) / (t1 - t0);
            return (1.0 - w) * csv_table_get(s, r - 1, c) + w * csv_table_get(s, r, c);
        }
    }
    return csv_table_get(s, s->nrow - 1, c);
}

static void errors_against(const csv_table *run, const csv_table *ref, double L, double *com_err, double *shape_err)
{
    static const char *com[] = {"comx", "comy", "comz"};
    static const char *ext[] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    int ct = csv_table_col(run, "t"), rct = csv_table_col(ref, "t");
    double ce = 0.0;
    for (size_t r = 0; r < run->nrow; r++) {
        double t = csv_table_get(run, r, ct), d2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = csv_table_get(run, r, csv_table_col(run, com[k])) - interp(ref, rct, csv_table_col(ref, com[k]), t);
            d2 += d * d;
        }
        ce = fmax(ce, sqrt(d2));
    }
    double se = 0.0;
    if (run->nrow && ref->nrow)
        for (int k = 0; k < 6; k++)
            se = fmax(se, fabs(csv_table_get(run, run->nrow - 1, csv_table_col(run, ext[k])) -
                               csv_table_get(ref, ref->nrow - 1, csv_table_col(ref, ext[k]))));
    *com_err = ce / L;
    *shape_err = se / L;
}

static int stability_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    exp_csv runs, summary;
    memset(&runs, 0, sizeof runs);
    memset(&summary, 0, sizeof summary);
    int rc = exp_csv_open(&runs, ctx, "stability_runs.csv",
                          "solver,scene,dim,k,dt,dt_rel,dt_nd,status,reason,t_end_reached,com_err,shape_err,"
                          "wall_seconds,steps",
                          err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "stability_summary.csv",
                          "solver,scene,dim,dt_suggested,dt_max_stable,dt_max_stable_nd,dt_max_stable_rel,"
                          "first_unstable_reason",
                          err);
    const int kstep = q ? 2 : 1;
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        for (size_t u = 0; u < sizeof setups / sizeof setups[0] && !rc; u++) {
            const stab_setup *su = &setups[u];
            char dim[32], spacing[64], tend[64], base[128];
            snprintf(dim, sizeof dim, "run.dim=%d", su->dim);
            snprintf(spacing, sizeof spacing, "run.spacing=%.17g", su->spacing[q]);
            snprintf(tend, sizeof tend, "run.t_end=%.17g", su->t_end[q]);
            snprintf(base, sizeof base, "%s_%s_%dd", so->name, su->scene, su->dim);
            const char *bsets[] = {dim, spacing, tend, NULL};
            exp_run_spec bspec = {"stability", base, so, su->scene, bsets, NULL, 0};
            double dt_s, sigma;
            rc = exp_suggest_dt(ctx, &bspec, &dt_s, err);
            if (!rc)
                rc = exp_surface_tension(ctx, &bspec, &sigma, err);
            if (rc)
                break;
            /* the largest dt is at most T/4 (a run of fewer than four steps says nothing),
             * and the sweep spans 2^10, three decades, below it */
            const double T = su->t_end[q];
            int kmax = (int)floor(log2(0.25 * T / dt_s));
            if (kmax > 7)
                kmax = 7;
            const int kmin = kmax - 10;
            int nk = (kmax - kmin) / kstep + 1;
            exp_run_out *outs = calloc((size_t)nk, sizeof *outs);
            if (!outs) {
                rc = pfb_err_set(err, PFB_ENOMEM, "out of memory");
                break;
            }
            int got = 0;
            for (int i = 0; i < nk && !rc; i++, got++) {
                int k = kmin + i * kstep;
                /* frames every whole number of steps, at most 30 per second, so dt is exact */
                double dt = dt_s * ldexp(1.0, k);
                long sub = lround(fmax(1.0, floor(1.0 / (30.0 * dt) + 1e-9)));
                double F = (double)sub * dt;
                long frames = lround(fmax(1.0, floor(T / F + 1e-9)));
                char id[160], sfr[64], ssub[64], stend[64];
                snprintf(id, sizeof id, "%s_k%+d", base, k);
                snprintf(sfr, sizeof sfr, "run.frames=%ld", frames);
                snprintf(ssub, sizeof ssub, "run.substeps=%ld", sub);
                snprintf(stend, sizeof stend, "run.t_end=%.17g", (double)frames * F);
                const char *sets[] = {dim, spacing, stend, sfr, ssub, NULL};
                exp_run_spec spec = {"stability", id, so, su->scene, sets, NULL, 0};
                rc = exp_run(ctx, &spec, &outs[i], err);
            }
            if (!rc) {
                /* the reference: the smallest dt, if it is stable */
                const exp_run_out *ref = &outs[0];
                double dt_max = NAN;
                const char *first_reason = "";
                char reason[320], first[320] = "";
                int all_stable = 1;
                for (int i = 0; i < nk; i++) {
                    exp_run_out *o = &outs[i];
                    int k = kmin + i * kstep;
                    double L = o->length_ref, com_err = NAN, shape_err = NAN;
                    if (!o->unstable && !ref->unstable)
                        errors_against(&o->series, &ref->series, L, &com_err, &shape_err);
                    double dt_nd = NAN;
                    if (o->gravity > 0)
                        dt_nd = o->dt * sqrt(o->gravity / L);
                    else if (sigma > 0)
                        dt_nd = o->dt / sqrt(1000.0 * L * L * L / sigma);
                    int ct = csv_table_col(&o->series, "t");
                    double t_reached = o->series.nrow ? csv_table_get(&o->series, o->series.nrow - 1, ct) : 0.0;
                    exp_reason(o, reason, sizeof reason);
                    fprintf(runs.f, "%s,%s,%d,%d,%.10g,%.10g,%.10g,%s,%s,%.6g,%.10g,%.10g,%.4f,%ld\n", so->name,
                            su->scene, su->dim, k, o->dt, o->dt / dt_s, dt_nd, exp_status_word(o), reason, t_reached,
                            com_err, shape_err, o->wall_seconds, o->steps);
                    if (o->unstable && all_stable) {
                        all_stable = 0;
                        snprintf(first, sizeof first, "%s", reason);
                        first_reason = first;
                    }
                    if (!o->unstable && all_stable)
                        dt_max = o->dt;
                }
                const exp_run_out *best = NULL;
                for (int i = 0; i < nk; i++)
                    if (outs[i].dt == dt_max)
                        best = &outs[i];
                double L = best ? best->length_ref : NAN, g = best ? best->gravity : NAN;
                double nd = NAN;
                if (best && g > 0)
                    nd = dt_max * sqrt(g / L);
                else if (best && sigma > 0)
                    nd = dt_max / sqrt(1000.0 * L * L * L / sigma);
                fprintf(summary.f, "%s,%s,%d,%.10g,%.10g,%.10g,%.10g,%s\n", so->name, su->scene, su->dim, dt_s, dt_max,
                        nd, dt_max / dt_s, first_reason);
            }
            for (int i = 0; i < got; i++)
                exp_run_out_free(&outs[i]);
            free(outs);
        }
    }
    exp_csv *const cs[] = {&runs, &summary};
    return exp_csv_finish(cs, 2, rc, err);
}

const pfb_experiment pfb_exp_stability = {
    "stability", "time step swept over three decades on dam_break and drop; largest stable dt per solver",
    stability_run};

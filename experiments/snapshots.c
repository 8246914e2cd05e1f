/* snapshots.c — what each method does: particle positions of the 2D dam break at a
 * few instants, for the paper's snapshot figure (issue 9).
 *
 * Every solver runs the 2D dam break (the column a = 0.25 m wide and 2a high at the
 * left wall of a tank 4a long) with the material preset (the calibrated fluid by
 * default) for 1 s, keeping a particle snapshot every
 * 0.2 s (run.snapshots=csv, frames 0..5).  Spacing 0.01 m (1250 particles; --quick
 * 0.02 m, 312).
 *
 * Outputs:
 *   snapshots_particles.csv  solver,dim,frame,t,x,y,speed   (every particle of every frame)
 *   snapshots_summary.csv    solver,scene,dim,n,dt,status,reason,frames_done,wall_seconds
 * A run that blows up keeps the frames it reached (the figure shows them and says
 * where it stopped). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"

#define SNAP_FRAMES 5
#define SNAP_T_END 1.0

static int snapshots_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    const int q = ctx->quick ? 1 : 0;
    const double spacing = q ? 0.02 : 0.01;
    exp_csv parts, summary;
    memset(&parts, 0, sizeof parts);
    memset(&summary, 0, sizeof summary);
    int rc = exp_csv_open(&parts, ctx, "snapshots_particles.csv", "solver,dim,frame,t,x,y,speed", err);
    if (!rc)
        rc = exp_csv_open(&summary, ctx, "snapshots_summary.csv",
                          "solver,scene,dim,n,dt,status,reason,frames_done,wall_seconds", err);
    for (size_t si = 0; si < ctx->nsolvers && !rc; si++) {
        const pfb_solver_ops *so = ctx->solvers[si];
        char id[128], sspacing[64], stend[64], sframes[64];
        snprintf(id, sizeof id, "%s_dam_break_2d", so->name);
        snprintf(sspacing, sizeof sspacing, "run.spacing=%.17g", spacing);
        snprintf(stend, sizeof stend, "run.t_end=%.17g", SNAP_T_END);
        snprintf(sframes, sizeof sframes, "run.frames=%d", SNAP_FRAMES);
        const char *sets[] = {"run.dim=2", sspacing, stend, sframes, NULL};
        exp_run_spec spec = {"snapshots", id, so, "dam_break", sets, NULL, 1};
        exp_run_out out;
        rc = exp_run(ctx, &spec, &out, err);
        if (rc)
            break;
        /* the frames that were written: series.csv has one row per frame */
        const csv_table *s = &out.series;
        int cf = csv_table_col(s, "frame"), ct = csv_table_col(s, "t");
        long last = -1;
        for (size_t r = 0; r < s->nrow && !rc; r++) {
            long frame = lround(csv_table_get(s, r, cf));
            double t = csv_table_get(s, r, ct);
            char path[4400];
            snprintf(path, sizeof path, "%s/runs/%s/frames/frame_%05ld.csv", ctx->out_dir, id, frame);
            csv_table fr;
            rc = csv_table_load(&fr, path, err);
            if (rc)
                break;
            int cx = csv_table_col(&fr, "x"), cy = csv_table_col(&fr, "y");
            int cvx = csv_table_col(&fr, "vx"), cvy = csv_table_col(&fr, "vy");
            if (cx < 0 || cy < 0 || cvx < 0 || cvy < 0) {
                csv_table_free(&fr);
                rc = pfb_err_set(err, PFB_EIO, "'%s' lacks one of the columns x, y, vx, vy", path);
                break;
            }
            for (size_t i = 0; i < fr.nrow; i++)
                fprintf(parts.f, "%s,2,%ld,%.6g,%.6g,%.6g,%.6g\n", so->name, frame, t, csv_table_get(&fr, i, cx),
                        csv_table_get(&fr, i, cy), hypot(csv_table_get(&fr, i, cvx), csv_table_get(&fr, i, cvy)));
            csv_table_free(&fr);
            last = frame;
        }
        if (!rc) {
            char reason[320];
            exp_reason(&out, reason, sizeof reason);
            fprintf(summary.f, "%s,dam_break,2,%zu,%.10g,%s,%s,%ld,%.4f\n", so->name, out.n, out.dt,
                    exp_status_word(&out), reason, last, out.wall_seconds);
        }
        exp_run_out_free(&out);
    }
    exp_csv *const cs[] = {&parts, &summary};
    return exp_csv_finish(cs, 2, rc, err);
}

const pfb_experiment pfb_exp_snapshots = {
    "snapshots", "particle snapshots of the 2D dam break every 0.2 s for 1 s (the paper's figure of what each method does)",
    snapshots_run};

/* reference.c — the continuum reference (issue 46): Gerris solves every
 * validation case for the reference fluid (scenes/fluid.ini) at three or more
 * levels, and reports its own convergence as its error bar.  gerris.h gives
 * the equations, the set-up and the choices.
 *
 * Cases (levels: dx = box / 2^level; quick: the one level in brackets):
 *   dam_break_slip     2D, free-slip walls, the reference fluid, T <= 3:
 *                      levels 4, 5, 6 (a/16, a/32, a/64) [3]
 *   dam_break_noslip   the same with no-slip walls [3]
 *   dam_break_water    free slip, water (nu = 1.0e-6 m^2/s, sigma 0.0728 N/m):
 *                      the check against Martin & Moyce [3]
 *   dam_break_half     free slip, the reference fluid with half its viscosity:
 *                      the front's response to the viscosity, against which a
 *                      method's response to halving its own is measured
 *                      (validation.c, validation_viscosity.csv): levels 5, 6, 7,
 *                      one finer than the slip case, whose Reynolds number is
 *                      half this one's [3]
 *   dam_break_snap     free slip, the reference fluid, level 5 to t = 1 s with
 *                      the liquid every 0.2 s: Figure 1's first row [3]
 *   dam_break_3d       3D (tank width a), free slip: levels 3, 4 (a/8, a/16),
 *                      indicative (two levels: the error bar is their
 *                      difference) [2]
 *   drop               2D, R = 0.1 m, sigma = GFS_DROP_SIGMA, the reference
 *                      fluid's nu, 2 s: levels 7, 8, 9 (R/dx = 10, 20, 40; at
 *                      R/dx = 5 the frequency is outside the asymptotic range,
 *                      and the three levels 6, 7, 8 are not monotone) [6]
 *   drop_inviscid      the same with nu = 1e-3 m^2/s: Rayleigh's frequency and
 *                      the weak-damping rate 4 nu / R^2: levels 6, 7, 8 [6]
 *   pool               the pool at rest for 0.5 s: levels 4, 5, 6 [3]
 *   wave               the periodic shear wave, 1 s: levels 4, 5, 6 [3]
 *
 * Each run lives in OUT/runs/<case>_L<level>/ (input.gfs, Gerris's outputs and
 * log, run.meta with the inputs' hash: the input file and Gerris's version); a
 * rerun skips a run that is current, and --plan / --only / --jobs hand the runs
 * to the local pool or SLURM as for every experiment.
 *
 * Outputs (OUT/):
 *   reference_<case>_L<level>.csv   one per run, with provenance lines (# gerris,
 *                                   fluid, input, level, dx, dt rule, wall, cpu):
 *     dam break  t,T,Z,H,ke,volume   (T = t sqrt(2 g / a), Z = x_front / a, H the
 *                                     residual height at the wall over a, ke in J
 *                                     (per metre of depth in 2D), volume in m^2 or m^3;
 *                                     no slip: W, the wetted floor's length over a)
 *     drop       t,deformation,volume
 *     pool       depth,p,p_hydro
 *     wave       t,amplitude
 *   reference_<case>.csv             the finest level's, with "# error bar:" (the
 *                                    largest relative error bar of its convergence)
 *   reference_convergence.csv        case,quantity,x,level_fine,f_coarse,f_mid,f_fine,order,f_inf,bar,rel_bar
 *     (dam breaks: Z and H at T = 0.5, 1, ..., 3, no slip W at T = 1, 2, 3; drops: omega and beta; pool: p
 *     at each depth; wave: nu; gfs_richardson3: order, Richardson estimate and
 *     the finest level's error bar; two levels: bar = their difference)
 *   reference_checks.csv             case,level,dx,quantity,value,expected,rel_err,against
 *     (the reference against experiment and theory: the water and the reference
 *     fluid's fronts against Martin & Moyce, err_mean / err_max / bias over
 *     T <= 3; the drops' omega against Rayleigh's and beta against 4 nu / R^2;
 *     the pool's p against rho g d; the wave's nu against the set nu)
 *   reference_runs.csv               case,level,dx,status,wall_seconds,cpu_seconds
 *   reference_snapshots.csv          frame,t,x,y (cells with T >= 0.5 of dam_break_snap,
 *                                    x from the tank's left wall, y from its floor) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/fit.h"
#include "../core/output.h"
#include "experiment.h"
#include "fluid.h"
#include "gerris.h"
#include "validate.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define REF_T_MAX 3.0
#define WATER_NU 1.0e-6
#define WATER_SIGMA 0.0728
#define INVISCID_NU 1.0e-3

/* The cases of the header; rho, nu and sigma of the reference fluid are filled in
 * at run time where the entry holds 0 (sigma: -1); a negative nu is that
 * multiple of the reference fluid's. */
static const gfs_case ref_cases[] = {
    {"dam_break_slip", GFS_DAM_BREAK, 2, 0, 0, 0, -1, 0, 0.0025, 0, {4, 5, 6}, 3},
    {"dam_break_noslip", GFS_DAM_BREAK, 2, 1, 0, 0, -1, 0, 0.0025, 0, {4, 5, 6}, 3},
    {"dam_break_water", GFS_DAM_BREAK, 2, 0, 0, WATER_NU, WATER_SIGMA, 0, 0.0025, 0, {4, 5, 6}, 3},
    {"dam_break_half", GFS_DAM_BREAK, 2, 0, 0, -0.5, -1, 0, 0.0025, 0, {5, 6, 7}, 3},
    {"dam_break_snap", GFS_DAM_BREAK, 2, 0, 0, 0, -1, 1.0, 0.01, 0.2, {5, 0, 0}, 3},
    {"dam_break_3d", GFS_DAM_BREAK, 3, 0, 0, 0, -1, 0, 0.0025, 0, {3, 4, 0}, 2},
    {"drop", GFS_DROP, 2, 0, 0, 0, GFS_DROP_SIGMA, 2.0, 1.0 / 120.0, 0, {7, 8, 9}, 6},
    {"drop_inviscid", GFS_DROP, 2, 0, 0, INVISCID_NU, GFS_DROP_SIGMA, 2.0, 1.0 / 120.0, 0, {6, 7, 8}, 6},
    {"pool", GFS_POOL, 2, 0, 0, 0, -1, 0.5, 0.5, 0, {4, 5, 6}, 3},
    {"wave", GFS_WAVE, 2, 0, 0, 0, -1, 1.0, 0.02, 0, {4, 5, 6}, 3},
};
#define REF_NCASES (sizeof ref_cases / sizeof ref_cases[0])

static const double pool_depths[3] = {0.15, 0.25, 0.35};

/* The dam break's time: T <= 3 and one output step more. */
static double dam_t_end(void)
{
    return REF_T_MAX / sqrt(2.0 * GFS_GRAVITY / GFS_DAM_A) + 0.0025;
}

/* The case with the fluid filled in. */
static gfs_case case_for(const gfs_case *c, const pfb_fluid *f)
{
    gfs_case r = *c;
    if (r.rho == 0)
        r.rho = f->density;
    if (r.nu == 0)
        r.nu = f->nu;
    else if (r.nu < 0)
        r.nu = -r.nu * f->nu;
    if (r.sigma < 0)
        r.sigma = f->sigma;
    if (r.kind == GFS_DAM_BREAK && r.t_end == 0)
        r.t_end = dam_t_end();
    return r;
}

/* One Gerris run: made (or found current) in OUT/runs/ID; *pending when it was
 * left to the pool. */
typedef struct ref_run {
    char id[96], dir[4096];
    int pending, level;
    double dx, wall, cpu;
    char *input;
    size_t input_len;
} ref_run;

static int ref_run_do(const pfb_exp_ctx *ctx, const gfs_case *c, int level, const char *version, ref_run *r,
                      pfb_err *err)
{
    memset(r, 0, sizeof *r);
    r->level = level;
    r->dx = gfs_box(c) / (double)(1 << level);
    char id[sizeof r->id];
    snprintf(id, sizeof id, "%s_L%d", c->name, level);
    memcpy(r->id, id, sizeof id);
    if (snprintf(r->dir, sizeof r->dir, "%s/runs/%s", ctx->out_dir, id) >= (int)sizeof r->dir)
        return pfb_err_set(err, PFB_EINVAL, "output directory '%.200s' is too long; valid: under 4000 bytes",
                           ctx->out_dir);
    int rc = gfs_input(c, level, &r->input, &r->input_len, err);
    if (rc)
        return rc;
    uint64_t h = exp_fnv1a(14695981039346656037ULL, version, strlen(version));
    h = exp_fnv1a(h, r->input, r->input_len);
    char want[32], meta[4200], have[64] = "", status[64] = "";
    snprintf(want, sizeof want, "%016llx", (unsigned long long)h);
    snprintf(meta, sizeof meta, "%s/run.meta", r->dir);
    char *mt = NULL;
    size_t ml = 0;
    if (output_read_file(meta, "the run metadata", &mt, &ml, NULL) == 0) {
        meta_text_get(mt, ml, "inputs", have, sizeof have);
        meta_text_get(mt, ml, "status", status, sizeof status);
        r->wall = meta_text_double(mt, ml, "wall_seconds");
        r->cpu = meta_text_double(mt, ml, "cpu_seconds");
    }
    free(mt);
    const int current = !ctx->force && !strcmp(have, want) && !strcmp(status, "ok");
    if (exp_left_pending(ctx, r->id, current, 0)) {
        r->pending = 1;
        return PFB_OK;
    }
    if (ctx->manifest)
        fprintf(ctx->manifest, "%s\n", r->id);
    if (current) {
        exp_log(ctx, "  %-40s current, skipped", r->id);
        return PFB_OK;
    }
    char path[4200];
    rc = output_prepare_dir(r->dir, err);
    if (!rc) {
        remove(meta);
        snprintf(path, sizeof path, "%s/input.gfs", r->dir);
        rc = output_write_file(path, r->input, r->input_len, err);
    }
    if (rc)
        return rc;
    exp_log(ctx, "  %-40s %s, level %d (dx %.4g m)", r->id, c->dim == 2 ? "gerris2D" : "gerris3D", level, r->dx);
    rc = gfs_run(c->dim == 2 ? "gerris2D" : "gerris3D", r->dir, &r->wall, &r->cpu, err);
    if (rc)
        return rc;
    char text[512];
    const int n = snprintf(text, sizeof text,
                           "case = %s\nlevel = %d\ndx = %.17g\ngerris = %s\ninputs = %s\nwall_seconds = %.3f\n"
                           "cpu_seconds = %.3f\nstatus = ok\n",
                           c->name, level, r->dx, version, want, r->wall, r->cpu);
    return output_write_file(meta, text, (size_t)n, err);
}

static int read_out(const ref_run *r, const char *file, gfs_series *s, pfb_err *err)
{
    char path[4200], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/%s", r->dir, file);
    int rc = output_read_file(path, "a Gerris output", &text, &len, err);
    if (!rc)
        rc = gfs_read_series(text, path, s, err);
    free(text);
    return rc;
}

/* The provenance lines of a run's CSV. */
static void provenance(FILE *f, const gfs_case *c, const ref_run *r, const char *version)
{
    char fl[128];
    gfs_fluid_line(fl, sizeof fl, c->rho, c->nu, c->sigma);
    fprintf(f, "# case: %s (experiments/reference.c; %s walls)\n", c->name, c->noslip ? "no-slip" : "free-slip");
    fprintf(f, "# gerris: %s\n# fluid: %s\n# input: inputs/%s.gfs (beside this file; the run: runs/%s/)\n", version,
            fl, r->id, r->id);
    fprintf(f, "# level: %d\n# dx: %.9g\n# dt rule: Gerris CFL 0.8, dtmax = %g s\n", r->level, r->dx, GFS_DTMAX);
    fprintf(f, "# wall: %.1f s\n# cpu: %.1f s\n", r->wall, r->cpu);
}

/* A run's table, in memory: rows of ncol doubles. */
typedef struct ref_table {
    const char *header;
    size_t ncol, nrow;
    double *d;
} ref_table;

static void table_free(ref_table *t)
{
    free(t->d);
    memset(t, 0, sizeof *t);
}

/* Column col of t at row where column 0 (time) ... interpolated at x. */
static double table_interp(const ref_table *t, int xc, int yc, double x)
{
    return validate_interp(t->d + xc, t->d + yc, t->nrow, t->ncol, x);
}

/* The run's table from Gerris's outputs (the header's columns). */
static int run_table(const gfs_case *c, const ref_run *r, ref_table *t, pfb_err *err)
{
    memset(t, 0, sizeof *t);
    gfs_series s[5];
    memset(s, 0, sizeof s);
    int rc = PFB_OK;
    const double a = GFS_DAM_A;
    switch (c->kind) {
    case GFS_DAM_BREAK: {
        const int nf = c->noslip ? 5 : 4;
        t->header = c->noslip ? "t,T,Z,H,ke,volume,W" : "t,T,Z,H,ke,volume";
        t->ncol = (size_t)nf + 2;
        const char *files[5] = {"front", "height", "ke", "volume", "wetted"};
        for (int k = 0; k < nf && !rc; k++)
            rc = read_out(r, files[k], &s[k], err);
        if (rc)
            break;
        size_t n = s[0].n;
        for (int k = 1; k < nf; k++)
            n = s[k].n < n ? s[k].n : n;
        t->d = malloc((n + 1) * t->ncol * sizeof *t->d);
        if (!t->d) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s", r->id);
            break;
        }
        const double width = c->dim == 3 ? a : 1.0;
        for (size_t k = 0; k < n; k++) {
            double *row = t->d + k * t->ncol;
            row[0] = s[0].t[k];
            row[1] = validate_mm_T(s[0].t[k], GFS_GRAVITY, a);
            row[2] = (s[0].v[k] + 0.5 * a) / a; /* the tank's wall at x = -a/2 */
            row[3] = s[1].v[k] / (r->dx * width) / a;
            row[4] = s[2].v[k];
            row[5] = s[3].v[k];
            if (nf == 5) /* the contact line: the last wet floor cell's far face */
                row[6] = (s[4].v[k] + 0.5 * r->dx + 0.5 * a) / a;
        }
        t->nrow = n;
        break;
    }
    case GFS_DROP: {
        t->header = "t,deformation,volume";
        t->ncol = 3;
        const char *files[3] = {"ixx", "iyy", "volume"};
        for (int k = 0; k < 3 && !rc; k++)
            rc = read_out(r, files[k], &s[k], err);
        if (rc)
            break;
        size_t n = s[0].n;
        for (int k = 1; k < 3; k++)
            n = s[k].n < n ? s[k].n : n;
        t->d = malloc((n + 1) * t->ncol * sizeof *t->d);
        if (!t->d) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s", r->id);
            break;
        }
        for (size_t k = 0; k < n; k++) {
            double *row = t->d + k * t->ncol;
            row[0] = s[0].t[k];
            row[1] = (s[0].v[k] - s[1].v[k]) / (s[0].v[k] + s[1].v[k]);
            row[2] = s[2].v[k];
        }
        t->nrow = n;
        break;
    }
    case GFS_POOL: {
        t->header = "depth,p,p_hydro";
        t->ncol = 3;
        char path[4200], *text = NULL;
        size_t len;
        snprintf(path, sizeof path, "%s/pressure", r->dir);
        rc = output_read_file(path, "a Gerris output", &text, &len, err);
        double P[8];
        size_t np = 0;
        if (!rc)
            rc = gfs_read_location_last(text, path, P, 8, &np, err);
        free(text);
        if (!rc && np != 4)
            rc = pfb_err_set(err, PFB_EINVAL, "Gerris output '%s' has %zu points at its last time; valid: 4", path, np);
        if (rc)
            break;
        t->d = malloc(3 * t->ncol * sizeof *t->d);
        if (!t->d) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s", r->id);
            break;
        }
        /* the surface's pressure: the gas's at y = 0.25 plus its weight down to y = 0 */
        const double p0 = P[3] + GFS_AIR_RHO * GFS_GRAVITY * 0.25;
        for (int k = 0; k < 3; k++) {
            t->d[k * 3 + 0] = pool_depths[k];
            t->d[k * 3 + 1] = P[k] - p0;
            t->d[k * 3 + 2] = c->rho * GFS_GRAVITY * pool_depths[k];
        }
        t->nrow = 3;
        break;
    }
    case GFS_WAVE: {
        t->header = "t,amplitude";
        t->ncol = 2;
        rc = read_out(r, "amplitude", &s[0], err);
        if (rc)
            break;
        t->d = malloc((s[0].n + 1) * 2 * sizeof *t->d);
        if (!t->d) {
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading %s", r->id);
            break;
        }
        for (size_t k = 0; k < s[0].n; k++) {
            t->d[2 * k] = s[0].t[k];
            t->d[2 * k + 1] = 2.0 * s[0].v[k] / (GFS_WAVE_L * GFS_WAVE_L);
        }
        t->nrow = s[0].n;
        break;
    }
    }
    for (int k = 0; k < 5; k++)
        gfs_series_free(&s[k]);
    if (rc)
        table_free(t);
    return rc;
}

static int write_table(const pfb_exp_ctx *ctx, const char *name, const gfs_case *c, const ref_run *r,
                       const char *version, const ref_table *t, double bar, pfb_err *err)
{
    exp_csv f;
    char hdr[1024], fl[128];
    gfs_fluid_line(fl, sizeof fl, c->rho, c->nu, c->sigma);
    /* the provenance goes before the header: write it as the header's first lines */
    char *prov = NULL;
    size_t plen = 0;
    FILE *m = open_memstream(&prov, &plen);
    if (!m)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing %s", name);
    provenance(m, c, r, version);
    if (isfinite(bar))
        fprintf(m, "# error bar: %.6g\n", bar);
    if (fclose(m) != 0) {
        free(prov);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing %s", name);
    }
    snprintf(hdr, sizeof hdr, "%s%s", prov, t->header);
    free(prov);
    int rc = exp_csv_open(&f, ctx, name, hdr, err);
    if (rc)
        return rc;
    for (size_t k = 0; k < t->nrow; k++)
        for (size_t j = 0; j < t->ncol; j++)
            fprintf(f.f, "%.10g%s", t->d[k * t->ncol + j], j + 1 < t->ncol ? "," : "\n");
    return exp_csv_close(&f, err);
}

/* The damped-cosine fit of a drop's deformation (the validation's). */
static void drop_fit(const ref_table *t, double *omega, double *beta)
{
    *omega = *beta = NAN;
    double *tt = malloc((t->nrow + 1) * sizeof *tt), *y = malloc((t->nrow + 1) * sizeof *y);
    if (tt && y) {
        for (size_t k = 0; k < t->nrow; k++) {
            tt[k] = t->d[k * t->ncol];
            y[k] = t->d[k * t->ncol + 1];
        }
        pfb_fit_result fr;
        pfb_err ferr;
        const size_t nw = fit_ringdown_window(y, t->nrow, 0.1);
        if (fit_damped_cosine(tt, y, nw, &fr, &ferr) == 0 && fr.p[FIT_OMEGA] > 0) {
            *omega = fr.p[FIT_OMEGA];
            *beta = fr.p[FIT_BETA];
        }
    }
    free(tt);
    free(y);
}

/* The wave's nu from the slope of ln A against t. */
static double wave_nu(const ref_table *t)
{
    double *tt = malloc((t->nrow + 1) * sizeof *tt), *la = malloc((t->nrow + 1) * sizeof *la);
    double b = NAN, berr;
    size_t n = 0;
    for (size_t k = 0; tt && la && k < t->nrow; k++)
        if (t->d[2 * k + 1] > 0) {
            tt[n] = t->d[2 * k];
            la[n++] = log(t->d[2 * k + 1]);
        }
    if (tt && la)
        exp_line_slope(tt, la, n, &b, &berr);
    free(tt);
    free(la);
    const double k = 2.0 * M_PI / GFS_WAVE_L;
    return -b / (k * k);
}

/* The front's errors against Martin & Moyce at their points with T <= 3
 * (validate_mm_errors on the table's T and Z). */
static void mm_errors(const ref_table *t, const validate_mm_data *mm, double *mean, double *max, double *bias)
{
    double *T = malloc((t->nrow + 1) * sizeof *T), *Z = malloc((t->nrow + 1) * sizeof *Z);
    int np = 0;
    *mean = *max = *bias = NAN;
    if (T && Z) {
        for (size_t k = 0; k < t->nrow; k++) {
            T[k] = t->d[k * t->ncol + 1];
            Z[k] = t->d[k * t->ncol + 2];
        }
        validate_mm_errors(T, Z, t->nrow, mm, REF_T_MAX, mean, max, bias, &np);
    }
    free(T);
    free(Z);
}

/* The quantities whose convergence the levels show, for one case: up to QMAX
 * values per level (name, the abscissa x). */
#define QMAX 16
typedef struct ref_q {
    size_t n;
    char name[QMAX][16];
    double x[QMAX], v[QMAX];
} ref_q;

static void quantities(const gfs_case *c, const ref_table *t, ref_q *q)
{
    memset(q, 0, sizeof *q);
    switch (c->kind) {
    case GFS_DAM_BREAK:
        for (int k = 1; k <= 6; k++) {
            const double T = 0.5 * k;
            snprintf(q->name[q->n], 16, "Z");
            q->x[q->n] = T;
            q->v[q->n++] = table_interp(t, 1, 2, T);
        }
        for (int k = 1; k <= 6; k++) {
            const double T = 0.5 * k;
            snprintf(q->name[q->n], 16, "H");
            q->x[q->n] = T;
            q->v[q->n++] = table_interp(t, 1, 3, T);
        }
        for (int k = 1; c->noslip && k <= 3; k++) {
            snprintf(q->name[q->n], 16, "W");
            q->x[q->n] = k;
            q->v[q->n++] = table_interp(t, 1, 6, k);
        }
        break;
    case GFS_DROP: {
        double w, b;
        drop_fit(t, &w, &b);
        snprintf(q->name[0], 16, "omega");
        snprintf(q->name[1], 16, "beta");
        q->x[0] = q->x[1] = NAN;
        q->v[0] = w;
        q->v[1] = b;
        q->n = 2;
        break;
    }
    case GFS_POOL:
        for (size_t k = 0; k < t->nrow && k < QMAX; k++) {
            snprintf(q->name[k], 16, "p");
            q->x[k] = t->d[k * t->ncol];
            q->v[k] = t->d[k * t->ncol + 1];
        }
        q->n = t->nrow;
        break;
    case GFS_WAVE:
        snprintf(q->name[0], 16, "nu");
        q->x[0] = NAN;
        q->v[0] = wave_nu(t);
        q->n = 1;
        break;
    }
}

/* The largest relative error bar of a dam break's front over T in [0.5, 3]
 * (steps of 0.1) from its levels' tables (three: Richardson; two: their
 * difference). */
static double front_bar(const ref_table *const *t, int nl)
{
    double worst = 0;
    for (int k = 0; k <= 25; k++) {
        const double T = 0.5 + 0.1 * k;
        double f[3];
        for (int l = 0; l < nl; l++)
            f[l] = table_interp(t[l], 1, 2, T);
        double bar;
        if (nl == 3) {
            gfs_richardson r;
            gfs_richardson3(f, &r);
            bar = r.bar;
        } else {
            bar = fabs(f[1] - f[0]);
        }
        worst = fmax(worst, bar / fabs(f[nl - 1]));
        if (!isfinite(bar))
            return NAN;
    }
    return worst;
}

static int reference_run(const pfb_exp_ctx *ctx, pfb_err *err)
{
    if (!ctx->fluid)
        return pfb_err_set(err, PFB_EINVAL, "the reference experiment needs the reference fluid; valid: --fluid FILE "
                                            "or scenes/fluid.ini");
    char v2[128], v3[128];
    int rc = gfs_version("gerris2D", v2, sizeof v2, err);
    if (!rc)
        rc = gfs_version("gerris3D", v3, sizeof v3, err);
    if (rc)
        return rc;
    validate_mm_data mm;
    rc = validate_mm_builtin(&mm, err);
    if (rc)
        return rc;
    exp_csv conv, checks, runs, snaps;
    memset(&conv, 0, sizeof conv);
    memset(&checks, 0, sizeof checks);
    memset(&runs, 0, sizeof runs);
    memset(&snaps, 0, sizeof snaps);
    rc = exp_csv_open(&conv, ctx, "reference_convergence.csv",
                      "case,quantity,x,level_fine,f_coarse,f_mid,f_fine,order,f_inf,bar,rel_bar", err);
    if (!rc)
        rc = exp_csv_open(&checks, ctx, "reference_checks.csv",
                          "case,level,dx,quantity,value,expected,rel_err,against", err);
    if (!rc)
        rc = exp_csv_open(&runs, ctx, "reference_runs.csv", "case,level,dx,status,wall_seconds,cpu_seconds", err);
    if (!rc)
        rc = exp_csv_open(&snaps, ctx, "reference_snapshots.csv", "frame,t,x,y", err);
    for (size_t ci = 0; ci < REF_NCASES && !rc; ci++) {
        const gfs_case c = case_for(&ref_cases[ci], ctx->fluid);
        const char *version = c.dim == 2 ? v2 : v3;
        int levels[3], nl = 0;
        if (ctx->quick)
            levels[nl++] = c.quick_level;
        else
            for (int k = 0; k < 3 && c.levels[k] > 0; k++)
                levels[nl++] = c.levels[k];
        ref_run rr[3];
        ref_table tab[3];
        ref_q q[3];
        memset(rr, 0, sizeof rr);
        memset(tab, 0, sizeof tab);
        int done = 1, l;
        for (l = 0; l < nl && !rc; l++) {
            rc = ref_run_do(ctx, &c, levels[l], version, &rr[l], err);
            done &= !rr[l].pending;
        }
        for (l = 0; l < nl && !rc && done; l++) {
            rc = run_table(&c, &rr[l], &tab[l], err);
            if (rc)
                break;
            quantities(&c, &tab[l], &q[l]);
            fprintf(runs.f, "%s,%d,%.9g,ok,%.3f,%.3f\n", c.name, rr[l].level, rr[l].dx, rr[l].wall, rr[l].cpu);
            char name[160];
            snprintf(name, sizeof name, "reference_%s_L%d.csv", c.name, rr[l].level);
            rc = write_table(ctx, name, &c, &rr[l], version, &tab[l], NAN, err);
            if (!rc) {
                /* a copy of the input beside the CSVs (the runs directory is not kept) */
                char path[4200];
                snprintf(path, sizeof path, "%s/inputs", ctx->out_dir);
                if (!ctx->plan && !ctx->only)
                    rc = output_prepare_dir(path, err);
                const int pn = snprintf(path, sizeof path, "%s/inputs/%s.gfs", ctx->out_dir, rr[l].id);
                if (!rc && pn < (int)sizeof path && !ctx->plan && !ctx->only)
                    rc = output_write_file(path, rr[l].input, rr[l].input_len, err);
            }
        }
        if (!rc && done) {
            /* convergence: per quantity, the levels' values */
            double worst = 0;
            for (size_t k = 0; k < q[0].n; k++) {
                double f[3] = {NAN, NAN, NAN};
                for (int j = 0; j < nl; j++)
                    f[j] = q[j].v[k];
                gfs_richardson r = {NAN, NAN, NAN};
                if (nl == 3)
                    gfs_richardson3(f, &r);
                else if (nl == 2)
                    r.bar = fabs(f[1] - f[0]);
                const double fine = f[nl - 1];
                const double rel = r.bar / fabs(fine);
                if (c.kind != GFS_DAM_BREAK || !strcmp(q[0].name[k], "Z"))
                    worst = fmax(worst, rel);
                if (nl >= 2)
                    fprintf(conv.f, "%s,%s,%.6g,%d,%.9g,%.9g,%.9g,%.6g,%.9g,%.6g,%.6g\n", c.name, q[0].name[k],
                            q[0].x[k], levels[nl - 1], f[0], nl == 3 ? f[1] : NAN, fine, r.p, r.f_inf, r.bar, rel);
            }
            if (c.kind == GFS_DAM_BREAK && nl >= 2) {
                const ref_table *tp[3] = {&tab[0], &tab[1], &tab[2]};
                worst = front_bar(tp, nl);
            }
            if (nl < 2)
                worst = NAN;
            char name[160];
            snprintf(name, sizeof name, "reference_%s.csv", c.name);
            rc = write_table(ctx, name, &c, &rr[nl - 1], version, &tab[nl - 1], worst, err);
            /* checks against experiment and theory */
            for (int j = 0; j < nl && !rc; j++) {
                if (c.kind == GFS_DAM_BREAK && c.dim == 2 && c.snap_dt == 0) {
                    double mean, max, bias;
                    mm_errors(&tab[j], &mm, &mean, &max, &bias);
                    fprintf(checks.f, "%s,%d,%.9g,front_err_mean,%.6g,,%.6g,Martin & Moyce (T <= 3)\n", c.name,
                            levels[j], rr[j].dx, mean, mean);
                    fprintf(checks.f, "%s,%d,%.9g,front_err_max,%.6g,,%.6g,Martin & Moyce (T <= 3)\n", c.name,
                            levels[j], rr[j].dx, max, max);
                    fprintf(checks.f, "%s,%d,%.9g,front_bias,%.6g,,%.6g,Martin & Moyce (T <= 3)\n", c.name,
                            levels[j], rr[j].dx, bias, bias);
                    const double v0 = tab[j].d[5], v1 = tab[j].d[(tab[j].nrow - 1) * tab[j].ncol + 5];
                    fprintf(checks.f, "%s,%d,%.9g,volume_change,%.6g,0,%.6g,conservation\n", c.name, levels[j],
                            rr[j].dx, v1 / v0 - 1.0, fabs(v1 / v0 - 1.0));
                } else if (c.kind == GFS_DROP) {
                    const double R = GFS_DROP_R, wR = sqrt(6.0 * c.sigma / (c.rho * R * R * R));
                    const double bv = 4.0 * c.nu / (R * R);
                    fprintf(checks.f, "%s,%d,%.9g,omega,%.8g,%.8g,%.6g,Rayleigh omega_R (2D mode 2)\n", c.name,
                            levels[j], rr[j].dx, q[j].v[0], wR, q[j].v[0] / wR - 1.0);
                    fprintf(checks.f, "%s,%d,%.9g,beta,%.8g,%.8g,%.6g,weak damping 4 nu / R^2\n", c.name, levels[j],
                            rr[j].dx, q[j].v[1], bv, q[j].v[1] / bv - 1.0);
                } else if (c.kind == GFS_POOL) {
                    for (size_t k = 0; k < tab[j].nrow; k++)
                        fprintf(checks.f, "%s,%d,%.9g,p_d%g,%.8g,%.8g,%.6g,rho g d\n", c.name, levels[j], rr[j].dx,
                                tab[j].d[k * 3], tab[j].d[k * 3 + 1], tab[j].d[k * 3 + 2],
                                tab[j].d[k * 3 + 1] / tab[j].d[k * 3 + 2] - 1.0);
                } else if (c.kind == GFS_WAVE) {
                    fprintf(checks.f, "%s,%d,%.9g,nu,%.8g,%.8g,%.6g,the set nu (A = A0 exp(-nu k^2 t))\n", c.name,
                            levels[j], rr[j].dx, q[j].v[0], c.nu, q[j].v[0] / c.nu - 1.0);
                }
            }
            if (!rc && c.snap_dt > 0 && !ctx->plan && !ctx->only) {
                /* the liquid's cells every snap_dt (x from the wall, y from the floor) */
                const long nf = lround(c.t_end / c.snap_dt);
                for (long fr = 0; fr <= nf && !rc; fr++) {
                    char path[4300], *text = NULL;
                    size_t len;
                    snprintf(path, sizeof path, "%s/snap-%g.txt", rr[0].dir, (double)fr * c.snap_dt);
                    /* a run found current without its snapshots is an error, not an
                     * empty figure row */
                    rc = output_read_file(path, "a Gerris snapshot", &text, &len, err);
                    if (rc) {
                        free(text);
                        break;
                    }
                    for (char *s = text; s && *s;) {
                        char *e = strchr(s, '\n');
                        if (e)
                            *e = '\0';
                        double x, y, z, T;
                        if (s[0] != '#' && sscanf(s, "%lf %lf %lf %lf", &x, &y, &z, &T) == 4 && T >= 0.5)
                            fprintf(snaps.f, "%ld,%.4g,%.6g,%.6g\n", fr, (double)fr * c.snap_dt, x + 0.5 * GFS_DAM_A,
                                    y + 0.5 * GFS_DAM_A);
                        s = e ? e + 1 : NULL;
                    }
                    free(text);
                }
            }
        }
        for (l = 0; l < 3; l++) {
            table_free(&tab[l]);
            free(rr[l].input);
        }
    }
    validate_mm_free(&mm);
    exp_csv *const cs[] = {&conv, &checks, &runs, &snaps};
    return exp_csv_finish(cs, 4, rc, err);
}

const pfb_experiment pfb_exp_reference = {
    "reference", "the continuum reference: Gerris solves the validation cases for the reference fluid at three "
                 "levels, with its own error bar (needs gerris: scripts/deps.sh reference)",
    reference_run};

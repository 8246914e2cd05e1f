/* common.c — what every experiment driver shares: presets, make-style runs, CSVs. */
#include <errno.h>
#include <gsl/gsl_fit.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/checkpoint.h"
#include "../core/output.h"
#include "../core/timing.h"
#include "../core/version.h"
#include "experiment.h"
#include "presets.h"

extern const pfb_experiment pfb_exp_volume, pfb_exp_stability, pfb_exp_drop, pfb_exp_scaling,
    pfb_exp_snapshots, pfb_exp_properties, pfb_exp_calibrate, pfb_exp_validation, pfb_exp_reference,
    pfb_exp_rheology;

const pfb_experiment *const pfb_experiments[] = {&pfb_exp_volume, &pfb_exp_stability, &pfb_exp_drop,
                                                 &pfb_exp_scaling, &pfb_exp_snapshots, &pfb_exp_properties,
                                                 &pfb_exp_calibrate, &pfb_exp_validation, &pfb_exp_reference,
                                                 &pfb_exp_rheology, NULL};

int experiment_lookup(const char *name, const pfb_experiment **out, pfb_err *err)
{
    const char *names[16];
    char valid[256] = "";
    size_t n = 0, len = 0;
    for (size_t i = 0; pfb_experiments[i] && n < 16; i++) {
        if (!strcmp(pfb_experiments[i]->name, name)) {
            *out = pfb_experiments[i];
            return PFB_OK;
        }
        names[n++] = pfb_experiments[i]->name;
        if (len < sizeof valid)
            len += (size_t)snprintf(valid + len, sizeof valid - len, "%s%s", n > 1 ? ", " : "",
                                    pfb_experiments[i]->name);
    }
    if (!*name)
        return pfb_err_set(err, PFB_EINVAL, "missing experiment name; valid: %s", valid);
    const char *near = pfb_nearest(name, names, n);
    if (near)
        return pfb_err_set(err, PFB_EINVAL, "unknown experiment '%s'; did you mean '%s'? valid: %s", name, near,
                           valid);
    return pfb_err_set(err, PFB_EINVAL, "unknown experiment '%s'; valid: %s", name, valid);
}

void exp_log(const pfb_exp_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->log)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    ctx->log(ctx->log_ctx, line);
}

const char *exp_status_word(const exp_run_out *out)
{
    return out->unstable ? "unstable" : "ok";
}

void exp_status_reason(const char *status, char *buf, size_t len)
{
    const char *r = strncmp(status, "ok", 2) ? status + (strncmp(status, "unstable: ", 10) ? 0 : 10) : "";
    snprintf(buf, len, "%s", r);
    for (char *p = buf; *p; p++)
        if (*p == ',' || *p == '"' || *p == '\n')
            *p = ';';
}

void exp_reason(const exp_run_out *out, char *buf, size_t len)
{
    exp_status_reason(out->status, buf, len);
}

void exp_line_slope(const double *x, const double *y, size_t n, double *b, double *berr)
{
    *b = *berr = NAN;
    if (n < 3)
        return;
    double c0, c1, cov00, cov01, cov11, sumsq;
    gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
    *b = c1;
    *berr = sqrt(cov11);
}

/* ---- CSV tables ----------------------------------------------------------------- */

void csv_table_free(csv_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->ncol; i++)
        free(t->names[i]);
    free(t->names);
    free(t->data);
    memset(t, 0, sizeof *t);
}

int csv_table_col(const csv_table *t, const char *name)
{
    for (size_t i = 0; i < t->ncol; i++)
        if (!strcmp(t->names[i], name))
            return (int)i;
    return -1;
}

double csv_table_get(const csv_table *t, size_t r, int c)
{
    if (c < 0 || (size_t)c >= t->ncol || r >= t->nrow)
        return NAN;
    return t->data[r * t->ncol + (size_t)c];
}

int csv_table_load(csv_table *t, const char *path, pfb_err *err)
{
    memset(t, 0, sizeof *t);
    char *text;
    size_t len;
    int rc = output_read_file(path, "the table", &text, &len, err);
    if (!rc)
        rc = csv_table_parse(t, text, len, path, err);
    free(text);
    return rc;
}

/* The line of text[*pos..len) (with its newline, if any) into *line as a
 * NUL-terminated string (grown as needed); 0 at the end of the text. */
static ssize_t next_line(const char *text, size_t len, size_t *pos, char **line, size_t *cap)
{
    if (*pos >= len)
        return 0;
    const char *s = text + *pos, *nl = memchr(s, '\n', len - *pos);
    const size_t n = nl ? (size_t)(nl - s) + 1 : len - *pos;
    if (n + 1 > *cap) {
        char *b = realloc(*line, n + 1);
        if (!b)
            return -1;
        *line = b;
        *cap = n + 1;
    }
    memcpy(*line, s, n);
    (*line)[n] = '\0';
    *pos += n;
    return (ssize_t)n;
}

int csv_table_parse(csv_table *t, const char *text, size_t tlen, const char *name, pfb_err *err)
{
    memset(t, 0, sizeof *t);
    char *line = NULL;
    size_t cap = 0, pos = 0;
    ssize_t len;
    int rc = PFB_OK;
    if ((len = next_line(text, tlen, &pos, &line, &cap)) <= 0) {
        rc = len < 0 ? pfb_err_set(err, PFB_ENOMEM, "out of memory reading '%s'", name)
                     : pfb_err_set(err, PFB_EIO, "'%s' is empty; valid: a CSV with a header row", name);
        goto done;
    }
    line[strcspn(line, "\r\n")] = '\0';
    for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ",")) {
        char **nn = realloc(t->names, (t->ncol + 1) * sizeof *nn);
        if (!nn || !(nn[t->ncol] = strdup(tok))) {
            if (nn)
                t->names = nn;
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading '%s'", name);
            goto done;
        }
        t->names = nn;
        t->ncol++;
    }
    while ((len = next_line(text, tlen, &pos, &line, &cap)) > 0) {
        if (line[0] == '\n')
            continue;
        if ((t->nrow + 1) * t->ncol > t->cap) {
            size_t nc = t->cap ? 2 * t->cap : 64 * t->ncol;
            double *d = realloc(t->data, nc * sizeof *d);
            if (!d) {
                rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading '%s'", name);
                goto done;
            }
            t->data = d;
            t->cap = nc;
        }
        char *p = line;
        for (size_t c = 0; c < t->ncol; c++) {
            char *end;
            double v = strtod(p, &end);
            if (end == p)
                v = NAN;
            t->data[t->nrow * t->ncol + c] = v;
            p = strchr(p, ',');
            if (!p) {
                for (size_t k = c + 1; k < t->ncol; k++)
                    t->data[t->nrow * t->ncol + k] = NAN;
                break;
            }
            p++;
        }
        t->nrow++;
    }
    if (len < 0)
        rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading '%s'", name);
done:
    free(line);
    if (rc)
        csv_table_free(t);
    return rc;
}

/* ---- tidy CSV output -------------------------------------------------------------- */

int exp_csv_open(exp_csv *c, const pfb_exp_ctx *ctx, const char *name, const char *header, pfb_err *err)
{
    memset(c, 0, sizeof *c);
    c->dry = ctx->plan || ctx->only;
    snprintf(c->path, sizeof c->path, "%s/%s", ctx->out_dir, name);
    c->f = open_memstream(&c->buf, &c->len);
    if (!c->f)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for '%s'", c->path);
    fprintf(c->f, "%s\n", header);
    return PFB_OK;
}

void exp_csv_abort(exp_csv *c)
{
    if (c->f)
        fclose(c->f);
    c->f = NULL;
    free(c->buf);
    c->buf = NULL;
}

int exp_csv_finish(exp_csv *const *cs, size_t n, int rc, pfb_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (rc)
            exp_csv_abort(cs[i]);
        else
            rc = exp_csv_close(cs[i], err);
    }
    for (size_t i = 0; i < n; i++)
        exp_csv_abort(cs[i]);
    return rc;
}

int exp_csv_close(exp_csv *c, pfb_err *err)
{
    if (!c->f)
        return PFB_OK;
    FILE *f = c->f;
    c->f = NULL;
    if (c->dry) {
        fclose(f);
        free(c->buf);
        c->buf = NULL;
        return PFB_OK;
    }
    return output_write_stream(f, &c->buf, &c->len, c->path, err);
}

/* ---- parameters for one run -------------------------------------------------------- */

typedef struct exp_tables {
    pfb_params run, scene, solver;
    const pfb_scene_def *sc;
} exp_tables;

static void tables_free(exp_tables *t)
{
    params_free(&t->run);
    params_free(&t->scene);
    params_free(&t->solver);
}

static int tables_build(const pfb_exp_ctx *ctx, const exp_run_spec *spec, exp_tables *t, pfb_err *err)
{
    memset(t, 0, sizeof *t);
    int rc = scene_lookup(spec->scene, &t->sc, err);
    if (!rc)
        rc = params_init(&t->run, pfb_run_params, "run", err);
    if (!rc)
        rc = params_init(&t->scene, t->sc->params, t->sc->name, err);
    if (!rc)
        rc = params_init(&t->solver, spec->solver->params, spec->solver->name, err);
    if (rc)
        return rc;
    if (ctx->preset) {
        rc = preset_apply(ctx->preset, spec->solver, &t->solver, err);
        if (rc)
            return rc;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.ini", ctx->preset_dir, spec->experiment);
    if (access(path, R_OK) == 0) {
        pfb_ini_target targets[] = {{spec->solver->name, &t->solver}};
        const char *ignore[64];
        size_t nign = 0;
        for (size_t i = 0; pfb_solvers[i] && nign < 64; i++)
            if (pfb_solvers[i] != spec->solver)
                ignore[nign++] = pfb_solvers[i]->name;
        rc = params_load_ini(path, targets, 1, ignore, nign, err);
        if (rc)
            return rc;
    }
    for (size_t i = 0; spec->sets && spec->sets[i]; i++) {
        rc = run_apply_setting(&t->run, &t->scene, &t->solver, spec->sets[i], err);
        if (rc)
            return rc;
    }
    return PFB_OK;
}

uint64_t exp_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *s = data;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    return exp_fnv1a(h, s, strlen(s));
}

/* Hash of everything that determines a run's result. */
static uint64_t tables_hash(const exp_run_spec *spec, const exp_tables *t)
{
    uint64_t h = 1469598103934665603ULL;
    h = fnv1a(h, spec->experiment);
    h = fnv1a(h, spec->solver->name);
    h = fnv1a(h, spec->scene);
    h = fnv1a(h, pfb_commit());
    const pfb_params *tabs[3] = {&t->run, &t->scene, &t->solver};
    char buf[64];
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < tabs[k]->n; i++) {
            params_format(tabs[k], i, buf, sizeof buf);
            h = fnv1a(h, tabs[k]->spec[i].name);
            h = fnv1a(h, "=");
            h = fnv1a(h, buf);
            h = fnv1a(h, "\n");
        }
    for (size_t i = 0; spec->extra && spec->extra->names && spec->extra->names[i]; i++)
        h = fnv1a(h, spec->extra->names[i]);
    return h;
}

void meta_text_get(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
    out[0] = '\0';
    const size_t klen = strlen(key);
    for (size_t pos = 0; pos < len;) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        const size_t n = nl ? (size_t)(nl - s) : len - pos;
        if (n >= klen + 3 && !memcmp(s, key, klen) && !memcmp(s + klen, " = ", 3)) {
            const size_t vlen = n - klen - 3;
            snprintf(out, outlen, "%.*s", vlen > INT_MAX ? INT_MAX : (int)vlen, s + klen + 3);
            return;
        }
        pos += n + 1;
    }
}

double meta_text_double(const char *text, size_t len, const char *key)
{
    char buf[128];
    meta_text_get(text, len, key, buf, sizeof buf);
    return buf[0] ? strtod(buf, NULL) : NAN;
}

/* Value of key in a run.meta file (first match), or "" if absent. */
static void meta_get(const char *path, const char *key, char *out, size_t len)
{
    char *text;
    size_t n;
    out[0] = '\0';
    if (output_read_file(path, "the run metadata", &text, &n, NULL) == 0)
        meta_text_get(text, n, key, out, len);
    free(text);
}

static double meta_double(const char *path, const char *key)
{
    char *text;
    size_t n;
    double v = NAN;
    if (output_read_file(path, "the run metadata", &text, &n, NULL) == 0)
        v = meta_text_double(text, n, key);
    free(text);
    return v;
}

/* ---- per-frame extras ------------------------------------------------------------- */

typedef struct extra_buf {
    const exp_extra *x;
    const pfb_solver_ops *so;
    size_t ncol, nrow, cap;
    double *rows;          /* t followed by the values */
} extra_buf;

static int extra_frame(void *ctx, const pfb_sim *sim, const void *state, long frame, const pfb_diag *d, pfb_err *err)
{
    (void)frame;
    (void)d;
    extra_buf *b = ctx;
    if ((b->nrow + 1) * (b->ncol + 1) > b->cap) {
        size_t nc = b->cap ? 2 * b->cap : 256 * (b->ncol + 1);
        double *r = realloc(b->rows, nc * sizeof *r);
        if (!r)
            return pfb_err_set(err, PFB_ENOMEM, "out of memory recording frame extras");
        b->rows = r;
        b->cap = nc;
    }
    double *row = b->rows + b->nrow * (b->ncol + 1);
    row[0] = sim->t;
    if (b->x->row)
        b->x->row(b->x->ctx, sim, row + 1);
    else
        b->x->row_state(b->x->ctx, sim, b->so, state, row + 1);
    b->nrow++;
    return PFB_OK;
}

/* The extras so far in a checkpoint (core/run.h's frame_save and frame_load). */
static int extra_save(void *ctx, pfb_ckpt_w *w, pfb_err *err)
{
    (void)err;
    const extra_buf *b = ctx;
    ckpt_put(w, "XTRA", b->rows, b->nrow * (b->ncol + 1) * sizeof *b->rows);
    return PFB_OK;
}

static int extra_load(void *ctx, pfb_ckpt_r *r, pfb_err *err)
{
    extra_buf *b = ctx;
    const void *q;
    size_t n;
    int rc = ckpt_get(r, "XTRA", &q, &n, err);
    if (rc)
        return rc;
    const size_t row = (b->ncol + 1) * sizeof *b->rows;
    if (n % row)
        return pfb_err_set(err, PFB_EINVAL, "a checkpoint's extras have %zu bytes, not whole rows of %zu; valid: a "
                           "checkpoint of this experiment", n, row);
    free(b->rows);
    b->rows = malloc(n ? n : 1);
    if (!b->rows)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory restoring a checkpoint's extras");
    memcpy(b->rows, q, n);
    b->nrow = b->cap = n / sizeof *b->rows / (b->ncol + 1);
    b->cap *= b->ncol + 1;
    return PFB_OK;
}

static int extra_write(const extra_buf *b, const char *path, pfb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing '%s'", path);
    fputs("t", f);
    for (size_t c = 0; c < b->ncol; c++)
        fprintf(f, ",%s", b->x->names[c]);
    fputc('\n', f);
    for (size_t r = 0; r < b->nrow; r++) {
        for (size_t c = 0; c <= b->ncol; c++)
            fprintf(f, "%s%.12g", c ? "," : "", b->rows[r * (b->ncol + 1) + c]);
        fputc('\n', f);
    }
    return output_write_stream(f, &text, &len, path, err);
}

/* ---- runs ---------------------------------------------------------------------------- */

/* Whether a run that is not current is left pending (plan, or only another
 * run's); hands it to on_pending.  Marks the `only` run as met. */
int exp_left_pending(const pfb_exp_ctx *ctx, const char *id, int current, int timing)
{
    const int mine = ctx->only && !strcmp(ctx->only, id);
    if (mine && ctx->only_seen)
        *ctx->only_seen = 1;
    if (current || !(ctx->plan || (ctx->only && !mine)))
        return 0;
    if (ctx->plan && ctx->on_pending)
        ctx->on_pending(ctx->pending_ctx, id, timing);
    return 1;
}

void exp_run_out_free(exp_run_out *out)
{
    csv_table_free(&out->series);
    csv_table_free(&out->extra);
}

int exp_run(const pfb_exp_ctx *ctx, const exp_run_spec *spec, exp_run_out *out, pfb_err *err)
{
    memset(out, 0, sizeof *out);
    exp_tables t;
    int rc = tables_build(ctx, spec, &t, err);
    if (!rc)
        rc = params_set(&t.run, "snapshots", spec->snapshots ? "csv" : "none", err);
    if (rc) {
        tables_free(&t);
        return rc;
    }
    uint64_t hash = tables_hash(spec, &t);
    char dir[4096], meta[4200], series[4200], extra[4200], want[64], have[64];
    snprintf(dir, sizeof dir, "%s/runs/%s", ctx->out_dir, spec->id);
    snprintf(meta, sizeof meta, "%s/run.meta", dir);
    snprintf(series, sizeof series, "%s/series.csv", dir);
    snprintf(extra, sizeof extra, "%s/extra.csv", dir);
    snprintf(want, sizeof want, "%016llx", (unsigned long long)hash);
    int has_extra = spec->extra && spec->extra->names;
    meta_get(meta, "inputs", have, sizeof have);
    int current = !ctx->force && !strcmp(have, want) && access(series, R_OK) == 0 &&
                  (!has_extra || access(extra, R_OK) == 0);
    if (current && spec->snapshots) {
        char last[4300];
        snprintf(last, sizeof last, "%s/frames/frame_%05ld.csv", dir, (long)meta_double(meta, "frames_done"));
        current = access(last, R_OK) == 0;
    }
    if (exp_left_pending(ctx, spec->id, current, 0)) {
        tables_free(&t);
        out->pending = out->unstable = 1;
        snprintf(out->status, sizeof out->status, "pending");
        return PFB_OK;
    }
    if (current) {
        out->skipped = 1;
        exp_log(ctx, "  %-40s current, skipped", spec->id);
    } else {
        /* an interrupted run of these inputs goes on from its checkpoint */
        char status[64] = "", ckpt[4300];
        meta_get(meta, "status", status, sizeof status);
        snprintf(ckpt, sizeof ckpt, "%s/%s", dir, PFB_CHECKPOINT_FILE);
        const int resume = !ctx->force && !strcmp(have, want) && !strcmp(status, "interrupted") &&
                           access(ckpt, R_OK) == 0;
        remove(extra); /* a stale extra.csv must not pass for this run's */
        char meta_extra[256];
        snprintf(meta_extra, sizeof meta_extra, "experiment = %s\nrun_id = %s\ninputs = %s\n", spec->experiment,
                 spec->id, want);
        char cmd[512];
        snprintf(cmd, sizeof cmd, "pfbench exp %s%s (run %s)", spec->experiment, ctx->quick ? " --quick" : "",
                 spec->id);
        extra_buf eb = {spec->extra, spec->solver, 0, 0, 0, NULL};
        if (has_extra)
            while (spec->extra->names[eb.ncol])
                eb.ncol++;
        pfb_run_config cfg = {.solver = spec->solver,
                              .scene = t.sc,
                              .run = &t.run,
                              .scene_params = &t.scene,
                              .solver_params = &t.solver,
                              .out_dir = dir,
                              .command_line = cmd,
                              .meta_extra = meta_extra,
                              .on_frame = has_extra ? extra_frame : NULL,
                              .frame_ctx = &eb,
                              .catch_signals = 1,
                              .resume = resume,
                              .stop_after_steps = ctx->stop_after_steps,
                              .frame_save = has_extra ? extra_save : NULL,
                              .frame_load = has_extra ? extra_load : NULL};
        if (resume)
            exp_log(ctx, "  %-40s resumed from its checkpoint", spec->id);
        pfb_run_result res;
        rc = run_execute(&cfg, &res, err);
        if (!rc && has_extra)
            rc = extra_write(&eb, extra, err);
        free(eb.rows);
        if (!rc)
            exp_log(ctx, "  %-40s %s (%.1f s)", spec->id, res.unstable ? res.reason : "ok", res.wall_seconds);
    }
    tables_free(&t);
    if (rc)
        return rc;
    meta_get(meta, "status", out->status, sizeof out->status);
    out->unstable = strncmp(out->status, "ok", 2) != 0;
    out->dt = meta_double(meta, "dt");
    out->wall_seconds = meta_double(meta, "wall_seconds");
    out->t_end = meta_double(meta, "t_end");
    out->length_ref = meta_double(meta, "length_ref");
    out->v_ref = meta_double(meta, "v_ref");
    out->gravity = meta_double(meta, "gravity");
    out->steps = (long)meta_double(meta, "steps");
    out->substeps = (long)meta_double(meta, "substeps");
    out->n = (size_t)meta_double(meta, "n_particles");
    rc = csv_table_load(&out->series, series, err);
    if (!rc && has_extra)
        rc = csv_table_load(&out->extra, extra, err);
    if (rc)
        exp_run_out_free(out);
    else if (ctx->manifest)
        fprintf(ctx->manifest, "%s\n", spec->id);
    return rc;
}

/* ---- timings ------------------------------------------------------------------------- */

/* timing.csv: one row of what run_time_steps measured (timers and diagnostics by name). */
static int timing_write(const pfb_step_timing *tm, const char *path, pfb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing '%s'", path);
    fputs("n,spacing,dt,substeps,warmup,steps,threads,unstable,t_step,t_step_min,t_frame,t_total,bytes_per_particle", f);
    for (size_t k = 0; k < tm->ntimers; k++)
        fprintf(f, ",step_%s,frame_%s", tm->timer_names[k], tm->timer_names[k]);
    for (size_t k = 0; k < tm->ndiag; k++)
        fprintf(f, ",diag_%s", tm->diag_names[k]);
    fprintf(f, "\n%zu,%.17g,%.17g,%ld,%ld,%ld,%d,%d,%.9g,%.9g,%.9g,%.9g,%.6g", tm->n, tm->spacing, tm->dt, tm->substeps,
            tm->warmup, tm->steps, tm->threads, tm->unstable, tm->t_step, tm->t_step_min, tm->t_frame, tm->t_total,
            tm->bytes_per_particle);
    for (size_t k = 0; k < tm->ntimers; k++)
        fprintf(f, ",%.9g,%.9g", tm->timer_step[k], tm->timer_frame[k]);
    for (size_t k = 0; k < tm->ndiag; k++)
        fprintf(f, ",%.12g", tm->diag[k]);
    fputc('\n', f);
    return output_write_stream(f, &text, &len, path, err);
}

int exp_time_steps(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double n, long warmup, long steps,
                   exp_timing_out *out, pfb_err *err)
{
    memset(out, 0, sizeof *out);
    exp_tables t;
    int rc = tables_build(ctx, spec, &t, err);
    pfb_run_config cfg = {.solver = spec->solver, .scene = t.sc, .run = &t.run, .scene_params = &t.scene,
                          .solver_params = &t.solver};
    double spacing = 0.0;
    if (!rc)
        rc = run_spacing_for(&cfg, n, &spacing, err);
    char sset[64];
    snprintf(sset, sizeof sset, "run.spacing=%.17g", spacing);
    if (!rc)
        rc = run_apply_setting(&t.run, &t.scene, &t.solver, sset, err);
    if (rc) {
        tables_free(&t);
        return rc;
    }
    /* timings depend on the thread count too */
    const int threads = pfb_max_threads();
    char salt[160];
    snprintf(salt, sizeof salt, "timing n=%.17g warmup=%ld steps=%ld threads=%d", n, warmup, steps, threads);
    uint64_t hash = fnv1a(tables_hash(spec, &t), salt);
    char dir[4096], meta[4200], tpath[4200], want[64], have[64];
    snprintf(dir, sizeof dir, "%s/runs/%s", ctx->out_dir, spec->id);
    snprintf(meta, sizeof meta, "%s/run.meta", dir);
    snprintf(tpath, sizeof tpath, "%s/timing.csv", dir);
    snprintf(want, sizeof want, "%016llx", (unsigned long long)hash);
    meta_get(meta, "inputs", have, sizeof have);
    const int current = !ctx->force && !strcmp(have, want) && access(tpath, R_OK) == 0;
    if (exp_left_pending(ctx, spec->id, current, 1)) {
        tables_free(&t);
        out->pending = out->unstable = 1;
        snprintf(out->status, sizeof out->status, "pending");
        return PFB_OK;
    }
    if (current) {
        out->skipped = 1;
        exp_log(ctx, "  %-40s current, skipped", spec->id);
    } else {
        pfb_step_timing tm;
        const double t0 = pfb_now();
        rc = run_time_steps(&cfg, warmup, steps, &tm, err);
        const double wall = pfb_now() - t0;
        if (!rc)
            rc = output_prepare_dir(dir, err);
        if (!rc) {
            remove(meta); /* a run.meta names a complete timing only */
            rc = timing_write(&tm, tpath, err);
        }
        char *text = NULL;
        size_t len = 0;
        FILE *f = rc ? NULL : open_memstream(&text, &len);
        if (!rc && !f)
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory writing '%s'", meta);
        if (f) {
            fprintf(f, "# pfbench timing metadata: key = value\n");
            fprintf(f, "solver = %s\nscene = %s\n", spec->solver->name, t.sc->name);
            fprintf(f, "status = %s%s\n", tm.unstable ? "unstable: " : "ok", tm.unstable ? tm.reason : "");
            fprintf(f, "dim = %d\ndt = %.17g\nspacing = %.17g\nseed = %d\nn_particles = %zu\n",
                    params_get_int(&t.run, "dim"), tm.dt, tm.spacing, params_get_int(&t.run, "seed"), tm.n);
            fprintf(f, "warmup = %ld\nsteps = %ld\nthreads = %d\nseconds_per_step = %.9g\nwall_seconds = %.6f\n",
                    warmup, steps, tm.threads, tm.t_step, wall);
            run_meta_provenance(f);
            fprintf(f, "command = pfbench exp %s%s (timing %s)\n", spec->experiment, ctx->quick ? " --quick" : "",
                    spec->id);
            fprintf(f, "citation = %s\n", spec->solver->citation);
            fprintf(f, "experiment = %s\nrun_id = %s\ninputs = %s\n", spec->experiment, spec->id, want);
            run_meta_params(f, &cfg);
            rc = output_write_stream(f, &text, &len, meta, err);
        }
        if (!rc)
            exp_log(ctx, "  %-40s %s (n %zu, %.4g s per step)", spec->id, tm.unstable ? tm.reason : "ok", tm.n,
                    tm.t_step);
    }
    tables_free(&t);
    if (!rc)
        meta_get(meta, "status", out->status, sizeof out->status);
    out->unstable = strncmp(out->status, "ok", 2) != 0;
    if (!rc)
        rc = csv_table_load(&out->timing, tpath, err);
    if (!rc && ctx->manifest)
        fprintf(ctx->manifest, "%s\n", spec->id);
    return rc;
}

/* Build spec's simulation and solver once, hand them to fn, and free them. */
static int with_state(const pfb_exp_ctx *ctx, const exp_run_spec *spec,
                      void (*fn)(const pfb_solver_ops *so, const void *state, const pfb_sim *sim, double *v),
                      double *value, pfb_err *err)
{
    exp_tables t;
    int rc = tables_build(ctx, spec, &t, err);
    if (rc) {
        tables_free(&t);
        return rc;
    }
    pfb_run_config cfg = {.solver = spec->solver, .scene = t.sc, .run = &t.run, .scene_params = &t.scene,
                          .solver_params = &t.solver};
    pfb_sim sim;
    memset(&sim, 0, sizeof sim);
    void *state = NULL;
    rc = run_setup(&cfg, &sim, &state, err);
    if (!rc)
        fn(spec->solver, state, &sim, value);
    spec->solver->destroy(state);
    sim_free(&sim);
    tables_free(&t);
    return rc;
}

static void get_dt(const pfb_solver_ops *so, const void *state, const pfb_sim *sim, double *v)
{
    *v = so->suggest_dt ? so->suggest_dt(state, sim) : 1.0 / 30.0;
}

static void get_sigma(const pfb_solver_ops *so, const void *state, const pfb_sim *sim, double *v)
{
    (void)sim;
    *v = so->surface_tension ? so->surface_tension(state) : NAN;
}

int exp_suggest_dt(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double *dt, pfb_err *err)
{
    return with_state(ctx, spec, get_dt, dt, err);
}

int exp_surface_tension(const pfb_exp_ctx *ctx, const exp_run_spec *spec, double *sigma, pfb_err *err)
{
    return with_state(ctx, spec, get_sigma, sigma, err);
}

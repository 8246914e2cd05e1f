/* run.c — the simulation loop shared by every solver and experiment. */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint.h"

#include "output.h"
#include "version.h"

const pfb_param_spec pfb_run_params[] = {
    {"dim", PFB_PARAM_INT, 2, 2, 3, "1", "spatial dimension", NULL},
    {"spacing", PFB_PARAM_DOUBLE, 0.0, 0.0, 100.0, "m", "initial particle spacing; 0 = the scene's default", NULL},
    {"dt", PFB_PARAM_DOUBLE, 0.0, 0.0, 100.0, "s", "time step; 0 = the solver's suggestion (rounded down to divide a frame)", NULL},
    {"t_end", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e6, "s", "simulated duration; 0 = the scene's default", NULL},
    {"frames", PFB_PARAM_INT, 0, 0, 1e7, "1", "frames after the initial one; 0 = 30 per simulated second", NULL},
    {"substeps", PFB_PARAM_INT, 0, 0, 1e9, "1", "steps per frame; 0 = the fewest with step <= dt", NULL},
    {"seed", PFB_PARAM_INT, 1, 0, 2147483647.0, "1", "seed of the run's random numbers", NULL},
    {"jitter", PFB_PARAM_DOUBLE, 0.0, 0.0, 0.4, "1", "random initial displacement, fraction of the spacing", NULL},
    {"snapshots", PFB_PARAM_CHOICE, 0, 0, 0, "", "particle snapshots per frame", "csv|vtp|none"},
    {"energy_limit", PFB_PARAM_DOUBLE, 10.0, 1.0, 1e12, "1", "kinetic energy at the end of a frame above this multiple of the scene's energy scale is a blow-up", NULL},
    {"volume_limit", PFB_PARAM_DOUBLE, 0.5, 0.0, 1.0, "1", "volume_rel below this at a frame is a blow-up (volume collapse); 0 = off", NULL},
    {"threads", PFB_PARAM_INT, 0, 0, 1024, "1", "threads for parallel solver loops; 0 = OpenMP's default (OMP_NUM_THREADS or all cores); results do not depend on it", NULL},
    {"sort_every", PFB_PARAM_INT, 1, 0, 1e9, "1", "frames between re-sorting particles into cell order; 0 = never", NULL},
    {"settle", PFB_PARAM_DOUBLE, 0.0, 0.0, 1e3, "s", "time the particles relax before t = 0 with every velocity zeroed after each step, the scene's initial velocities given back after it (a start at rest for a method whose lattice is not its equilibrium); 0 = none", NULL},
    {NULL, 0, 0, 0, 0, NULL, NULL, NULL}};

int run_memory_limit(double *bytes, pfb_err *err)
{
    const char *env = getenv("PFB_MEMORY");
    if (env && *env) {
        char *end;
        errno = 0;
        const double v = strtod(env, &end);
        if (*end || errno || !(v > 0.0) || !isfinite(v))
            return pfb_err_set(err, PFB_EINVAL, "PFB_MEMORY '%s' is not a number of bytes; valid: positive, or unset "
                               "(the memory available)", env);
        *bytes = v;
        return PFB_OK;
    }
    *bytes = 0.0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                *bytes = 1024.0 * (double)kb;
                break;
            }
        fclose(f);
    }
    if (*bytes == 0.0) {
        const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0)
            *bytes = (double)pages * (double)size;
    }
    return PFB_OK;
}

int run_build_scene(const pfb_run_config *cfg, pfb_sim *sim, pfb_err *err)
{
    int dim = params_get_int(cfg->run, "dim");
    double spacing = params_get(cfg->run, "spacing");
    if (spacing == 0.0)
        spacing = cfg->scene->default_spacing[dim - 2];
    int rc = sim_init(sim, dim, (uint64_t)params_get(cfg->run, "seed"), err);
    if (rc)
        return rc;
    sim->spacing = spacing;
    sim->threads = params_get_int(cfg->run, "threads");
    if (cfg->solver && cfg->solver->bytes_per_particle[dim - 2] > 0.0) {
        rc = run_memory_limit(&sim->mem_limit, err);
        if (rc)
            return rc;
        sim->mem_per_particle = cfg->solver->bytes_per_particle[dim - 2];
    }
    rc = cfg->scene->build(cfg->scene_params, sim, err);
    if (rc)
        return rc;
    if (sim->p.n == 0)
        return pfb_err_set(err, PFB_EINVAL, "scene %s at spacing %g has no particles; valid: a smaller spacing",
                           cfg->scene->name, spacing);
    if (sim_periodic(sim) && params_get_int(cfg->run, "sort_every") == 0)
        return pfb_err_set(err, PFB_EINVAL, "run.sort_every = 0 is invalid for the periodic scene %s (positions are "
                           "wrapped into the box at each sort); valid: sort_every >= 1",
                           cfg->scene->name);
    scene_jitter(sim, params_get(cfg->run, "jitter"));
    if (params_get_int(cfg->run, "sort_every") > 0) { /* canonical storage order from the start */
        rc = sim_sort_particles(sim, sim_sort_h(sim), err);
        if (rc)
            return rc;
    }
    return PFB_OK;
}

int run_setup(const pfb_run_config *cfg, pfb_sim *sim, void **state, pfb_err *err)
{
    *state = NULL;
    int rc = run_build_scene(cfg, sim, err);
    return rc ? rc : cfg->solver->create(cfg->solver_params, sim, state, err);
}

int run_apply_setting(pfb_params *run, pfb_params *scene, pfb_params *solver, const char *arg, pfb_err *err)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return pfb_err_set(err, PFB_EINVAL, "setting '%s' is malformed; valid: KEY=VALUE", arg);
    char key[128];
    size_t klen = (size_t)(eq - arg);
    if (klen >= sizeof key)
        return pfb_err_set(err, PFB_EINVAL, "setting key '%.*s...' is too long", 32, arg);
    memcpy(key, arg, klen);
    key[klen] = '\0';
    const char *val = eq + 1;
    struct {
        const char *prefix;
        pfb_params *p;
    } tab[3] = {{"solver.", solver}, {"scene.", scene}, {"run.", run}};
    for (int i = 0; i < 3; i++) {
        size_t pl = strlen(tab[i].prefix);
        if (strncmp(key, tab[i].prefix, pl) == 0)
            return params_set(tab[i].p, key + pl, val, err);
    }
    int found = -1, count = 0;
    for (int i = 0; i < 3; i++)
        if (params_find(tab[i].p, key) >= 0) {
            found = i;
            count++;
        }
    if (count > 1)
        return pfb_err_set(err, PFB_EINVAL, "parameter '%s' is ambiguous; valid: solver.%s, scene.%s or run.%s", key,
                           key, key, key);
    if (count == 1)
        return params_set(tab[found].p, key, val, err);
    /* unknown everywhere: suggest the nearest name over all tables */
    const char *names[256];
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        for (size_t j = 0; j < tab[i].p->n && n < 256; j++)
            names[n++] = tab[i].p->spec[j].name;
    const char *near = pfb_nearest(key, names, n);
    if (near)
        return pfb_err_set(err, PFB_EINVAL, "unknown parameter '%s' for %s and %s; did you mean '%s'?",
                           key, solver->owner, scene->owner, near);
    return pfb_err_set(err, PFB_EINVAL, "unknown parameter '%s' for %s, %s and run; 'pfbench list' shows the valid ones",
                       key, solver->owner, scene->owner);
}

/* The particles of run_check_blowup's fast pass, per block (a function of n
 * only, so the sum of the blocks' energies does not depend on the threads). */
#define RUN_CHECK_BLOCK 4096
#define RUN_CHECK_MAX_BLOCKS 1024

/* The first non-finite or escaped particle, in index order, into reason (1),
 * or 0. */
static int first_bad_particle(const pfb_sim *sim, char *reason, size_t len)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    double blo[3], bhi[3];
    sim_escape_bounds(sim, blo, bhi);
    for (size_t i = 0; i < p->n; i++) {
        for (int k = 0; k < dim; k++) {
            double x = p->x[k][i], v = p->v[k][i];
            if (!isfinite(x) || !isfinite(v)) {
                snprintf(reason, len, "non-finite: particle %zu has x%c=%g v%c=%g at t=%.6g", i, "xyz"[k], x,
                         "xyz"[k], v, sim->t);
                return 1;
            }
            if (x < blo[k] || x > bhi[k]) {
                snprintf(reason, len, "escaped: particle %zu at %c=%g outside domain [%g, %g] at t=%.6g", i,
                         "xyz"[k], x, blo[k], bhi[k], sim->t);
                return 1;
            }
        }
    }
    return 0;
}

/* Particles [from, hi) of the block starting at lo: 1 when all are finite and
 * inside the domain (no branch per particle: x - x == 0 only for finite x);
 * each one's kinetic energy added to lane[(i - lo) % 4]. */
static int lanes_ok(const pfb_sim *sim, size_t lo, size_t from, size_t hi, double lane[4])
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    double blo[3], bhi[3];
    sim_escape_bounds(sim, blo, bhi);
    int ok = 1;
    for (size_t i = from; i < hi; i++) {
        double v2 = 0.0;
        for (int k = 0; k < dim; k++) {
            const double x = p->x[k][i], v = p->v[k][i];
            ok &= (x - x == 0.0) & (v - v == 0.0) & (x >= blo[k]) & (x <= bhi[k]);
            v2 += v * v;
        }
        lane[(i - lo) % 4] += 0.5 * p->m[i] * v2;
    }
    return ok;
}

/* Whether any particle of [lo, hi) is non-finite or outside the domain; *ke =
 * their kinetic energy, summed in four lanes (particle lo + 4 q + l in lane
 * l) combined as (l0 + l1) + (l2 + l3): block_suspect_avx2 gives the same bits. */
static int block_suspect(const pfb_sim *sim, size_t lo, size_t hi, double *ke_out)
{
    double lane[4] = {0.0, 0.0, 0.0, 0.0};
    const int ok = lanes_ok(sim, lo, lo, hi, lane);
    *ke_out = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    return !ok;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define RUN_HAVE_AVX2 1
/* block_suspect four particles at a time (the same operations per lane, no
 * FMA), the last up to three by lanes_ok: the check is a pass over x, v and m
 * after every step, a few per cent of muller's step before it was vectorised */
__attribute__((target("avx2"))) static int block_suspect_avx2(const pfb_sim *sim, size_t lo, size_t hi,
                                                             double *ke_out)
{
    const pfb_particles *p = &sim->p;
    const int dim = sim->dim;
    const __m256d zero = _mm256_setzero_pd(), half = _mm256_set1_pd(0.5);
    __m256d lo_k[3], hi_k[3];
    double blo[3], bhi[3];
    sim_escape_bounds(sim, blo, bhi);
    for (int k = 0; k < dim; k++) {
        lo_k[k] = _mm256_set1_pd(blo[k]);
        hi_k[k] = _mm256_set1_pd(bhi[k]);
    }
    __m256d good = _mm256_cmp_pd(zero, zero, _CMP_EQ_OQ), ke = zero;
    size_t i = lo;
    for (; i + 4 <= hi; i += 4) {
        __m256d v2 = zero;
        for (int k = 0; k < dim; k++) {
            const __m256d x = _mm256_loadu_pd(p->x[k] + i), v = _mm256_loadu_pd(p->v[k] + i);
            const __m256d in = _mm256_and_pd(_mm256_cmp_pd(x, lo_k[k], _CMP_GE_OQ), _mm256_cmp_pd(x, hi_k[k], _CMP_LE_OQ));
            const __m256d fin = _mm256_and_pd(_mm256_cmp_pd(_mm256_sub_pd(x, x), zero, _CMP_EQ_OQ),
                                              _mm256_cmp_pd(_mm256_sub_pd(v, v), zero, _CMP_EQ_OQ));
            good = _mm256_and_pd(good, _mm256_and_pd(in, fin));
            v2 = _mm256_add_pd(v2, _mm256_mul_pd(v, v));
        }
        ke = _mm256_add_pd(ke, _mm256_mul_pd(_mm256_mul_pd(half, _mm256_loadu_pd(p->m + i)), v2));
    }
    double lane[4];
    _mm256_storeu_pd(lane, ke);
    const int ok = (_mm256_movemask_pd(good) == 15) & lanes_ok(sim, lo, i, hi, lane);
    *ke_out = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    return !ok;
}
#endif

int run_check_blowup(const pfb_sim *sim, double energy_scale, double energy_limit, char *reason, size_t len)
{
    /* a pass over blocks, in parallel; the cause, if any, from a pass over the
     * particles in order */
    const size_t n = sim->p.n;
    size_t bs = RUN_CHECK_BLOCK;
    if (n / bs >= RUN_CHECK_MAX_BLOCKS)
        bs = n / (RUN_CHECK_MAX_BLOCKS - 1) + 1;
    const size_t nb = (n + bs - 1) / bs;
    double part[RUN_CHECK_MAX_BLOCKS];
    int suspect = 0, vec = 0;
#ifdef RUN_HAVE_AVX2
    vec = __builtin_cpu_supports("avx2");
#endif
#pragma omp parallel for schedule(dynamic, 1) reduction(| : suspect) num_threads(sim_threads(sim)) if (sim_parallel(sim, n))
    for (size_t b = 0; b < nb; b++) {
        const size_t hi = (b + 1) * bs < n ? (b + 1) * bs : n;
#ifdef RUN_HAVE_AVX2
        if (vec)
            suspect |= block_suspect_avx2(sim, b * bs, hi, &part[b]);
        else
#endif
            suspect |= block_suspect(sim, b * bs, hi, &part[b]);
    }
    if (suspect && first_bad_particle(sim, reason, len))
        return 1;
    double ke = 0.0;
    for (size_t b = 0; b < nb; b++)
        ke += part[b];
    if (ke > energy_limit * energy_scale) {
        snprintf(reason, len, "energy growth: kinetic energy %g exceeds %g x scale %g at t=%.6g", ke, energy_limit,
                 energy_scale, sim->t);
        return 1;
    }
    return 0;
}

int run_check_volume(const pfb_diag *d, double volume_limit, char *reason, size_t len)
{
    if (volume_limit > 0 && !(d->volume_rel >= volume_limit)) {
        snprintf(reason, len, "volume collapse: volume_rel %g below %g at t=%.6g", d->volume_rel, volume_limit, d->t);
        return 1;
    }
    return 0;
}

int run_timing(const pfb_run_config *cfg, const pfb_sim *sim, const void *state, double *dt, long *substeps,
               long *frames, double *t_end, pfb_err *err)
{
    *t_end = params_get(cfg->run, "t_end");
    if (*t_end == 0.0)
        *t_end = cfg->scene->default_t_end;
    *frames = params_get_int(cfg->run, "frames");
    if (*frames == 0)
        *frames = lround(fmax(1.0, ceil(30.0 * *t_end - 1e-9)));
    double frame_dt = *t_end / (double)*frames;
    double want = params_get(cfg->run, "dt");
    if (want == 0.0 && cfg->solver->suggest_dt)
        want = cfg->solver->suggest_dt(state, sim);
    if (want == 0.0)
        want = frame_dt;
    if (!(want > 0) || !isfinite(want))
        return pfb_err_set(err, PFB_EINVAL, "time step %g is invalid; valid: positive and finite", want);
    long sub = params_get_int(cfg->run, "substeps");
    if (sub == 0) {
        /* the fewest steps per frame with step <= want, decided before the
         * conversion to an integer can overflow */
        const double q = frame_dt / want;
        if (!(q * (1.0 - 1e-12) <= (double)PFB_RUN_MAX_SUBSTEPS))
            return pfb_err_set(err, PFB_EINVAL,
                               "dt %g s needs %.3g steps per frame of %g s; valid: dt at least %.3g s (at most %ld "
                               "steps per frame)", want, q, frame_dt, frame_dt / (double)PFB_RUN_MAX_SUBSTEPS,
                               PFB_RUN_MAX_SUBSTEPS);
        sub = (long)ceil(q * (1.0 - 1e-12));
        if (sub < 1)
            sub = 1;
    } else if (params_is_set(cfg->run, "dt") && params_get(cfg->run, "dt") > 0.0 &&
             fabs(frame_dt / (double)sub - want) > 1e-9 * want)
        return pfb_err_set(err, PFB_EINVAL,
                           "dt %g s and substeps %ld disagree: a frame of %g s in %ld steps is a step of %.6g s; "
                           "valid: one of them, or both agreeing", want, sub, frame_dt, sub, frame_dt / (double)sub);
    if (!cfg->force && (double)sub * (double)*frames > (double)PFB_RUN_MAX_STEPS)
        return pfb_err_set(err, PFB_EINVAL,
                           "the run needs %.3g steps (%ld frames of %ld steps of %.3g s); valid: at most %ld, or "
                           "--force", (double)sub * (double)*frames, *frames, sub, frame_dt / (double)sub,
                           PFB_RUN_MAX_STEPS);
    *substeps = sub;
    *dt = frame_dt / (double)sub;
    return PFB_OK;
}

/* ---- run.meta ------------------------------------------------------------------ */

static void meta_params(FILE *f, const char *prefix, const pfb_params *p)
{
    char buf[64];
    for (size_t i = 0; i < p->n; i++) {
        params_format(p, i, buf, sizeof buf);
        fprintf(f, "%s%s = %s\n", prefix, p->spec[i].name, buf);
    }
}

void run_meta_provenance(FILE *f)
{
    time_t now = time(NULL);
    struct tm tmv;
    char date[64];
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    struct utsname un;
    char machine[512] = "unknown";
    if (uname(&un) == 0)
        snprintf(machine, sizeof machine, "%s %s %s %s", un.sysname, un.nodename, un.release, un.machine);
    fprintf(f, "version = %s\ncommit = %s\ncompiler = %s\ncflags = %s\n", pfb_version(), pfb_commit(),
            pfb_compiler(), pfb_cflags());
    fprintf(f, "date = %s\nmachine = %s\n", date, machine);
}

void run_meta_params(FILE *f, const pfb_run_config *cfg)
{
    meta_params(f, "run.", cfg->run);
    meta_params(f, "scene.", cfg->scene_params);
    meta_params(f, "solver.", cfg->solver_params);
}

/* run.meta; status_override (may be NULL) replaces the status the result gives
 * (a run that failed: "error: <message>"). */
static int write_meta_as(const pfb_run_config *cfg, const pfb_sim *sim, const pfb_run_result *res, double t_end,
                         const char *status_override, pfb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory writing run.meta");
    fprintf(f, "# pfbench run metadata: key = value\n");
    fprintf(f, "solver = %s\nscene = %s\n", cfg->solver->name, cfg->scene->name);
    if (status_override)
        fprintf(f, "status = %s\n", status_override);
    else
        fprintf(f, "status = %s%s\n", res->interrupted ? "interrupted" : res->unstable ? "unstable: " : "ok",
                res->unstable && !res->interrupted ? res->reason : "");
    fprintf(f, "dim = %d\ndt = %.17g\nspacing = %.17g\nseed = %d\n", sim->dim, res->dt, sim->spacing,
            params_get_int(cfg->run, "seed"));
    fprintf(f, "substeps = %ld\nframes = %ld\nframes_done = %ld\nsteps = %ld\nt_end = %.17g\n", res->substeps,
            res->frames, res->frames_done, res->steps, t_end);
    fprintf(f, "n_particles = %zu\nwall_seconds = %.6f\n", res->n0, res->wall_seconds);
    fprintf(f, "seconds_per_step = %.9g\n", res->steps ? res->wall_seconds / (double)res->steps : 0.0);
    fprintf(f, "energy_scale = %.10g\nlength_ref = %.10g\nv_ref = %.10g\n", res->energy_scale, sim->length_ref,
            sim->v_ref);
    fprintf(f, "gravity = %.10g\n", sqrt(sim->g[0] * sim->g[0] + sim->g[1] * sim->g[1] + sim->g[2] * sim->g[2]));
    run_meta_provenance(f);
    if (cfg->command_line)
        fprintf(f, "command = %s\n", cfg->command_line);
    fprintf(f, "citation = %s\n", cfg->solver->citation);
    if (cfg->meta_extra)
        fputs(cfg->meta_extra, f);
    run_meta_params(f, cfg);
    char path[4200];
    snprintf(path, sizeof path, "%s/run.meta", cfg->out_dir);
    return output_write_stream(f, &text, &len, path, err);
}

static int write_meta(const pfb_run_config *cfg, const pfb_sim *sim, const pfb_run_result *res, double t_end,
                      pfb_err *err)
{
    return write_meta_as(cfg, sim, res, t_end, NULL, err);
}

/* ---- the loop ------------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct run_io {
    const pfb_run_config *cfg;
    pfb_series series;
    int snapshots;          /* 0 csv, 1 vtp, 2 none */
    double *times;
    size_t nextra;          /* solver diagnostics plus body columns */
    size_t nsolver;         /* of which the solver's */
    double *extra;
    const char **names;     /* all extra column names, NULL-terminated */
    char *name_buf;
} run_io;

/* Columns per rigid body in series.csv: centre, velocity, angular velocity, orientation. */
static const char *const body_cols[] = {"x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz", "qw", "qx", "qy", "qz"};
#define BODY_NCOLS 13

static int emit_frame(run_io *io, pfb_diag_ctx *dc, const pfb_sim *sim, const void *state, long frame,
                      pfb_diag *d, pfb_err *err)
{
    int rc = diag_compute(dc, sim, d, err);
    if (rc)
        return rc;
    if (io->nsolver)
        io->cfg->solver->diag(state, sim, io->extra);
    for (size_t b = 0; b < sim->bodies.n && io->nsolver + BODY_NCOLS * (b + 1) <= io->nextra; b++) {
        const pfb_body *B = &sim->bodies.b[b];
        double *e = io->extra + io->nsolver + BODY_NCOLS * b;
        for (int k = 0; k < 3; k++) {
            e[k] = B->x[k];
            e[3 + k] = B->v[k];
            e[6 + k] = B->w[k];
        }
        for (int k = 0; k < 4; k++)
            e[9 + k] = B->q[k];
    }
    if (io->cfg->on_frame) {
        rc = io->cfg->on_frame(io->cfg->frame_ctx, sim, state, frame, d, err);
        if (rc)
            return rc;
    }
    if (!io->cfg->out_dir)
        return PFB_OK;
    io->times[frame] = sim->t;
    rc = series_row(&io->series, frame, d, io->extra, err);
    if (!rc && io->snapshots == 0)
        rc = output_frame_csv(io->cfg->out_dir, frame, sim, err);
    if (!rc && io->snapshots == 1)
        rc = output_frame_vtp(io->cfg->out_dir, frame, sim, err);
    return rc;
}

/* ---- checkpoints (issue 34) ------------------------------------------------------ */

static volatile sig_atomic_t stop_signal; /* the signal that asked the run to stop, or 0 */

static int catch_all; /* run_catch_signals was called: the handler stays for the process */

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void set_stop_handler(struct sigaction *old_int, struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old_int);
    sigaction(SIGTERM, &sa, old_term);
}

void run_catch_signals(void)
{
    set_stop_handler(NULL, NULL);
    catch_all = 1;
}

/* The checkpoint's parameter text: solver, scene and every parameter line. */
static char *params_text(const pfb_run_config *cfg, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fprintf(f, "solver = %s\nscene = %s\n", cfg->solver->name, cfg->scene->name);
    run_meta_params(f, cfg);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void ckpt_path(const pfb_run_config *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", cfg->out_dir, PFB_CHECKPOINT_FILE);
}

/* The loop's position: the next frame and the next step in it. */
typedef struct run_pos {
    long f, s, steps, frames_done;
} run_pos;

/* Write the complete state to out_dir/checkpoint.pfb (atomically). */
static int checkpoint_write(const pfb_run_config *cfg, run_io *io, const pfb_sim *sim, const void *state,
                            const run_pos *pos, pfb_err *err)
{
    pfb_ckpt_w w;
    int rc = ckpt_begin(&w, err);
    if (rc)
        return rc;
    const char *commit = pfb_commit();
    ckpt_put(&w, "HEAD", commit, strlen(commit));
    size_t plen = 0;
    char *ptext = params_text(cfg, &plen);
    if (!ptext) {
        ckpt_abort(&w);
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for a checkpoint");
    }
    ckpt_put(&w, "PARM", ptext, plen);
    free(ptext);
    ckpt_put(&w, "LOOP", pos, sizeof *pos);
    const pfb_particles *p = &sim->p;
    const size_t n = p->n;
    ckpt_put_many(&w, "SIM ", &sim->t, sizeof sim->t, &sim->step, sizeof sim->step, &sim->t_sort, sizeof sim->t_sort,
                  &sim->emit, sizeof sim->emit,
                  &sim->rng, sizeof sim->rng, &sim->bodies, sizeof sim->bodies, &p->next_id, sizeof p->next_id,
                  &n, sizeof n, &p->nfields, sizeof p->nfields, (void *)NULL);
    ckpt_put_many(&w, "POS ", p->x[0], n * sizeof(double), p->x[1], n * sizeof(double), p->x[2],
                  n * sizeof(double), (void *)NULL);
    ckpt_put_many(&w, "VEL ", p->v[0], n * sizeof(double), p->v[1], n * sizeof(double), p->v[2],
                  n * sizeof(double), (void *)NULL);
    ckpt_put(&w, "MASS", p->m, n * sizeof(double));
    ckpt_put(&w, "IDS ", p->id, n * sizeof(uint64_t));
    for (size_t k = 0; k < p->nfields; k++) {
        ckpt_put_many(&w, "FLD ", p->field[k].name, sizeof p->field[k].name, &p->field[k].ncomp,
                      sizeof p->field[k].ncomp, (void *)NULL);
        ckpt_put(&w, "FDAT", p->field[k].data, (size_t)p->field[k].ncomp * n * sizeof(double));
    }
    /* the last sort's positions, from which the grid and a solver's list are made again */
    if (sim_sort_current(sim)) {
        const double *xs[3];
        grid_xs(&sim->grid, xs);
        ckpt_put_many(&w, "SORT", &sim->grid.h, sizeof sim->grid.h, xs[0], n * sizeof(double), xs[1],
                      n * sizeof(double), xs[2], (sim->dim == 3 ? n : 0) * sizeof(double), (void *)NULL);
    } else {
        ckpt_put(&w, "SORT", NULL, 0);
    }
    rc = cfg->solver->save ? cfg->solver->save(state, sim, &w, err) : PFB_OK;
    char *series = NULL;
    size_t slen = 0;
    if (!rc)
        rc = series_text(&io->series, &series, &slen, err);
    if (!rc) {
        ckpt_put(&w, "SERI", series, slen);
        ckpt_put(&w, "TIME", io->times, (size_t)(pos->frames_done + 1) * sizeof(double));
    }
    free(series);
    if (!rc && cfg->frame_save)
        rc = cfg->frame_save(cfg->frame_ctx, &w, err);
    if (rc) {
        ckpt_abort(&w);
        return rc;
    }
    char path[4200];
    ckpt_path(cfg, path, sizeof path);
    return ckpt_commit(&w, path, err);
}

/* The checkpoint's commit and parameters against this run's: the first line
 * that differs, named. */
static int checkpoint_check(const pfb_run_config *cfg, pfb_ckpt_r *r, pfb_err *err)
{
    const void *p;
    size_t n;
    int rc = ckpt_get(r, "HEAD", &p, &n, err);
    if (rc)
        return rc;
    const char *commit = pfb_commit();
    if (n != strlen(commit) || memcmp(p, commit, n))
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' was written by commit %.*s, this is %s; valid: a "
                           "checkpoint of this commit", r->path, (int)(n < 64 ? n : 64), (const char *)p, commit);
    rc = ckpt_get(r, "PARM", &p, &n, err);
    if (rc)
        return rc;
    size_t mlen = 0;
    char *mine = params_text(cfg, &mlen);
    if (!mine)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory checking a checkpoint");
    const char *a = p, *b = mine, *ae = a + n, *be = b + mlen;
    while (a < ae || b < be) {
        const char *al = memchr(a, '\n', (size_t)(ae - a)), *bl = memchr(b, '\n', (size_t)(be - b));
        al = al ? al : ae;
        bl = bl ? bl : be;
        if (al - a != bl - b || memcmp(a, b, (size_t)(al - a))) {
            rc = pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' has '%.*s' where this run has '%.*s'; valid: "
                             "the checkpoint's own parameters", r->path, (int)(al - a), a, (int)(bl - b), b);
            break;
        }
        a = al + (al < ae);
        b = bl + (bl < be);
    }
    free(mine);
    return rc;
}

/* Three columns of nb bytes (positions or velocities) from section tag. */
static int take_xyz(pfb_ckpt_r *r, const char *tag, double *const col[3], size_t nb, pfb_err *err)
{
    const void *q;
    size_t len;
    int rc = ckpt_get(r, tag, &q, &len, err);
    if (!rc && len != 3 * nb)
        rc = pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is inconsistent (section '%.4s'); valid: a checkpoint "
                         "as written", r->path, tag);
    for (int k = 0; !rc && k < 3; k++)
        memcpy(col[k], (const char *)q + (size_t)k * nb, nb);
    return rc;
}

/* Load everything after the check into sim, the solver's state, the series
 * and the frames' times; *pos the loop's position. */
static int checkpoint_load(const pfb_run_config *cfg, pfb_ckpt_r *r, run_io *io, pfb_sim *sim, void *state,
                           run_pos *pos, long frames, pfb_err *err)
{
    int rc = ckpt_get_exact(r, "LOOP", pos, sizeof *pos, err);
    if (rc)
        return rc;
    if (pos->frames_done < 0 || pos->frames_done > frames || pos->f < 1 || pos->f > frames + 1)
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is at frame %ld of a run of %ld; valid: a checkpoint "
                           "of this run", r->path, pos->f, frames);
    pfb_particles *p = &sim->p;
    size_t n, nf;
    const void *q;
    size_t len;
    rc = ckpt_get(r, "SIM ", &q, &len, err);
    const size_t sim_len = sizeof sim->t + sizeof sim->step + sizeof sim->emit + sizeof sim->rng +
                           sizeof sim->bodies + sizeof p->next_id + sizeof n + sizeof nf + sizeof sim->t_sort;
    if (!rc && len != sim_len)
        rc = pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' does not match this build (its state has %zu bytes); "
                         "valid: a checkpoint of this commit", r->path, len);
    if (rc)
        return rc;
    const char *c = q;
#define TAKE(dst)                      \
    do {                               \
        memcpy(&(dst), c, sizeof(dst)); \
        c += sizeof(dst);              \
    } while (0)
    TAKE(sim->t);
    TAKE(sim->step);
    TAKE(sim->t_sort);
    TAKE(sim->emit);
    TAKE(sim->rng);
    TAKE(sim->bodies);
    TAKE(p->next_id);
    TAKE(n);
    TAKE(nf);
#undef TAKE
    period_le_at(&sim->period, sim->t); /* a sheared box's images where they were */
    /* counts the rest is sized by, checked before anything is: bodies within
     * their array, particles within the file (their positions alone take 3 n
     * doubles; a larger n overflowed particles_reserve's sizes) */
    if (sim->bodies.n > PFB_MAX_BODIES || n > r->len / (3 * sizeof(double)))
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is inconsistent (%zu bodies, %zu particles in %zu "
                           "bytes); valid: a checkpoint as written", r->path, sim->bodies.n, n, r->len);
    if (nf != p->nfields)
        return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' has %zu particle fields, this run %zu; valid: a "
                           "checkpoint of this run", r->path, nf, p->nfields);
    rc = particles_reserve(p, n, err);
    if (rc)
        return rc;
    p->n = n;
    const size_t nb = n * sizeof(double);
    rc = take_xyz(r, "POS ", p->x, nb, err);
    if (!rc)
        rc = take_xyz(r, "VEL ", p->v, nb, err);
    if (!rc)
        rc = ckpt_get_exact(r, "MASS", p->m, nb, err);
    if (!rc)
        rc = ckpt_get_exact(r, "IDS ", p->id, n * sizeof(uint64_t), err);
    for (size_t k = 0; !rc && k < nf; k++) {
        char name[PFB_FIELD_NAME];
        int ncomp;
        rc = ckpt_get(r, "FLD ", &q, &len, err);
        if (!rc && len != sizeof name + sizeof ncomp)
            rc = pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is inconsistent (fields); valid: a checkpoint as "
                             "written", r->path);
        if (rc)
            break;
        memcpy(name, q, sizeof name);
        memcpy(&ncomp, (const char *)q + sizeof name, sizeof ncomp);
        if (strncmp(name, p->field[k].name, sizeof name) || ncomp != p->field[k].ncomp) {
            rc = pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' has particle field '%.31s' where this run has "
                             "'%s'; valid: a checkpoint of this run", r->path, name, p->field[k].name);
            break;
        }
        rc = ckpt_get_exact(r, "FDAT", p->field[k].data, (size_t)ncomp * nb, err);
    }
    if (rc)
        return rc;
    sim_positions_changed(sim);
    rc = ckpt_get(r, "SORT", &q, &len, err);
    if (!rc && len > 0) {
        const size_t want = sizeof(double) + (size_t)sim->dim * nb;
        if (len != want)
            return pfb_err_set(err, PFB_EINVAL, "the checkpoint '%s' is inconsistent (its sort); valid: a checkpoint "
                               "as written", r->path);
        double h;
        memcpy(&h, q, sizeof h);
        const char *col = (const char *)q + sizeof h; /* (the section's bytes need not be aligned) */
        double *xs[3];
        for (int k = 0; k < 3; k++) {
            xs[k] = malloc(nb ? nb : 1);
            if (xs[k] && k < sim->dim)
                memcpy(xs[k], col + (size_t)k * nb, nb);
        }
        if (!xs[0] || !xs[1] || !xs[2])
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory restoring a checkpoint's sort");
        else
            rc = sim_restore_sort(sim, h, (const double *const *)xs, err);
        for (int k = 0; k < 3; k++)
            free(xs[k]);
    }
    if (!rc && cfg->solver->load)
        rc = cfg->solver->load(state, sim, r, err);
    if (!rc)
        rc = ckpt_get(r, "SERI", &q, &len, err);
    if (!rc)
        rc = series_restore(&io->series, q, len, err);
    if (!rc)
        rc = ckpt_get_exact(r, "TIME", io->times, (size_t)(pos->frames_done + 1) * sizeof(double), err);
    if (!rc && cfg->frame_load)
        rc = cfg->frame_load(cfg->frame_ctx, r, err);
    return rc;
}

int run_checkpoint_params(const char *path, char **text, pfb_err *err)
{
    *text = NULL;
    pfb_ckpt_r r;
    int rc = ckpt_open(&r, path, err);
    if (!rc)
        rc = run_checkpoint_params_read(&r, text, err);
    ckpt_close(&r);
    return rc;
}

int run_checkpoint_params_read(pfb_ckpt_r *r, char **text, pfb_err *err)
{
    *text = NULL;
    const void *p;
    size_t n;
    int rc = ckpt_get(r, "HEAD", &p, &n, err);
    if (!rc)
        rc = ckpt_get(r, "PARM", &p, &n, err);
    if (!rc) {
        *text = malloc(n + 1);
        if (!*text)
            rc = pfb_err_set(err, PFB_ENOMEM, "out of memory reading a checkpoint");
        else {
            memcpy(*text, p, n);
            (*text)[n] = '\0';
        }
    }
    return rc;
}

/* The settle (run.settle = T > 0, run.h): before t = 0 the solver steps
 * ceil(T / dt) times at t = 0 (moving walls stand still) with every particle
 * velocity zeroed after each step, so that the particles slide to where the
 * method's forces balance (a damped descent: no kinetic energy survives a
 * step); the storage is sorted once a frame's worth of steps (the periodic
 * wrap), and no frame hook runs (no re-sampling).  Then each particle gets
 * back the velocity the scene gave it, by its id (a particle made during the
 * settle: none).  A blow-up during it is the run's, its reason saying so.
 * Refused for a sheared box, rigid bodies or an emitter, whose motion is not
 * particle velocities. */
static int settle_check(const pfb_run_config *cfg, const pfb_sim *sim, pfb_err *err)
{
    const double T = params_get(cfg->run, "settle");
    if (T > 0 && (sim_sheared(sim) || sim->bodies.n > 0 || sim->emit.on))
        return pfb_err_set(err, PFB_EINVAL, "run.settle = %g for scene %s, which has %s; valid: settle = 0 there", T,
                           cfg->scene->name,
                           sim_sheared(sim) ? "a sheared box" : sim->bodies.n > 0 ? "rigid bodies" : "an emitter");
    return PFB_OK;
}

static int run_settle(const pfb_run_config *cfg, pfb_sim *sim, void *state, pfb_run_result *res, pfb_err *err)
{
    const double T = params_get(cfg->run, "settle");
    if (!(T > 0))
        return PFB_OK;
    pfb_particles *p = &sim->p;
    const size_t nid = (size_t)p->next_id;
    double *v0 = calloc(3 * (nid ? nid : 1), sizeof *v0);
    if (!v0)
        return pfb_err_set(err, PFB_ENOMEM, "out of memory for the settle's %zu velocities", nid);
    for (size_t i = 0; i < p->n; i++)
        for (int k = 0; k < sim->dim; k++)
            v0[3 * p->id[i] + (size_t)k] = p->v[k][i];
    const long nsteps = (long)ceil(T / res->dt - 1e-9);
    int rc = PFB_OK;
    for (long q = 0; q < nsteps && !rc; q++) {
        for (size_t i = 0; i < p->n; i++)
            for (int k = 0; k < sim->dim; k++)
                p->v[k][i] = 0.0;
        rc = cfg->solver->step(state, sim, res->dt, err);
        if (!rc) {
            sim->step++;
            sim_positions_changed(sim);
        }
        if (run_check_blowup(sim, res->energy_scale, INFINITY, res->reason, sizeof res->reason)) {
            const size_t used = strlen(res->reason);
            snprintf(res->reason + used, sizeof res->reason - used, " (in the settle, step %ld)", q + 1);
            res->unstable = 1;
            rc = PFB_OK;
            break;
        }
        if (!rc && (q + 1) % res->substeps == 0 && params_get_int(cfg->run, "sort_every") > 0)
            rc = sim_sort_particles(sim, sim_sort_h(sim), err);
    }
    if (!rc && !res->unstable)
        for (size_t i = 0; i < p->n; i++)
            for (int k = 0; k < sim->dim; k++)
                p->v[k][i] = p->id[i] < nid ? v0[3 * p->id[i] + (size_t)k] : 0.0;
    free(v0);
    return rc;
}

/* A stop asked for (a signal, or the tests' step count): the checkpoint, the
 * series so far as series.partial.csv, and run.meta saying so. */
static int stop_interrupted(const pfb_run_config *cfg, run_io *io, const pfb_sim *sim, const void *state,
                            const run_pos *pos, pfb_run_result *res, double t_end, pfb_err *err)
{
    res->interrupted = 1;
    int rc = checkpoint_write(cfg, io, sim, state, pos, err);
    char *text = NULL;
    size_t len = 0;
    if (!rc)
        rc = series_text(&io->series, &text, &len, err);
    char path[4200];
    snprintf(path, sizeof path, "%s/series.partial.csv", cfg->out_dir);
    if (!rc)
        rc = output_write_file(path, text, len, err);
    free(text);
    series_abort(&io->series);
    if (!rc)
        rc = write_meta(cfg, sim, res, t_end, err);
    if (rc)
        return rc;
    return pfb_err_set(err, PFB_EINTR, "run interrupted by %s at step %ld (t = %.6g s); its checkpoint is '%s/%s': "
                       "resume with pfbench run --resume %s", stop_signal == SIGINT ? "SIGINT" : stop_signal ? "SIGTERM" : "request",
                       res->steps, sim->t, cfg->out_dir, PFB_CHECKPOINT_FILE, cfg->out_dir);
}

int run_execute(const pfb_run_config *cfg, pfb_run_result *res, pfb_err *err)
{
    memset(res, 0, sizeof *res);
    pfb_sim sim;
    void *state = NULL;
    pfb_diag_ctx dc;
    memset(&dc, 0, sizeof dc);
    run_io io;
    memset(&io, 0, sizeof io);
    io.cfg = cfg;
    io.snapshots = params_get_int(cfg->run, "snapshots");
    double t_end = 0.0;
    int started = 0; /* the output directory is in use: a failure is recorded in run.meta */
    memset(&sim, 0, sizeof sim);
    /* the handler before anything is set up or written, so that a signal at any
     * point of the run stops it at its next step; under run_catch_signals it is
     * the process's already (and a signal between two runs stops the next) */
    struct sigaction old_int, old_term;
    int caught = 0;
    if (cfg->catch_signals && cfg->out_dir && !catch_all) {
        stop_signal = 0;
        set_stop_handler(&old_int, &old_term);
        caught = 1;
    }
    /* everything that can reject the input runs before the first file is created */
    int rc = run_setup(cfg, &sim, &state, err);
    if (!rc)
        rc = run_timing(cfg, &sim, state, &res->dt, &res->substeps, &res->frames, &t_end, err);
    if (!rc)
        rc = settle_check(cfg, &sim, err);
    if (!rc)
        rc = diag_init(&dc, &sim, err);
    pfb_ckpt_r ck;
    memset(&ck, 0, sizeof ck);
    char ckpath[4200] = "", partial[4200] = "";
    if (cfg->out_dir) {
        ckpt_path(cfg, ckpath, sizeof ckpath);
        snprintf(partial, sizeof partial, "%s/series.partial.csv", cfg->out_dir);
    }
    if (!rc && cfg->resume && !cfg->out_dir)
        rc = pfb_err_set(err, PFB_EINVAL, "a run resumes in its directory; valid: an output directory");
    if (!rc && cfg->resume) /* refused before any file is touched */
        rc = ckpt_open(&ck, ckpath, err);
    if (!rc && cfg->resume)
        rc = checkpoint_check(cfg, &ck, err);
    if (!rc && cfg->out_dir)
        rc = output_prepare_dir(cfg->out_dir, err);
    if (rc)
        goto done;
    if (cfg->out_dir && !cfg->resume) { /* an earlier run's files, superseded: none may pass for this run's */
        char old[4200];
        remove(ckpath);
        remove(partial);
        snprintf(old, sizeof old, "%s/run.meta", cfg->out_dir);
        remove(old);
        snprintf(old, sizeof old, "%s/series.csv", cfg->out_dir);
        remove(old);
    }
    started = cfg->out_dir != NULL;
    res->n0 = sim.p.n;
    for (size_t i = 0; cfg->solver->diag && cfg->solver->diag_names && cfg->solver->diag_names[i]; i++)
        io.nsolver++;
    io.nextra = io.nsolver + BODY_NCOLS * sim.bodies.n;
    io.extra = calloc(io.nextra + 1, sizeof *io.extra);
    io.times = calloc((size_t)res->frames + 1, sizeof *io.times);
    io.names = calloc(io.nextra + 1, sizeof *io.names);
    io.name_buf = calloc(BODY_NCOLS * sim.bodies.n * 40 + 1, 1);
    if (!io.extra || !io.times || !io.names || !io.name_buf) {
        rc = pfb_err_set(err, PFB_ENOMEM, "out of memory for %ld frames", res->frames);
        goto done;
    }
    for (size_t i = 0; i < io.nsolver; i++)
        io.names[i] = cfg->solver->diag_names[i];
    for (size_t b = 0; b < sim.bodies.n; b++)
        for (int k = 0; k < BODY_NCOLS; k++) {
            char *nm = io.name_buf + 40 * (BODY_NCOLS * b + (size_t)k);
            snprintf(nm, 40, "body%u_%s", (unsigned)b, body_cols[k]);
            io.names[io.nsolver + BODY_NCOLS * b + (size_t)k] = nm;
        }
    if (cfg->out_dir) {
        rc = series_open(&io.series, cfg->out_dir, io.nextra ? (const char *const *)io.names : NULL, err);
        if (rc)
            goto done;
    }
    if (!cfg->resume) { /* a resumed run settled before its checkpoint */
        rc = run_settle(cfg, &sim, state, res, err);
        if (rc)
            goto done;
    }
    pfb_diag d0;
    /* a resumed run's frame 0 is in its series already: only its scale is needed */
    rc = cfg->resume ? diag_compute(&dc, &sim, &d0, err) : emit_frame(&io, &dc, &sim, state, 0, &d0, err);
    if (rc)
        goto done;
    res->last = d0;
    double gmag = sqrt(sim.g[0] * sim.g[0] + sim.g[1] * sim.g[1] + sim.g[2] * sim.g[2]);
    /* the mass an emitter will add counts as if present from the start */
    double mass_all = d0.mass + sim_emitter_mass(&sim);
    res->energy_scale = d0.ke + mass_all * gmag * sim.length_ref + 0.5 * mass_all * sim.v_ref * sim.v_ref;
    if (cfg->solver->surface_tension) {
        /* surface energy sigma * A, with A = dim V / L (exact for a disc or ball of radius L) */
        double sigma = cfg->solver->surface_tension(state);
        if (sigma > 0)
            res->energy_scale += sigma * sim.dim * dc.vol_nominal / sim.length_ref;
    }
    const double energy_limit = params_get(cfg->run, "energy_limit");
    const long sort_every = params_get_int(cfg->run, "sort_every");
    const double volume_limit = params_get(cfg->run, "volume_limit");
    const double frame_dt = t_end / (double)res->frames;
    run_pos pos = {1, 0, 0, 0};
    if (cfg->resume) {
        rc = checkpoint_load(cfg, &ck, &io, &sim, state, &pos, res->frames, err);
        ckpt_close(&ck);
        if (rc)
            goto done;
        res->steps = pos.steps;
        res->frames_done = pos.frames_done;
    }

    double t0 = now_seconds();
    for (long f = pos.f; f <= res->frames && !res->unstable; f++) {
        for (long s = f == pos.f ? pos.s : 0; s < res->substeps; s++) {
            rc = cfg->solver->step(state, &sim, res->dt, err);
            if (rc && run_check_blowup(&sim, res->energy_scale, INFINITY, res->reason, sizeof res->reason)) {
                /* a blow-up inside the step: the state went non-finite or left the
                 * domain and a later phase of the step failed on it (the neighbour
                 * search refuses a NaN); it is recorded as the blow-up it is, with
                 * the step's own message after the state's */
                const size_t used = strlen(res->reason);
                snprintf(res->reason + used, sizeof res->reason - used, " (inside step %ld: %s)", res->steps + 1,
                         err->msg);
                res->unstable = 1;
                rc = PFB_OK;
                break;
            }
            if (rc)
                goto done;
            res->steps++;
            sim.step++;
            sim.t = (double)(f - 1) * frame_dt + (double)(s + 1) * res->dt;
            period_le_at(&sim.period, sim.t); /* a sheared box's images slide with t (set at t = 0 and on resume) */
            sim_positions_changed(&sim);
            rc = sim_emit(&sim, res->dt, sim.t, err);
            if (rc)
                goto done;
            /* the energy limit at a frame's last step only (run.h says why) */
            const double limit = s + 1 == res->substeps ? energy_limit : INFINITY;
            if (run_check_blowup(&sim, res->energy_scale, limit, res->reason, sizeof res->reason)) {
                res->unstable = 1;
                break;
            }
            if (cfg->out_dir && (stop_signal || (cfg->stop_after_steps > 0 && res->steps == cfg->stop_after_steps))) {
                const run_pos at = {f, s + 1, res->steps, res->frames_done};
                res->wall_seconds = now_seconds() - t0;
                rc = stop_interrupted(cfg, &io, &sim, state, &at, res, t_end, err);
                goto done;
            }
        }
        if (res->unstable)
            break;
        if (cfg->solver->frame) {
            rc = cfg->solver->frame(state, &sim, f, err);
            if (rc)
                goto done;
        }
        if (sort_every > 0 && f % sort_every == 0) {
            rc = sim_sort_particles(&sim, sim_sort_h(&sim), err);
            if (rc)
                goto done;
        }
        pfb_diag d;
        rc = emit_frame(&io, &dc, &sim, state, f, &d, err);
        if (rc)
            goto done;
        res->last = d;
        res->frames_done = f;
        if (run_check_volume(&d, volume_limit, res->reason, sizeof res->reason)) {
            res->unstable = 1;
            break;
        }
        if (cfg->progress)
            cfg->progress(cfg->progress_ctx, (double)f / (double)res->frames);
        if (cfg->out_dir && cfg->checkpoint_every > 0 && f % cfg->checkpoint_every == 0 && f < res->frames) {
            const run_pos at = {f + 1, 0, res->steps, res->frames_done};
            rc = checkpoint_write(cfg, &io, &sim, state, &at, err);
            if (rc)
                goto done;
        }
    }
    res->wall_seconds = now_seconds() - t0;
    if (cfg->out_dir) {
        rc = series_close(&io.series, err);
        if (!rc && io.snapshots == 1)
            rc = output_pvd(cfg->out_dir, res->frames_done + 1, io.times, err);
        if (!rc)
            rc = write_meta(cfg, &sim, res, t_end, err);
        if (!rc) { /* a finished run needs no checkpoint */
            remove(ckpath);
            remove(partial);
        }
    }
done:
    if (caught) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    ckpt_close(&ck);
    if (rc && cfg->out_dir)
        series_abort(&io.series);
    if (rc && rc != PFB_EINTR && started) {
        /* a failure (a write error, a solver's error): run.meta says so where it
         * can still be written; no series.csv exists, so nothing looks complete */
        char why[sizeof err->msg + 16];
        pfb_err e2;
        snprintf(why, sizeof why, "error: %s", err->msg);
        (void)write_meta_as(cfg, &sim, res, t_end, why, &e2);
    }
    free(io.extra);
    free(io.names);
    free(io.name_buf);
    free(io.times);
    diag_free(&dc);
    if (cfg->solver)
        cfg->solver->destroy(state);
    sim_free(&sim);
    return rc;
}

/* bench.c — `pfbench bench`: the measurements behind make bench (issue 8).
 *
 *   pfbench bench nsearch [--n N] [--neighbours K] [--dim 2|3] [--reps R] [--seed S]
 *   pfbench bench step --solver S [--scene SC] [--dim 2|3] [--n N] [--steps K]
 *                      [--warmup K] [--set KEY=VALUE ...]
 *
 * nsearch: N points uniform in a cube (square) sized so that a point has K
 * neighbours within h = 1 on average, in cell order (the framework keeps particle
 * storage cell-ordered); R builds of the grid and the full neighbour list, timed
 * one by one after an untimed warm-up build.  step: the scene at the spacing that gives about N particles, two
 * warm-up steps (--warmup: more, to time a flow under way), then K timed steps at the solver's suggested dt.  Both print one
 * line of key=value pairs: the median time per particle, the throughput, and the
 * resident memory the simulation added per particle (from /proc/self/statm).
 * Exit status 1 on bad input (one line naming the value), 3 if the steps blew up. */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/grid.h"
#include "../core/rng.h"
#include "../core/run.h"
#include "../core/scene.h"
#include "../core/timing.h"
#include "../experiments/presets.h"
#include "../core/solver.h"

#define EXIT_BAD 1
#define EXIT_UNSTABLE 3

/* Parse a positive integer option value; names the option on failure. */
static int int_arg(const char *opt, const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "pfbench bench: %s %s is invalid; valid: an integer in [%ld, %ld]\n", opt, s, lo, hi);
        return EXIT_BAD;
    }
    *out = v;
    return 0;
}

static void usage_bench(FILE *f)
{
    fputs("usage: pfbench bench nsearch [--n N] [--neighbours K] [--dim 2|3] [--reps R] [--seed S]\n"
          "       pfbench bench step --solver S [--scene SC] [--dim 2|3] [--n N] [--steps K] [--warmup K] [--set KEY=VALUE]\n"
          "                          [--preset P] [--lockstep-in FIFO --lockstep-out FIFO [--lockstep-every K]]\n"
          "\n"
          "nsearch: grid build + full neighbour list of N uniform random points (cell order)\n"
          "         with K neighbours on average (defaults 1000000, 40, 3D, 5 reps)\n"
          "step:    K timed steps (default 20, after --warmup untimed ones, default 2) of the scene (default\n"
          "         dam_break) at the spacing giving about N particles (default 60000), with the\n"
          "         solver's built-in defaults, or the material preset P (calibrated: the reference\n"
          "         fluid, as pfbench run; paper; an INI file) under the --set values\n"
          "\n"
          "prints one line of key=value: ns per particle (median, and mean), throughput, bytes per\n"
          "particle added to the resident set; OMP_NUM_THREADS sets the threads.\n"
          "--lockstep-in/-out: take turns step by step with a second `bench step` on the same two FIFOs\n"
          "(wait for a byte on in before each step, write one to out after it): bench/lockstep.sh runs two\n"
          "builds or settings this way, so both meet the same phases of a shared machine.\n"
          "--lockstep-every K: a turn is K steps (default 1), for a partner whose steps are K times\n"
          "as long and as costly (bench/lockstep.sh --b-args: two solvers side by side).\n",
          f);
}

static int bench_nsearch(int argc, char **argv)
{
    long n = 1000000, k = 40, dim = 3, reps = 5, seed = 1;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "pfbench bench nsearch: option %s needs a value; see pfbench bench --help\n", a);
            return EXIT_BAD;
        }
        int rc = !strcmp(a, "--n")            ? int_arg(a, argv[++i], 2, 100000000, &n)
                 : !strcmp(a, "--neighbours") ? int_arg(a, argv[++i], 1, 1000, &k)
                 : !strcmp(a, "--dim")        ? int_arg(a, argv[++i], 2, 3, &dim)
                 : !strcmp(a, "--reps")       ? int_arg(a, argv[++i], 1, 1000, &reps)
                 : !strcmp(a, "--seed")       ? int_arg(a, argv[++i], 0, 1000000000, &seed)
                                              : -1;
        if (rc == -1) {
            fprintf(stderr, "pfbench bench nsearch: unknown option '%s'; valid: --n, --neighbours, --dim, --reps, --seed\n",
                    a);
            return EXIT_BAD;
        }
        if (rc)
            return rc;
    }
    pfb_err err;
    const int d = (int)dim;
    /* box edge L: n (ball volume) / L^dim = k */
    const double ball = d == 3 ? 4.0 / 3.0 * 3.14159265358979323846 : 3.14159265358979323846;
    const double L = pow((double)n * ball / (double)k, 1.0 / (double)d);
    double *x[3] = {NULL, NULL, NULL}, *y[3] = {NULL, NULL, NULL};
    double base = pfb_rss_bytes();
    for (int a = 0; a < 3; a++) {
        x[a] = calloc((size_t)n, sizeof *x[a]);
        y[a] = calloc((size_t)n, sizeof *y[a]);
        if (!x[a] || !y[a]) {
            fprintf(stderr, "pfbench bench nsearch: out of memory for %ld points\n", n);
            return EXIT_BAD;
        }
    }
    pfb_rng rng;
    rng_seed(&rng, (uint64_t)seed);
    for (long i = 0; i < n; i++)
        for (int a = 0; a < d; a++)
            y[a][i] = L * rng_uniform(&rng);
    pfb_grid g;
    pfb_nlist nl;
    memset(&nl, 0, sizeof nl);
    int rc = grid_init(&g, d, 1.0, &err);
    /* cell order, as the framework keeps particle storage */
    if (!rc)
        rc = grid_build(&g, (const double *const *)y, (size_t)n, &err);
    if (rc) {
        fprintf(stderr, "pfbench bench nsearch: %s\n", err.msg);
        return EXIT_BAD;
    }
    const uint32_t *perm = grid_sort_permutation(&g);
    for (long i = 0; i < n; i++)
        for (int a = 0; a < d; a++)
            x[a][i] = y[a][perm[i]];
    double *t = malloc(3 * (size_t)reps * sizeof *t), *tb = t + reps, *tl = t + 2 * reps;
    if (!t) {
        fprintf(stderr, "pfbench bench nsearch: out of memory\n");
        return EXIT_BAD;
    }
    for (long r = -1; r < reps && !rc; r++) { /* r = -1: warm-up (first-touch page faults) */
        const double t0 = pfb_now();
        rc = grid_build(&g, (const double *const *)x, (size_t)n, &err);
        const double t1 = pfb_now();
        if (!rc)
            rc = grid_neighbours(&g, (const double *const *)x, &nl, &err);
        if (r >= 0) {
            t[r] = pfb_now() - t0;
            tb[r] = t1 - t0;
            tl[r] = t[r] - tb[r];
        }
    }
    if (rc) {
        fprintf(stderr, "pfbench bench nsearch: %s\n", err.msg);
        return EXIT_BAD;
    }
    double mem = pfb_rss_bytes() - base;
    const double med = pfb_median(t, (size_t)reps), medb = pfb_median(tb, (size_t)reps),
                 medl = pfb_median(tl, (size_t)reps);
    printf("bench=nsearch dim=%d n=%ld neighbours_mean=%.2f threads=%d reps=%ld ns_per_particle=%.1f "
           "build_ns=%.1f list_ns=%.1f particles_per_s=%.4g bytes_per_particle=%.0f\n",
           d, n, (double)nl.start[n] / (double)n, pfb_max_threads(), reps, 1e9 * med / (double)n,
           1e9 * medb / (double)n, 1e9 * medl / (double)n, (double)n / med, mem / (double)n);
    free(t);
    grid_free(&g);
    nlist_free(&nl);
    for (int a = 0; a < 3; a++) {
        free(x[a]);
        free(y[a]);
    }
    return 0;
}

/* seconds a lockstep process waits for its turn (the partner's set-up included) */
#define PFB_LOCKSTEP_TIMEOUT 600.0

/* Open the FIFO at path for --lockstep-in/-out into *fd.  Read and write
 * (Linux): neither end then waits for the other to open, and a partner that
 * has finished leaves no end of file behind. */
static int open_fifo(const char *path, int *fd)
{
    struct stat st;
    const int bad = stat(path, &st) ? errno : 0;
    if (bad || !S_ISFIFO(st.st_mode)) {
        fprintf(stderr, "pfbench bench step: lockstep path '%s' %s%s; valid: a FIFO (mkfifo; bench/lockstep.sh "
                "makes them)\n", path, bad ? "cannot be used: " : "is not a FIFO", bad ? strerror(bad) : "");
        return -1;
    }
    *fd = open(path, O_RDWR | O_CLOEXEC);
    if (*fd < 0) {
        fprintf(stderr, "pfbench bench step: cannot open lockstep FIFO '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int bench_step(int argc, char **argv)
{
    const char *solver = NULL, *scene = "dam_break";
    long n = 60000, steps = 20, dim = 3, warmup = 2, every = 1;
    const char *sets[64], *lock_in = NULL, *lock_out = NULL, *preset_arg = NULL;
    int nsets = 0;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "pfbench bench step: option %s needs a value; see pfbench bench --help\n", a);
            return EXIT_BAD;
        }
        int rc = 0;
        if (!strcmp(a, "--solver"))
            solver = argv[++i];
        else if (!strcmp(a, "--scene"))
            scene = argv[++i];
        else if (!strcmp(a, "--n"))
            rc = int_arg(a, argv[++i], 10, 100000000, &n);
        else if (!strcmp(a, "--steps"))
            rc = int_arg(a, argv[++i], 1, 1000000, &steps);
        else if (!strcmp(a, "--warmup"))
            rc = int_arg(a, argv[++i], 0, 10000000, &warmup);
        else if (!strcmp(a, "--dim"))
            rc = int_arg(a, argv[++i], 2, 3, &dim);
        else if (!strcmp(a, "--set") && nsets < 64)
            sets[nsets++] = argv[++i];
        else if (!strcmp(a, "--preset"))
            preset_arg = argv[++i];
        else if (!strcmp(a, "--lockstep-in"))
            lock_in = argv[++i];
        else if (!strcmp(a, "--lockstep-out"))
            lock_out = argv[++i];
        else if (!strcmp(a, "--lockstep-every"))
            rc = int_arg(a, argv[++i], 1, 1000000, &every);
        else {
            fprintf(stderr, "pfbench bench step: unknown option '%s'; valid: --solver, --scene, --dim, --n, --steps, "
                    "--warmup, --set, --preset, --lockstep-in, --lockstep-out, --lockstep-every\n", a);
            return EXIT_BAD;
        }
        if (rc)
            return rc;
    }
    if (!solver) {
        fprintf(stderr, "pfbench bench step: --solver is missing; valid: pfbench list shows the solvers\n");
        return EXIT_BAD;
    }
    if (!lock_in != !lock_out) {
        fprintf(stderr, "pfbench bench step: --lockstep-%s is missing; valid: both --lockstep-in and --lockstep-out, "
                "or neither\n", lock_in ? "out" : "in");
        return EXIT_BAD;
    }
    if (every > 1 && !lock_in) {
        fprintf(stderr, "pfbench bench step: --lockstep-every %ld needs --lockstep-in and --lockstep-out; valid: "
                "all three, or no --lockstep-every\n", every);
        return EXIT_BAD;
    }
    pfb_step_gate gate = {-1, -1, PFB_LOCKSTEP_TIMEOUT, every};
    if (lock_in && (open_fifo(lock_in, &gate.fd_in) || open_fifo(lock_out, &gate.fd_out))) {
        if (gate.fd_in >= 0)
            close(gate.fd_in);
        return EXIT_BAD;
    }
    pfb_err err;
    const pfb_solver_ops *so;
    const pfb_scene_def *sc;
    if (solver_lookup(solver, &so, &err) || scene_lookup(scene, &sc, &err)) {
        fprintf(stderr, "pfbench bench step: %s\n", err.msg);
        return EXIT_BAD;
    }
    pfb_params rp, sp, op;
    memset(&rp, 0, sizeof rp);
    memset(&sp, 0, sizeof sp);
    memset(&op, 0, sizeof op);
    int rc = params_init(&rp, pfb_run_params, "run", &err);
    if (!rc)
        rc = params_init(&sp, sc->params, sc->name, &err);
    if (!rc)
        rc = params_init(&op, so->params, so->name, &err);
    if (!rc && preset_arg) { /* the material first, the --set values over it (as pfbench run) */
        pfb_preset preset;
        rc = preset_resolve(preset_arg, &preset, &err);
        if (!rc)
            rc = preset_apply(&preset, so, &op, &err);
    }
    char dimset[32];
    snprintf(dimset, sizeof dimset, "run.dim=%ld", dim);
    if (!rc)
        rc = run_apply_setting(&rp, &sp, &op, dimset, &err);
    for (int i = 0; i < nsets && !rc; i++)
        rc = run_apply_setting(&rp, &sp, &op, sets[i], &err);
    pfb_run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.solver = so;
    cfg.scene = sc;
    cfg.run = &rp;
    cfg.scene_params = &sp;
    cfg.solver_params = &op;
    /* the spacing that gives about n particles */
    if (!rc && params_get(&rp, "spacing") == 0.0) {
        double spacing = 0.0;
        char sset[64];
        rc = run_spacing_for(&cfg, (double)n, &spacing, &err);
        snprintf(sset, sizeof sset, "run.spacing=%.17g", spacing);
        if (!rc)
            rc = run_apply_setting(&rp, &sp, &op, sset, &err);
    }
    pfb_step_timing tm;
    memset(&tm, 0, sizeof tm);
    if (!rc)
        rc = run_time_steps_gated(&cfg, warmup, steps, lock_in ? &gate : NULL, &tm, &err);
    if (lock_in) {
        close(gate.fd_in);
        close(gate.fd_out);
    }
    if (rc)
        fprintf(stderr, "pfbench bench step: %s\n", err.msg);
    else if (tm.unstable)
        fprintf(stderr, "pfbench bench step: %s\n", tm.reason);
    else {
        double np = (double)tm.n;
        printf("bench=step solver=%s scene=%s dim=%ld n=%zu spacing=%.6g dt=%.4g threads=%d warmup=%ld steps=%ld "
               "ns_per_particle_step=%.1f particle_steps_per_s=%.4g mean_ns_per_particle_step=%.1f "
               "mean_particle_steps_per_s=%.4g bytes_per_particle=%.0f",
               so->name, sc->name, dim, tm.n, tm.spacing, tm.dt, tm.threads, warmup, steps, 1e9 * tm.t_step / np,
               np / tm.t_step, 1e9 * tm.t_step_mean / np, np / tm.t_step_mean, tm.bytes_per_particle);
        for (size_t k = 0; k < tm.ntimers; k++)
            printf(" %s_seconds_per_step=%.4g", tm.timer_names[k], tm.timer_step[k]);
        if (so->frame) {
            printf(" frame_hook_seconds=%.4g substeps=%ld", tm.t_frame, tm.substeps);
            for (size_t k = 0; k < tm.ntimers; k++)
                if (tm.timer_frame[k] > 0)
                    printf(" %s_seconds_per_frame=%.4g", tm.timer_names[k], tm.timer_frame[k]);
        }
        printf("\n");
    }
    params_free(&rp);
    params_free(&sp);
    params_free(&op);
    return rc ? EXIT_BAD : tm.unstable ? EXIT_UNSTABLE : 0;
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 3 || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
        usage_bench(argc < 3 ? stderr : stdout);
        return argc < 3 ? EXIT_BAD : 0;
    }
    if (!strcmp(argv[2], "nsearch"))
        return bench_nsearch(argc, argv);
    if (!strcmp(argv[2], "step"))
        return bench_step(argc, argv);
    fprintf(stderr, "pfbench bench: unknown case '%s'; valid: nsearch, step\n", argv[2]);
    return EXIT_BAD;
}

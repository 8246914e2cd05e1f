/* main.c — the `pfbench` command: list, run.
 *
 * Exit status: 0 success, 1 bad input or I/O error (one line on stderr naming the
 * bad value and what is valid), 3 the run blew up (recorded in run.meta), 4 the
 * run was stopped by SIGINT or SIGTERM (its checkpoint written: --resume). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/output.h"
#include "../core/params.h"
#include "../core/run.h"
#include "../core/scene.h"
#include "../core/version.h"
#include "../experiments/experiment.h"
#include "../experiments/fluid.h"
#include "../experiments/validate.h"
#include "../experiments/presets.h"
#include "../core/solver.h"
#include "bench.h"
#include "pool.h"

#define EXIT_BAD 1
#define EXIT_UNSTABLE 3
#define EXIT_INTERRUPTED 4

/* The OpenMP runtime's waiting policy: passive unless the user sets
 * OMP_WAIT_POLICY.  A thread that waits at a barrier then sleeps instead of
 * spinning, so that a run shares the cores with other work without losing
 * throughput: with GNU OpenMP's default (spin about 3 ms, then sleep), two
 * 2-thread runs of the 3D dam break at once on 2 cores took 2.6-9.9 times
 * their time alone, with passive 1.9-2.1, what one after the other costs;
 * alone the two differ by about 1 % (bench/README.md, "Runs beside other
 * work").  The runtime reads the variable once, when it is loaded, before
 * main; a setenv from the executable's pre-initialisers is undone by the C
 * library's own start-up.  So when the variable is unset, pfbench sets it and
 * executes itself again (/proc/self/exe, the same arguments): the one process
 * that then runs has the policy from its start.  If that exec fails, the run
 * goes on with the runtime's default.  The results never depend on it. */
static void wait_policy_default(char **argv)
{
#if defined(__linux__) && !defined(PFB_FUZZ_CLI)
    if (getenv("OMP_WAIT_POLICY"))
        return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) == 0)
        execv("/proc/self/exe", argv);
#else
    (void)argv;
#endif
}

/* The fuzz target's build (-DPFB_FUZZ_CLI, tests/fuzz/cli.c): main is
 * pfb_cli_main, and run and exp parse their options and read their inputs, then
 * stop before running anything or writing a file. */
#ifdef PFB_FUZZ_CLI
#define CLI_EXECUTE 0
#define main pfb_cli_main
int pfb_cli_main(int argc, char **argv);
#else
#define CLI_EXECUTE 1
#endif

/* The names of a registry (NULL-terminated array of pointers to structs whose
 * first member is the name), comma-separated after a label and wrapped at 80
 * columns: the help text takes them from the registries themselves, so it names
 * exactly what exists. */
typedef const char *(*name_at_fn)(size_t i);
static const char *experiment_name_at(size_t i)
{
    return pfb_experiments[i] ? pfb_experiments[i]->name : NULL;
}
static const char *scene_name_at(size_t i)
{
    return pfb_scenes[i] ? pfb_scenes[i]->name : NULL;
}
static const char *solver_name_at(size_t i)
{
    return pfb_solvers[i] ? pfb_solvers[i]->name : NULL;
}

static void print_names(FILE *f, const char *label, int indent, name_at_fn name_at)
{
    int col = fprintf(f, "%-*s", indent, label);
    for (size_t i = 0; name_at(i); i++) {
        const char *nm = name_at(i);
        const int last = name_at(i + 1) == NULL;
        const int w = (int)strlen(nm) + (last ? 0 : 1);
        if (i > 0 && col + 1 + w > 80) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (i > 0) {
            fputc(' ', f);
            col++;
        }
        col += fprintf(f, "%s%s", nm, last ? "" : ",");
    }
    fputc('\n', f);
}

static void usage_main(FILE *f)
{
    fputs("usage: pfbench <command> [options]\n"
          "\n"
          "commands:\n"
          "  list                 solvers, scenes, experiments and every parameter with\n"
          "                       default, range and unit\n"
          "  run                  run one simulation and write series.csv, run.meta and frames\n"
          "  exp NAME             run an experiment (below)\n"
          "  bench                time the neighbour search or a solver's steps (make bench)\n"
          "  version              version, commit, compiler and flags\n"
          "\n",
          f);
    print_names(f, "experiments:", 13, experiment_name_at);
    print_names(f, "solvers:", 13, solver_name_at);
    print_names(f, "scenes:", 13, scene_name_at);
    fputs("\n"
          "'pfbench <command> --help' describes a command; 'pfbench list' describes\n"
          "every solver, scene and experiment.\n",
          f);
}

static void usage_run(FILE *f)
{
    fputs("usage: pfbench run --solver S --scene SC --out DIR [options]\n"
          "\n"
          "  --solver S           back end (pfbench list shows them)\n"
          "  --scene SC           scene (pfbench list shows them)\n"
          "  --out DIR            output directory (created if missing)\n"
          "  --dim 2|3            spatial dimension (default 2)\n"
          "  --spacing D          particle spacing in m (default: the scene's)\n"
          "  --dt DT              fixed time step in s (default: the solver's suggestion)\n"
          "  --t-end T            simulated time in s (default: the scene's)\n"
          "  --frames N           output frames after frame 0 (default: 30 per second)\n"
          "  --substeps N         steps per frame (default: from dt)\n"
          "  --seed N             seed of the run's random numbers (default 1)\n"
          "  --snapshots K        csv, vtp (with frames.pvd) or none (default csv)\n"
          "  --preset P           material: calibrated (default: the reference fluid of\n"
          "                       scenes/fluid.ini), paper (each paper's values), none (the\n"
          "                       solver's built-in defaults, relative to the scene's speed)\n"
          "                       or an INI file's [<solver>] section\n"
          "  --config FILE        INI file with [run], [scene] and [<solver>] sections (over the preset)\n"
          "  --set KEY=VALUE      set a parameter; KEY may be prefixed run., scene. or solver.\n"
          "  --quiet              no progress bar\n"
          "  --force              allow a run of more than 1e7 steps\n"
          "  --checkpoint-every K write DIR/checkpoint.pfb every K frames (default 0: only\n"
          "                       when stopped by SIGINT or SIGTERM)\n"
          "  --resume DIR         go on from DIR/checkpoint.pfb with its solver, scene and\n"
          "                       parameters (options given must agree with them)\n"
          "\n"
          "writes DIR/series.csv (one row per frame), DIR/run.meta (provenance and every\n"
          "parameter) and DIR/frames/. Exit status 3 means the run blew up; run.meta says why.\n"
          "SIGINT or SIGTERM: the step in progress is finished, DIR/checkpoint.pfb,\n"
          "DIR/series.partial.csv and run.meta (status = interrupted) are written, exit\n"
          "status 4; --resume DIR then gives the uninterrupted run's files, bit for bit.\n",
          f);
}

static void usage_list(FILE *f)
{
    fputs("usage: pfbench list\n"
          "\n"
          "prints the solvers, the scenes, the experiments and every parameter (run,\n"
          "scene and solver) with its default, valid range, unit and help.\n",
          f);
}

static void print_params(const pfb_params *p, const char *indent)
{
    char buf[64];
    for (size_t i = 0; i < p->n; i++) {
        const pfb_param_spec *s = &p->spec[i];
        params_format(p, i, buf, sizeof buf);
        printf("%s%-24s = %-10s", indent, s->name, buf);
        if (s->type == PFB_PARAM_CHOICE)
            printf("  {%s}", s->choices);
        else if (s->type == PFB_PARAM_BOOL)
            printf("  {true|false}");
        else
            printf("  [%g, %g] %s", s->min, s->max, s->unit);
        printf("  %s\n", s->help);
    }
}

static int cmd_list(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage_list(stdout);
            return 0;
        }
        fprintf(stderr, "pfbench list: unknown option '%s'; valid: --help\n", argv[i]);
        return EXIT_BAD;
    }
    pfb_err err;
    pfb_params p;
    printf("run parameters ([run] section):\n");
    if (params_init(&p, pfb_run_params, "run", &err) == 0) {
        print_params(&p, "  ");
        params_free(&p);
    }
    printf("\nsolvers:\n");
    for (size_t i = 0; pfb_solvers[i]; i++) {
        printf("  %s — %s\n", pfb_solvers[i]->name, pfb_solvers[i]->citation);
        if (params_init(&p, pfb_solvers[i]->params, pfb_solvers[i]->name, &err) == 0) {
            print_params(&p, "    ");
            params_free(&p);
        }
    }
    printf("\nscenes:\n");
    for (size_t i = 0; pfb_scenes[i]; i++) {
        const pfb_scene_def *sc = pfb_scenes[i];
        printf("  %s — %s (default spacing %g m in 2D, %g m in 3D; %g s)\n", sc->name, sc->help,
               sc->default_spacing[0], sc->default_spacing[1], sc->default_t_end);
        if (params_init(&p, sc->params, sc->name, &err) == 0) {
            print_params(&p, "    ");
            params_free(&p);
        }
    }
    printf("\nexperiments:\n");
    for (size_t i = 0; pfb_experiments[i]; i++)
        printf("  %-10s %s\n", pfb_experiments[i]->name, pfb_experiments[i]->help);
    return 0;
}

/* ---- run ----------------------------------------------------------------------- */

typedef struct run_tables {
    pfb_params run, scene, solver;
} run_tables;

typedef struct progress_ctx {
    int last;
} progress_ctx;

static void show_progress(void *ctx, double fraction)
{
    progress_ctx *pc = ctx;
    int pct = (int)(fraction * 100.0);
    if (pct == pc->last)
        return;
    pc->last = pct;
    int bar = pct / 2;
    fprintf(stderr, "\r[%.*s%*s] %3d%%", bar, "##################################################", 50 - bar, "", pct);
    if (pct >= 100)
        fputc('\n', stderr);
    fflush(stderr);
}

static const char *need_value(int argc, char **argv, int *i, pfb_err *err, int *rc)
{
    if (*i + 1 >= argc) {
        *rc = pfb_err_set(err, PFB_EINVAL, "option %s needs a value; see pfbench run --help", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static int cmd_run(int argc, char **argv)
{
    const char *solver_name = NULL, *scene_name = NULL, *out = NULL, *config = NULL, *preset_arg = NULL,
               *resume = NULL, *ckpt_arg = NULL;
    int quiet = 0, force = 0;
    long ckpt_every = 0;
    char *ckpt_params = NULL; /* --resume: the checkpoint's solver, scene and parameter lines */
    char ck_solver[64] = "", ck_scene[64] = "";
    pfb_err err;
    pfb_err_clear(&err);
    int rc = 0;
    /* first pass: the names, the config and the output directory */
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_run(stdout);
            return 0;
        } else if (!strcmp(a, "--solver")) {
            solver_name = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--scene")) {
            scene_name = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--out")) {
            out = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--config")) {
            config = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--preset")) {
            preset_arg = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--force")) {
            force = 1;
        } else if (!strcmp(a, "--resume")) {
            resume = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--checkpoint-every")) {
            ckpt_arg = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--dim") || !strcmp(a, "--spacing") || !strcmp(a, "--dt") || !strcmp(a, "--t-end") ||
                   !strcmp(a, "--frames") || !strcmp(a, "--substeps") || !strcmp(a, "--seed") ||
                   !strcmp(a, "--snapshots") || !strcmp(a, "--set")) {
            need_value(argc, argv, &i, &err, &rc);
        } else {
            static const char *const opts[] = {"--solver", "--scene", "--out", "--config", "--preset", "--quiet", "--dim",
                                               "--spacing", "--dt", "--t-end", "--frames", "--substeps", "--seed",
                                               "--snapshots", "--set", "--help", "--resume", "--checkpoint-every",
                                               "--force"};
            const char *near = pfb_nearest(a, opts, sizeof opts / sizeof opts[0]);
            if (near)
                rc = pfb_err_set(&err, PFB_EINVAL, "unknown option '%s'; did you mean '%s'?", a, near);
            else
                rc = pfb_err_set(&err, PFB_EINVAL, "unknown option '%s'; see pfbench run --help", a);
        }
    }
    if (!rc && ckpt_arg) {
        char *end;
        errno = 0;
        ckpt_every = strtol(ckpt_arg, &end, 10);
        if (*end || end == ckpt_arg || errno || ckpt_every < 0)
            rc = pfb_err_set(&err, PFB_EINVAL, "--checkpoint-every '%s' is not a number of frames; valid: 0 (only on "
                             "a signal) or more", ckpt_arg);
    }
    if (!rc && resume) { /* the checkpoint's names and parameters, refused at once if unreadable */
        if (out && strcmp(out, resume))
            rc = pfb_err_set(&err, PFB_EINVAL, "--out '%s' is not --resume's directory '%s'; valid: no --out, or the "
                             "same", out, resume);
        out = resume;
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", resume, PFB_CHECKPOINT_FILE);
        if (!rc)
            rc = run_checkpoint_params(path, &ckpt_params, &err);
        if (!rc && (sscanf(ckpt_params, "solver = %63s scene = %63s", ck_solver, ck_scene) != 2))
            rc = pfb_err_set(&err, PFB_EINVAL, "the checkpoint '%s' names no solver and scene; valid: a checkpoint "
                             "as written", path);
        if (!rc && !solver_name)
            solver_name = ck_solver;
        if (!rc && !scene_name)
            scene_name = ck_scene;
    }
    if (!rc && !solver_name)
        rc = pfb_err_set(&err, PFB_EINVAL, "missing --solver; 'pfbench list' shows the valid ones");
    if (!rc && !scene_name)
        rc = pfb_err_set(&err, PFB_EINVAL, "missing --scene; 'pfbench list' shows the valid ones");
    if (!rc && !out)
        rc = pfb_err_set(&err, PFB_EINVAL, "missing --out DIR");
    const pfb_solver_ops *solver = NULL;
    const pfb_scene_def *scene = NULL;
    if (!rc)
        rc = solver_lookup(solver_name, &solver, &err);
    if (!rc)
        rc = scene_lookup(scene_name, &scene, &err);
    run_tables t;
    memset(&t, 0, sizeof t);
    char sc_owner[96], so_owner[96];
    if (!rc) {
        snprintf(sc_owner, sizeof sc_owner, "scene %s", scene->name);
        snprintf(so_owner, sizeof so_owner, "solver %s", solver->name);
        rc = params_init(&t.run, pfb_run_params, "run", &err);
        if (!rc)
            rc = params_init(&t.scene, scene->params, sc_owner, &err);
        if (!rc)
            rc = params_init(&t.solver, solver->params, so_owner, &err);
    }
    pfb_preset preset;
    if (!rc)
        rc = preset_resolve(preset_arg ? preset_arg : PFB_RUN_PRESET_DEFAULT, &preset, &err);
    if (!rc)
        rc = preset_apply(&preset, solver, &t.solver, &err);
    if (!rc && config) {
        pfb_ini_target targets[] = {{"run", &t.run}, {"scene", &t.scene}, {solver->name, &t.solver}};
        const char *ignore[64];
        size_t nign = 0;
        for (size_t i = 0; pfb_solvers[i] && nign < 64; i++)
            if (pfb_solvers[i] != solver)
                ignore[nign++] = pfb_solvers[i]->name;
        rc = params_load_ini(config, targets, 3, ignore, nign, &err);
    }
    /* --resume: the checkpoint's every parameter (options below must agree) */
    for (char *line = ckpt_params, *next; !rc && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        else
            next = line + strlen(line);
        char key[160], val[160], set[330], have[64] = "";
        if (sscanf(line, "%159s = %159s", key, val) != 2 || !strcmp(key, "solver") || !strcmp(key, "scene"))
            continue;
        /* only the values that differ from the preset's and the defaults: a value
         * given is a value set, and some pairs may not both be set */
        const char *dot = strchr(key, '.');
        const pfb_params *tab = !dot ? NULL : !strncmp(key, "run.", 4) ? &t.run : !strncmp(key, "scene.", 6) ? &t.scene
                                                                                                      : &t.solver;
        const int k = tab ? params_find(tab, dot + 1) : -1;
        if (k >= 0)
            params_format(tab, (size_t)k, have, sizeof have);
        if (k >= 0 && !strcmp(have, val))
            continue;
        snprintf(set, sizeof set, "%s=%s", key, val);
        rc = run_apply_setting(&t.run, &t.scene, &t.solver, set, &err);
    }
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        static const struct {
            const char *opt, *key;
        } sc[] = {{"--dim", "dim"},       {"--spacing", "spacing"},     {"--dt", "dt"},
                  {"--t-end", "t_end"},   {"--frames", "frames"},       {"--substeps", "substeps"},
                  {"--seed", "seed"},     {"--snapshots", "snapshots"}};
        int done = 0;
        for (size_t k = 0; k < sizeof sc / sizeof sc[0] && !done; k++)
            if (!strcmp(a, sc[k].opt)) {
                rc = params_set(&t.run, sc[k].key, argv[++i], &err);
                done = 1;
            }
        if (done)
            continue;
        if (!strcmp(a, "--set"))
            rc = run_apply_setting(&t.run, &t.scene, &t.solver, argv[++i], &err);
        else if (!strcmp(a, "--solver") || !strcmp(a, "--scene") || !strcmp(a, "--out") || !strcmp(a, "--config") ||
                 !strcmp(a, "--preset") || !strcmp(a, "--resume") || !strcmp(a, "--checkpoint-every"))
            i++;
    }
    int status = 0;
    if (!rc && CLI_EXECUTE) {
        char cmdline[2048] = "";
        for (int i = 0; i < argc; i++) {
            strncat(cmdline, argv[i], sizeof cmdline - strlen(cmdline) - 1);
            if (i + 1 < argc)
                strncat(cmdline, " ", sizeof cmdline - strlen(cmdline) - 1);
        }
        progress_ctx pc = {-1};
        pfb_run_config cfg = {.solver = solver,
                              .scene = scene,
                              .run = &t.run,
                              .scene_params = &t.scene,
                              .solver_params = &t.solver,
                              .out_dir = out,
                              .command_line = cmdline,
                              .checkpoint_every = ckpt_every,
                              .catch_signals = 1,
                              .resume = resume != NULL,
                              .force = force};
        if (!quiet && isatty(STDERR_FILENO)) {
            cfg.progress = show_progress;
            cfg.progress_ctx = &pc;
        }
        pfb_run_result res;
        rc = run_execute(&cfg, &res, &err);
        const double dt_given = params_get(&t.run, "dt");
        if (!rc && dt_given > 0.0 && fabs(res.dt - dt_given) > 1e-9 * dt_given)
            fprintf(stderr, "pfbench: note: dt %g s does not divide a frame of %g s: the step is %.9g s (%ld per "
                    "frame; run.meta's dt)\n", dt_given, res.dt * (double)res.substeps, res.dt, res.substeps);
        if (!rc) {
            if (res.unstable) {
                fprintf(stderr, "pfbench: run stopped: unstable: %s\n", res.reason);
                status = EXIT_UNSTABLE;
            } else if (!quiet) {
                fprintf(stderr, "pfbench: %zu particles, %ld steps of dt = %g s in %.3f s (%.3g s/step); wrote %s\n",
                        res.n0, res.steps, res.dt, res.wall_seconds,
                        res.steps ? res.wall_seconds / (double)res.steps : 0.0, out);
            }
        }
    }
    params_free(&t.run);
    params_free(&t.scene);
    params_free(&t.solver);
    free(ckpt_params);
    if (rc) {
        fprintf(stderr, "pfbench: %s\n", err.msg);
        return rc == PFB_EINTR ? EXIT_INTERRUPTED : EXIT_BAD;
    }
    return status;
}

/* ---- exp ----------------------------------------------------------------------- */

static void usage_exp(FILE *f)
{
    fputs("usage: pfbench exp NAME [--solvers a,b,...] [--quick] [--force] [--presets DIR] [--preset P]\n"
          "                  [--fluid FILE] [--reference DIR] [--plan | --only ID | --jobs N] --out DIR\n"
          "\n",
          f);
    print_names(f, "  NAME", 23, experiment_name_at);
    fputs("                       ('pfbench list' describes them)\n"
          "  --solvers a,b        solvers to include (default: every registered solver)\n"
          "  --quick              the reduced version (tests and CI; under a minute per solver)\n"
          "  --force              rerun runs whose outputs are current\n"
          "  --presets DIR        where NAME.ini presets live (default: scenes)\n"
          "  --fluid FILE         calibrate, validation, reference, rheology: the reference\n"
          "                       fluid (default: PRESETS/fluid.ini)\n"
          "  --preset P           material: calibrated (default), paper, none or an INI file\n"
          "  --reference DIR      validation: the continuum reference's CSVs (default:\n"
          "                       data/reference, made by `make reference`)\n"
          "  --seeds K            validation: the hydrostatic pool's runs per resolution, each\n"
          "                       its own run.seed, with their spread as the case's error bar\n"
          "                       (default 1; 1 to 64)\n"
          "  --out DIR            output directory: tidy CSVs, NAME_summary.csv, runs/<id>/\n"
          "  --plan               print one command per run that is not current (each\n"
          "                       `pfbench exp ... --only ID`) and run nothing; a timing\n"
          "                       is marked '# timing: alone'\n"
          "  --only ID            make only run ID (if not current); write no experiment file\n"
          "  --jobs N             run the plan N runs at a time, each in its own process with\n"
          "                       1/N of the threads (timings alone), planning again until\n"
          "                       every run is current; then collect.  A failed run is listed\n"
          "                       and the others kept (exit 1, no experiment file written)\n"
          "\n"
          "Runs whose run.meta records the same inputs (solver, scene, every parameter,\n"
          "commit) are skipped, so an interrupted experiment resumes where it stopped, and\n"
          "running the experiment once every run is current collects: nothing reruns.\n",
          f);
}

static void log_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* Option opt's value s as a count from 1 to hi into *out, or a one-line error
 * naming it ("'s' is not a number of what; valid: 1 to hi"). */
static int count_arg(const char *opt, const char *s, const char *what, long hi, int *out, pfb_err *err)
{
    char *end;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (*end || end == s || errno || v < 1 || v > hi)
        return pfb_err_set(err, PFB_EINVAL, "%s '%s' is not a number of %s; valid: 1 to %ld", opt, s, what, hi);
    *out = (int)v;
    return PFB_OK;
}

static int cmd_exp(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *solvers_arg = NULL, *presets = "scenes", *fluid_path = NULL,
               *preset_arg = NULL, *only = NULL, *jobs_arg = NULL, *ref_dir = NULL, *seeds_arg = NULL;
    int quick = 0, force = 0, plan = 0, jobs = 0, seeds = 1, rc = 0;
    pfb_err err;
    pfb_err_clear(&err);
    /* the options a planned run repeats: all but --plan, --only, --jobs and --force */
    char **args = calloc((size_t)argc + 1, sizeof *args);
    int nargs = 0;
    if (!args) {
        fprintf(stderr, "pfbench: out of memory\n");
        return EXIT_BAD;
    }
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i];
        const int first = i;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage_exp(stdout);
            free(args);
            return 0;
        } else if (!strcmp(a, "--plan")) {
            plan = 1;
            continue;
        } else if (!strcmp(a, "--only")) {
            only = need_value(argc, argv, &i, &err, &rc);
            continue;
        } else if (!strcmp(a, "--jobs")) {
            jobs_arg = need_value(argc, argv, &i, &err, &rc);
            continue;
        } else if (!strcmp(a, "--quick")) {
            quick = 1;
        } else if (!strcmp(a, "--force")) {
            force = 1;
            continue;
        } else if (!strcmp(a, "--out")) {
            out = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--solvers")) {
            solvers_arg = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--presets")) {
            presets = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--fluid")) {
            fluid_path = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--preset")) {
            preset_arg = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--reference")) {
            ref_dir = need_value(argc, argv, &i, &err, &rc);
        } else if (!strcmp(a, "--seeds")) {
            seeds_arg = need_value(argc, argv, &i, &err, &rc);
        } else if (a[0] == '-') {
            static const char *const opts[] = {"--quick",  "--force", "--out",  "--solvers", "--presets",
                                               "--fluid",  "--preset", "--help", "--plan",   "--only",
                                               "--jobs",   "--reference", "--seeds"};
            const char *near = pfb_nearest(a, opts, sizeof opts / sizeof opts[0]);
            rc = near ? pfb_err_set(&err, PFB_EINVAL, "unknown option '%s'; did you mean '%s'?", a, near)
                      : pfb_err_set(&err, PFB_EINVAL, "unknown option '%s'; see pfbench exp --help", a);
        } else if (!name) {
            name = a;
        } else {
            rc = pfb_err_set(&err, PFB_EINVAL, "unexpected argument '%s'; valid: one experiment name", a);
        }
        for (int k = first; k <= i && k < argc; k++)
            args[nargs++] = argv[k];
    }
    if (!rc && jobs_arg)
        rc = count_arg("--jobs", jobs_arg, "jobs", 256, &jobs, &err);
    if (!rc && seeds_arg)
        rc = count_arg("--seeds", seeds_arg, "seeds", 64, &seeds, &err);
    if (!rc && plan + (only != NULL) + (jobs_arg != NULL) > 1)
        rc = pfb_err_set(&err, PFB_EINVAL, "--plan, --only and --jobs exclude each other; valid: at most one of them");
    if (!rc && only && !*only)
        rc = pfb_err_set(&err, PFB_EINVAL, "--only needs a run id; valid: an id that --plan lists");
    const pfb_experiment *ex = NULL;
    if (!rc)
        rc = experiment_lookup(name ? name : "", &ex, &err); /* names the valid ones */
    if (!rc && !out)
        rc = pfb_err_set(&err, PFB_EINVAL, "missing --out DIR");
    const pfb_solver_ops *sel[64];
    size_t nsel = 0;
    if (!rc && solvers_arg) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", solvers_arg);
        for (char *tok = strtok(buf, ","); tok && !rc; tok = strtok(NULL, ",")) {
            const pfb_solver_ops *so;
            rc = solver_lookup(tok, &so, &err);
            if (!rc && nsel < 64)
                sel[nsel++] = so;
        }
    } else if (!rc) {
        for (size_t i = 0; pfb_solvers[i] && nsel < 64; i++)
            sel[nsel++] = pfb_solvers[i];
    }
    /* the material preset; the calibration searches from the solvers' defaults */
    pfb_preset preset;
    const int calib = !rc && !strcmp(ex->name, "calibrate");
    if (!rc && calib && preset_arg)
        rc = pfb_err_set(&err, PFB_EINVAL, "--preset '%s' is not read by calibrate (it searches from the solvers' "
                                           "defaults); valid: no --preset", preset_arg);
    if (!rc && !calib)
        rc = preset_resolve(preset_arg ? preset_arg : PFB_PRESET_DEFAULT, &preset, &err);
    /* the reference fluid, read before anything is written (a bad one leaves no file) */
    pfb_fluid fluid;
    char fpath[4096];
    const int wants_fluid = !rc && (!strcmp(ex->name, "calibrate") || !strcmp(ex->name, "validation") ||
                                    !strcmp(ex->name, "reference") || !strcmp(ex->name, "rheology"));
    if (!rc && fluid_path && !wants_fluid)
        rc = pfb_err_set(&err, PFB_EINVAL, "--fluid is read only by the calibrate, validation, reference and rheology experiments, not '%s'",
                         ex->name);
    if (!rc && seeds_arg && strcmp(ex->name, "validation"))
        rc = pfb_err_set(&err, PFB_EINVAL, "--seeds is read only by the validation experiment, not '%s'; "
                                           "valid: pfbench exp validation --seeds K",
                         ex->name);
    if (!rc && ref_dir && strcmp(ex->name, "validation"))
        rc = pfb_err_set(&err, PFB_EINVAL, "--reference is read only by the validation experiment, not '%s'; "
                                           "valid: pfbench exp validation --reference DIR",
                         ex->name);
    if (wants_fluid && !rc) {
        snprintf(fpath, sizeof fpath, "%s/fluid.ini", presets);
        rc = fluid_load(fluid_path ? fluid_path : fpath, &fluid, &err);
    }
    /* the continuum reference, checked before anything is written */
    if (!rc && !strcmp(ex->name, "validation"))
        rc = validation_check_reference(ref_dir ? ref_dir : "data/reference", &fluid, &err);
    if (!rc && !CLI_EXECUTE) {
        free(args);
        return 0;
    }
    pfb_exp_ctx ctx = {.out_dir = out, .preset_dir = presets, .fluid = wants_fluid ? &fluid : NULL,
                       .reference_dir = ref_dir ? ref_dir : "data/reference",
                       .preset = calib ? NULL : &preset, .quick = quick, .seeds = seeds, .force = force,
                       .solvers = sel, .nsolvers = nsel, .log = log_line};
    if (!rc && plan) { /* print the plan; run and write nothing */
        pfb_plan p;
        rc = plan_make(ex, &ctx, &p, &err);
        if (!rc) {
            plan_print(stdout, &p, argv[0], args, nargs);
            if (fflush(stdout) || ferror(stdout))
                rc = pfb_err_set(&err, PFB_EIO, "cannot write the plan to standard output");
            plan_free(&p);
        }
        free(args);
        if (rc) {
            fprintf(stderr, "pfbench: %s\n", err.msg);
            return EXIT_BAD;
        }
        return 0;
    }
    if (!rc)
        rc = output_prepare_dir(out, &err);
    if (!rc && jobs) { /* the pool; then the serial pass below collects */
        rc = pool_run(ex, &ctx, jobs, args, nargs, force, &err);
        ctx.force = 0;
    }
    if (!rc) /* a signal at any time, between runs too, stops the experiment with a checkpoint (exit 4) */
        run_catch_signals();
    if (!rc && only) { /* one run; no experiment file */
        int seen = 0;
        ctx.only = only;
        ctx.only_seen = &seen;
        rc = ex->run(&ctx, &err);
        if (!rc && !seen)
            rc = pfb_err_set(&err, PFB_EINVAL, "--only '%s' is no run of experiment '%s' with these options; "
                             "valid: an id that --plan lists", only, ex->name);
    } else if (!rc) {
        /* the ids of the runs this invocation used, written to OUT/manifest.csv only
         * when the experiment succeeds (with its CSVs) */
        char *mtext = NULL;
        size_t mlen = 0;
        FILE *mf = open_memstream(&mtext, &mlen);
        if (!mf)
            rc = pfb_err_set(&err, PFB_ENOMEM, "out of memory for the run manifest");
        else
            fputs("run_id\n", mf);
        ctx.manifest = mf;
        if (!rc) {
            fprintf(stderr, "pfbench exp %s%s -> %s\n", ex->name, quick ? " --quick" : "", out);
            rc = ex->run(&ctx, &err);
        }
        char mpath[4200];
        snprintf(mpath, sizeof mpath, "%s/manifest.csv", out);
        if (mf && !rc)
            rc = output_write_stream(mf, &mtext, &mlen, mpath, &err);
        else if (mf)
            fclose(mf);
        free(mtext);
    }
    free(args);
    if (rc) {
        fprintf(stderr, "pfbench: %s\n", err.msg);
        return rc == PFB_EINTR ? EXIT_INTERRUPTED : EXIT_BAD;
    }
    return 0;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        usage_main(stderr);
        return EXIT_BAD;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage_main(stdout);
        return 0;
    }
    if (!strcmp(cmd, "list"))
        return cmd_list(argc, argv);
    if (!strcmp(cmd, "run"))
        return cmd_run(argc, argv);
    if (!strcmp(cmd, "exp"))
        return cmd_exp(argc, argv);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc, argv);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("pfbench %s\ncommit %s\ncompiler %s\ncflags %s\n", pfb_version(), pfb_commit(), pfb_compiler(),
               pfb_cflags());
        return 0;
    }
    static const char *const cmds[] = {"list", "run", "exp", "bench", "version"};
    const char *near = pfb_nearest(cmd, cmds, 5);
    if (near)
        fprintf(stderr, "pfbench: unknown command '%s'; did you mean '%s'? valid: list, run, exp, bench, version\n", cmd,
                near);
    else
        fprintf(stderr, "pfbench: unknown command '%s'; valid: list, run, exp, bench, version\n", cmd);
    return EXIT_BAD;
}

/* Every command's standard output is checked once at the end: a write that
 * failed (a full disk, a closed pipe, /dev/full) is an error, not a success. */
int main(int argc, char **argv)
{
    wait_policy_default(argv);
    int status = dispatch(argc, argv);
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && status == 0) {
        fprintf(stderr, "pfbench: cannot write standard output: %s\n", errno ? strerror(errno) : "write error");
        status = EXIT_BAD;
    }
    return status;
}
